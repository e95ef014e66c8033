// KernelImpl: a parsed kernel and its variant cache; the warm path of every launch.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/privatizable.hpp"
#include "codegen/kernel_abi.hpp"
#include "compiler/signature.hpp"
#include "dispatch/checks.hpp"
#include "frontend/ast.hpp"
#include "ir/ir.hpp"
#include "tack/kernel.hpp"

namespace tack::detail {

class Backend;
struct OpenClCode;

// Which backend's dispatch a variant takes: decided once, when the variant is lowered.
enum class DeviceKind : std::uint8_t { Cpu, OpenCl };

// The variant key of DESIGN.md section 7: device, per-parameter kind and type (with rank and
// vector width) and debug mode. Scalar values and the launch length are not in it. The CPU's
// disjoint bit is the last part of the key: it selects one of a Variant's two compiled codes,
// because deciding it needs the variant's written-parameter analysis.
struct VariantKey {
  const Backend* device = nullptr;
  std::vector<compiler::ArgType> args;
  bool debug = false;

  bool operator==(const VariantKey&) const = default;
  std::uint64_t hash() const;
};

// Holds compiled code alive and callable: what a backend's compiler returns.
struct CompiledCode {
  codegen::ChunkFn chunk = nullptr;
  codegen::ExtentFn extent = nullptr;
  std::shared_ptr<void> owner;  // the JIT resources behind the function pointers
};

struct Variant {
  VariantKey key;
  ir::Function ir;
  std::vector<bool> written;  // per parameter: may the kernel store to it or use it atomically
  std::vector<AtomicRequirement> atomics;
  std::vector<int> slot_of;  // per parameter: its first argument slot
  int slot_count = 0;
  // Compiled code per value of the disjoint bit, made on first use.
  std::unique_ptr<CompiledCode> storage[2];
  std::atomic<const CompiledCode*> code[2] = {nullptr, nullptr};
  // CPU, outside debug mode: the atomic targets a fanned-out launch may privatize, and the code
  // with their atomics as plain read-modify-writes, per disjoint bit, made on first use
  // (dispatch/private_atomics.hpp).
  std::vector<analysis::PrivatizableTarget> private_targets;
  std::unique_ptr<CompiledCode> private_storage[2];
  std::atomic<const CompiledCode*> private_code[2] = {nullptr, nullptr};
  // Measured cost, for the threading policy: nanoseconds per iteration (negative: unknown).
  std::atomic<double> ns_per_iteration{-1.0};
  DeviceKind device_kind = DeviceKind::Cpu;
  // OpenCL: one program per variant (no disjoint specialization), built on first use
  // (dispatch/opencl_dispatch.hpp).
  std::shared_ptr<const OpenClCode> opencl_storage;
  std::atomic<const OpenClCode*> opencl{nullptr};
};

class KernelImpl {
 public:
  KernelImpl(std::string source, std::string name, int first_line);

  void call(const KernelArg* args, std::size_t count);
  const std::string& name() const { return name_; }
  std::size_t variant_count() const;
  // The variant these arguments select, compiled if new (for inspect).
  Variant& variant_for(const KernelArg* args, std::size_t count);
  std::string inspect(const KernelArg* args, std::size_t count, std::string_view mode);

 private:
  void signature_of(const KernelArg* args, std::size_t count, VariantKey& key) const;
  Variant& find_or_lower(const VariantKey& key);
  std::unique_ptr<Variant> lower(const VariantKey& key);
  const CompiledCode& code_for(Variant& v, bool disjoint, bool privatized = false);
  void launch(Variant& v, bool disjoint, const KernelArg* args);

  std::string source_;
  std::string name_;
  frontend::Module module_;
  std::vector<std::string> param_names_;

  mutable std::shared_mutex mutex_;
  std::unordered_map<std::uint64_t, std::vector<std::unique_ptr<Variant>>> variants_;
  std::mutex compile_mutex_;  // one compile at a time per kernel; lookups do not wait for it
  std::atomic<Variant*> last_{nullptr};
};

// The IndexError of a debug-mode launch whose status recorded an out-of-bounds access (param
// -1: a local array); the same message on every device.
[[noreturn]] void raise_out_of_bounds(const std::string& kernel,
                                      const std::vector<std::string>& param_names,
                                      const KernelArg* args,
                                      const codegen::TackDebugStatus& status);

// Compiles a variant's IR for the CPU through the disk cache (dispatch/cpu_compile.cpp).
CompiledCode compile_for_cpu(const ir::Function& fn, bool disjoint, bool debug);
// inspect "source" and "optimized" for the CPU: LLVM IR before or after O3.
std::string cpu_source(const ir::Function& fn, bool disjoint, bool debug, bool optimized);

}  // namespace tack::detail
