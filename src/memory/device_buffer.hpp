// DeviceBuffer: the one interface through which every memory operation on an array goes.
// A buffer is a root (it owns or wraps an allocation) or a view (a stretch of a root's bytes).
// What concerns the allocation -- the write counter, being shared outside Tack, the producer
// hold of an import, freeing -- lives in the root's AllocationState, which views share.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tack::detail {

class Backend;

// An operation outside Tack on an allocation's memory that has not completed (an MPI send or
// receive, tack/mpi.hpp): Tack completes it before anything else touches the allocation.
class InFlight {
 public:
  virtual ~InFlight() = default;
  // The bytes of the allocation it uses, [begin, end) from the root's start: only accesses
  // that overlap them complete it.
  std::size_t begin = 0, end = std::numeric_limits<std::size_t>::max();
  // Waits for the operation and finishes it (a staged receive copies its data in); returns
  // at once when it has completed. Throws what the operation found.
  virtual void complete() = 0;
  virtual bool completed() const = 0;
};

// State of one allocation, shared by its root buffer and every view of it.
struct AllocationState {
  std::atomic<std::uint64_t> version{0};  // bumped by every write (host or kernel)
  std::atomic<bool> shared{false};        // handed outside Tack (DLPack export, wrapped pointer)
  bool owned = true;                      // false: wrapped or imported, never freed by Tack
  std::shared_ptr<void> hold;             // a DLPack producer or host owner kept alive
  // Operations in flight on the memory (DeviceBuffer::settle); the flag is the fast check.
  std::atomic<bool> has_in_flight{false};
  std::mutex in_flight_mutex;
  std::vector<std::shared_ptr<InFlight>> in_flight;
};

// A half-open host byte range [begin, end) for the CPU's disjointness check.
struct ByteSpan {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
};

// The smallest period of a fill pattern that divides its size: an all-zero f64 pattern fills as
// one byte, a vec(3, f32) of equal components as four (the devices' native fills take 1, 2 or 4).
std::size_t fill_pattern_period(const unsigned char* pattern, std::size_t size);
// A fill of `nbytes` with a pattern no native fill takes (vec(3, f32), f64, a misaligned
// address): write_run(bytes, n) writes one run of whole patterns (up to 64 KiB) from the host at
// offset 0, then copy_within(offset, n) copies n bytes from offset 0 to `offset` on the device,
// doubling the filled front each time (never overlapping). Devices queue both in order.
template <class WriteRun, class CopyWithin>
void doubling_fill(const unsigned char* pattern, std::size_t pattern_size, std::size_t nbytes,
                   WriteRun&& write_run, CopyWithin&& copy_within) {
  const std::size_t run_cap =
      pattern_size > 64 * 1024 ? pattern_size : (64 * 1024) / pattern_size * pattern_size;
  const std::size_t run = nbytes < run_cap ? nbytes : run_cap;
  std::vector<unsigned char> staging(run);
  for (std::size_t i = 0; i < run; i += pattern_size) {
    for (std::size_t j = 0; j < pattern_size; ++j) staging[i + j] = pattern[j];
  }
  write_run(staging.data(), run);
  for (std::size_t filled = run; filled < nbytes;) {
    const std::size_t n = filled < nbytes - filled ? filled : nbytes - filled;
    copy_within(filled, n);
    filled += n;
  }
}

// "1.5 GiB": a byte count for messages.
std::string human_bytes(std::uint64_t n);

class DeviceBuffer : public std::enable_shared_from_this<DeviceBuffer> {
 public:
  virtual ~DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  std::size_t nbytes() const { return nbytes_; }
  // The address kernels bind: host address on the CPU, device address on devices.
  virtual std::uintptr_t address() const = 0;
  // Host-visible byte range, where the backend has one (CPU); nullopt otherwise.
  virtual std::optional<ByteSpan> span() const { return std::nullopt; }

  // Host <-> buffer transfers of `count` bytes at byte `offset` within this buffer.
  // Writes are queued behind launches on queued backends; reads wait for them.
  virtual void from_host(const void* src, std::size_t offset, std::size_t count) = 0;
  virtual void to_host(void* dst, std::size_t offset, std::size_t count) const = 0;
  // Reads bytes [start, start + count), checking the range against the buffer first.
  void read_range(std::size_t start, std::size_t count, void* dst) const;
  // Fills the whole buffer with a repeated pattern of `pattern_size` bytes (1, 2, 4, 8, ...).
  virtual void fill(const void* pattern, std::size_t pattern_size) = 0;
  // Waits for every queued launch that uses this buffer. The CPU has none.
  virtual void synchronize() const {}
  // Marks the allocation as handed outside Tack and waits for queued launches.
  void share();
  // Completes the operations in flight (InFlight) on this buffer's bytes, or on bytes
  // [offset, offset + count) of it; called before each access: the backends' transfers and
  // fills, read_range, share, and kernel launches.
  void settle() const { settle(0, nbytes_); }
  void settle(std::size_t offset, std::size_t count) const {
    if (state_->has_in_flight.load(std::memory_order_acquire))
      settle_in_flight(offset_ + offset, offset_ + offset + count);
  }
  // Registers an operation in flight on this buffer's bytes (completed ones are dropped).
  void add_in_flight(std::shared_ptr<InFlight> op);

  // A new buffer reads as zeros (so tack.zeros need not fill it). Never a view's: its bytes are
  // whatever its root holds.
  bool starts_zeroed() const { return !is_view() && allocation_starts_zeroed(); }
  virtual std::string_view backend_name() const = 0;
  virtual std::shared_ptr<Backend> backend() const = 0;
  // The same, borrowed (no reference count taken): for the launch path.
  virtual const Backend* backend_ptr() const noexcept = 0;

  // A buffer over bytes [offset, offset + count) of this buffer's root, freeing nothing.
  std::shared_ptr<DeviceBuffer> make_view(std::size_t offset, std::size_t count);
  bool is_view() const { return root_ != nullptr; }
  // The root buffer: this one, or the one a view was made from.
  std::shared_ptr<const DeviceBuffer> root() const;
  std::size_t offset_in_root() const { return offset_; }

  AllocationState& state() const { return *state_; }
  std::uint64_t version() const { return state_->version.load(std::memory_order_relaxed); }
  void bump_version() { state_->version.fetch_add(1, std::memory_order_relaxed); }
  bool shared() const { return state_->shared.load(std::memory_order_acquire); }
  bool owned() const { return state_->owned; }

 protected:
  DeviceBuffer(std::size_t nbytes, std::shared_ptr<AllocationState> state)
      : nbytes_(nbytes), state_(std::move(state)) {}
  // Each backend makes its own view class: the root's kind of buffer at a shifted address.
  virtual std::shared_ptr<DeviceBuffer> make_view_impl(std::size_t offset, std::size_t count) = 0;
  // Whether this backend's new allocations read as zeros (none of Tack's do: the CPU's and
  // OpenCL's contents are unspecified).
  virtual bool allocation_starts_zeroed() const { return false; }
  void check_range(std::size_t offset, std::size_t count, const char* what) const;
  void settle_in_flight(std::size_t begin, std::size_t end) const;

  std::size_t nbytes_;
  std::shared_ptr<AllocationState> state_;
  std::shared_ptr<DeviceBuffer> root_;  // set on views: keeps the root, and its memory, alive
  std::size_t offset_ = 0;              // byte offset of a view within its root
};

}  // namespace tack::detail
