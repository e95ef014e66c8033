// The target registry (one line per device kind) and the checks targets share.
#include "targets/target.hpp"

#include <map>
#include <mutex>

#include "memory/device_buffer.hpp"
#include "runtime/backend.hpp"
#include "support/error.hpp"
#include "targets/cpu/cpu_target.hpp"
#include "targets/opencl/opencl_target.hpp"

namespace tack::detail {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, const Target*, std::less<>> by_kind;
};

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry;  // immortal, as the device registry
    reg->by_kind["cpu"] = &cpu_target();
    reg->by_kind["opencl"] = &opencl_target();
    return reg;
  }();
  return *r;
}

}  // namespace

const Target* target_for(const Backend& device) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);  // once per variant, never per call
  auto it = r.by_kind.find(device.kind());
  return it == r.by_kind.end() ? nullptr : it->second;
}

void register_target(std::string kind, const Target* target) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.by_kind[std::move(kind)] = target;
}

void check_element_alignment(const ParamFacts& f, const KernelArg* args, std::size_t count,
                             const std::string& device) {
  for (std::size_t i = 0; i < count; ++i) {
    const Array* a = args[i].array;
    if (a == nullptr) continue;
    const std::size_t align = itemsize(a->dtype().scalar);
    if (a->address() % align == 0) continue;
    throw ValueError("kernel '" + *f.kernel_name + "': array parameter " + std::to_string(i) +
                     " ('" + (*f.param_names)[i] + "') is bound to an array at address " +
                     std::to_string(a->address()) +
                     ", which is not a multiple of its element size (" + std::to_string(align) +
                     " bytes); device '" + device +
                     "' needs naturally aligned arrays: wrap the memory at an aligned address, "
                     "or pass a copy made by Tack");
  }
}

}  // namespace tack::detail
