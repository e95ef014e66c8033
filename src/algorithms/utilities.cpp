// Array utilities (docs/algorithms.md, "Array utilities"): arange and linspace with NumPy's
// formulas (so the same values), concat along an axis, and the copies (astype, copy, to) and
// *_like constructors. The fills and the concatenation are Tack kernels, run on the device.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "algorithms/kernel_text.hpp"
#include "tack/algorithms.hpp"
#include "tack/error.hpp"

namespace tack {
namespace {

using algorithms::cached_kernel;
using algorithms::cast_name;
using algorithms::subst;

// 128-bit integers for arange's length and second value (a span of two i64 needs 65 bits).
__extension__ typedef __int128 Wide;

bool is_integer_scalar(const Scalar& s) {
  return s.kind == Scalar::Kind::Int || s.kind == Scalar::Kind::UInt ||
         s.kind == Scalar::Kind::Bool;
}

// The value of `s` as the dtype `t` holds it, for the kernels' arguments: exact for floats of t
// (f32 rounded on the host) and for integers.
Scalar in_type(const Scalar& s, ScalarType t) {
  if (t == ScalarType::f32)
    return Scalar::from(static_cast<double>(static_cast<float>(s.as_double())));
  if (is_float(t)) return Scalar::from(s.as_double());
  if (s.kind == Scalar::Kind::Float) return Scalar::from(static_cast<std::int64_t>(s.f));
  return s;
}

}  // namespace

Array arange(const Scalar& start, const Scalar& stop, const Scalar& step,
             std::optional<DType> dtype, const Device& device) {
  const double a = start.as_double(), b = stop.as_double(), d = step.as_double();
  if (d == 0 || std::isnan(d)) {
    throw ValueError("tack.arange: step is " + step.str() +
                     "; give a nonzero step (the count would be infinite)");
  }
  if (!std::isfinite(a) || !std::isfinite(b)) {
    throw ValueError("tack.arange: start " + start.str() + " and stop " + stop.str() +
                     " must be finite numbers");
  }
  const bool ints = is_integer_scalar(start) && is_integer_scalar(stop) && is_integer_scalar(step);
  const DType t = dtype.value_or(ints ? i64 : f64);
  algorithms::check_scalar_dtype(t, "arange");
  // NumPy's length: ceil((stop - start) / step), at least 0.
  std::int64_t n = 0;
  if (ints && start.kind == Scalar::Kind::Int && stop.kind == Scalar::Kind::Int &&
      step.kind == Scalar::Kind::Int) {
    // In 128 bits: stop - start of two i64 can exceed 64.
    const Wide s = step.i, span = static_cast<Wide>(stop.i) - start.i;
    Wide len = 0;
    if ((span > 0 && s > 0) || (span < 0 && s < 0)) len = (span + s - (s > 0 ? 1 : -1)) / s;
    if (len > std::numeric_limits<std::int64_t>::max()) {
      throw ValueError("tack.arange(" + start.str() + ", " + stop.str() + ", " + step.str() +
                       ") has more than 2**63 elements; give a larger step or a smaller range");
    }
    n = static_cast<std::int64_t>(len);
  } else {
    const double len = std::ceil((b - a) / d);
    if (len > 0) {
      if (len > 9.0e18) throw ValueError("tack.arange: " + std::to_string(len) + " elements");
      n = static_cast<std::int64_t>(len);
    }
  }
  Array out = empty({n}, t, device);
  if (n == 0) return out;
  // NumPy's fill: out[0] = start, out[1] = start + step, out[i] = start + i * delta with
  // delta = out[1] - out[0], each in the dtype.
  const std::string T = cast_name(t.scalar);
  std::string src = R"(@tack.kernel
def tack_arange(out, start, second):
    first = {T}(start)
    delta = {T}({T}(second) - first)
    for i in range(len(out)):
        v = {T}(first + {T}(i) * delta)
        out[i] = first if i == 0 else ({T}(second) if i == 1 else v)
)";
  // NumPy: out[1] is start + step computed as Python numbers, then converted to the dtype.
  const Scalar first = in_type(start, t.scalar);
  Scalar second;
  if (ints) {
    auto wide = [](const Scalar& v) {
      return v.kind == Scalar::Kind::UInt ? static_cast<Wide>(v.u) : static_cast<Wide>(v.i);
    };
    second = Scalar::from(static_cast<std::int64_t>(wide(start) + wide(step)));
  } else {
    second = in_type(Scalar::from(a + d), t.scalar);
  }
  cached_kernel(subst(src, "T", T))(out, first, second);
  return out;
}

Array arange(std::int64_t stop, std::optional<DType> dtype, const Device& device) {
  return arange(Scalar::from(std::int64_t{0}), Scalar::from(stop), Scalar::from(std::int64_t{1}),
                dtype, device);
}

