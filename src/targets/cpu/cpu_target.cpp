// The CPU target: a variant's code per aliasing case (the noalias variant only for calls whose
// written arrays are disjoint from every other array), compiled through the disk cache, and the
// launch policy: pack the argument slots, time a probe, fan out when the rest is worth it.
#include "targets/cpu/cpu_target.hpp"

#include <dlfcn.h>
#include <sys/stat.h>
#include <cstdio>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>

#include "codegen/llvm/llvm_codegen.hpp"
#include "ir/builder.hpp"
#include "ir/printer.hpp"
#include "ir/visitor.hpp"
#include "memory/device_buffer.hpp"
#include "runtime/parallel.hpp"
#include "support/crash_report.hpp"
#include "support/disk_cache.hpp"
#include "support/error.hpp"
#include "support/log.hpp"
#include "targets/cpu/private_atomics.hpp"

namespace tack::detail {
namespace {

// Holds compiled code alive and callable.
struct CompiledCode {
  codegen::ChunkFn chunk = nullptr;
  codegen::ExtentFn extent = nullptr;
  std::shared_ptr<void> owner;  // the JIT resources behind the function pointers
};

// The threading policy: fan out only when the predicted serial time of the rest of the launch
// exceeds this (an OpenMP fan-out and join costs a few microseconds; see
// docs/design/threading.md).
constexpr double kFanOutNs = 20000.0;
constexpr std::int64_t kProbeIterations = 512;

codegen::CodegenOptions options(bool disjoint, bool debug) {
  codegen::CodegenOptions o;
  o.disjoint = disjoint;
  o.bounds_check = debug;
  return o;
}

// Identifies this build of Tack's code generator beyond its version number: the size and time
// of the library file holding this code, so a rebuilt Tack never loads its predecessor's code.
std::string build_id() {
  Dl_info info{};
  struct stat st {};
  if (dladdr(reinterpret_cast<void*>(&build_id), &info) != 0 && info.dli_fname != nullptr &&
      ::stat(info.dli_fname, &st) == 0) {
    return std::to_string(st.st_size) + "-" + std::to_string(st.st_mtime);
  }
  return "unknown";
}

// Everything that determines the generated code: a change of any part never loads stale code.
std::string cache_key(const ir::Function& fn, bool disjoint, bool debug) {
  static const std::string target = codegen::host_target_id();
  static const std::string build = build_id();
  return std::string("tack ") + TACK_VERSION + " " + build + "\nllvm " + TACK_LLVM_VERSION +
         "\ntarget " + target + "\ndisjoint " + (disjoint ? "1" : "0") + "\ndebug " +
         (debug ? "1" : "0") + "\n" + ir::to_string(fn);
}

// A kernel's code from the disk cache or the compiler. The cache holds two entries per kernel:
// the object, and the image its link produced (codegen/linked_image.hpp), which a later process
// maps without LLVM. A missing or unusable image falls back to the object, a missing or
// unusable object to a compile; whichever step succeeds writes the entries that were missing.
CompiledCode compile_for_cpu(const ir::Function& fn, bool disjoint, bool debug) {
  const auto start = std::chrono::steady_clock::now();
  const std::string key = cache_key(fn, disjoint, debug);
  const std::string image_key = key + "\nlinked image\n";
  std::shared_ptr<codegen::JitModule> module;
  const char* how = "loaded from the disk cache (linked image)";
  if (auto image = cache_load("", image_key)) {
    try {
      module = codegen::load_image(*image);
    } catch (const RuntimeError&) {
      module.reset();  // a corrupt or unusable image only costs a link
    }
  }
  if (!module) {
    how = "loaded from the disk cache (object, linked)";
    const auto names = codegen::symbol_names(fn);
    if (auto object = cache_load("", key)) {
      try {
        module = codegen::load_object(*object, names);
      } catch (const RuntimeError&) {
        module.reset();  // a corrupt entry only costs a recompile
      }
    }
    if (!module) {
      how = "compiled";
      std::vector<char> object = codegen::compile_to_object(fn, options(disjoint, debug));
      module = codegen::load_object(object, names);
      cache_store("", key, object);
    }
    const std::vector<char> image = module->take_image();
    if (!image.empty()) cache_store("", image_key, image);
  }
  if (log_enabled()) {
    log_event(describe_variant(fn) + " on cpu" + (disjoint ? " (disjoint arrays)" : "") +
              (debug ? " (debug mode)" : "") + ": " + how + " in " + elapsed_ms(start));
  }
  CompiledCode code;
  code.chunk = module->chunk();
  code.extent = module->extent();
  code.owner = module;
  return code;
}

// The kernel ABI's argument slots (codegen/kernel_abi.hpp) of one call.
void pack_slots(const ir::Function& f, const std::vector<int>& slot_of, const KernelArg* args,
                std::size_t n, std::uint64_t* slots) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t* s = slots + slot_of[i];
    if (const Array* a = args[i].array) {
      s[0] = a->address();
      for (int d = 0; d < a->ndim(); ++d) s[1 + d] = static_cast<std::uint64_t>(a->shape()[d]);
      if (a->dtype().is_vector())
        s[1 + a->ndim()] = static_cast<std::uint64_t>(a->dtype().vector_n);
      if (args[i].pitch != 0)
        s[1 + a->ndim() + (a->dtype().is_vector() ? 1 : 0)] =
            static_cast<std::uint64_t>(args[i].pitch);
    } else {
      s[0] = scalar_slot(args[i].scalar, f.params[i].type);
    }
  }
}

