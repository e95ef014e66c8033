// Compiled OpenCL kernels and launch arguments: what dispatch hands OpenClBackend::launch.
//
// The kernel ABI (as codegen/opencl/opencl_printer.hpp prints it), parameter by parameter:
//   array parameter  -> its SVM pointer (a view's at its offset), then one `long` extent per
//                       index (the shape, then the vector width n for a vec(n, t) array);
//   scalar parameter -> its value in the kernel's C type (bool as uchar);
//   debug mode       -> one more pointer last: a TackDebugStatus buffer (codegen/kernel_abi.hpp).
// OpenClArgs builds exactly that list from Arrays and values.
//
//   auto k = backend.build_program(OpenClPrinter().print(fn), "saxpy");
//   OpenClArgs args;
//   args.array(x).array(y).scalar(2.0f);
//   backend.launch(*k, args.list(), backend.default_global_size());   // queued, returns
//   y.to_vector<float>();                                               // waits for it
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "memory/device_buffer.hpp"
#include "runtime/opencl/opencl_api.hpp"
#include "tack/array.hpp"

namespace tack::detail {

// A built program and one kernel of it. Shared: the backend's cache keeps it, and launches of
// one kernel object are serialized by the backend (clSetKernelArg is not thread-safe).
class OpenClKernel {
 public:
  OpenClKernel(std::shared_ptr<const OpenClApi> api, cl_program program, cl_kernel kernel,
               std::string name, std::string source, bool from_disk);
  ~OpenClKernel();
  OpenClKernel(const OpenClKernel&) = delete;
  OpenClKernel& operator=(const OpenClKernel&) = delete;

  const std::string& name() const { return name_; }
  const std::string& source() const { return source_; }
  // True when the program came from the on-disk binary cache instead of the compiler.
  bool from_disk() const { return from_disk_; }
  cl_kernel handle() const { return kernel_; }
  // The kernel's parameter count (CL_KERNEL_NUM_ARGS): a launch must bind every one, since
  // OpenCL would otherwise reuse the values of an earlier launch.
  std::size_t arg_count() const { return arg_count_; }

 private:
  std::shared_ptr<const OpenClApi> api_;
  cl_program program_;
  cl_kernel kernel_;
  std::string name_;
  std::string source_;
  bool from_disk_;
  std::size_t arg_count_ = 0;
};

// One launch argument: a buffer (bound as its SVM pointer) or a value of 1 to 8 bytes.
struct OpenClArg {
  std::shared_ptr<DeviceBuffer> buffer;  // set for buffers
  unsigned char bytes[8] = {};
  std::size_t size = 0;  // for values: the C type's size

  static OpenClArg of_buffer(std::shared_ptr<DeviceBuffer> b) {
    OpenClArg a;
    a.buffer = std::move(b);
    return a;
  }
  template <class T>
  static OpenClArg value(T v) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8, "a scalar of 1 to 8 bytes");
    OpenClArg a;
    std::memcpy(a.bytes, &v, sizeof(T));
    a.size = sizeof(T);
    return a;
  }
};

// The argument list of the kernel ABI above, built in parameter order.
class OpenClArgs {
 public:
  // The array's pointer, then its extents as `long`: shape, then the vector width if any.
  OpenClArgs& array(const Array& a);
  // A bare pointer (the debug status buffer).
  OpenClArgs& buffer(std::shared_ptr<DeviceBuffer> b);
  template <class T>
  OpenClArgs& scalar(T v) {
    static_assert(!std::is_same_v<T, bool>, "use boolean(): bool travels as uchar");
    args_.push_back(OpenClArg::value(v));
    return *this;
  }
  OpenClArgs& boolean(bool v) { return scalar(static_cast<std::uint8_t>(v ? 1 : 0)); }
  // A value of `size` bytes given as the low bytes of a 64-bit slot (codegen::scalar_slot; the
  // hosts Tack runs on are little-endian).
  OpenClArgs& slot(std::uint64_t bits, std::size_t size) {
    OpenClArg a;
    std::memcpy(a.bytes, &bits, size);
    a.size = size;
    args_.push_back(a);
    return *this;
  }
  const std::vector<OpenClArg>& list() const { return args_; }
  // Empties the list, keeping its capacity (dispatch reuses one list per thread).
  void clear() { args_.clear(); }

 private:
  std::vector<OpenClArg> args_;
};

// Turns a failed build's log into a CompileError: the first "LINE:COL: error" it names, with
// that line of `source` quoted. Exposed for tests of the log formats of several vendors.
// `language` names the generated code in the message (the CUDA target passes "CUDA C++").
[[noreturn]] void throw_build_error(const std::string& kernel_name, const std::string& device,
                                    const std::string& source, const std::string& log,
                                    const std::string& language = "OpenCL C");

struct OpenClDeviceInfo;
// Whether the device's driver keeps its own on-disk cache of built programs; Tack then reads
// its cache but does not write it (fetching a binary can cost a second compile).
bool driver_caches_programs(const OpenClDeviceInfo& info);

}  // namespace tack::detail
