// The compiler pipeline, AST to checked typed IR: each pass in order, the verifier after each,
// and TACK_PRINT_IR=1 printing the IR after each pass to stderr.
#include "compiler/pipeline.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string_view>

#include "analysis/private_memory.hpp"
#include "analysis/streamed_outputs.hpp"
#include "analysis/written_arrays.hpp"
#include "ir/printer.hpp"
#include "ir/verifier.hpp"
#include "lowering/lower.hpp"
#include "tack/error.hpp"
#include "transforms/bounds_only.hpp"
#include "transforms/privatize.hpp"
#include "transforms/stream_stores.hpp"

namespace tack::compiler {
namespace {

// Read at every compilation (compiling is not a hot path), so a test or a debugger session can
// switch it on at any time.
bool print_ir_requested() {
  const char* v = std::getenv("TACK_PRINT_IR");
  return v != nullptr && *v != '\0' && std::string_view(v) != "0";
}

// Every pass ends here: print if asked, then verify, so a broken pass is named where it broke
// the IR and not in a backend.
void after_pass(const ir::Function& fn, std::string_view pass, bool print) {
  if (print) std::cerr << "; Tack IR after " << pass << "\n" << fn << std::flush;
  ir::verify_or_throw(fn, pass);
}

}  // namespace

ir::Function build_ir(const frontend::Module& module, const std::string& kernel_name,
                      const std::vector<ArgType>& signature, lowering::KernelPart part) {
  const frontend::FunctionDef* kernel = module.find(kernel_name);
  if (kernel == nullptr) {
    throw ValueError("the kernel source defines no function named '" + kernel_name + "'");
  }
  // Lowering types the AST for this signature, inlines device functions and folds literals;
  // everything later (optimization) is LLVM's job on the CPU and the device compilers' elsewhere.
  ir::Function fn = lowering::lower_kernel(module, *kernel, signature, part);
  after_pass(fn, "lowering", print_ir_requested());
  return fn;
}

KernelIr compile_kernel(const frontend::Module& module, const std::string& kernel_name,
                        const std::vector<ArgType>& signature, const PipelineOptions& options) {
  const bool print = print_ir_requested();
  KernelIr k{build_ir(module, kernel_name, signature, options.part),
             {},
             {},
             {},
             std::nullopt,
             0,
             std::nullopt,
             {},
             std::nullopt};

  // The analyses dispatch's checks and the targets read (the hidden parameters of a kernel
  // with a value included).
  const auto written = analysis::written_array_params(k.ir);
  k.written.assign(k.ir.params.size(), false);
  for (std::size_t i = 0; i < k.ir.params.size(); ++i) {
    k.written[i] = k.ir.params[i].is_array() && (!written || (*written)[i]);
  }
  k.atomics = analysis::atomic_targets(k.ir);
  k.private_bytes = analysis::private_array_bytes(k.ir);

  // Privatized atomics: a second IR, for a target that can run it (docs/design/
  // privatized_atomics.md). Bounds-checked code keeps every atomic as it is.
  if (options.privatize_atomics && !options.debug) {
    k.private_targets = analysis::privatizable_atomic_targets(k.ir);
    if (!k.private_targets.empty()) {
      k.privatized = transforms::privatize_atomics(k.ir, k.private_targets);
      after_pass(*k.privatized, "privatize atomics", print);
    }
  }
  // Streamed outputs: a third IR, whose stores to them go around the caches, for the launches
  // of a target that decides by the sizes (docs/design/streaming_stores.md).
  k.streamed.assign(k.ir.params.size(), false);
  // Not beside privatized atomics: a launch that privatizes runs the privatized IR, whose
  // stores are the plain ones.
  if (options.stream_outputs && !options.debug && k.private_targets.empty()) {
    k.streamed = analysis::streamed_outputs(k.ir);
    if (std::find(k.streamed.begin(), k.streamed.end(), true) != k.streamed.end()) {
      k.streaming = transforms::stream_stores(k.ir, k.streamed);
      after_pass(*k.streaming, "stream stores", print);
    }
  }
  // A launch sized on the host (a workgroup kernel's groups, a reduction's blocks) runs the
  // kernel's bounds there.
  const bool blocks = !k.ir.partials.empty() && options.part == lowering::KernelPart::Loop;
  if ((k.ir.workgroups.line > 0 || blocks) && k.ir.parallel_for() != nullptr) {
    k.bounds = transforms::bounds_only(k.ir);
    after_pass(*k.bounds, "bounds only", print);
  }
  return k;
}

}  // namespace tack::compiler
