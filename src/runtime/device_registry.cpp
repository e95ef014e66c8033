// The device list: the CPU always, other backends where their runtime answers.
#include <cstdlib>
#include <mutex>

#include "runtime/backend.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/opencl/opencl_backend.hpp"
#ifdef TACK_HAVE_CUDA
#include "runtime/cuda/cuda_backend.hpp"
#endif
#include "support/error.hpp"

namespace tack::detail {

dlpack::Device Backend::dlpack_device() const {
  throw RuntimeError("DLPack export is not available for device '" + name() +
                     "'; copy the array to the CPU first");
}

void Backend::check_dlpack_stream(std::int64_t stream) const {
  if (stream == -1) return;
  throw ValueError("__dlpack__: device '" + name() +
                   "' has no DLPack streams (an export waits for the array's queued launches "
                   "instead), so stream must be None (or -1), got " +
                   std::to_string(stream));
}

namespace {

struct Registry {
  std::mutex mutex;
  // The CPU first; the other devices once discovered (discover()).
  std::vector<std::shared_ptr<Backend>> backends;
  bool discovered = false;
  std::shared_ptr<Backend> default_backend;
  // TACK_DEVICE named no device present: what default_backend() raises until
  // set_default_backend() picks one.
  std::string default_error;
};

std::string names_of(const std::vector<std::shared_ptr<Backend>>& backends);
std::shared_ptr<Backend> find_in(const Registry& r, const std::string& name);

// The devices other than the CPU, found on first need (a name that is not "cpu", the device
// list, TACK_DEVICE naming another device), so that a program that only uses the CPU never
// loads or queries a driver (docs/design/cpu_limits.md). Called with r.mutex held.
void discover(Registry& r) {
  if (r.discovered) return;
  r.discovered = true;
  // OpenCL devices where a platform answers (after the CPU, which stays the default); a
  // missing or broken runtime only leaves them out.
  try {
    for (const auto& b : opencl_devices().backends) r.backends.push_back(b);
  } catch (...) {
  }
#ifdef TACK_HAVE_CUDA
  // CUDA devices where a driver answers (libcuda.so.1 loaded at run time; none without one).
  try {
    for (const auto& b : cuda_devices().backends) r.backends.push_back(b);
  } catch (...) {
  }
#endif
}

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry;  // intentionally immortal: buffers may outlive static destruction
    reg->backends.push_back(std::make_shared<CpuBackend>());
    reg->default_backend = reg->backends.front();
    // TACK_DEVICE=<name> ("opencl", "opencl:1"): the default device of the process, so that a
    // program runs unchanged on another device.
    if (const char* env = std::getenv("TACK_DEVICE"); env != nullptr && *env != '\0') {
      if (std::string(env) != "cpu") discover(*reg);
      if (auto b = find_in(*reg, env)) {
        reg->default_backend = b;
      } else {
        reg->default_error = std::string("TACK_DEVICE='") + env +
                             "' names no device present; the devices present are " +
                             names_of(reg->backends) +
                             " (unset TACK_DEVICE or set it to one of them)";
      }
    }
    return reg;
  }();
  return *r;
}

std::string names_of(const std::vector<std::shared_ptr<Backend>>& backends) {
  std::string s;
  for (const auto& b : backends) s += (s.empty() ? "'" : ", '") + b->name() + "'";
  return s;
}

std::shared_ptr<Backend> find_in(const Registry& r, const std::string& name) {
  for (const auto& b : r.backends) {
    if (b->name() == name) return b;
  }
  // "kind" alone names the first device of that kind ("opencl" -> "opencl:0").
  for (const auto& b : r.backends) {
    if (b->kind() == name) return b;
  }
  return nullptr;
}

}  // namespace

std::shared_ptr<Backend> find_backend(const std::string& name) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  if (auto b = find_in(r, name)) return b;
  discover(r);
  if (auto b = find_in(r, name)) return b;
  throw ValueError("no device named '" + name + "'; the devices present are " +
                   names_of(r.backends) + " (see tack.devices())");
}

std::vector<std::shared_ptr<Backend>> all_backends() {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  discover(r);
  return r.backends;
}

std::vector<std::shared_ptr<Backend>> known_backends() {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  return r.backends;
}

std::shared_ptr<Backend> default_backend() {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  if (!r.default_error.empty()) throw ValueError(r.default_error);
  return r.default_backend;
}

void set_default_backend(std::shared_ptr<Backend> backend) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.default_backend = std::move(backend);
  r.default_error.clear();
}

void validate_pointer(const Backend& backend, std::uintptr_t address) {
  auto spaces = backend.device_memory_spaces();
  if (spaces.empty()) return;
  std::string space = backend.memory_space(address);
  for (const auto& s : spaces) {
    if (s == space) return;
  }
  std::string accepted;
  for (const auto& s : spaces) accepted += (accepted.empty() ? "" : ", ") + s;
  throw ValueError("address " + std::to_string(address) + " is " + space + " memory, but device '" +
                   backend.name() + "' accepts only " + accepted +
                   " memory; copy the data with tack.array(...) instead of wrapping it");
}

}  // namespace tack::detail
