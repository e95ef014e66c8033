// The CUDA target: print, compile through NVRTC, load once per variant, bind and launch queued.
#include "targets/cuda/cuda_target.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <vector>

#include "codegen/cuda/cuda_printer.hpp"
#include "codegen/kernel_abi.hpp"
#include "memory/device_buffer.hpp"
#include "runtime/cuda/cuda_backend.hpp"
#include "runtime/cuda/cuda_buffer.hpp"
#include "runtime/cuda/cuda_compile.hpp"
#include "support/error.hpp"
#include "support/hash.hpp"
#include "support/log.hpp"
#include "tack/array.hpp"

namespace tack::detail {
namespace {

std::string print_cuda(const compiler::KernelIr& k, bool debug) {
  codegen::CStylePrinter::Options options;
  options.debug = debug;
  options.blocked = false;  // neighbouring threads take neighbouring elements (coalescing)
  return codegen::CudaPrinter().print(k.ir, options);
}

// A loaded module and its kernel; unloaded with the variant (if its context still lives).
struct CudaCode {
  std::shared_ptr<CudaBackend> backend;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  unsigned blocks = 0;        // the grid of a grid-stride launch: enough blocks to fill the device
  IterationCount iterations;  // workgroup kernels: one thread per iteration
  ~CudaCode() {
    if (module == nullptr || !cuda_context_usable(*backend->context())) return;
    try {
      CudaScope scope(*backend->context(), "unload");
      backend->api().ModuleUnload(module);
    } catch (...) {
    }
  }
};

class CudaVariantCode final : public VariantCode {
 public:
  CudaVariantCode(std::shared_ptr<CudaBackend> backend, const compiler::KernelIr& k,
                  const ParamFacts& facts, bool debug)
      : backend_(std::move(backend)), k_(k), facts_(facts), debug_(debug) {}

  codegen::TackDebugStatus launch(const KernelArg* args, std::size_t count) override;
  std::string inspect(const KernelArg*, std::size_t, bool optimized) override {
    const std::string text = print_cuda(k_, debug_);
    if (!optimized) return text;
    return compile_ptx(text, codegen::CStylePrinter::kernel_symbol(k_.ir), backend_->info().arch(),
                       backend_->name(), nullptr, /*nearest_older=*/true);
  }
  std::size_t code_count() const override { return code_.load() != nullptr; }

 private:
  const CudaCode& code();

  std::shared_ptr<CudaBackend> backend_;
  const compiler::KernelIr& k_;
  const ParamFacts& facts_;
  const bool debug_;
  std::mutex compile_mutex_;
  std::unique_ptr<CudaCode> storage_;
  std::atomic<const CudaCode*> code_{nullptr};
};

const CudaCode& CudaVariantCode::code() {
  if (const CudaCode* c = code_.load(std::memory_order_acquire)) return *c;
  std::lock_guard lock(compile_mutex_);
  if (const CudaCode* c = code_.load(std::memory_order_acquire)) return *c;
  const auto start = std::chrono::steady_clock::now();
  const std::string symbol = codegen::CStylePrinter::kernel_symbol(k_.ir);
  bool from_disk = false;
  const std::string ptx = compile_ptx(print_cuda(k_, debug_), symbol, backend_->info().arch(),
                                      backend_->name(), &from_disk, /*nearest_older=*/true);
  auto c = std::make_unique<CudaCode>();
  c->backend = backend_;
  {
    CudaScope scope(*backend_->context(), "load a kernel for");
    const CUresult loaded = backend_->api().ModuleLoadData(&c->module, ptx.c_str());
    if (loaded == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
      const int v = backend_->info().driver_version;
      throw RuntimeError("the CUDA driver of device '" + backend_->name() + "' (CUDA " +
                         std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10) +
                         ") cannot load the PTX NVRTC made for kernel '" + k_.ir.name +
                         "': NVRTC is newer than the driver; update the driver, or point "
                         "TACK_NVRTC_LIBRARY at the NVRTC of the driver's CUDA version or older");
    }
    backend_->check(loaded, "loading the PTX of kernel '" + k_.ir.name + "'");
    backend_->check(backend_->api().ModuleGetFunction(&c->function, c->module, symbol.c_str()),
                    "finding kernel '" + symbol + "' in its module");
  }
  // Every launch has blocks of a workgroup's threads; 2048 resident threads per multiprocessor,
  // the most one holds.
  c->blocks = static_cast<unsigned>(backend_->info().multiprocessors) * (2048 / ir::kWorkgroupSize);
  if (k_.ir.workgroups.line > 0) c->iterations = host_iteration_count(k_);
  if (log_enabled()) {
    log_event(describe_variant(k_.ir) + " on " + backend_->name() +
              (debug_ ? " (debug mode)" : "") + (from_disk ? ": PTX from the disk cache, " : ": ") +
              "compiled and loaded in " + elapsed_ms(start));
  }
  storage_ = std::move(c);
  code_.store(storage_.get(), std::memory_order_release);
  return *storage_;
}

codegen::TackDebugStatus CudaVariantCode::launch(const KernelArg* args, std::size_t n) {
  const CudaCode& c = code();
  check_element_alignment(facts_, args, n, backend_->name());
  // The kernel ABI of the shared printer: an array is its pointer, then its extents as
  // `long long` (shape, then the vector width), then its pitch if strided; a scalar is its
  // value in the parameter's C type (the low bytes of its slot); debug mode adds the status
  // pointer last. cuLaunchKernel takes a pointer to each value.
  thread_local std::vector<std::uint64_t> slots;
  thread_local std::vector<void*> params;
  slots.clear();
  params.clear();
  // One check of the context for the whole launch (every array of a call is on this device,
  // so in this context); the arrays' pointers are read without checking each again.
  CudaScope scope(*backend_->context(), "launch a kernel on");
  bool wait = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (const Array* a = args[i].array) {
      slots.push_back(static_cast<const CudaBuffer&>(*a->buffer()).pointer());
      for (std::int64_t extent : a->shape()) slots.push_back(static_cast<std::uint64_t>(extent));
      if (a->dtype().is_vector()) slots.push_back(static_cast<std::uint64_t>(a->dtype().vector_n));
      if (args[i].pitch != 0) slots.push_back(static_cast<std::uint64_t>(args[i].pitch));
      wait = wait || a->buffer()->shared();
    } else {
      slots.push_back(scalar_slot(args[i].scalar, k_.ir.params[i].type));
    }
  }
  std::shared_ptr<DeviceBuffer> status;
  if (debug_) {
    status = backend_->allocate(sizeof(codegen::TackDebugStatus));
    const unsigned char zero = 0;
    status->fill(&zero, 1);  // queued before the launch, on the same stream
    slots.push_back(static_cast<const CudaBuffer&>(*status).pointer());
  }
  for (auto& s : slots) params.push_back(&s);  // the slots no longer grow
  unsigned blocks = c.blocks;
  if (c.iterations) {
    const std::int64_t total = c.iterations(args, n);
    if (total <= 0) return {};
    check_whole_workgroups(k_.ir, total);
    const std::int64_t groups = total / ir::kWorkgroupSize;
    if (groups > 0x7fffffff) {
      throw ValueError("kernel '" + k_.ir.name + "': " + std::to_string(groups) +
                       " workgroups exceed CUDA's grid limit of 2^31 - 1 blocks; split the call");
    }
    blocks = static_cast<unsigned>(groups);
  }
  backend_->check(backend_->api().LaunchKernel(c.function, blocks, 1, 1,
                                               static_cast<unsigned>(ir::kWorkgroupSize), 1, 1, 0,
                                               backend_->stream(), params.data(), nullptr),
                  "launching kernel '" + k_.ir.name + "'");
  // Memory shared outside Tack: the other library may touch it with no Tack call between.
  if (wait) {
    backend_->check(backend_->api().StreamSynchronize(backend_->stream()),
                    "running kernel '" + k_.ir.name + "'");
  }
  codegen::TackDebugStatus s;
  if (status) status->to_host(&s, 0, sizeof s);  // waits for the launch
  return s;
}

