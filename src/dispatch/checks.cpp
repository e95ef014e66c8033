// Dispatch checks: every one reads only what the call's arrays already hold (no allocation on
// the success path), because they run on the warm path of every launch.
#include "dispatch/checks.hpp"

#include "memory/device_buffer.hpp"
#include "runtime/backend.hpp"
#include "support/error.hpp"

namespace tack::detail {

void check_same_device(const std::string& kernel, const std::vector<std::string>& names,
                       const KernelArg* args, std::size_t count) {
  const Backend* first = nullptr;
  std::size_t first_index = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (args[i].array == nullptr) continue;
    const Backend* b = args[i].array->buffer()->backend().get();
    if (first == nullptr) {
      first = b;
      first_index = i;
    } else if (b != first) {
      throw RuntimeError("kernel '" + kernel + "': array '" + names[first_index] +
                         "' is on device '" + first->name() + "' but array '" + names[i] +
                         "' is on device '" + b->name() +
                         "'; a launch runs on one device: copy the arrays to one device first");
    }
  }
}

void check_writable_arrays(const ParamFacts& f, const KernelArg* args) {
  const auto& written = *f.written;
  for (std::size_t i = 0; i < written.size(); ++i) {
    if (!written[i] || args[i].array == nullptr || args[i].array->writable()) continue;
    throw ValueError("kernel '" + *f.kernel_name + "' may write parameter " + std::to_string(i) +
                     " ('" + (*f.param_names)[i] +
                     "'), but the array bound to it is read-only (a read-only NumPy array, a "
                     "wrapped pointer, a read-only import); pass a writable array: a copy "
                     "with tack.array(x) (x a NumPy or Tack array), or for NumPy data the "
                     "kernel should write in place, a writable NumPy array");
  }
}

void check_atomic_alignment(const ParamFacts& f, const KernelArg* args) {
  for (const auto& a : *f.atomics) {
    const Array* arr = args[a.param].array;
    if (arr == nullptr) continue;
    if (arr->address() % static_cast<std::uintptr_t>(a.alignment) != 0) {
      // The seed's words first (Memory and Aliasing: "Kernel '<name>': atomic target
      // parameter N requires K-byte alignment"), then what this call did.
      throw ValueError("Kernel '" + *f.kernel_name + "': atomic target parameter " +
                       std::to_string(a.param) + " requires " + std::to_string(a.alignment) +
                       "-byte alignment; the array passed as '" + (*f.param_names)[a.param] +
                       "' starts at address " + std::to_string(arr->address()) +
                       ", not a multiple of " + std::to_string(a.alignment) +
                       ". Pass an array allocated by Tack, or a copy of this one "
                       "(tack.array(x) copies)");
    }
  }
}

}  // namespace tack::detail
