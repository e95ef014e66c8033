// The CPU's fill kernel (the memory model's tack.algorithms.copy._fill_kernel): a fill of 256 KiB
// or more runs as a Tack kernel through the normal dispatch, so the threading policy that fans
// out every kernel fans it out, and the workers that will run the kernels first-touch the pages
// (docs/design/cpu_fill.md). The buffer is seen as unsigned integers of the pattern's widest
// unit (u64, u32, u16 or u8): one value per element, or a row of the pattern's units per
// element for vectors and matrices whose element is not a power of two bytes.
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>

#include "algorithms/kernel_text.hpp"
#include "memory/device_buffer.hpp"
#include "runtime/backend.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "support/error.hpp"

namespace tack::algorithms {
namespace {

ScalarType unit_type(std::size_t bytes) {
  return int_type(bytes, false).value_or(ScalarType::u8);
}

// Fills of this many bytes or more write around the caches (tack.stream_store: non-temporal
// stores), as memset does: the data would not fit in them anyway, and a cached store first reads
// each line (measured 2-3x slower for a 256 MiB fill; docs/design/cpu_fill.md).
constexpr std::size_t kStreamingFillBytes = 8u << 20;

void run_fill_kernel(const Array& a, const void* pattern, std::size_t pattern_size) {
  const std::shared_ptr<detail::DeviceBuffer>& buffer = a.buffer();
  const std::size_t nbytes = buffer->nbytes();
  std::size_t unit = 8;
  while (pattern_size % unit != 0) unit /= 2;
  TACK_INTERNAL_ASSERT(nbytes % pattern_size == 0, "fill pattern does not divide the buffer");
  const ScalarType t = unit_type(unit);
  const auto per_element = static_cast<std::int64_t>(pattern_size / unit);
  const auto elements = static_cast<std::int64_t>(nbytes / pattern_size);
  // Large fills write around the caches; the one kernel text of each shape takes either store.
  const std::string store =
      nbytes >= kStreamingFillBytes ? "tack.stream_store(out, ({I}), {V})" : "out[{I}] = {V}";
  if (per_element == 1) {
    // One value per element: the pattern's bits as an unsigned integer of the unit's width.
    std::uint64_t bits = 0;
    std::memcpy(&bits, pattern, unit);
    const Array units(buffer, DType(t), {elements}, true);
    const std::string text = R"(@tack.kernel
def tack_fill(out, bits):
    for i in range(len(out)):
        {STORE}
)";
    const std::string body = subst(subst(store, "I", "i"), "V", cast_name(t) + "(bits)");
    cached_kernel(subst(text, "STORE", body))(units, Scalar::from_unsigned(bits));
    return;
  }
  // A row of units per element, copied from a small array of the pattern.
  const Array rows(buffer, DType(t), {elements, per_element}, true);
  const Array units = empty({per_element}, DType(t), a.device());
  units.buffer()->from_host(pattern, 0, pattern_size);
  const std::string text = R"(@tack.kernel
def tack_fill_rows(out, pattern):
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            {STORE}
)";
  cached_kernel(subst(text, "STORE", subst(subst(store, "I", "i, j"), "V", "pattern[j]")))(rows,
                                                                                           units);
}

// The registered fill: false (the host loop fills instead) when the kernel cannot run, e.g. a
// compile that failed. A read-only array never gets here (Array::fill checked it).
bool fill_by_kernel(const Array& a, const void* pattern, std::size_t pattern_size) {
  try {
    run_fill_kernel(a, pattern, pattern_size);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// Registered when libtack is loaded: the runtime cannot call up into the dispatch itself.
[[maybe_unused]] const bool registered = (detail::set_cpu_fill_kernel(&fill_by_kernel), true);

}  // namespace
}  // namespace tack::algorithms
