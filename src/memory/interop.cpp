// The rules of handing memory across the Python boundary -- wrapping a host array object, the
// DLPack Python protocol (__dlpack__ and from_dlpack's capsules), NumPy's __array__ -- decided
// here so that the binding only converts objects (docs/architecture.md: Python only in python/).
#include <limits>
#include <string>

#include "memory/device_buffer.hpp"
#include "runtime/backend.hpp"
#include "support/error.hpp"
#include "tack/array.hpp"
#include "tack/device.hpp"
#include "tack/dlpack.hpp"

namespace tack {

using detail::shape_str;

void Array::refuse_zero_copy_host_view() const {
  throw ValueError(
      "a Tack array cannot be viewed as a NumPy array without a copy (copy=False was asked); "
      "use np.asarray(a) or a.numpy() for a copy, or np.from_dlpack(a) to share the memory");
}

Array array_from_host_array(const HostArrayFacts& facts, DType dtype, const Shape& shape,
                            bool writable, const Device& device, std::shared_ptr<void> hold) {
  const std::size_t needed = detail::byte_count(shape, dtype, "tack.array_from_ptr");
  if (!facts.c_contiguous) {
    throw ValueError("tack.array_from_ptr: " + facts.what +
                     " is not C-contiguous, and an array covers one contiguous run of memory; "
                     "wrap numpy.ascontiguousarray(x) (a copy, which you keep alive) or copy the "
                     "data with tack.array(x)");
  }
  if (facts.nbytes < needed) {
    throw ValueError("tack.array_from_ptr: " + facts.what + " holds " +
                     std::to_string(facts.nbytes) + " bytes, fewer than the " +
                     std::to_string(needed) + " that shape " + shape_str(shape) + " of " +
                     dtype.str() + " needs; pass a smaller shape or a larger array");
  }
  if (writable && !facts.writable) {
    throw ValueError("tack.array_from_ptr: " + facts.what +
                     " is read-only, so it cannot be wrapped with writable=True; wrap it "
                     "read-only (writable=False) or copy it with tack.array(x)");
  }
  return array_from_ptr(facts.address, dtype, shape, writable, device, std::move(hold), facts.what);
}

std::string memory_space(std::optional<std::uintptr_t> address, const Device& d) {
  // Not an address at all: host memory by definition; the backend (a driver) is not asked.
  if (!address) return "cpu";
  return memory_space(*address, d);
}

namespace {

std::string device_str(const dlpack::Device& d) {
  return "(" + std::to_string(static_cast<int>(d.device_type)) + ", " +
         std::to_string(d.device_id) + ")";
}

}  // namespace

ExportedTensor export_dlpack(const Array& a, const ExportRequest& r) {
  const dlpack::Device own = dlpack_device(a);
  if (!r.stream_type.empty()) {
    throw TypeError("__dlpack__: stream must be None or an integer, got " + r.stream_type);
  }
  if (r.stream) {
    a.device().backend()->check_dlpack_stream(*r.stream);
    a.device().backend()->order_dlpack_export(*r.stream);
  }
  const bool versioned = r.max_version && r.max_version->major >= 1;
  if (r.dl_device &&
      (r.dl_device->device_type != own.device_type || r.dl_device->device_id != own.device_id)) {
    const bool to_host = r.dl_device->device_type == dlpack::kCPU && r.dl_device->device_id == 0;
    if (!to_host) {
      throw BufferError("__dlpack__: dl_device " + device_str(*r.dl_device) +
                        " is not the array's device " + device_str(own) +
                        "; Tack exports on the array's own device, or to the host as a copy: "
                        "copy the data to the other device first");
    }
    if (r.copy == false) {
      throw BufferError("__dlpack__: dl_device (1, 0) asks for host memory, and this array is on " +
                        a.device().name() + " " + device_str(own) +
                        ": a host tensor needs a copy; pass copy=True (or leave copy None)");
    }
    // The array API's host copy (np.from_dlpack(x, device="cpu")): a new CPU array, read after
    // the launches queued on `a`, handed out as a copy the consumer owns.
    const Array host = tack::array(a, std::nullopt, device("cpu"));
    if (!versioned) {
      ExportedTensor t{nullptr, false, nullptr};
      t.tensor = detail::to_dlpack(host, false, &t.keep);
      return t;
    }
    ExportedTensor t{nullptr, true, nullptr};
    auto* m = detail::to_dlpack_versioned(host, false, &t.keep);
    m->flags |= dlpack::kFlagIsCopied;
    t.tensor = m;
    return t;
  }
  const bool copy = r.copy.value_or(false);
  if (!versioned) {
    if (!a.writable() && !copy) {
      throw BufferError(
          "__dlpack__: this array is read-only, and the legacy DLPack form (max_version None "
          "or below (1, 0)) cannot mark a tensor read-only; ask for max_version=(1, 0), or pass "
          "copy=True");
    }
    ExportedTensor t{nullptr, false, nullptr};
    t.tensor = detail::to_dlpack(a, copy, &t.keep);
    return t;
  }
  ExportedTensor t{nullptr, true, nullptr};
  t.tensor = detail::to_dlpack_versioned(a, copy, &t.keep);
  return t;
}

Array from_dlpack_capsule(std::optional<std::string_view> capsule_name, void* tensor,
                          std::optional<bool> copy, std::optional<Device> device,
                          const std::string& what, std::optional<bool> writable) {
  if (!capsule_name) {
    throw TypeError(
        "tack.from_dlpack needs an object with __dlpack__ (a NumPy array, another framework's "
        "tensor, a Tack array) or a DLPack capsule, got " +
        (what.empty() ? std::string("something else") : what));
  }
  const std::string_view name = *capsule_name;
  if (name == kVersionedCapsuleName || name == kCapsuleName) {
    TACK_INTERNAL_ASSERT(tensor != nullptr, "DLPack capsule without a pointer");
    // Checked before the import, so that on this error the producer still owns the tensor.
    if (writable.value_or(false) && !copy.value_or(false) && name == kVersionedCapsuleName &&
        (static_cast<dlpack::ManagedTensorVersioned*>(tensor)->flags & dlpack::kFlagReadOnly)) {
      throw ValueError(
          "tack.from_dlpack: writable=True, but the producer marked this tensor read-only; "
          "import it read-only (writable=None or False), or pass copy=True for a writable copy");
    }
    Array a = name == kVersionedCapsuleName
                  ? from_dlpack(static_cast<dlpack::ManagedTensorVersioned*>(tensor), copy, device)
                  : from_dlpack(static_cast<dlpack::ManagedTensor*>(tensor), copy, device);
    if (writable == false && a.writable()) {
      // The same memory and hold, read-only: kernels that may write it are refused, and host
      // writes raise, as for any read-only import.
      return Array(a.buffer(), a.dtype(), a.shape(), false);
    }
    return a;
  }
  if (name == kUsedCapsuleName || name == kUsedVersionedCapsuleName) {
    throw ValueError("tack.from_dlpack: this DLPack capsule was already consumed (its name is '" +
                     std::string(name) +
                     "'); a capsule is imported once: ask the producer for a new one, or pass "
                     "the producer itself to tack.from_dlpack");
  }
  throw ValueError("tack.from_dlpack: a capsule named '" + std::string(name) +
                   "' is not a DLPack tensor; expected '" + kVersionedCapsuleName + "' or '" +
                   kCapsuleName + "'");
}

const char* consumed_capsule_name(std::string_view capsule_name) {
  if (capsule_name == kVersionedCapsuleName) return kUsedVersionedCapsuleName;
  TACK_INTERNAL_ASSERT(capsule_name == kCapsuleName, "not a DLPack capsule name");
  return kUsedCapsuleName;
}

}  // namespace tack