// Whether a kernel prints (its output is flushed at the end of each launch).
bool prints(const ir::Function& f) {
  struct Finder : ir::Visitor {
    bool found = false;
    void visit(const ir::Print&) override { found = true; }
  } finder;
  finder.visit_function(f);
  return finder.found;
}

class CpuCode final : public VariantCode {
 public:
  CpuCode(const compiler::KernelIr& k, bool debug) : k_(k), debug_(debug), prints_(prints(k.ir)) {
    codegen::ArgLayout layout = codegen::arg_layout(k.ir);
    slot_of_ = std::move(layout.first_slot);
    slot_count_ = layout.slot_count;
  }

  codegen::TackDebugStatus launch(const KernelArg* args, std::size_t count) override {
    const codegen::TackDebugStatus status = run(args, count);
    if (prints_) std::fflush(stdout);  // print() output is out by the end of the call
    return status;
  }

  std::string inspect(const KernelArg* args, std::size_t count, bool optimized) override {
    return codegen::emit_llvm_ir(k_.ir, options(disjoint(args, count), debug_), optimized);
  }

  std::size_t code_count() const override {
    return (code_[0].load() != nullptr) + (code_[1].load() != nullptr);
  }

 private:
  bool disjoint(const KernelArg* args, std::size_t count) const {
    return specialize_disjoint() && arrays_disjoint(k_.written, args, count);
  }
  const CompiledCode& code_for(bool disjoint, bool privatized);

  codegen::TackDebugStatus run(const KernelArg* args, std::size_t count);

  const compiler::KernelIr& k_;
  const bool debug_;
  const bool prints_;
  std::vector<int> slot_of_;  // per parameter: its first argument slot
  int slot_count_ = 0;
  std::mutex compile_mutex_;  // one compile at a time; launches of compiled code do not wait
  // Compiled code per value of the disjoint bit, and the privatized code likewise, made on
  // first use.
  std::unique_ptr<CompiledCode> storage_[2], private_storage_[2];
  std::atomic<const CompiledCode*> code_[2] = {nullptr, nullptr};
  std::atomic<const CompiledCode*> private_code_[2] = {nullptr, nullptr};
  // Measured cost, for the threading policy: nanoseconds per iteration (negative: unknown).
  std::atomic<double> ns_per_iteration_{-1.0};
};

const CompiledCode& CpuCode::code_for(bool disjoint, bool privatized) {
  auto& code = privatized ? private_code_[disjoint] : code_[disjoint];
  if (const CompiledCode* c = code.load(std::memory_order_acquire)) return *c;
  std::lock_guard compile_lock(compile_mutex_);
  if (const CompiledCode* c = code.load(std::memory_order_acquire)) return *c;
  auto& storage = privatized ? private_storage_[disjoint] : storage_[disjoint];
  storage = std::make_unique<CompiledCode>(
      compile_for_cpu(privatized ? *k_.privatized : k_.ir, disjoint, debug_));
  code.store(storage.get(), std::memory_order_release);
  return *storage;
}

