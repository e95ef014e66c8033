// The device list: the CPU always, other backends where their runtime answers.
#include <atomic>
#include <cstdlib>
#include <mutex>

#include "runtime/backend.hpp"
#include "runtime/cpu/cpu_backend.hpp"
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

struct Kind {
  std::string name;
  FindDevices find;
};

// The kinds added so far (add_device_kind), kept apart from the registry so that adding one
// makes nothing.
struct Kinds {
  std::mutex mutex;
  std::vector<Kind> list;
};
Kinds& kinds() {
  static Kinds* k = new Kinds;  // immortal, as the registry
  return *k;
}

struct Registry {
  std::mutex mutex;
  // The CPU first; the other devices once discovered (discover()), kind by kind in the order
  // the kinds were added.
  std::vector<std::shared_ptr<Backend>> backends;
  std::vector<std::string> found_kinds;  // the kinds whose devices are in `backends`
  bool discovered = false;
  // TACK_DEVICE is read at the first question about the default device (resolve_default), not
  // when the registry is made: the kinds are added by static initializers, and one of them may
  // be what TACK_DEVICE names.
  bool default_resolved = false;
  std::shared_ptr<Backend> default_backend;
  // TACK_DEVICE named no device present: what default_backend() raises until
  // set_default_backend() picks one.
  std::string default_error;
};

std::string names_of(const std::vector<std::shared_ptr<Backend>>& backends);
std::shared_ptr<Backend> find_in(const Registry& r, const std::string& name);

// Appends the devices of one kind (once); a missing or broken runtime only leaves them out.
void find_kind(Registry& r, const Kind& kind) {
  for (const std::string& k : r.found_kinds) {
    if (k == kind.name) return;
  }
  r.found_kinds.push_back(kind.name);
  try {
    for (auto& b : kind.find()) r.backends.push_back(std::move(b));
  } catch (...) {
  }
}

// The devices other than the CPU, found on first need (a name that is not "cpu", the device
// list, TACK_DEVICE naming another device), so that a program that only uses the CPU never
// loads or queries a driver (docs/design/cpu_limits.md). Called with r.mutex held.
void discover(Registry& r) {
  if (r.discovered) return;
  r.discovered = true;
  std::vector<Kind> list;
  {
    std::lock_guard lock(kinds().mutex);
    list = kinds().list;
  }
  for (const Kind& k : list) find_kind(r, k);
}

// TACK_DEVICE=<name> ("opencl", "opencl:1"): the default device of the process, so that a
// program runs unchanged on another device. Called with r.mutex held.
void resolve_default(Registry& r) {
  if (r.default_resolved) return;
  r.default_resolved = true;
  const char* env = std::getenv("TACK_DEVICE");
  if (env == nullptr || *env == '\0') return;
  if (std::string(env) != "cpu") discover(r);
  if (auto b = find_in(r, env)) {
    r.default_backend = b;
  } else {
    r.default_error = std::string("TACK_DEVICE='") + env +
                      "' names no device present; the devices present are " + names_of(r.backends) +
                      " (unset TACK_DEVICE or set it to one of them)";
  }
}

// Whether the registry holds the CPU (Locked).
std::atomic<bool>& started() {
  static std::atomic<bool> s{false};
  return s;
}

Registry& the_registry() {
  static Registry* r =
      new Registry;  // intentionally immortal: buffers may outlive static destruction
  return *r;
}

// The registry, locked for the holder's lifetime, with the CPU in it. The CPU backend is made
// on the first question about devices, not when a kind is added (as the library loads):
// making it applies TACK_CPU_MALLOC, which should happen when Tack is first used.
struct Locked {
  Locked() : r(the_registry()), lock(r.mutex) {
    if (!r.backends.empty()) return;
    r.backends.push_back(std::make_shared<CpuBackend>());
    r.default_backend = r.backends.front();
    started().store(true);
  }
  Registry& r;
  std::lock_guard<std::mutex> lock;
};

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

void add_device_kind(std::string kind, FindDevices find) {
  const Kind k{std::move(kind), find};
  {
    std::lock_guard lock(kinds().mutex);
    kinds().list.push_back(k);
  }
  // Searched already (a kind added late, by a test): its devices join the list at once.
  if (!started().load()) return;
  Locked locked;
  if (locked.r.discovered) find_kind(locked.r, k);
}

std::shared_ptr<Backend> find_backend(const std::string& name) {
  Locked locked;
  Registry& r = locked.r;
  if (auto b = find_in(r, name)) return b;
  discover(r);
  if (auto b = find_in(r, name)) return b;
  throw ValueError("no device named '" + name + "'; the devices present are " +
                   names_of(r.backends) + " (see tack.devices())");
}

std::vector<std::shared_ptr<Backend>> all_backends() {
  Locked locked;
  Registry& r = locked.r;
  discover(r);
  return r.backends;
}

std::vector<std::shared_ptr<Backend>> known_backends() {
  Locked locked;
  Registry& r = locked.r;
  return r.backends;
}

std::shared_ptr<Backend> default_backend() {
  Locked locked;
  Registry& r = locked.r;
  resolve_default(r);
  if (!r.default_error.empty()) throw ValueError(r.default_error);
  return r.default_backend;
}

void set_default_backend(std::shared_ptr<Backend> backend) {
  Locked locked;
  Registry& r = locked.r;
  r.default_resolved = true;
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
