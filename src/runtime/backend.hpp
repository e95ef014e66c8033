// The Backend interface: what a device offers to arrays (allocation, wrapping, memory spaces)
// and, later, to dispatch. One subclass per folder of runtime/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memory/device_buffer.hpp"
#include "tack/dlpack.hpp"

namespace tack {
class Array;
}

namespace tack::detail {

class Backend : public std::enable_shared_from_this<Backend> {
 public:
  virtual ~Backend() = default;

  // "cpu", "opencl:0", ...
  virtual std::string name() const = 0;
  // The backend's kind, as a buffer's backend_name() says it: "cpu", "opencl", ...
  virtual std::string kind() const = 0;

  // An uninitialized buffer of `nbytes` (contents unspecified).
  virtual std::shared_ptr<DeviceBuffer> allocate(std::size_t nbytes) = 0;
  // A buffer over memory Tack did not allocate; never freed by Tack, shared from the start.
  // `hold` is kept alive as long as the buffer and every view of it.
  virtual std::shared_ptr<DeviceBuffer> wrap(std::uintptr_t address, std::size_t nbytes,
                                             std::shared_ptr<void> hold) = 0;

  // The memory space an address belongs to ("cpu", "cuda", ...).
  virtual std::string memory_space(std::uintptr_t address) const = 0;
  // The spaces this backend accepts for wrapped pointers; empty means it cannot tell spaces
  // apart and no check is made.
  virtual std::vector<std::string> device_memory_spaces() const { return {}; }

  // Waits for every launch queued on this device.
  virtual void synchronize() {}

  // Offered every Array::fill first (the memory model's Backend.fill_array): true when the
  // backend filled the whole of `a`'s buffer with the repeated `pattern` (and counted the write),
  // false to leave it to the buffer's own fill. The CPU answers for 256 KiB or more by running a
  // fill kernel through the dispatch (src/algorithms/fill.cpp).
  virtual bool fill_array(const Array& a, const void* pattern, std::size_t pattern_size) {
    (void)a, (void)pattern, (void)pattern_size;
    return false;
  }

  // ---- DLPack: how the exchange names this device (memory/ asks; it names no device) ----
  // The (device_type, device_id) of this device's tensors; RuntimeError where it has none.
  virtual dlpack::Device dlpack_device() const;
  // Whether a producer's tensor on DLPack device `d` lives in this device's memory.
  virtual bool holds_dlpack(const dlpack::Device& d) const { return false; }
  // __dlpack__(stream=...): ValueError unless `stream` is one this device can order an export
  // against; the default is a device without streams (only None or -1).
  virtual void check_dlpack_stream(std::int64_t stream) const;
  // After the check: orders the work queued on this device before the consumer's `stream`
  // (CUDA: an event); nothing on devices without streams.
  virtual void order_dlpack_export(std::int64_t stream) { (void)stream; }
  // What Tack passes as __dlpack__(stream=) when importing a tensor this device holds, so that
  // the producer orders its pending work before Tack's (the CUDA stream's handle); nullopt on
  // devices without streams.
  virtual std::optional<std::int64_t> dlpack_consumer_stream() const { return std::nullopt; }
  // True when this device's memory is host memory, which an import may read in place.
  virtual bool host_memory() const { return false; }

  // ---- what the algorithms choose kernels by (docs/design/algorithms.md) ----
  struct Capabilities {
    bool workgroups = false;  // kernels may use tack.shared, tack.barrier, block reductions
    // Neighbouring work items should touch neighbouring elements (a GPU's coalesced access),
    // rather than each item a contiguous run of its own (a CPU's caches and prefetchers).
    bool coalescing = false;
  };
  virtual Capabilities capabilities() const { return {}; }
};

// The device registry: "cpu" always; others where their runtime answers.
//
// How a device kind's devices are found: every device of the kind present, in order (none when
// its runtime is absent or refuses; it may throw, which counts as none). Called once, on first
// need, so that a program that only uses the CPU never loads a driver.
using FindDevices = std::vector<std::shared_ptr<Backend>> (*)();
// Adds a device kind other than the CPU to the list: its devices are found with the others on
// first need, or at once when the list was searched already. The kinds are listed once, one
// line each, in targets/registry.cpp (docs/architecture.md, "Adding a device"); a test adds
// its own through register_device_kind there.
void add_device_kind(std::string kind, FindDevices find);
std::shared_ptr<Backend> find_backend(const std::string& name);
std::vector<std::shared_ptr<Backend>> all_backends();
// The devices found so far, without looking for more: the CPU, and the others once something
// asked for them (an array or kernel can only be on one of these).
std::vector<std::shared_ptr<Backend>> known_backends();
std::shared_ptr<Backend> default_backend();
void set_default_backend(std::shared_ptr<Backend> backend);

// Checks that `address` may be wrapped by `backend`: ValueError naming the space otherwise.
void validate_pointer(const Backend& backend, std::uintptr_t address);

}  // namespace tack::detail
