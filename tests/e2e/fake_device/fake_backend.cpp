// The fake kind's runtime object: host memory, its own buffers, its own kind.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "e2e/fake_device/fake_device.hpp"
#include "memory/device_buffer.hpp"

namespace tack::fake {
namespace {

using detail::Backend;
using detail::DeviceBuffer;

class FakeBuffer final : public DeviceBuffer {
 public:
  FakeBuffer(std::byte* data, std::size_t nbytes, std::shared_ptr<detail::AllocationState> state,
             std::shared_ptr<Backend> backend)
      : DeviceBuffer(nbytes, std::move(state)), data_(data), backend_(std::move(backend)) {}
  ~FakeBuffer() override {
    if (!is_view() && owned()) std::free(data_);
  }
  std::uintptr_t address() const override { return reinterpret_cast<std::uintptr_t>(data_); }
  std::optional<detail::ByteSpan> span() const override {
    return detail::ByteSpan{address(), address() + nbytes_};
  }
  void from_host(const void* src, std::size_t offset, std::size_t count) override {
    check_range(offset, count, "write");
    if (count) std::memcpy(data_ + offset, src, count);
  }
  void to_host(void* dst, std::size_t offset, std::size_t count) const override {
    check_range(offset, count, "read");
    if (count) std::memcpy(dst, data_ + offset, count);
  }
  void fill(const void* pattern, std::size_t size) override {
    for (std::size_t at = 0; at + size <= nbytes_; at += size)
      std::memcpy(data_ + at, pattern, size);
  }
  std::string_view backend_name() const override { return "fake"; }
  std::shared_ptr<Backend> backend() const override { return backend_; }
  const Backend* backend_ptr() const noexcept override { return backend_.get(); }

 protected:
  std::shared_ptr<DeviceBuffer> make_view_impl(std::size_t offset, std::size_t count) override {
    return std::make_shared<FakeBuffer>(data_ + offset, count, state_, backend_);
  }

 private:
  std::byte* data_;
  std::shared_ptr<Backend> backend_;
};

class FakeBackend final : public Backend {
 public:
  FakeBackend(std::string name, std::string kind)
      : name_(std::move(name)), kind_(std::move(kind)) {}
  std::string name() const override { return name_; }
  std::string kind() const override { return kind_; }
  bool host_memory() const override { return true; }
  std::shared_ptr<DeviceBuffer> allocate(std::size_t nbytes) override {
    auto* p = static_cast<std::byte*>(
        std::aligned_alloc(64, std::max<std::size_t>(64, (nbytes + 63) / 64 * 64)));
    return std::make_shared<FakeBuffer>(p, nbytes, std::make_shared<detail::AllocationState>(),
                                        shared_from_this());
  }
  std::shared_ptr<DeviceBuffer> wrap(std::uintptr_t address, std::size_t nbytes,
                                     std::shared_ptr<void> hold) override {
    auto state = std::make_shared<detail::AllocationState>();
    state->owned = false;
    state->hold = std::move(hold);
    state->shared.store(true);
    return std::make_shared<FakeBuffer>(reinterpret_cast<std::byte*>(address), nbytes,
                                        std::move(state), shared_from_this());
  }
  std::string memory_space(std::uintptr_t) const override { return "cpu"; }

 private:
  std::string name_, kind_;
};

}  // namespace

std::shared_ptr<detail::Backend> make_fake_backend(std::string name, std::string kind) {
  return std::make_shared<FakeBackend>(std::move(name), std::move(kind));
}

}  // namespace tack::fake
