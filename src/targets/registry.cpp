// The device kinds: one line each, naming how its devices are found (the runtime half, in
// tack_core) and its Target (the compile-and-launch half). docs/architecture.md, "Adding a
// device".
#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include "runtime/backend.hpp"
#include "runtime/opencl/opencl_backend.hpp"
#include "support/error.hpp"
#include "targets/cpu/cpu_target.hpp"
#include "targets/opencl/opencl_target.hpp"
#include "targets/target.hpp"
#ifdef TACK_HAVE_CUDA
#include "runtime/cuda/cuda_backend.hpp"
#include "targets/cuda/cuda_target.hpp"
#endif

namespace tack::detail {
namespace {

// The devices a runtime's discovery found, as backends.
template <auto discovery>
std::vector<std::shared_ptr<Backend>> found() {
  const auto& d = discovery();
  return {d.backends.begin(), d.backends.end()};
}

#ifndef TACK_HAVE_CUDA
// CUDA in a build without the toolkit's headers: no devices and no code, but its inspect modes
// are still known, so that tack.inspect(..., mode="ptx") and device="cuda" say what is missing
// instead of calling "ptx" an unknown mode.
class AbsentCudaTarget final : public Target {
 public:
  std::string display_name() const override { return "CUDA"; }
  std::unique_ptr<VariantCode> compile(const std::shared_ptr<Backend>&, const compiler::KernelIr&,
                                       const ParamFacts&, bool) const override {
    throw_absent();
  }
  std::vector<std::string> inspect_modes() const override { return {"source", "optimized", "ptx"}; }
  bool compiles_offline() const override { return true; }
  std::string default_arch() const override { return std::string(kDefaultCudaArch); }
  std::string offline_code(const compiler::KernelIr&, bool, std::string_view,
                           std::string_view) const override {
    throw_absent();
  }

 private:
  [[noreturn]] static void throw_absent() {
    throw RuntimeError(
        "tack.inspect: this Tack was built without CUDA (CMake found no CUDA toolkit headers); "
        "rebuild with the toolkit installed to compile for CUDA");
  }
};

const Target& absent_cuda_target() {
  static const Target* t = new AbsentCudaTarget;
  return *t;
}
#endif

struct DeviceKind {
  const char* kind;
  FindDevices find;  // nullptr for the CPU, which the device list always holds
  const Target& (*target)();
};

// clang-format off
const DeviceKind kDeviceKinds[] = {
    {"cpu",    nullptr,                 cpu_target},
    {"opencl", found<opencl_devices>,   opencl_target},
#ifdef TACK_HAVE_CUDA
    {"cuda",   found<cuda_devices>,     cuda_target},
#else
    {"cuda",   nullptr,                 absent_cuda_target},
#endif
};
// clang-format on

struct Registry {
  std::mutex mutex;
  std::map<std::string, const Target*, std::less<>> by_kind;
  std::vector<const Target*> targets;  // in the order the kinds were registered
};

Registry& registry() {
  static Registry* r = new Registry;  // immortal, as the device list
  return *r;
}

// The built-in kinds, registered as the library loads (before main, or when a program that
// links the layers statically first pulls in this file: every kernel launch does).
const bool kBuiltInKinds = [] {
  for (const DeviceKind& k : kDeviceKinds) register_device_kind(k.kind, k.find, k.target());
  return true;
}();

}  // namespace

void register_device_kind(std::string kind, FindDevices find, const Target& target) {
  if (find != nullptr) add_device_kind(kind, find);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.by_kind[std::move(kind)] = &target;
  r.targets.push_back(&target);
}

const Target* target_for(std::string_view kind) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);  // once per variant, never per call
  auto it = r.by_kind.find(kind);
  return it == r.by_kind.end() ? nullptr : it->second;
}

const Target* target_for(const Backend& device) {
  return target_for(device.kind());
}

const Target& offline_target(std::string_view kind) {
  if (const Target* t = target_for(kind); t != nullptr && t->compiles_offline()) return *t;
  std::string can;
  for (const auto& [name, target] : registered_targets()) {
    if (target->compiles_offline())
      can += (can.empty() ? "" : " or ") + ("device=\"" + name + "\"");
  }
  throw ValueError("tack.inspect: device '" + std::string(kind) +
                   "' cannot be compiled for offline; " +
                   (can.empty() ? std::string("no device kind of this build can") : can + " can") +
                   " (or leave device out to inspect the variant on the arrays' own device)");
}

std::vector<std::pair<std::string, const Target*>> registered_targets() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return {r.by_kind.begin(), r.by_kind.end()};
}

void variant_compiled(const compiler::KernelIr& kernel, bool debug) {
  std::vector<const Target*> targets;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    targets = r.targets;
  }
  for (const Target* t : targets) t->variant_compiled(kernel, debug);
}

bool variants_observed() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return std::any_of(r.targets.begin(), r.targets.end(),
                     [](const Target* t) { return t->observes_variants(); });
}

}  // namespace tack::detail