codegen::TackDebugStatus CpuCode::run(const KernelArg* args, std::size_t n) {
  const bool disjoint_arrays = disjoint(args, n);
  const CompiledCode& code = code_for(disjoint_arrays, false);
  const KernelCodeScope in_kernel;  // a fault from here on is the kernel's (crash_report.hpp)
  std::uint64_t small[64];
  std::vector<std::uint64_t> big;
  std::uint64_t* slots = small;
  if (slot_count_ > 64) {
    big.resize(static_cast<std::size_t>(slot_count_));
    slots = big.data();
  }
  pack_slots(k_.ir, slot_of_, args, n, slots);
  const std::int64_t total = code.extent(slots);
  codegen::TackDebugStatus status;
  if (total <= 0) return status;
  using clock = std::chrono::steady_clock;
  std::int64_t begin = 0;
  double nspi = ns_per_iteration_.load(std::memory_order_relaxed);
  if (nspi < 0) {
    // Unknown cost: run a first probe inline and time it.
    const std::int64_t probe = std::min(total, kProbeIterations);
    const auto t0 = clock::now();
    code.chunk(slots, 0, probe, &status);
    const auto t1 = clock::now();
    nspi = std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(probe);
    ns_per_iteration_.store(nspi, std::memory_order_relaxed);
    begin = probe;
  }
  const std::int64_t rest = total - begin;
  if (rest <= 0) return status;
  if (static_cast<double>(rest) * nspi < kFanOutNs || num_threads() <= 1) {
    code.chunk(slots, begin, total, &status);
    return status;
  }
  const auto grain = static_cast<std::int64_t>(kFanOutNs / 4 / std::max(nspi, 0.01)) + 1;
  if (k_.privatized && privatize_worthwhile(k_.private_targets, args, n, rest)) {
    run_privatized(k_.private_targets, code_for(disjoint_arrays, true).chunk,
                   SlotLayout{slots, &slot_of_, slot_count_}, begin, rest, grain, &status, args);
    return status;
  }
  struct Ctx {
    codegen::ChunkFn chunk;
    const std::uint64_t* slots;
    std::int64_t offset;
    codegen::TackDebugStatus* status;
  } ctx{code.chunk, slots, begin, &status};
  parallel_for(
      rest, grain,
      [](void* c, std::int64_t b, std::int64_t e) {
        auto* x = static_cast<Ctx*>(c);
        const KernelCodeScope in_kernel;  // a fault on this worker is the kernel's
        x->chunk(x->slots, x->offset + b, x->offset + e, x->status);
      },
      &ctx);
  return status;
}

class CpuTarget final : public Target {
 public:
  compiler::PipelineOptions pipeline_options(bool debug) const override { return {debug, true}; }
  std::unique_ptr<VariantCode> compile(const std::shared_ptr<Backend>&,
                                       const compiler::KernelIr& kernel, const ParamFacts&,
                                       bool debug) const override {
    const ir::WorkgroupUse& w = kernel.ir.workgroups;
    if (w.line > 0) {
      throw CompileError(kernel.ir.name, w.line, w.column,
                         w.what +
                             " needs workgroups, which the CPU device does not have; run this "
                             "kernel on an OpenCL device (tack.device(\"opencl\")), or write it "
                             "without workgroups for the CPU",
                         w.source_line);
    }
    return std::make_unique<CpuCode>(kernel, debug);
  }
};

}  // namespace

IterationCount host_iteration_count(const ir::Function& fn) {
  // The kernel without its loop body: the prelude and the bounds, compiled for the host.
  const ir::ParallelFor* loop = fn.parallel_for();
  TACK_INTERNAL_ASSERT(loop != nullptr, "host_iteration_count of a kernel without its loop");
  ir::Function bounds = fn;
  std::vector<ir::Stmt> body = fn.prelude();
  body.push_back(ir::ParallelFor::make(loop->dims, ir::block({})));
  bounds.body = ir::block(std::move(body));
  bounds.asserts.clear();
  bounds.workgroups = {};
  auto code = std::make_shared<CompiledCode>(compile_for_cpu(bounds, false, false));
  codegen::ArgLayout layout = codegen::arg_layout(bounds);
  return [code, layout, bounds](const KernelArg* args, std::size_t n) {
    std::vector<std::uint64_t> slots(static_cast<std::size_t>(layout.slot_count) + 1);
    pack_slots(bounds, layout.first_slot, args, n, slots.data());
    return code->extent(slots.data());
  };
}

bool arrays_disjoint(const std::vector<bool>& written, const KernelArg* args, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    if (!written[i] || args[i].array == nullptr) continue;
    const auto si = args[i].array->buffer()->span();
    if (!si) return false;
    if (si->begin == si->end) continue;
    for (std::size_t j = 0; j < count; ++j) {
      if (j == i || args[j].array == nullptr) continue;
      const auto sj = args[j].array->buffer()->span();
      if (!sj) return false;
      if (sj->begin == sj->end) continue;
      if (si->begin < sj->end && sj->begin < si->end) return false;
    }
  }
  return true;
}

const Target& cpu_target() {
  static const Target* target = new CpuTarget;  // immortal: kernels may launch during exit
  return *target;
}

}  // namespace tack::detail
