// OpenCL programs (build, in-memory and on-disk caches, build errors) and queued launches.
#include "runtime/opencl/opencl_program.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "runtime/opencl/opencl_backend.hpp"
#include "runtime/opencl/opencl_buffer.hpp"
#include "support/disk_cache.hpp"
#include "support/error.hpp"

#ifndef TACK_VERSION
#define TACK_VERSION "unknown"
#endif

namespace tack::detail {

namespace {

std::string program_binary(const OpenClApi& api, cl_program program) {
  std::size_t size = 0;
  if (api.GetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) !=
          CL_SUCCESS ||
      size == 0) {
    return "";
  }
  std::string binary(size, '\0');
  unsigned char* ptr = reinterpret_cast<unsigned char*>(binary.data());
  if (api.GetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS) {
    return "";
  }
  return binary;
}

std::string build_log(const OpenClApi& api, cl_program program, cl_device_id device) {
  std::size_t n = 0;
  if (api.GetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) !=
          CL_SUCCESS ||
      n == 0) {
    return "";
  }
  std::string log(n, '\0');
  api.GetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  while (!log.empty() &&
         (log.back() == '\0' || std::isspace(static_cast<unsigned char>(log.back()))))
    log.pop_back();
  return log;
}

std::string trim(std::string s) {
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  s.erase(0, b);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

// Finds ":LINE:COL:" in `text`; on success sets line, column and the position after it.
bool find_location(const std::string& text, int* line, int* column, std::size_t* after) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != ':') continue;
    std::size_t j = i + 1, k;
    long l = 0, c = 0;
    for (k = j; k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])); ++k)
      l = l * 10 + (text[k] - '0');
    if (k == j || k >= text.size() || text[k] != ':' || l > 1000000) continue;
    const std::size_t m = k + 1;
    for (k = m; k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])); ++k)
      c = c * 10 + (text[k] - '0');
    if (k == m || k >= text.size() || text[k] != ':' || c > 1000000) continue;
    *line = static_cast<int>(l);
    *column = static_cast<int>(c);
    *after = k + 1;
    return true;
  }
  return false;
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

}  // namespace

bool driver_caches_programs(const OpenClDeviceInfo& info) {
  // PoCL keeps compiled kernels in ~/.cache/pocl/kcache (unless POCL_KERNEL_CACHE=0), NVIDIA in
  // ~/.nv/ComputeCache (unless CUDA_CACHE_DISABLE=1). Asking PoCL for a binary compiles the
  // kernel a second time for it (measured: 76 ms for a one-line kernel, 10 s for a kernel using
  // every helper), so where the driver already caches, Tack only reads its own cache.
  if (info.platform_name.find("Portable Computing Language") != std::string::npos)
    return env_or("POCL_KERNEL_CACHE", "1") != "0";
  if (info.platform_name.find("NVIDIA") != std::string::npos)
    return env_or("CUDA_CACHE_DISABLE", "0") != "1";
  return false;
}

// ---- OpenClKernel, OpenClArgs ------------------------------------------------------------------

OpenClKernel::OpenClKernel(std::shared_ptr<const OpenClApi> api, cl_program program,
                           cl_kernel kernel, std::string name, std::string source, bool from_disk)
    : api_(std::move(api)),
      program_(program),
      kernel_(kernel),
      name_(std::move(name)),
      source_(std::move(source)),
      from_disk_(from_disk) {
  cl_uint n = 0;
  if (api_->GetKernelInfo(kernel_, CL_KERNEL_NUM_ARGS, sizeof n, &n, nullptr) == CL_SUCCESS)
    arg_count_ = n;
}

OpenClKernel::~OpenClKernel() {
  api_->ReleaseKernel(kernel_);
  api_->ReleaseProgram(program_);
}

OpenClArgs& OpenClArgs::array(const Array& a) {
  args_.push_back(OpenClArg::of_buffer(a.buffer()));
  for (std::int64_t extent : a.shape()) args_.push_back(OpenClArg::value<cl_long>(extent));
  if (a.dtype().is_vector()) args_.push_back(OpenClArg::value<cl_long>(a.dtype().vector_n));
  return *this;
}

OpenClArgs& OpenClArgs::buffer(std::shared_ptr<DeviceBuffer> b) {
  args_.push_back(OpenClArg::of_buffer(std::move(b)));
  return *this;
}

// ---- build errors -----------------------------------------------------------------------------

