// The compiler pipeline, AST to checked typed IR and everything a target needs, in one readable
// function (pipeline.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/atomic_targets.hpp"
#include "analysis/privatizable.hpp"
#include "compiler/signature.hpp"
#include "frontend/ast.hpp"
#include "ir/ir.hpp"
#include "lowering/lower.hpp"

namespace tack::compiler {

// What a target needs to decide about a launch, besides the IR itself.
struct PipelineOptions {
  bool debug = false;              // bounds-checked code: no privatization either
  bool privatize_atomics = false;  // the target can run privatized atomics (the CPU)
  // A kernel with in-loop reductions or a value: its loop part or its epilogue part.
  lowering::KernelPart part = lowering::KernelPart::Loop;
  // The target can stream write-only outputs on large launches (the CPU): KernelIr::streaming.
  bool stream_outputs = false;
};

// A variant's checked IR and its analyses: what dispatch hands a target (targets/target.hpp).
struct KernelIr {
  ir::Function ir;
  // Per parameter: may the kernel store to it or use it atomically (an untraceable store makes
  // every array count as written).
  std::vector<bool> written;
  std::vector<analysis::AtomicTarget> atomics;  // the atomic targets and their alignment
  // Privatizable atomic targets and the IR with their atomics as plain read-modify-writes
  // (only when the options ask for privatization, outside debug mode, and there are targets).
  std::vector<analysis::PrivatizableTarget> private_targets;
  std::optional<ir::Function> privatized;
  std::int64_t private_bytes = 0;  // bytes of local arrays per work item
  // The kernel without its loop body (transforms::bounds_only), for a launch sized on the
  // host: only for kernels with workgroups or reductions' partials.
  std::optional<ir::Function> bounds;
  // Per parameter: an output the kernel only writes, each element once from its parallel loop
  // (analysis::streamed_outputs), and the IR with those stores streaming, for a launch too large
  // for the caches (only when the options ask for it, outside debug mode, and there are any).
  std::vector<bool> streamed;
  std::optional<ir::Function> streaming;
};

// Lowers kernel `kernel_name` of `module` for the argument signature, then runs the passes and
// analyses in order, the verifier after each pass. CompileError (with the kernel's line) on a
// program outside the language; TACK_PRINT_IR=1 prints the IR after each pass to stderr.
KernelIr compile_kernel(const frontend::Module& module, const std::string& kernel_name,
                        const std::vector<ArgType>& signature, const PipelineOptions& options);

// The lowered IR alone (the first pass of compile_kernel): for tests of lowering.
ir::Function build_ir(const frontend::Module& module, const std::string& kernel_name,
                      const std::vector<ArgType>& signature,
                      lowering::KernelPart part = lowering::KernelPart::Loop);

}  // namespace tack::compiler
