// The Backend interface: what a device offers to arrays (allocation, wrapping, memory spaces)
// and, later, to dispatch. One subclass per folder of runtime/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "memory/device_buffer.hpp"

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
};

// The device registry: "cpu" always; others where their runtime answers.
std::shared_ptr<Backend> find_backend(const std::string& name);
std::vector<std::shared_ptr<Backend>> all_backends();
std::shared_ptr<Backend> default_backend();
void set_default_backend(std::shared_ptr<Backend> backend);

// Checks that `address` may be wrapped by `backend`: ValueError naming the space otherwise.
void validate_pointer(const Backend& backend, std::uintptr_t address);

}  // namespace tack::detail
