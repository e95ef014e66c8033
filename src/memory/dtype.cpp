// Scalar type tables, vector dtypes and checked host-scalar conversion.
#include "tack/dtype.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>

#include "memory/scalar_dispatch.hpp"
#include "support/error.hpp"

namespace tack {
namespace {

template <class T>
void store_int(const Scalar& v, ScalarType t, void* out) {
  T r{};
  auto range_error = [&](const std::string& shown) {
    std::ostringstream m;
    m << "value " << shown << " does not fit in " << name(t) << " (range "
      << +std::numeric_limits<T>::min() << " to " << +std::numeric_limits<T>::max()
      << "); pass a value in range or use a wider dtype";
    throw ValueError(m.str());
  };
  switch (v.kind) {
    case Scalar::Kind::Int:
    case Scalar::Kind::Bool:
      if constexpr (std::is_signed_v<T>) {
        if (v.i < std::numeric_limits<T>::min() || v.i > std::numeric_limits<T>::max())
          range_error(std::to_string(v.i));
      } else {
        if (v.i < 0 || static_cast<std::uint64_t>(v.i) > std::numeric_limits<T>::max())
          range_error(std::to_string(v.i));
      }
      r = static_cast<T>(v.i);
      break;
    case Scalar::Kind::UInt:
      if (v.u > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
        range_error(std::to_string(v.u));
      r = static_cast<T>(v.u);
      break;
    case Scalar::Kind::Float: {
      double t0 = std::trunc(v.f);
      // The bounds are exact powers of two, so the comparisons are exact in double.
      double lo = static_cast<double>(std::numeric_limits<T>::min());
      double hi_excl = std::ldexp(1.0, std::numeric_limits<T>::digits);
      if (!std::isfinite(v.f) || t0 < lo || t0 >= hi_excl) range_error(v.str());
      r = static_cast<T>(t0);
      break;
    }
  }
  std::memcpy(out, &r, sizeof(T));
}

}  // namespace

ScalarType scalar_type_for_host(std::string_view numpy_name) {
  if (auto t = scalar_type_from_name(numpy_name)) return *t;
  throw TypeError("host data of dtype " + std::string(numpy_name) +
                  " has no Tack dtype; Tack arrays hold int8-int64, uint8-uint64, float32 and "
                  "float64 (convert first, e.g. data.astype(numpy.float32))");
}

HostConversion host_conversion(char numpy_kind, std::string_view numpy_name, ScalarType target,
                               std::string_view what) {
  if (scalar_type_from_name(numpy_name)) return HostConversion::Direct;
  if (numpy_kind == 'f') return HostConversion::ViaFloat64;
  if (numpy_kind == 'b' || numpy_kind == 'i' || numpy_kind == 'u') return HostConversion::ViaNumpy;
  throw TypeError("cannot convert " + std::string(what) + " (NumPy dtype " +
                  std::string(numpy_name) + ") to " + std::string(name(target)) +
                  ": host data must be numbers (a scalar, nested lists or a NumPy array of "
                  "integers, floats or bools); convert it first, e.g. numpy.asarray(x, "
                  "numpy." +
                  std::string(tack::numpy_name(target)) + ")");
}

ScalarType scalar_type_for_argument(std::string_view n) {
  if (auto t = scalar_type_from_name(n)) return *t;
  throw TypeError("dtype " + std::string(n) +
                  " is not a Tack dtype; use one of tack.i8, i16, i32, i64, u8, u16, u32, u64, "
                  "f32, f64 (or the NumPy dtype of the same name), or tack.vec(n, dtype)");
}

std::string DType::str() const {
  if (vector_n == 0) return std::string(name(scalar));
  if (matrix_cols > 0) {
    return "mat(" + std::to_string(matrix_rows()) + ", " + std::to_string(matrix_cols) + ", " +
           std::string(name(scalar)) + ")";
  }
  return "vec(" + std::to_string(vector_n) + ", " + std::string(name(scalar)) + ")";
}

void check_array_dtype(DType dtype, const char* what) {
  if (dtype.scalar == ScalarType::boolean)
    throw TypeError(std::string(what) + ": no array holds " + dtype.str() +
                    " elements (bool is a kernel value type only); use u8 for 0/1 flags");
}

DType vec(int n, DType scalar) {
  check_array_dtype(scalar, "tack.vec");
  if (scalar.is_vector())
    throw TypeError("tack.vec(n, dtype) needs a scalar dtype, got " + scalar.str() +
                    "; nest vectors by using a larger n");
  if (n < 1 || n > 16)
    throw ValueError("tack.vec(n, dtype) needs 1 <= n <= 16, got n=" + std::to_string(n) +
                     "; use a structure-of-arrays array for wider records");
  return DType(scalar.scalar, n);
}

DType mat(int rows, int cols, DType scalar) {
  check_array_dtype(scalar, "tack.mat");
  if (scalar.is_vector())
    throw TypeError("tack.mat(rows, cols, dtype) needs a scalar dtype, got " + scalar.str());
  if (rows < 1 || rows > 4 || cols < 1 || cols > 4)
    throw ValueError(
        "tack.mat(rows, cols, dtype) needs 1 <= rows, cols <= 4 (kernel matrices "
        "are at most 4x4), got " +
        std::to_string(rows) + "x" + std::to_string(cols) +
        "; use tack.vec(n, dtype) for flat records of up to 16");
  return DType(scalar.scalar, rows * cols, cols);
}

double Scalar::as_double() const {
  switch (kind) {
    case Kind::Int:
    case Kind::Bool:
      return static_cast<double>(i);
    case Kind::UInt:
      return static_cast<double>(u);
    case Kind::Float:
      return f;
  }
  return 0.0;
}

std::string Scalar::str() const {
  std::ostringstream o;
  switch (kind) {
    case Kind::Int:
      o << i;
      break;
    case Kind::UInt:
      o << u;
      break;
    case Kind::Bool:
      o << (i ? "True" : "False");
      break;
    case Kind::Float:
      o << f;
      break;
  }
  return o.str();
}

void convert_scalar(const Scalar& v, ScalarType t, void* out) {
  check_array_dtype(t, "tack::convert_scalar");
  detail::with_scalar_type(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T f = static_cast<T>(v.as_double());
      std::memcpy(out, &f, sizeof f);
    } else {
      store_int<T>(v, t, out);
    }
  });
}

Scalar load_scalar(ScalarType t, const void* in) {
  check_array_dtype(t, "tack::load_scalar");
  return detail::with_scalar_type(t, [in](auto tag) {
    using T = decltype(tag);
    T x;
    std::memcpy(&x, in, sizeof x);
    if constexpr (std::is_floating_point_v<T>) {
      return Scalar::from(static_cast<double>(x));
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
      return Scalar::from_unsigned(x);
    } else {
      return Scalar::from(static_cast<std::int64_t>(x));
    }
  });
}

}  // namespace tack