// Where TACK_CUDA_CHECK points (empty: the check is off). Read once.
const std::string& cuda_check_folder() {
  static const std::string* folder = [] {
    const char* v = std::getenv("TACK_CUDA_CHECK");
    return new std::string(v != nullptr ? v : "");  // immortal: read during exit too
  }();
  return *folder;
}

// Writes the CUDA C++ of `kernel` into cuda_check_folder() as <hash>.cu (once per text).
void cuda_check_record(const compiler::KernelIr& kernel, bool debug) {
  const std::string& folder = cuda_check_folder();
  if (folder.empty()) return;
  const std::string text = print_cuda(kernel, debug);
  const std::filesystem::path dir(folder);
  const std::filesystem::path file = dir / (hex64(fnv1a(text)) + ".cu");
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) return;
  std::filesystem::create_directories(dir, ec);
  // Written under a unique name, then renamed: processes running at once never see half a file.
  const std::filesystem::path part =
      dir / (file.filename().string() + "." + std::to_string(::getpid()) + ".part");
  {
    std::ofstream out(part, std::ios::binary);
    out << text;
    if (!out) return;  // best effort: a full disk only leaves this kernel out of the check
  }
  std::filesystem::rename(part, file, ec);
}

class CudaTarget final : public Target {
 public:
  std::string display_name() const override { return "CUDA"; }
  compiler::PipelineOptions pipeline_options(bool debug) const override {
    return {debug, false};  // no privatized atomics
  }
  std::unique_ptr<VariantCode> compile(const std::shared_ptr<Backend>& device,
                                       const compiler::KernelIr& kernel, const ParamFacts& facts,
                                       bool debug) const override {
    auto backend = std::dynamic_pointer_cast<CudaBackend>(device);
    TACK_INTERNAL_ASSERT(backend != nullptr, "the CUDA target given a device that is not CUDA");
    return std::make_unique<CudaVariantCode>(std::move(backend), kernel, facts, debug);
  }
  // "optimized" and "ptx" are both the PTX NVRTC makes.
  std::vector<std::string> inspect_modes() const override { return {"source", "optimized", "ptx"}; }
  bool compiles_offline() const override { return true; }
  std::string default_arch() const override { return std::string(kDefaultCudaArch); }
  std::string offline_code(const compiler::KernelIr& kernel, bool debug, std::string_view mode,
                           std::string_view arch) const override {
    const std::string text = print_cuda(kernel, debug);
    if (mode == "source") return text;
    const std::string a = arch.empty() ? default_arch() : std::string(arch);
    const int cc = compute_capability_of(a);
    return compile_ptx(text, codegen::CStylePrinter::kernel_symbol(kernel.ir), a,
                       "sm_" + std::to_string(cc) + ", compiled offline");
  }
  // TACK_CUDA_CHECK: every variant of every device also goes to the CI's CUDA check as CUDA
  // C++ (cheap: the printer only; tests/cuda/cuda_check.cpp compiles and assembles the folder
  // afterwards).
  void variant_compiled(const compiler::KernelIr& kernel, bool debug) const override {
    if (!cuda_check_folder().empty()) cuda_check_record(kernel, debug);
  }
  bool observes_variants() const override { return !cuda_check_folder().empty(); }
};

}  // namespace

const Target& cuda_target() {
  static const Target* target = new CudaTarget;  // immortal: kernels may launch during exit
  return *target;
}

}  // namespace tack::detail