namespace {

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// The first 'name' or `name` in single quotes or backquotes that is a C identifier.
bool quoted_identifier(const std::string& l, std::string* name) {
  for (std::size_t open = l.find_first_of("'`"); open != std::string::npos;
       open = l.find_first_of("'`", open + 1)) {
    const std::size_t close = l.find_first_of("'`", open + 1);
    if (close == std::string::npos) return false;
    const std::string inside = l.substr(open + 1, close - open - 1);
    if (!inside.empty() && std::isdigit(static_cast<unsigned char>(inside[0])) == 0 &&
        std::all_of(inside.begin(), inside.end(), is_identifier_char)) {
      *name = inside;
      return true;
    }
    open = close;
  }
  return false;
}

// The line and column (1-based) of the first whole-word use of `name` in `source`.
bool first_use(const std::string& source, const std::string& name, int* line, int* column) {
  std::istringstream src(source);
  std::string s;
  for (int i = 1; std::getline(src, s); ++i) {
    for (std::size_t at = s.find(name); at != std::string::npos; at = s.find(name, at + 1)) {
      const std::size_t end = at + name.size();
      if ((at == 0 || !is_identifier_char(s[at - 1])) &&
          (end == s.size() || !is_identifier_char(s[end]))) {
        *line = i;
        *column = static_cast<int>(at) + 1;
        return true;
      }
    }
  }
  return false;
}

}  // namespace

void throw_build_error(const std::string& kernel_name, const std::string& device,
                       const std::string& source, const std::string& log,
                       const std::string& language) {
  // Vendors agree on "FILE:LINE:COL:" and on the word "error"; they differ in where the word
  // stands (PoCL: "error: FILE:3:10: msg", clang and NVIDIA: "FILE:3:10: error: msg").
  std::istringstream lines(log);
  std::string l, first_message;
  int line = 0, column = 0, errors = 0;
  while (std::getline(lines, l)) {
    if (l.find("error") == std::string::npos) continue;
    int ln = 0, col = 0;
    std::size_t after = 0;
    if (!find_location(l, &ln, &col, &after)) continue;
    ++errors;
    if (errors > 1) continue;
    line = ln;
    column = col;
    std::string msg = trim(l.substr(after));
    if (msg.rfind("error:", 0) == 0) msg = trim(msg.substr(6));
    if (msg.rfind("fatal error:", 0) == 0) msg = trim(msg.substr(12));
    first_message = msg;
  }
  if (errors == 0) {
    // Errors found after compiling, at link time, carry no location (NVIDIA: "ptxas fatal :
    // Unresolved extern function 'f'"): such an error is placed at the first use of the name
    // it quotes.
    std::istringstream again(log);
    while (errors == 0 && std::getline(again, l)) {
      if (l.find("error") == std::string::npos && l.find("fatal") == std::string::npos) continue;
      std::string name;
      if (!quoted_identifier(l, &name) || !first_use(source, name, &line, &column)) continue;
      ++errors;
      first_message = trim(l);
    }
  }
  std::string source_line;
  if (line > 0) {
    std::istringstream src(source);
    std::string s;
    for (int i = 1; std::getline(src, s); ++i) {
      if (i == line) {
        source_line = s;
        break;
      }
    }
  }
  std::string message;
  if (errors == 0) {
    message =
        "the " + language + " compiler of device '" + device +
        "' rejected the generated source: " + (log.empty() ? std::string("(no build log)") : log);
  } else {
    message = first_message + " (in the generated " + language + ", built for device '" + device +
              "'" +
              (errors > 1 ? "; " + std::to_string(errors - 1) + " more error(s) in the build log"
                          : std::string()) +
              ")";
  }
  throw CompileError(kernel_name, line, column, message, source_line);
}

// ---- OpenClBackend: build and launch ----------------------------------------------------------

