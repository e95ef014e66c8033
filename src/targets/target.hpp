// The compile-and-launch seam of a device kind. Dispatch (dispatch/kernel_impl.cpp) computes a
// call's signature, finds or builds the variant (compiler::compile_kernel), runs the checks of
// every device and hands the variant to its device's Target; everything that differs between
// devices -- code generation, the compiled code, argument packing, the launch policy, queueing,
// what inspect shows -- lives behind this interface, one folder per kind (targets/cpu,
// targets/opencl, targets/cuda). A new device is a runtime folder (its Backend), a target folder
// and one line of targets/registry.cpp (docs/architecture.md, "Adding a device").
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/kernel_abi.hpp"
#include "compiler/pipeline.hpp"
#include "runtime/backend.hpp"
#include "tack/kernel.hpp"

namespace tack::detail {

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
  // Whether launch() itself calls before_long_work() before whatever of it takes long (the
  // CPU: only a launch predicted past a few microseconds); if not, dispatch calls it before
  // every launch.
  virtual bool tells_long_work() const { return false; }
};

// A variant's KernelIr on first need: a variant made from its kernel record
// (docs/design/kernel_records.md) is lowered only when its code asks (a compile, inspect).
using LoweredKernel = std::function<const compiler::KernelIr&()>;

// A device kind's compiler and launcher. Stateless: one per kind, for every device of it.
class Target {
 public:
  virtual ~Target() = default;
  // How messages name the kind ("CUDA", "OpenCL").
  virtual std::string display_name() const = 0;
  // What the compiler pipeline should produce for this target.
  virtual compiler::PipelineOptions pipeline_options(bool debug) const { return {debug, false}; }
  // The variant's code for `device` (a device of this target's kind). It may compile at once or
  // at the first launch; `kernel` and `facts` outlive the result (both belong to the variant).
  virtual std::unique_ptr<VariantCode> compile(const std::shared_ptr<Backend>& device,
                                               const compiler::KernelIr& kernel,
                                               const ParamFacts& facts, bool debug) const = 0;
  // The modes of tack.inspect besides "ir": "source" is the code as given to the device's
  // compiler, the others what VariantCode::inspect answers with `optimized` set.
  virtual std::vector<std::string> inspect_modes() const { return {"source", "optimized"}; }

  // Offline code (tack.inspect(..., device=<kind>, arch=...)): whether this kind's code can be
  // made without a device of it, and that code for `arch` (empty: default_arch()); `mode` is
  // one of inspect_modes(), `kernel` compiled with pipeline_options(debug).
  virtual bool compiles_offline() const { return false; }
  virtual std::string default_arch() const { return {}; }
  virtual std::string offline_code(const compiler::KernelIr& kernel, bool debug,
                                   std::string_view mode, std::string_view arch) const;

  // Told of every variant compiled for any device (after the pipeline, before its target
  // compiles it): CUDA's TACK_CUDA_CHECK records each as CUDA C++. A variant made from its
  // kernel record is never compiled: a target that overrides this must say so in
  // observes_variants while it wants to see every variant (no variant comes from a record then).
  virtual void variant_compiled(const compiler::KernelIr& kernel, bool debug) const {
    (void)kernel, (void)debug;
  }
  virtual bool observes_variants() const { return false; }

  // Kernel records (docs/design/kernel_records.md): what this target's code of `kernel` (the
  // variant of `signature`) reads at a launch besides ParamFacts, as bytes a later process
  // hands to from_record instead of running the front end and the pipeline; empty when this
  // target makes no code from records, or none of this kernel.
  virtual std::vector<char> record_facts(const compiler::KernelIr& kernel,
                                         const std::vector<compiler::ArgType>& signature) const {
    (void)kernel, (void)signature;
    return {};
  }
  // The variant's code from what record_facts wrote; nullptr when it does not read back (the
  // caller then lowers the variant). `lowered` lowers it when the code needs its IR.
  virtual std::unique_ptr<VariantCode> from_record(const std::shared_ptr<Backend>& device,
                                                   const std::vector<char>& record,
                                                   const std::vector<compiler::ArgType>& signature,
                                                   LoweredKernel lowered, const ParamFacts& facts,
                                                   bool debug) const {
    (void)device, (void)record, (void)signature, (void)lowered, (void)facts, (void)debug;
    return nullptr;
  }
};

// The device kinds (registry.cpp, one line each). Registers a kind: how its devices are found
// (nullptr: none are listed, as for a device a test makes itself) and its target, which must
// outlive every kernel that uses it. A test's fake device registers itself this way.
void register_device_kind(std::string kind, FindDevices find, const Target& target);
// The target of a kind, or of `device`'s kind; nullptr when Tack cannot launch kernels there.
const Target* target_for(std::string_view kind);
const Target* target_for(const Backend& device);
// The target that makes offline code for `kind`: ValueError naming the kinds that can. (A kind
// this build left out, CUDA without its headers, is registered with a target whose code is the
// RuntimeError saying so.)
const Target& offline_target(std::string_view kind);
// Every registered kind and its target, by kind.
std::vector<std::pair<std::string, const Target*>> registered_targets();
// Tells every registered target of a compiled variant (Target::variant_compiled).
void variant_compiled(const compiler::KernelIr& kernel, bool debug);
// Whether a registered target observes every variant (Target::observes_variants).
bool variants_observed();

// The parallel loop's iteration count of a call, computed on the host by a kernel's bounds
// (KernelIr::bounds, transforms::bounds_only) compiled for the host: for launches sized on the
// host (a workgroup kernel's groups, a reduction's blocks). The host is the CPU, so the CPU
// target defines it.
using IterationCount = std::function<std::int64_t(const KernelArg* args, std::size_t count)>;
IterationCount host_iteration_count(const compiler::KernelIr& kernel);

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
