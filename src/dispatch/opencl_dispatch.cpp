// OpenCL kernel dispatch: print, build once per variant, bind and enqueue (see the header).
#include "dispatch/opencl_dispatch.hpp"

#include <cstdint>
#include <string_view>

#include "analysis/private_memory.hpp"
#include "codegen/kernel_abi.hpp"
#include "codegen/opencl/opencl_printer.hpp"
#include "dispatch/kernel_impl.hpp"
#include "runtime/opencl/opencl_backend.hpp"
#include "runtime/opencl/opencl_program.hpp"
#include "support/error.hpp"

namespace tack::detail {
namespace {

// A scalar argument in the kernel parameter's C type (codegen/opencl/opencl_printer.hpp).
void push_scalar(OpenClArgs& list, const Scalar& s, ir::ScalarType t) {
  const auto i = s.kind == Scalar::Kind::UInt ? static_cast<std::int64_t>(s.u) : s.i;
  switch (t) {
    case ir::ScalarType::Bool:
      list.boolean(s.i != 0);
      break;
    case ir::ScalarType::I8:
      list.scalar(static_cast<cl_char>(i));
      break;
    case ir::ScalarType::I16:
      list.scalar(static_cast<cl_short>(i));
      break;
    case ir::ScalarType::I32:
      list.scalar(static_cast<cl_int>(i));
      break;
    case ir::ScalarType::I64:
      list.scalar(static_cast<cl_long>(i));
      break;
    case ir::ScalarType::U8:
      list.scalar(static_cast<cl_uchar>(i));
      break;
    case ir::ScalarType::U16:
      list.scalar(static_cast<cl_ushort>(i));
      break;
    case ir::ScalarType::U32:
      list.scalar(static_cast<cl_uint>(i));
      break;
    case ir::ScalarType::U64:
      list.scalar(static_cast<cl_ulong>(
          s.kind == Scalar::Kind::UInt ? s.u : static_cast<std::uint64_t>(i)));
      break;
    case ir::ScalarType::F32:
      list.scalar(static_cast<cl_float>(s.as_double()));
      break;
    case ir::ScalarType::F64:
      list.scalar(static_cast<cl_double>(s.as_double()));
      break;
  }
}

// The variant's device as an OpenClBackend (the variant key holds it as a plain Backend).
std::shared_ptr<OpenClBackend> backend_of(const Variant& v) {
  auto b = std::const_pointer_cast<Backend>(v.key.device->shared_from_this());
  auto ocl = std::dynamic_pointer_cast<OpenClBackend>(b);
  TACK_INTERNAL_ASSERT(ocl != nullptr, "an OpenCL variant on a device that is not OpenCL");
  return ocl;
}

// What the printed source needs that a device may lack, as the printer's header enables it.
void check_device_features(const OpenClBackend& b, const std::string& source,
                           const std::string& kernel) {
  const OpenClDeviceInfo& info = b.info();
  auto refuse = [&](const std::string& what, const std::string& fix) {
    throw RuntimeError("kernel '" + kernel + "' needs " + what + ", which device '" + b.name() +
                       "' (" + info.name + ") does not offer; " + fix);
  };
  if (!info.fp64 && source.find("cl_khr_fp64") != std::string::npos) {
    refuse("double precision (f64, cl_khr_fp64)",
           "use f32 arrays and scalars there, or run it on the CPU");
  }
  if (!info.int64_atomics && source.find("cl_khr_int64_base_atomics") != std::string::npos) {
    refuse("64-bit atomics (cl_khr_int64_base_atomics)",
           "use 32-bit atomic targets there, or run it on the CPU");
  }
}

}  // namespace

std::string opencl_source(const Variant& v) {
  codegen::CStylePrinter::Options options;
  options.debug = v.key.debug;
  // A CPU device runs each work item as a loop on one core: contiguous runs per work item.
  // Elsewhere (GPUs) neighbouring work items take neighbouring elements, for coalescing.
  options.blocked = static_cast<const OpenClBackend*>(v.key.device)->info().cpu;
  return codegen::OpenClPrinter().print(v.ir, options);
}

const OpenClCode& opencl_code(Variant& v, std::mutex& compile_mutex) {
  if (const OpenClCode* c = v.opencl.load(std::memory_order_acquire)) return *c;
  std::lock_guard lock(compile_mutex);
  if (const OpenClCode* c = v.opencl.load(std::memory_order_acquire)) return *c;
  auto code = std::make_shared<OpenClCode>();
  code->backend = backend_of(v);
  code->source = opencl_source(v);
  check_device_features(*code->backend, code->source, v.ir.name);
  code->kernel =
      code->backend->build_program(code->source, codegen::CStylePrinter::kernel_symbol(v.ir));
  code->global_size = code->backend->default_global_size();
  code->local_size =
      code->backend->work_group_size(analysis::private_array_bytes(v.ir), code->global_size);
  v.opencl_storage = code;
  v.opencl.store(code.get(), std::memory_order_release);
  return *code;
}

void opencl_launch(Variant& v, const OpenClCode& code, const KernelArg* args,
                   const ParamFacts& facts) {
  // One argument list per thread, reused: after the launch it is emptied, so it never keeps
  // an array's buffer (and so its memory) alive past the call.
  thread_local OpenClArgs list;
  struct Clear {
    OpenClArgs& l;
    ~Clear() { l.clear(); }
  } clear{list};

  const std::size_t n = v.key.args.size();
  check_element_alignment(facts, args, n, code.backend->name());
  for (std::size_t i = 0; i < n; ++i) {
    if (const Array* a = args[i].array) {
      list.array(*a);
    } else {
      push_scalar(list, args[i].scalar, v.ir.params[i].type);
    }
  }
  OpenClBackend& backend = *code.backend;
  std::shared_ptr<DeviceBuffer> status;
  if (v.key.debug) {
    status = backend.allocate(sizeof(codegen::TackDebugStatus));
    const unsigned char zero = 0;
    status->fill(&zero, 1);  // queued before the launch, on the same in-order queue
    list.buffer(status);
  }
  backend.launch(*code.kernel, list.list(), code.global_size, code.local_size);
  for (std::size_t i = 0; i < n; ++i) {
    if ((*facts.written)[i] && args[i].array != nullptr) args[i].array->buffer()->bump_version();
  }
  if (status) {
    codegen::TackDebugStatus s;
    status->to_host(&s, 0, sizeof s);  // waits for the launch
    if (s.failed) raise_out_of_bounds(*facts.kernel_name, *facts.param_names, args, s);
  }
}

std::string opencl_inspect(const Variant& v, bool optimized) {
  std::string source = opencl_source(v);
  if (!optimized) return source;
  const std::string device = v.key.device->name();
  return "// tack.inspect(mode=\"optimized\") on device '" + device +
         "': OpenCL drivers compile and optimize this\n// source themselves, out of Tack's "
         "sight, so this is the source as handed to the driver.\n" +
         source;
}

}  // namespace tack::detail
