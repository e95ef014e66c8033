// Devices: the CPU always, other backends where their runtime answers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tack {

namespace detail {
class Backend;
}

// A device is a value: copies name the same backend, which stays alive while any array or
// Device refers to it.
class Device {
 public:
  explicit Device(std::shared_ptr<detail::Backend> backend);
  std::string name() const;  // "cpu", "opencl:0"
  std::string kind() const;  // "cpu", "opencl"
  const std::shared_ptr<detail::Backend>& backend() const { return backend_; }
  // Waits for every launch queued on this device.
  void synchronize() const;
  friend bool operator==(const Device& a, const Device& b) { return a.backend_ == b.backend_; }

 private:
  std::shared_ptr<detail::Backend> backend_;
};

// tack::device("cpu"), tack::device("opencl:1"); ValueError naming the devices present.
Device device(const std::string& name);
std::vector<Device> devices();
Device default_device();
void set_default_device(const Device& d);
// Waits for everything queued on every device.
void sync();

// The memory space an address belongs to on a device ("cpu" on the CPU backend).
std::string memory_space(std::uintptr_t address, const Device& d = default_device());
// The same for a value that may not be an address at all (nullopt: not an integer in
// [0, 2**64)): such a value is host memory, "cpu", and no backend is asked (memory seed).
std::string memory_space(std::optional<std::uintptr_t> address, const Device& d = default_device());

namespace detail {
// How many CPU fills ran as a fill kernel through the dispatch in this process (for tests; the
// memory model's "a fill of 256 KiB or more runs as a kernel through the dispatch").
std::uint64_t cpu_kernel_fill_count();
}  // namespace detail

}  // namespace tack
