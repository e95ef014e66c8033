// DLPack import and export. An import wraps the producer's memory and holds the managed
// tensor in the allocation state, so the deleter runs after the last view is gone.
#include "tack/dlpack.hpp"

#include <atomic>

#include <memory>
#include <string>
#include <vector>

#include "memory/device_buffer.hpp"
#include "runtime/backend.hpp"
#include "support/error.hpp"

namespace tack {
namespace {

std::optional<ScalarType> scalar_from_dlpack(const dlpack::DataType& t) {
  if (t.lanes != 1) return std::nullopt;
  switch (t.code) {
    case dlpack::kInt:
    case dlpack::kUInt:
      if (t.bits % 8 != 0) break;
      return int_type(t.bits / 8, t.code == dlpack::kInt);
    case dlpack::kFloat:
      if (t.bits == 32) return ScalarType::f32;
      if (t.bits == 64) return ScalarType::f64;
      break;
    default:
      break;
  }
  return std::nullopt;
}

dlpack::DataType dlpack_from_scalar(ScalarType t) {
  const auto bits = static_cast<std::uint8_t>(itemsize(t) * 8);
  if (is_float(t)) return {dlpack::kFloat, bits, 1};
  return {is_signed(t) ? dlpack::kInt : dlpack::kUInt, bits, 1};
}

// A copy of a device tensor, made without reading device memory through a host pointer: the
// bytes the tensor spans are wrapped as a device array (array_from_ptr checks that they lie in
// one live allocation of `device`), read to the host through the buffer interface (which waits
// for the device's queued work), and copied into a new array of `device` with the tensor's
// strides applied on the host.
Array copy_device_tensor(std::uintptr_t address, ScalarType scalar, const Shape& shape,
                         const std::vector<std::int64_t>& byte_strides, const Device& device,
                         const Device& target) {
  const auto item = static_cast<std::int64_t>(itemsize(scalar));
  if (detail::element_count(shape, "tack.from_dlpack") == 0)
    return empty(shape, DType(scalar), target);
  // The byte range [lo, hi) relative to `address` that the elements cover (strides may be
  // negative, or zero for broadcast dimensions).
  std::int64_t lo = 0, hi = item;
  std::int64_t contiguous_stride = item;
  for (std::size_t k = shape.size(); k-- > 0;) {
    const std::int64_t stride = byte_strides.empty() ? contiguous_stride : byte_strides[k];
    const std::int64_t reach = (shape[k] - 1) * stride;
    (reach < 0 ? lo : hi) += reach;
    contiguous_stride *= shape[k];
  }
  const std::uintptr_t begin = address - static_cast<std::uintptr_t>(-lo);
  const auto span = static_cast<std::size_t>(hi - lo);
  Array bytes = array_from_ptr(begin, DType(ScalarType::u8), {static_cast<std::int64_t>(span)},
                               false, device, nullptr, "a DLPack tensor");
  std::vector<std::byte> staging(span);
  bytes.to_host(staging.data(), staging.size());
  HostView v{staging.data() + (-lo), scalar, shape, byte_strides};
  return array(v, std::nullopt, target);
}

// The device that holds a tensor's memory: the first device present whose backend says so
// (Backend::holds_dlpack); nullopt when none does.
std::optional<Device> own_device(const dlpack::Device& d) {
  // The devices found so far first (the CPU for host tensors), so that importing host memory
  // does not look for other devices.
  for (const auto& b : detail::known_backends()) {
    if (b->holds_dlpack(d)) return Device(b);
  }
  for (const Device& candidate : devices()) {
    if (candidate.backend()->holds_dlpack(d)) return candidate;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::int64_t> dlpack_consumer_stream(const dlpack::Device& d) {
  if (d.device_type == dlpack::kCPU) return std::nullopt;  // never looks for devices
  const std::optional<Device> dev = own_device(d);
  if (!dev) return std::nullopt;
  return dev->backend()->dlpack_consumer_stream();
}

namespace {

std::string tensor_device_str(const dlpack::Device& d) {
  return "device type " + std::to_string(static_cast<int>(d.device_type)) + " (id " +
         std::to_string(d.device_id) + ")";
}

// The import path both managed-tensor forms share: validate, then wrap or copy.
Array import_tensor(const dlpack::Tensor& t, bool read_only, std::optional<bool> copy,
                    std::optional<Device> target) {
  const auto scalar = scalar_from_dlpack(t.dtype);
  if (!scalar) {
    throw TypeError("DLPack tensor of type code " + std::to_string(t.dtype.code) + ", " +
                    std::to_string(t.dtype.bits) + " bits, " + std::to_string(t.dtype.lanes) +
                    " lanes has no Tack dtype; Tack imports i8-i64, u8-u64, f32 and f64 with one "
                    "lane (convert the tensor first, e.g. with .astype)");
  }
  // Where the memory is; the array goes there unless another device is asked for (then the
  // data is copied, through the host), as the Python array API's from_dlpack says.
  const std::optional<Device> own = own_device(t.device);
  if (!own) {
    std::string present;
    for (const Device& d : devices()) present += (present.empty() ? "'" : ", '") + d.name() + "'";
    throw ValueError("DLPack tensor lives on " + tensor_device_str(t.device) +
                     ", which no device present can address (the devices present are " + present +
                     "); copy it to the host first");
  }
  const Device device = target.value_or(*own);
  const bool elsewhere = !(device == *own);
  if (elsewhere && copy == false) {
    throw ValueError("DLPack tensor lives on " + tensor_device_str(t.device) + " ('" + own->name() +
                     "'), not on device '" + device.name() +
                     "'; putting it there needs a copy, which copy=False forbids: pass copy=True "
                     "(or None), or leave device unset to import it where it is");
  }
  if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr)) {
    throw ValueError("DLPack tensor with ndim " + std::to_string(t.ndim) + " and no shape");
  }
  Shape shape(t.shape, t.shape + t.ndim);
  const std::int64_t n = detail::element_count(shape, "tack.from_dlpack");
  detail::byte_count(shape, DType(*scalar), "tack.from_dlpack");  // ValueError past 2**64 bytes
  bool contiguous = true;
  std::vector<std::int64_t> byte_strides;
  if (t.strides != nullptr) {
    std::int64_t expected = 1;
    for (int k = t.ndim - 1; k >= 0; --k) {
      if (shape[static_cast<std::size_t>(k)] != 1 && t.strides[k] != expected) contiguous = false;
      expected *= shape[static_cast<std::size_t>(k)];
    }
    for (int k = 0; k < t.ndim; ++k) {
      byte_strides.push_back(t.strides[k] * static_cast<std::int64_t>(itemsize(*scalar)));
    }
  }
  const auto address = reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset;
  if (n == 0 || copy.value_or(false) || elsewhere) {
    if (own->backend()->host_memory()) {  // read in place
      HostView v{reinterpret_cast<const void*>(address), *scalar, shape, byte_strides};
      return array(v, std::nullopt, device);
    }
    return copy_device_tensor(address, *scalar, shape, byte_strides, *own, device);
  }
  if (!contiguous) {
    throw ValueError("DLPack tensor of shape " + detail::shape_str(shape) +
                     " is not C-contiguous, and Tack arrays are; pass copy=True to import a "
                     "contiguous copy");
  }
  return array_from_ptr(address, DType(*scalar), shape, !read_only, device, nullptr,
                        "a DLPack tensor");
}

// Owns what an exported tensor points at: the shape, strides and the buffer itself. The
// deleter releases the buffer once, however often a consumer calls it: it drops `self`, the
// deleter's own reference, and a holder that may outlive the deleter (the Python capsule)
// keeps a second one, so that a consumer that calls the deleter and leaves the capsule
// unconsumed (torch.from_dlpack refusing an OpenCL tensor) cannot make the capsule's
// destructor free the context again.
template <class Managed>
struct ExportContext {
  Managed managed{};
  std::vector<std::int64_t> shape;
  std::shared_ptr<detail::DeviceBuffer> buffer;
  std::atomic<bool> released{false};
  std::shared_ptr<ExportContext> self;
};

template <class Managed>
Managed* export_tensor(const Array& source, bool copy, std::shared_ptr<void>* keep = nullptr) {
  Array a = source;
  if (copy) {
    a = empty_like(source);
    std::vector<std::byte> staging(source.nbytes());
    source.to_host(staging.data(), staging.size());
    a.buffer()->from_host(staging.data(), 0, staging.size());
  }
  auto ctx = std::make_shared<ExportContext<Managed>>();
  ctx->shape = a.numpy_shape();
  ctx->buffer = a.buffer();
  // Handed outside Tack: every launch that binds this allocation now completes before returning.
  ctx->buffer->share();
  dlpack::Tensor& t = ctx->managed.dl_tensor;
  t.data = reinterpret_cast<void*>(a.address());
  t.device = dlpack_device(a);
  t.ndim = static_cast<std::int32_t>(ctx->shape.size());
  t.dtype = dlpack_from_scalar(a.dtype().scalar);
  t.shape = ctx->shape.empty() ? nullptr : ctx->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = [](Managed* self) {
    auto* c = static_cast<ExportContext<Managed>*>(self->manager_ctx);
    if (c->released.exchange(true)) return;  // a second call: nothing is left to release
    std::shared_ptr<ExportContext<Managed>> last = std::move(c->self);
    c->buffer.reset();
  };  // `last` goes here: the context with it, unless a holder still has it
  if constexpr (std::is_same_v<Managed, dlpack::ManagedTensorVersioned>) {
    ctx->managed.version = dlpack::kVersion;
    ctx->managed.flags =
        (a.writable() || copy ? 0 : dlpack::kFlagReadOnly) | (copy ? dlpack::kFlagIsCopied : 0);
  }
  ctx->self = ctx;
  if (keep) *keep = ctx;
  return &ctx->managed;
}

}  // namespace

dlpack::Device dlpack_device(const Array& a) {
  return a.device().backend()->dlpack_device();
}

Array from_dlpack(dlpack::ManagedTensorVersioned* m, std::optional<bool> copy,
                  std::optional<Device> device) {
  TACK_INTERNAL_ASSERT(m != nullptr, "null DLPack tensor");
  if (m->version.major != dlpack::kVersion.major) {
    throw ValueError("DLPack tensor of ABI version " + std::to_string(m->version.major) + "." +
                     std::to_string(m->version.minor) + "; Tack reads major version " +
                     std::to_string(dlpack::kVersion.major) +
                     " (ask the producer for max_version=(1, 0))");
  }
  const bool read_only = (m->flags & dlpack::kFlagReadOnly) != 0;
  // Validation first: a failure leaves ownership with the caller. Then the hold, which calls
  // the deleter when the array and every view of it are gone, goes to the allocation state.
  Array result = import_tensor(m->dl_tensor, read_only, copy, device);
  auto release = [](dlpack::ManagedTensorVersioned* t) {
    if (t->deleter) t->deleter(t);
  };
  if (result.buffer()->owned()) {
    release(m);  // copied: the producer's memory is no longer needed
  } else {
    result.buffer()->state().hold = std::shared_ptr<void>(
        static_cast<void*>(m),
        [release](void* p) { release(static_cast<dlpack::ManagedTensorVersioned*>(p)); });
  }
  return result;
}

Array from_dlpack(dlpack::ManagedTensor* m, std::optional<bool> copy,
                  std::optional<Device> device) {
  TACK_INTERNAL_ASSERT(m != nullptr, "null DLPack tensor");
  Array result = import_tensor(m->dl_tensor, false, copy, device);
  auto release = [](dlpack::ManagedTensor* t) {
    if (t->deleter) t->deleter(t);
  };
  if (result.buffer()->owned()) {
    release(m);
  } else {
    result.buffer()->state().hold = std::shared_ptr<void>(
        static_cast<void*>(m),
        [release](void* p) { release(static_cast<dlpack::ManagedTensor*>(p)); });
  }
  return result;
}

dlpack::ManagedTensorVersioned* to_dlpack_versioned(const Array& a, bool copy) {
  return detail::to_dlpack_versioned(a, copy, nullptr);
}

dlpack::ManagedTensor* to_dlpack(const Array& a, bool copy) {
  return detail::to_dlpack(a, copy, nullptr);
}

namespace detail {

dlpack::ManagedTensorVersioned* to_dlpack_versioned(const Array& a, bool copy,
                                                    std::shared_ptr<void>* keep) {
  return export_tensor<dlpack::ManagedTensorVersioned>(a, copy, keep);
}

dlpack::ManagedTensor* to_dlpack(const Array& a, bool copy, std::shared_ptr<void>* keep) {
  if (!a.writable() && !copy) {
    throw ValueError(
        "this array is read-only and the legacy DLPack form cannot mark a tensor "
        "read-only; ask for a versioned capsule (max_version=(1, 0)) or copy=True");
  }
  return export_tensor<dlpack::ManagedTensor>(a, copy, keep);
}

}  // namespace detail

}  // namespace tack
