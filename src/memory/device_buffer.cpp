// The parts of DeviceBuffer every backend shares: range checks, views, sharing.
#include "memory/device_buffer.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iterator>
#include <string>
#include <vector>

#include "support/error.hpp"
#include "support/long_work.hpp"

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
  to_host(dst, start, count);  // settles
}

void DeviceBuffer::share() {
  settle();
  state_->shared.store(true, std::memory_order_release);
  synchronize();
}

void DeviceBuffer::add_in_flight(std::shared_ptr<InFlight> op) {
  op->begin = offset_;
  op->end = offset_ + nbytes_;
  std::lock_guard lock(state_->in_flight_mutex);
  auto& ops = state_->in_flight;
  std::erase_if(ops, [](const std::shared_ptr<InFlight>& o) { return o->completed(); });
  ops.push_back(std::move(op));
  state_->has_in_flight.store(true, std::memory_order_release);
}

void DeviceBuffer::settle_in_flight(std::size_t begin, std::size_t end) const {
  // The overlapping operations stay listed until they have completed: another thread's
  // access meanwhile finds them and waits too. Completed outside the lock: completing one may
  // touch this allocation (a staged receive copies in, and settles that range itself).
  before_long_work();  // a receive may still be on its way
  std::vector<std::shared_ptr<InFlight>> ops;
  {
    std::lock_guard lock(state_->in_flight_mutex);
    // An empty access still settles an operation on exactly its (empty) range.
    for (const auto& o : state_->in_flight) {
      if ((o->begin < end && begin < o->end) || (o->begin == begin && o->end == end))
        ops.push_back(o);
    }
  }
  std::exception_ptr first;
  for (const auto& op : ops) {
    try {
      op->complete();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  {
    std::lock_guard lock(state_->in_flight_mutex);
    auto& all = state_->in_flight;
    std::erase_if(all, [](const std::shared_ptr<InFlight>& o) { return o->completed(); });
    state_->has_in_flight.store(!all.empty(), std::memory_order_release);
  }
  if (first) std::rethrow_exception(first);
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

std::size_t fill_pattern_period(const unsigned char* p, std::size_t size) {
  for (std::size_t period = 1; period < size; ++period) {
    if (size % period != 0) continue;
    bool ok = true;
    for (std::size_t i = period; i < size && ok; ++i) ok = p[i] == p[i - period];
    if (ok) return period;
  }
  return size;
}

std::string human_bytes(std::uint64_t n) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024.0 && u < 6) {
    v /= 1024.0;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

}  // namespace tack::detail