std::shared_ptr<OpenClKernel> OpenClBackend::build_program(const std::string& source,
                                                           const std::string& kernel_name) {
  const auto key = std::make_pair(source, kernel_name);
  {
    std::lock_guard lock(programs_->mutex);
    auto it = programs_->kernels.find(key);
    if (it != programs_->kernels.end()) {
      if (auto k = it->second.lock()) return k;
    }
  }
  // IEEE single-precision / and sqrt (the IR's contract: no relaxed math), where the device
  // can; fp64 is always correctly rounded. No -cl-fast-relaxed-math, no -cl-mad-enable.
  const std::string options =
      info_.correctly_rounded_div_sqrt ? "-cl-fp32-correctly-rounded-divide-sqrt" : "";

  const std::string key_text = std::string(TACK_VERSION) + '\0' + info_.platform_name + '\0' +
                               info_.name + '\0' + info_.version + '\0' + info_.driver_version +
                               '\0' + options + '\0' + source;

  cl_program program = nullptr;
  bool from_disk = false;
  cl_int err = CL_SUCCESS;
  {
    if (const auto binary = cache_load(kOpenClFolder, key_text)) {
      const auto* bytes = reinterpret_cast<const unsigned char*>(binary->data());
      const std::size_t size = binary->size();
      cl_int status = CL_SUCCESS;
      program = api_->CreateProgramWithBinary(context_, 1, &device_, &size, &bytes, &status, &err);
      if (program != nullptr && (err != CL_SUCCESS || status != CL_SUCCESS ||
                                 api_->BuildProgram(program, 1, &device_, options.c_str(), nullptr,
                                                    nullptr) != CL_SUCCESS)) {
        api_->ReleaseProgram(program);  // a stale or foreign binary: compile instead
        program = nullptr;
      }
      from_disk = program != nullptr;
    }
  }
  if (program == nullptr) {
    const char* text = source.c_str();
    const std::size_t length = source.size();
    program = api_->CreateProgramWithSource(context_, 1, &text, &length, &err);
    if (program == nullptr || err != CL_SUCCESS) {
      throw RuntimeError("cannot create an OpenCL program on device '" + name() +
                         "': " + cl_error_string(err));
    }
    err = api_->BuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      const std::string log = build_log(*api_, program, device_);
      api_->ReleaseProgram(program);
      if (err == CL_BUILD_PROGRAM_FAILURE) throw_build_error(kernel_name, name(), source, log);
      throw RuntimeError("the OpenCL compiler of device '" + name() + "' is not usable (" +
                         cl_error_string(err) + ")" + (log.empty() ? "" : ": " + log));
    }
    if (!driver_caches_programs(info_)) {
      const std::string binary = program_binary(*api_, program);
      if (!binary.empty()) {
        cache_store(kOpenClFolder, key_text, std::vector<char>(binary.begin(), binary.end()));
      }
    }
  }
  cl_kernel kernel = api_->CreateKernel(program, kernel_name.c_str(), &err);
  if (kernel == nullptr || err != CL_SUCCESS) {
    api_->ReleaseProgram(program);
    throw RuntimeError("the OpenCL program built for device '" + name() +
                       "' has no kernel named '" + kernel_name + "' (" + cl_error_string(err) +
                       ")");
  }
  auto k = std::make_shared<OpenClKernel>(api_, program, kernel, kernel_name, source, from_disk);
  register_exit_drain();  // after the build's first use of the driver's statics
  std::lock_guard lock(programs_->mutex);
  std::erase_if(programs_->kernels, [](const auto& e) { return e.second.expired(); });
  auto& slot = programs_->kernels[key];
  if (auto first = slot.lock()) return first;  // a concurrent build of the same source won
  slot = k;
  return k;
}

std::size_t OpenClBackend::live_programs() const {
  std::lock_guard lock(programs_->mutex);
  std::size_t n = 0;
  for (const auto& [key, k] : programs_->kernels) n += !k.expired();
  return n;
}

void OpenClBackend::launch(OpenClKernel& kernel, const std::vector<OpenClArg>& args,
                           std::size_t global_size, std::size_t local_size) {
  if (args.size() != kernel.arg_count()) {
    throw RuntimeError("OpenCL kernel '" + kernel.name() + "' takes " +
                       std::to_string(kernel.arg_count()) + " arguments, but the launch gives " +
                       std::to_string(args.size()));
  }
  if (global_size == 0) return;  // nothing to run; OpenCL refuses an empty range
  TACK_INTERNAL_ASSERT(local_size == 0 || global_size % local_size == 0,
                       "a work-group size that does not divide the launch's global size");
  bool must_wait = false;
  {
    std::lock_guard lock(launch_mutex_);
    std::vector<OpenClAllocation*> used;
    used.reserve(args.size());
    for (std::size_t i = 0; i < args.size(); ++i) {
      const OpenClArg& a = args[i];
      const auto index = static_cast<cl_uint>(i);
      cl_int err;
      if (a.buffer) {
        auto* b = dynamic_cast<OpenClBuffer*>(a.buffer.get());
        if (b == nullptr || b->allocation().backend.get() != this) {
          throw RuntimeError("argument " + std::to_string(i) + " of kernel '" + kernel.name() +
                             "' is an array on device '" + a.buffer->backend()->name() +
                             "', but the launch runs on '" + name() +
                             "'; copy the array to this device first");
        }
        err = api_->SetKernelArgSVMPointer(kernel.handle(), index, b->data());
        must_wait = must_wait || b->shared();
        used.push_back(&b->allocation());
      } else {
        err = api_->SetKernelArg(kernel.handle(), index, a.size, a.bytes);
      }
      if (err != CL_SUCCESS) {
        throw RuntimeError("cannot bind argument " + std::to_string(i) + " of OpenCL kernel '" +
                           kernel.name() + "' (" + cl_error_string(err) +
                           "); the argument list does not match the kernel's parameters");
      }
    }
    const std::uint64_t ticket = next_ticket();
    const cl_int err =
        api_->EnqueueNDRangeKernel(queue_, kernel.handle(), 1, nullptr, &global_size,
                                   local_size == 0 ? nullptr : &local_size, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) {
      throw RuntimeError("cannot launch OpenCL kernel '" + kernel.name() + "' on device '" +
                         name() + "': " + cl_error_string(err));
    }
    for (OpenClAllocation* u : used) u->note_use(ticket);
    api_->Flush(queue_);  // start it now; the call still returns without waiting
  }
  // Memory handed outside Tack: the other side may touch it with no Tack call in between.
  if (must_wait) finish();
}

}  // namespace tack::detail
