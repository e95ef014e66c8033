// The compile-and-launch seam of a device kind. Dispatch (dispatch/kernel_impl.cpp) computes a
// call's signature, finds or builds the variant (compiler::compile_kernel), runs the checks of
// every device and hands the variant to its device's Target; everything that differs between
// devices -- code generation, the compiled code, argument packing, the launch policy, queueing,
// what inspect shows -- lives behind this interface, one folder per kind (targets/cpu,
// targets/opencl). A new device is a runtime folder (its Backend), a target folder and one line
// of targets/registry.cpp (docs/architecture.md, "Adding a device").
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/kernel_abi.hpp"
#include "compiler/pipeline.hpp"
#include "tack/kernel.hpp"

namespace tack::detail {

class Backend;

// What a variant knows about its parameters that checks and messages need.
struct ParamFacts {
  const std::string* kernel_name = nullptr;
  const std::vector<std::string>* param_names = nullptr;
  const std::vector<bool>* written = nullptr;  // per parameter
  const std::vector<analysis::AtomicTarget>* atomics = nullptr;
};

// One variant compiled for one device: made by Target::compile, held by the variant.
class VariantCode {
 public:
  virtual ~VariantCode() = default;
  // Runs, or queues, the launch on arguments dispatch has checked (one device, writable
  // arrays, atomic alignment). The written arrays' versions are dispatch's to bump. Returns the
  // debug-mode status (`failed` set when an access was out of bounds); all zero otherwise.
  virtual codegen::TackDebugStatus launch(const KernelArg* args, std::size_t count) = 0;
  // tack.inspect's "source" and "optimized" for the code these arguments would run.
  virtual std::string inspect(const KernelArg* args, std::size_t count, bool optimized) = 0;
  // Compiled codes made so far (Kernel::variant_count): the CPU makes one per aliasing case.
  virtual std::size_t code_count() const = 0;
};

// A device kind's compiler and launcher. Stateless: one per kind, for every device of it.
class Target {
 public:
  virtual ~Target() = default;
  // What the compiler pipeline should produce for this target.
  virtual compiler::PipelineOptions pipeline_options(bool debug) const { return {debug, false}; }
  // The variant's code for `device` (a device of this target's kind). It may compile at once or
  // at the first launch; `kernel` and `facts` outlive the result (both belong to the variant).
  virtual std::unique_ptr<VariantCode> compile(const std::shared_ptr<Backend>& device,
                                               const compiler::KernelIr& kernel,
                                               const ParamFacts& facts, bool debug) const = 0;
};

// The target of `device`'s kind; nullptr when Tack cannot launch kernels there.
const Target* target_for(const Backend& device);
// Registers `target` for backends of `kind` (a test's fake device; the built-in ones are in
// registry.cpp). `target` must outlive every kernel that uses it.
void register_target(std::string kind, const Target* target);

// A kernel's scalar argument as the parameter's type `t` holds it: the value converted to `t`,
// its bytes in the low bytes of the 64-bit slot (the CPU passes the slot; a device binds the
// low ir::bytes_in_memory(t) bytes, bool as one byte). The one place scalars are packed.
std::uint64_t scalar_slot(const Scalar& s, ir::ScalarType t);

// Shared by targets whose generated code may assume natural alignment (OpenCL C; the CPU's
// loads and stores are unaligned-safe): ValueError when an array is not aligned for its element.
void check_element_alignment(const ParamFacts& facts, const KernelArg* args, std::size_t count,
                             const std::string& device);

// A workgroup kernel's launch of `total` iterations (docs/design/workgroups.md): ValueError
// unless it is a whole number of groups of ir::kWorkgroupSize.
void check_whole_workgroups(const ir::Function& fn, std::int64_t total);

// "kernel 'k' (x: array<f32, 1>, s: f32)": how the log names a variant.
std::string describe_variant(const ir::Function& fn);
// Milliseconds since `start`, as the log prints them ("12.3 ms").
std::string elapsed_ms(std::chrono::steady_clock::time_point start);

}  // namespace tack::detail
