// The CPU's fill kernel (the memory model's tack.algorithms.copy._fill_kernel): a fill of 256 KiB
// or more runs as a Tack kernel through the normal dispatch, so the threading policy that fans
// out every kernel fans it out, and the workers that will run the kernels first-touch the pages
// (docs/design/cpu_fill.md). The buffer is seen as unsigned integers of the pattern's widest
// unit (u64, u32, u16 or u8): one value per element, or a row of the pattern's units per
// element for vectors and matrices whose element is not a power of two bytes.
#include <cstdint>
#include <cstring>
#include <string>

#include "algorithms/kernel_text.hpp"
#include "memory/device_buffer.hpp"
#include "runtime/backend.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "support/error.hpp"

namespace tack::algorithms {
namespace {

ScalarType unit_type(std::size_t bytes) {
  switch (bytes) {
    case 8:
      return ScalarType::u64;
    case 4:
      return ScalarType::u32;
    case 2:
      return ScalarType::u16;
    default:
      return ScalarType::u8;
  }
}

void fill_by_kernel(const Array& a, const void* pattern, std::size_t pattern_size) {
  const std::shared_ptr<detail::DeviceBuffer>& buffer = a.buffer();
  const std::size_t nbytes = buffer->nbytes();
  std::size_t unit = 8;
  while (pattern_size % unit != 0) unit /= 2;
  TACK_INTERNAL_ASSERT(nbytes % pattern_size == 0, "fill pattern does not divide the buffer");
  const ScalarType t = unit_type(unit);
  const auto per_element = static_cast<std::int64_t>(pattern_size / unit);
  const auto elements = static_cast<std::int64_t>(nbytes / pattern_size);
  if (per_element == 1) {
    // One value per element: the pattern's bits as an unsigned integer of the unit's width.
    std::uint64_t bits = 0;
    std::memcpy(&bits, pattern, unit);
    const Array units(buffer, DType(t), {elements}, true);
    static const std::string text = R"(@tack.kernel
def tack_fill(out, bits):
    for i in range(len(out)):
        out[i] = {T}(bits)
)";
    cached_kernel(subst(text, "T", cast_name(t)))(units, Scalar::from_unsigned(bits));
    return;
  }
  // A row of units per element, copied from a small array of the pattern.
  const Array rows(buffer, DType(t), {elements, per_element}, true);
  const Array units = empty({per_element}, DType(t), a.device());
  units.buffer()->from_host(pattern, 0, pattern_size);
  static const std::string text = R"(@tack.kernel
def tack_fill_rows(out, pattern):
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = pattern[j]
)";
  cached_kernel(text)(rows, units);
}

// Registered when libtack is loaded: the runtime cannot call up into the dispatch itself.
[[maybe_unused]] const bool registered = (detail::set_cpu_fill_kernel(&fill_by_kernel), true);

}  // namespace
}  // namespace tack::algorithms