namespace algorithms {

// linspace computed in `compute` (f64, or f32 where NumPy's inputs are f32 scalars).
Array linspace_in(double start, double stop, std::int64_t num, bool endpoint,
                  std::optional<DType> dtype, const Device& device, ScalarType compute) {
  if (num < 0) {
    throw ValueError("tack.linspace: num is " + std::to_string(num) +
                     "; the number of samples must be non-negative");
  }
  const DType t = dtype.value_or(f64);
  algorithms::check_scalar_dtype(t, "linspace");
  Array out = empty({num}, t, device);
  if (num == 0) return out;
  // NumPy's formula in f64: y = i * step + start (or i / div * delta when step is 0), the last
  // sample stop itself with endpoint; integers floored, then cast to the dtype.
  const std::int64_t div = endpoint ? num - 1 : num;
  double delta = stop - start;
  double step = div > 0 ? delta / static_cast<double>(div) : std::nan("");
  if (compute == ScalarType::f32) {  // each step rounded to f32, as NumPy's f32 arithmetic
    delta = static_cast<float>(static_cast<float>(stop) - static_cast<float>(start));
    step = div > 0 ? static_cast<float>(static_cast<float>(delta) / static_cast<float>(div))
                   : std::nan("");
  }
  const bool step_zero = div > 0 && step == 0;
  // The parameters travel in an f64 array, so the kernel computes in f64 whatever the dtype
  // (a Python float argument would take the output's float type).
  std::string src = R"(@tack.kernel
def tack_linspace(out, params, div, step_zero, last_is_stop):
    start = {C}(params[0])
    stop = {C}(params[1])
    step = {C}(params[2])
    delta = {C}(params[3])
    for i in range(len(out)):
        y = {C}(i) * step
        if step_zero:
            y = {C}(i) / {C}(div) * delta
        y = y + start
        if last_is_stop and i == len(out) - 1:
            y = stop
        out[i] = {T}({FLOOR})
)";
  src = subst(src, "FLOOR", is_float(t.scalar) ? "y" : "math.floor(y)");
  const bool last_is_stop = endpoint && num > 1;
  // div == 0 (one sample with endpoint): NumPy gives start.
  const std::vector<double> params = {start, stop, div > 0 ? step : 0.0, delta};
  const Array p = array(params, {4}, device);
  src = subst(src, "C", cast_name(compute));
  cached_kernel(subst(src, "T", cast_name(t.scalar)))(
      out, p, static_cast<std::int64_t>(div > 0 ? div : 1), step_zero, last_is_stop);
  return out;
}

}  // namespace algorithms

Array linspace(double start, double stop, std::int64_t num, bool endpoint,
               std::optional<DType> dtype, const Device& device) {
  return algorithms::linspace_in(start, stop, num, endpoint, dtype, device, ScalarType::f64);
}

Array concat(const std::vector<Array>& arrays, int axis) {
  if (arrays.empty()) {
    throw ValueError("tack.concat: no arrays given; pass at least one array");
  }
  const Array& a0 = arrays.front();
  const int nd = a0.ndim();
  if (nd == 0) {
    throw ValueError("tack.concat: 0-d arrays cannot be concatenated; reshape them to (1,)");
  }
  int k = axis;
  if (k < -nd || k >= nd) {
    throw IndexError("tack.concat: axis " + std::to_string(axis) +
                     " is out of bounds for arrays of " + std::to_string(nd) +
                     " dimensions; use an axis in [" + std::to_string(-nd) + ", " +
                     std::to_string(nd - 1) + "]");
  }
  if (k < 0) k += nd;
  Shape shape = a0.shape();
  std::int64_t total = 0;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const Array& a = arrays[i];
    if (!(a.dtype() == a0.dtype())) {
      throw TypeError("tack.concat: array " + std::to_string(i) + " has dtype " + a.dtype().str() +
                      " and array 0 " + a0.dtype().str() +
                      "; convert them to one dtype first (a.astype(dtype))");
    }
    if (!(a.device() == a0.device())) {
      throw ValueError("tack.concat: array " + std::to_string(i) + " lives on " +
                       a.device().name() + " and array 0 on " + a0.device().name() +
                       "; move them to one device first (a.to(device))");
    }
    bool ok = a.ndim() == nd;
    for (int d = 0; ok && d < nd; ++d) ok = d == k || a.shape()[d] == shape[d];
    if (!ok) {
      throw ValueError("tack.concat: array " + std::to_string(i) + " has shape " +
                       detail::shape_str(a.shape()) + " and array 0 " +
                       detail::shape_str(a0.shape()) + "; all dimensions but axis " +
                       std::to_string(k) + " must match");
    }
    total += a.shape()[k];
  }
  shape[k] = total;
  Array out = empty(shape, a0.dtype(), a0.device());
  std::int64_t outer = 1, inner = 1;
  for (int d = 0; d < k; ++d) outer *= shape[d];
  for (int d = k + 1; d < nd; ++d) inner *= shape[d];
  if (out.size() == 0) return out;
  const Kernel& copy = cached_kernel(R"(@tack.kernel
def tack_concat(out, x, offset):
    for p, j, q in tack.ndrange(x.shape[0], x.shape[1], x.shape[2]):
        out[p, offset + j, q] = x[p, j, q]
)");
  const Array o3 = out.reshape({outer, total, inner});
  std::int64_t offset = 0;
  for (const Array& a : arrays) {
    const std::int64_t len = a.shape()[k];
    if (len > 0 && outer * inner > 0) copy(o3, a.reshape({outer, len, inner}), offset);
    offset += len;
  }
  return out;
}

Array astype(const Array& a, DType dtype) {
  return array(a, dtype, a.device());
}
Array copy(const Array& a) {
  return array(a, std::nullopt, a.device());
}
Array to(const Array& a, const Device& device) {
  return array(a, std::nullopt, device);
}

Array empty_like(const Array& a, std::optional<DType> dtype, std::optional<Device> device) {
  return empty(a.shape(), dtype.value_or(a.dtype()), device.value_or(a.device()));
}
Array zeros_like(const Array& a, std::optional<DType> dtype, std::optional<Device> device) {
  return zeros(a.shape(), dtype.value_or(a.dtype()), device.value_or(a.device()));
}
Array ones_like(const Array& a, std::optional<DType> dtype, std::optional<Device> device) {
  return ones(a.shape(), dtype.value_or(a.dtype()), device.value_or(a.device()));
}
Array full_like(const Array& a, const Scalar& value, std::optional<DType> dtype,
                std::optional<Device> device) {
  return full(a.shape(), value, dtype.value_or(a.dtype()), device.value_or(a.device()));
}

}  // namespace tack
