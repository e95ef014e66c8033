// DLPack exchange: the structures of the DLPack specification (versioned 1.x and legacy),
// declared here from the specification's text, and Tack's import and export.
#pragma once

#include <cstdint>
#include <optional>

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
// non-contiguous producer is refused), true = always copy, false = never copy.
Array from_dlpack(dlpack::ManagedTensorVersioned* tensor, std::optional<bool> copy = std::nullopt,
                  const Device& device = default_device());
Array from_dlpack(dlpack::ManagedTensor* tensor, std::optional<bool> copy = std::nullopt,
                  const Device& device = default_device());

// Exports `a`: the allocation is marked shared and kept alive until the consumer calls the
// deleter. A read-only array exports with the read-only flag (versioned form only: the legacy
// form cannot say so, so a read-only array refuses it). copy=true exports a copy.
dlpack::ManagedTensorVersioned* to_dlpack_versioned(const Array& a, bool copy = false);
dlpack::ManagedTensor* to_dlpack(const Array& a, bool copy = false);
// (device_type, device_id) of `a`, as __dlpack_device__ answers.
dlpack::Device dlpack_device(const Array& a);

}  // namespace tack
