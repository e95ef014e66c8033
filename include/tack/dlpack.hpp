// DLPack exchange: the structures of the DLPack specification (versioned 1.x and legacy),
// declared here from the specification's text, and Tack's import and export.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tack/array.hpp"

namespace tack {
namespace dlpack {

// Layouts follow the DLPack specification (dlpack.h, ABI version 1).
enum DeviceType : std::int32_t {
  kCPU = 1,
  kCUDA = 2,
  kCUDAHost = 3,
  kOpenCL = 4,
  kVulkan = 7,
  kMetal = 8,
  kVPI = 9,
  kROCM = 10,
  kROCMHost = 11,
  kExtDev = 12,
  kCUDAManaged = 13,
  kOneAPI = 14,
  kWebGPU = 15,
  kHexagon = 16,
};

enum TypeCode : std::uint8_t {
  kInt = 0,
  kUInt = 1,
  kFloat = 2,
  kOpaqueHandle = 3,
  kBfloat = 4,
  kComplex = 5,
  kBool = 6,
};

struct Version {
  std::uint32_t major;
  std::uint32_t minor;
};

struct Device {
  DeviceType device_type;
  std::int32_t device_id;
};

struct DataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};

struct Tensor {
  void* data;
  Device device;
  std::int32_t ndim;
  DataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null means C-contiguous
  std::uint64_t byte_offset;
};

// Legacy (unversioned) managed tensor: capsule name "dltensor".
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};

inline constexpr std::uint64_t kFlagReadOnly = 1ull << 0;
inline constexpr std::uint64_t kFlagIsCopied = 1ull << 1;

// Versioned managed tensor: capsule name "dltensor_versioned".
struct ManagedTensorVersioned {
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  std::uint64_t flags;
  Tensor dl_tensor;
};

inline constexpr Version kVersion{1, 0};

}  // namespace dlpack

// Imports a DLPack tensor. On success Tack owns `tensor`: it calls the deleter when the array
// and every view of it are gone (or at once when the data was copied). On an exception the
// caller still owns it. `copy`: nullopt = copy only if needed (never for CPU memory, so a
// non-contiguous producer is refused), true = always copy, false = never copy. `device`:
// nullopt = the device that holds the memory (host memory: "cpu"; OpenCL id N: "opencl:N"),
// as the Python array API says; another device gets a copy (ValueError with copy=false).
Array from_dlpack(dlpack::ManagedTensorVersioned* tensor, std::optional<bool> copy = std::nullopt,
                  std::optional<Device> device = std::nullopt);
Array from_dlpack(dlpack::ManagedTensor* tensor, std::optional<bool> copy = std::nullopt,
                  std::optional<Device> device = std::nullopt);

// Exports `a`: the allocation is marked shared and kept alive until the consumer calls the
// deleter. A read-only array exports with the read-only flag (versioned form only: the legacy
// form cannot say so, so a read-only array refuses it). copy=true exports a copy.
dlpack::ManagedTensorVersioned* to_dlpack_versioned(const Array& a, bool copy = false);
dlpack::ManagedTensor* to_dlpack(const Array& a, bool copy = false);
namespace detail {
// The same, and in `keep` a second reference to what the tensor points at, for a holder that
// must stay valid whatever a consumer does with the deleter (the Python capsule: a consumer may
// call the deleter early, or twice, and leave the capsule unconsumed). The deleter releases
// the array once; the memory of the tensor struct goes with the last of the two references.
dlpack::ManagedTensorVersioned* to_dlpack_versioned(const Array& a, bool copy,
                                                    std::shared_ptr<void>* keep);
dlpack::ManagedTensor* to_dlpack(const Array& a, bool copy, std::shared_ptr<void>* keep);
}  // namespace detail
// (device_type, device_id) of `a`, as __dlpack_device__ answers.
dlpack::Device dlpack_device(const Array& a);

// ---- The Python exchange protocol (__dlpack__, from_dlpack), decided here for the binding ----

// Capsule names of the DLPack Python specification. A consumer renames a capsule it took
// ownership from to the "used_" name, so the producer's capsule destructor leaves it alone.
inline constexpr const char* kCapsuleName = "dltensor";
inline constexpr const char* kVersionedCapsuleName = "dltensor_versioned";
inline constexpr const char* kUsedCapsuleName = "used_dltensor";
inline constexpr const char* kUsedVersionedCapsuleName = "used_dltensor_versioned";

// What __dlpack__(stream=, max_version=, dl_device=, copy=) was asked for.
struct ExportRequest {
  std::optional<std::int64_t> stream;  // nullopt: None (or not an integer: see stream_type)
  std::string stream_type;             // the type's name when stream was not None nor an int
  std::optional<dlpack::Version> max_version;  // nullopt: None (a producer-era consumer)
  std::optional<dlpack::Device> dl_device;
  std::optional<bool> copy;
};
// The tensor export_dlpack made, and the capsule name it goes out under.
struct ExportedTensor {
  void* tensor = nullptr;  // a ManagedTensorVersioned* or a ManagedTensor*
  bool versioned = false;
  std::shared_ptr<void> keep;  // the capsule's own reference (detail::to_dlpack's `keep`)
  const char* capsule_name() const { return versioned ? kVersionedCapsuleName : kCapsuleName; }
};
// __dlpack__: checks the request as the DLPack Python specification says and exports `a`, in
// the versioned form when max_version's major is at least 1, else in the legacy form. On the
// CPU and on OpenCL (no streams) the stream must be None or -1 (ValueError); dl_device must be
// the array's own device (BufferError: Tack exports no cross-device copies); a read-only array
// cannot go out in the legacy form without copy=True (BufferError); copy=True exports a copy.
ExportedTensor export_dlpack(const Array& a, const ExportRequest& request);

// tack.from_dlpack on what a producer handed over: a capsule named `capsule_name` holding
// `tensor` ("dltensor_versioned": a ManagedTensorVersioned, "dltensor": a ManagedTensor), or
// nullopt when the object was neither a capsule nor had __dlpack__ (TypeError naming `what`).
// A consumed ("used_...") or otherwise named capsule is a ValueError. On success Tack owns the
// tensor and the caller renames the capsule to consumed_capsule_name(); on an exception the
// caller still owns it. `writable`: nullopt keeps the producer's word (a read-only versioned
// tensor imports read-only); false imports read-only whatever the producer says (PyTorch sets no
// flag, JAX exports none); true refuses a read-only tensor (ValueError) unless copy=True.
Array from_dlpack_capsule(std::optional<std::string_view> capsule_name, void* tensor,
                          std::optional<bool> copy = std::nullopt,
                          std::optional<Device> device = std::nullopt, const std::string& what = "",
                          std::optional<bool> writable = std::nullopt);
// The stream a consumer passes to a producer's __dlpack__(stream=) for a tensor on DLPack device
// `d`: the stream of the Tack device that holds such tensors (CUDA), so the producer orders its
// pending writes before Tack's work; nullopt where that device has no streams or none holds it.
std::optional<std::int64_t> dlpack_consumer_stream(const dlpack::Device& d);
// "dltensor" -> "used_dltensor", "dltensor_versioned" -> "used_dltensor_versioned".
const char* consumed_capsule_name(std::string_view capsule_name);

}  // namespace tack
