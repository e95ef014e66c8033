// The parts of DeviceBuffer every backend shares: range checks, views, sharing.
#include "memory/device_buffer.hpp"

#include <string>

#include "support/error.hpp"

namespace tack::detail {

void DeviceBuffer::check_range(std::size_t offset, std::size_t count, const char* what) const {
  if (offset > nbytes_ || count > nbytes_ - offset) {
    throw IndexError(std::string("cannot ") + what + " bytes [" + std::to_string(offset) + ", " +
                     std::to_string(offset + count) + ") of a buffer of " +
                     std::to_string(nbytes_) + " bytes");
  }
}

void DeviceBuffer::read_range(std::size_t start, std::size_t count, void* dst) const {
  check_range(start, count, "read");
  to_host(dst, start, count);
}

void DeviceBuffer::share() {
  state_->shared.store(true, std::memory_order_release);
  synchronize();
}

std::shared_ptr<DeviceBuffer> DeviceBuffer::make_view(std::size_t offset, std::size_t count) {
  check_range(offset, count, "view");
  // A view of a view is a view of the root.
  if (root_) return root_->make_view(offset_ + offset, count);
  auto v = make_view_impl(offset, count);
  v->root_ = shared_from_this();
  v->offset_ = offset;
  return v;
}

std::shared_ptr<const DeviceBuffer> DeviceBuffer::root() const {
  if (root_) return root_;
  return shared_from_this();
}

}  // namespace tack::detail
