// The OpenCL target: print, build once per variant, bind and enqueue (see the header).
#include "targets/opencl/opencl_target.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>

#include "codegen/kernel_abi.hpp"
#include "codegen/opencl/opencl_printer.hpp"
#include "memory/device_buffer.hpp"
#include "runtime/opencl/opencl_backend.hpp"
#include "runtime/opencl/opencl_program.hpp"
#include "support/error.hpp"
#include "support/log.hpp"

namespace tack::detail {
namespace {

// What the printed source needs that a device may lack, as the printer reports it.
void check_device_features(const OpenClBackend& b, const codegen::CFeatures& needs,
                           const std::string& kernel) {
  const OpenClDeviceInfo& info = b.info();
  auto refuse = [&](const std::string& what, const std::string& fix) {
    throw RuntimeError("kernel '" + kernel + "' needs " + what + ", which device '" + b.name() +
                       "' (" + info.name + ") does not offer; " + fix);
  };
  if (!info.fp64 && needs.f64) {
    refuse("double precision (f64, cl_khr_fp64)",
           "use f32 arrays and scalars there, or run it on the CPU");
  }
  if (!info.int64_atomics && needs.atomics64) {
    refuse("64-bit atomics (cl_khr_int64_base_atomics)",
           "use 32-bit atomic targets there, or run it on the CPU");
  }
}

// A variant's program on its device, built at the first launch.
struct OpenClCode {
  std::shared_ptr<OpenClKernel> kernel;
  std::size_t global_size = 0;  // work items per launch
  std::size_t local_size = 0;   // work-group size, 0: the driver's choice (work_group_size)
  // A kernel that uses workgroups runs one iteration per work item in groups of
  // ir::kWorkgroupSize: the host counts the iterations of each call (docs/design/workgroups.md).
  IterationCount iterations;
};

class OpenClVariantCode final : public VariantCode {
 public:
  OpenClVariantCode(std::shared_ptr<OpenClBackend> backend, const compiler::KernelIr& k,
                    const ParamFacts& facts, bool debug)
      : backend_(std::move(backend)), k_(k), facts_(facts), debug_(debug) {}

  codegen::TackDebugStatus launch(const KernelArg* args, std::size_t count) override;
  std::string inspect(const KernelArg* args, std::size_t count, bool optimized) override;
  std::size_t code_count() const override { return code_.load() != nullptr; }

 private:
  std::string source(codegen::CFeatures* needs = nullptr) const;
  const OpenClCode& code();

  std::shared_ptr<OpenClBackend> backend_;
  const compiler::KernelIr& k_;
  const ParamFacts& facts_;
  const bool debug_;
  std::mutex compile_mutex_;
  std::unique_ptr<OpenClCode> storage_;
  std::atomic<const OpenClCode*> code_{nullptr};
};

std::string OpenClVariantCode::source(codegen::CFeatures* needs) const {
  codegen::CStylePrinter::Options options;
  options.debug = debug_;
  // A CPU device runs each work item as a loop on one core: contiguous runs per work item.
  // Elsewhere (GPUs) neighbouring work items take neighbouring elements, for coalescing.
  options.blocked = backend_->info().cpu && k_.ir.workgroups.line == 0;
  return codegen::OpenClPrinter().print(k_.ir, options, needs);
}

// The program, built on first use (one build at a time per variant). CompileError when the
// driver rejects the source; RuntimeError when the variant needs what the device lacks (f64,
// 64-bit atomics).
const OpenClCode& OpenClVariantCode::code() {
  if (const OpenClCode* c = code_.load(std::memory_order_acquire)) return *c;
  std::lock_guard lock(compile_mutex_);
  if (const OpenClCode* c = code_.load(std::memory_order_acquire)) return *c;
  const auto start = std::chrono::steady_clock::now();
  auto code = std::make_unique<OpenClCode>();
  codegen::CFeatures needs;
  const std::string text = source(&needs);
  check_device_features(*backend_, needs, k_.ir.name);
  code->kernel = backend_->build_program(text, codegen::CStylePrinter::kernel_symbol(k_.ir));
  code->global_size = backend_->default_global_size();
  code->local_size = backend_->work_group_size(k_.private_bytes, code->global_size);
  if (k_.ir.workgroups.line > 0) code->iterations = host_iteration_count(k_);
  if (log_enabled()) {
    log_event(describe_variant(k_.ir) + " on " + backend_->name() +
              (debug_ ? " (debug mode)" : "") + ": built by the OpenCL driver in " +
              elapsed_ms(start));
  }
  storage_ = std::move(code);
  code_.store(storage_.get(), std::memory_order_release);
  return *storage_;
}

codegen::TackDebugStatus OpenClVariantCode::launch(const KernelArg* args, std::size_t n) {
  const OpenClCode& c = code();
  // One argument list per thread, reused: after the launch it is emptied, so it never keeps
  // an array's buffer (and so its memory) alive past the call.
  thread_local OpenClArgs list;
  struct Clear {
    OpenClArgs& l;
    ~Clear() { l.clear(); }
  } clear{list};

  check_element_alignment(facts_, args, n, backend_->name());
  for (std::size_t i = 0; i < n; ++i) {
    if (const Array* a = args[i].array) {
      list.array(*a);
      if (args[i].pitch != 0) list.scalar(static_cast<std::int64_t>(args[i].pitch));
    } else {
      const ir::ScalarType t = k_.ir.params[i].type;
      list.slot(scalar_slot(args[i].scalar, t), static_cast<std::size_t>(ir::bytes_in_memory(t)));
    }
  }
  std::shared_ptr<DeviceBuffer> status;
  if (debug_) {
    status = backend_->allocate(sizeof(codegen::TackDebugStatus));
    const unsigned char zero = 0;
    status->fill(&zero, 1);  // queued before the launch, on the same in-order queue
    list.buffer(status);
  }
  std::size_t global_size = c.global_size, local_size = c.local_size;
  if (c.iterations) {
    const std::int64_t total = c.iterations(args, n);
    if (total <= 0) return {};
    check_whole_workgroups(k_.ir, total);
    global_size = static_cast<std::size_t>(total);
    local_size = ir::kWorkgroupSize;
  }
  backend_->launch(*c.kernel, list.list(), global_size, local_size);
  codegen::TackDebugStatus s;
  if (status) status->to_host(&s, 0, sizeof s);  // waits for the launch
  return s;
}

std::string OpenClVariantCode::inspect(const KernelArg*, std::size_t, bool optimized) {
  std::string text = source();
  if (!optimized) return text;
  return "// tack.inspect(mode=\"optimized\") on device '" + backend_->name() +
         "': OpenCL drivers compile and optimize this\n// source themselves, out of Tack's "
         "sight, so this is the source as handed to the driver.\n" +
         text;
}

class OpenClTarget final : public Target {
 public:
  std::string display_name() const override { return "OpenCL"; }
  std::unique_ptr<VariantCode> compile(const std::shared_ptr<Backend>& device,
                                       const compiler::KernelIr& kernel, const ParamFacts& facts,
                                       bool debug) const override {
    auto backend = std::dynamic_pointer_cast<OpenClBackend>(device);
    TACK_INTERNAL_ASSERT(backend != nullptr, "the OpenCL target given a device that is not OpenCL");
    return std::make_unique<OpenClVariantCode>(std::move(backend), kernel, facts, debug);
  }
};

}  // namespace

const Target& opencl_target() {
  static const Target* target = new OpenClTarget;  // immortal: kernels may launch during exit
  return *target;
}

}  // namespace tack::detail
