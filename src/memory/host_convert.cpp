// Converting and broadcasting strided host data: one row loop per (source, target) type pair.
#include "memory/host_convert.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "memory/scalar_dispatch.hpp"
#include "runtime/parallel.hpp"
#include "support/error.hpp"

namespace tack::detail {
namespace {

// NumPy leaves out-of-range float -> int casts undefined; Tack defines them: NaN is 0, others
// saturate at the type's limits, so a conversion is never undefined behavior.
template <class D, class S>
D convert_value(S v) {
  if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    if (std::isnan(v)) return 0;
    if (v <= static_cast<S>(std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
    if (v >= std::ldexp(S(1), std::numeric_limits<D>::digits)) return std::numeric_limits<D>::max();
    return static_cast<D>(v);
  } else if constexpr (std::is_same_v<S, double> && std::is_same_v<D, float>) {
    if (v > std::numeric_limits<float>::max()) return std::numeric_limits<float>::infinity();
    if (v < -std::numeric_limits<float>::max()) return -std::numeric_limits<float>::infinity();
    return static_cast<float>(v);
  } else {
    return static_cast<D>(v);  // integer -> integer wraps (C++20 modular conversion)
  }
}

using RowFn = void (*)(const std::byte* src, std::int64_t stride, std::byte* dst, std::int64_t n);

template <class S, class D>
void convert_row(const std::byte* src, std::int64_t stride, std::byte* dst, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    S s;
    std::memcpy(&s, src + i * stride, sizeof(S));
    D d = convert_value<D>(s);
    std::memcpy(dst + i * static_cast<std::int64_t>(sizeof(D)), &d, sizeof(D));
  }
}

RowFn row_fn(ScalarType s, ScalarType d) {
  return with_scalar_type(s, [d](auto from) {
    return with_scalar_type(
        d, [](auto to) -> RowFn { return convert_row<decltype(from), decltype(to)>; });
  });
}

std::vector<std::int64_t> c_strides(const Shape& shape, std::size_t item) {
  std::vector<std::int64_t> st(shape.size());
  std::int64_t s = static_cast<std::int64_t>(item);
  for (std::size_t k = shape.size(); k-- > 0;) {
    st[k] = s;
    s *= shape[k];
  }
  return st;
}

}  // namespace

bool is_c_contiguous(const HostView& src) {
  if (src.strides.empty()) return true;
  auto expected = c_strides(src.shape, itemsize(src.dtype));
  for (std::size_t k = 0; k < src.shape.size(); ++k) {
    if (src.shape[k] != 1 && src.strides[k] != expected[k]) return false;
  }
  return true;
}

std::vector<std::int64_t> broadcast_strides(const HostView& src, const Shape& dst_shape,
                                            const char* what) {
  auto src_strides = src.strides.empty() ? c_strides(src.shape, itemsize(src.dtype)) : src.strides;
  const std::size_t nd = dst_shape.size(), ns = src.shape.size();
  auto fail = [&] {
    throw ValueError(std::string(what) + ": data of shape " + shape_str(src.shape) +
                     " does not match or broadcast to the array's shape " + shape_str(dst_shape) +
                     "; reshape the data or pass data of shape " + shape_str(dst_shape));
  };
  std::vector<std::int64_t> out(nd, 0);
  // Extra leading source dimensions are allowed only when they have length 1.
  for (std::size_t k = 0; k + nd < ns; ++k) {
    if (src.shape[k] != 1) fail();
  }
  for (std::size_t k = 0; k < nd; ++k) {
    const std::ptrdiff_t ks = static_cast<std::ptrdiff_t>(ns) - static_cast<std::ptrdiff_t>(nd) +
                              static_cast<std::ptrdiff_t>(k);
    if (ks < 0) continue;  // a missing leading dimension broadcasts
    const auto sdim = src.shape[static_cast<std::size_t>(ks)];
    if (sdim == dst_shape[k]) {
      out[k] = src_strides[static_cast<std::size_t>(ks)];
    } else if (sdim != 1) {
      fail();
    }
  }
  return out;
}

void convert_into(const HostView& src, const Shape& dst_shape, ScalarType dst_type, void* dst) {
  auto strides = broadcast_strides(src, dst_shape, "tack.copyto");
  const std::int64_t total = element_count(dst_shape, "tack.copyto");
  if (total == 0) return;
  RowFn fn = row_fn(src.dtype, dst_type);
  const std::size_t dsize = itemsize(dst_type);
  if (dst_shape.empty()) {
    fn(static_cast<const std::byte*>(src.data), 0, static_cast<std::byte*>(dst), 1);
    return;
  }
  const std::int64_t inner = dst_shape.back();
  const std::int64_t inner_stride = strides.back();
  const std::int64_t rows = inner == 0 ? 0 : total / inner;
  const std::size_t outer_nd = dst_shape.size() - 1;
  auto body = [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      // Source offset of row r: decompose r over the outer dimensions.
      std::int64_t rem = r, off = 0;
      for (std::size_t k = outer_nd; k-- > 0;) {
        const std::int64_t idx = rem % dst_shape[k];
        rem /= dst_shape[k];
        off += idx * strides[k];
      }
      fn(static_cast<const std::byte*>(src.data) + off, inner_stride,
         static_cast<std::byte*>(dst) + r * inner * static_cast<std::int64_t>(dsize), inner);
    }
  };
  const std::int64_t grain = std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(inner, 1));
  parallel_for(rows, grain, body);
}

}  // namespace tack::detail
