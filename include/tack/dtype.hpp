// Scalar types, vector dtypes (`tack.vec(n, dtype)`) and host scalar values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace tack {

// Tack's one scalar type enumeration, shared by arrays and the kernel IR. The first ten are the
// element types an array holds, each with the NumPy type of the same width and kind. `boolean`
// is the type of a kernel's comparisons and conditions (and of bool scalar arguments): it lives
// in memory as one byte, 0 or 1, but no array holds it (TypeError; use u8 for flags).
enum class ScalarType : std::uint8_t { i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, boolean };

inline constexpr int kScalarTypeCount = 10;  // the array element types, i8 to f64

namespace detail {
struct ScalarTypeInfo {
  std::string_view name;   // Tack's spelling, used by the kernel language and the IR printer
  std::string_view numpy;  // NumPy's
  std::uint8_t size;       // bytes in memory, also the natural alignment of an atomic on it
  bool is_float;
  bool is_signed;
};
inline constexpr ScalarTypeInfo kScalarTypeInfo[kScalarTypeCount + 1] = {
    {"i8", "int8", 1, false, true},     {"i16", "int16", 2, false, true},
    {"i32", "int32", 4, false, true},   {"i64", "int64", 8, false, true},
    {"u8", "uint8", 1, false, false},   {"u16", "uint16", 2, false, false},
    {"u32", "uint32", 4, false, false}, {"u64", "uint64", 8, false, false},
    {"f32", "float32", 4, true, true},  {"f64", "float64", 8, true, true},
    {"bool", "bool", 1, false, false},
};
constexpr const ScalarTypeInfo& info(ScalarType t) {
  return kScalarTypeInfo[static_cast<int>(t)];
}
}  // namespace detail

constexpr std::size_t itemsize(ScalarType t) {
  return detail::info(t).size;
}
// "f32", ..., "bool"
constexpr std::string_view name(ScalarType t) {
  return detail::info(t).name;
}
// "float32", ..., "bool"
constexpr std::string_view numpy_name(ScalarType t) {
  return detail::info(t).numpy;
}
constexpr bool is_float(ScalarType t) {
  return detail::info(t).is_float;
}
constexpr bool is_signed(ScalarType t) {
  return detail::info(t).is_signed;
}
// The integer type of `size` bytes (1, 2, 4 or 8), signed or unsigned; nullopt for other sizes.
constexpr std::optional<ScalarType> int_type(std::size_t size, bool is_signed) {
  for (int i = 0; i < kScalarTypeCount; ++i) {
    const detail::ScalarTypeInfo& info = detail::kScalarTypeInfo[i];
    if (!info.is_float && info.size == size && info.is_signed == is_signed)
      return static_cast<ScalarType>(i);
  }
  return std::nullopt;
}
// An array element type by name: "f32" or "float32" -> f32; nullopt for anything else
// (including "bool": no array holds booleans).
constexpr std::optional<ScalarType> scalar_type_from_name(std::string_view name) {
  for (int i = 0; i < kScalarTypeCount; ++i) {
    const detail::ScalarTypeInfo& info = detail::kScalarTypeInfo[i];
    if (info.name == name || info.numpy == name) return static_cast<ScalarType>(i);
  }
  return std::nullopt;
}
// The scalar type of host data whose NumPy dtype is `numpy_name`; TypeError naming the ten
// supported types otherwise (bool, float16, complex, object, ... have no Tack dtype).
ScalarType scalar_type_for_host(std::string_view numpy_name);

// How host data of another NumPy dtype reaches an array of `target` (tack.copyto, tack.array
// with a dtype): its dtype is one of the ten (Direct), or a float NumPy has but Tack has not
// (float16, longdouble), widened exactly to float64 so that Tack's documented conversion
// applies (NaN to 0, others saturate), or bool, converted by NumPy (0 and 1). Anything else
// (object, such as None; strings; complex; dates) is a TypeError naming `what`, the Python
// type the data came from.
enum class HostConversion { Direct, ViaFloat64, ViaNumpy };
HostConversion host_conversion(char numpy_kind, std::string_view numpy_name, ScalarType target,
                               std::string_view what);

// The scalar dtype an API argument names: a Tack name ("f32") or a NumPy name ("float32").
// TypeError naming the ten scalar types otherwise (`name` is quoted in the message).
ScalarType scalar_type_for_argument(std::string_view name);

// The ScalarType of a C++ element type: scalar_type_of<float>() is f32. Only the ten types.
template <class T>
constexpr ScalarType scalar_type_of() {
  if constexpr (std::is_same_v<T, std::int8_t>)
    return ScalarType::i8;
  else if constexpr (std::is_same_v<T, std::int16_t>)
    return ScalarType::i16;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return ScalarType::i32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return ScalarType::i64;
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return ScalarType::u8;
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return ScalarType::u16;
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return ScalarType::u32;
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return ScalarType::u64;
  else if constexpr (std::is_same_v<T, float>)
    return ScalarType::f32;
  else {
    static_assert(std::is_same_v<T, double>, "T must be one of Tack's ten scalar types");
    return ScalarType::f64;
  }
}

// An array's element type: a scalar, a small vector of `vector_n` scalars (tack.vec(n, t)), or a
// small matrix of rows x cols scalars, row-major (tack.mat(rows, cols, t): vector_n = rows *
// cols components, matrix_cols = cols). Vector and matrix arrays are stored flat; the shape of
// an element is metadata that kernels and numpy() use.
struct DType {
  ScalarType scalar = ScalarType::f32;
  int vector_n = 0;     // 0: scalar elements; n >= 1: elements of n components
  int matrix_cols = 0;  // 0: scalars or vectors; m >= 1: matrices of vector_n / m rows of m

  constexpr DType() = default;
  constexpr DType(ScalarType s) : scalar(s) {}  // NOLINT: a scalar type is a dtype
  constexpr DType(ScalarType s, int n, int cols = 0) : scalar(s), vector_n(n), matrix_cols(cols) {}

  bool is_vector() const { return vector_n > 0; }  // vectors and matrices: several components
  bool is_matrix() const { return matrix_cols > 0; }
  int matrix_rows() const { return matrix_cols > 0 ? vector_n / matrix_cols : 0; }
  int components() const { return vector_n > 0 ? vector_n : 1; }
  std::size_t itemsize() const { return tack::itemsize(scalar) * components(); }
  std::string str() const;  // "f32", "vec(3, f32)" or "mat(3, 3, f32)"
  friend bool operator==(const DType&, const DType&) = default;
};

inline constexpr DType i8{ScalarType::i8};
inline constexpr DType i16{ScalarType::i16};
inline constexpr DType i32{ScalarType::i32};
inline constexpr DType i64{ScalarType::i64};
inline constexpr DType u8{ScalarType::u8};
inline constexpr DType u16{ScalarType::u16};
inline constexpr DType u32{ScalarType::u32};
inline constexpr DType u64{ScalarType::u64};
inline constexpr DType f32{ScalarType::f32};
inline constexpr DType f64{ScalarType::f64};

// TypeError unless `dtype` is one an array can hold (every dtype but bool and its vectors);
// `what` names the call in the message.
void check_array_dtype(DType dtype, const char* what);

// tack::vec(3, tack::f32): vectors of 3 f32. n must be in [1, 16]; ValueError otherwise.
DType vec(int n, DType scalar);
// tack::mat(3, 3, tack::f32): 3x3 matrices of f32, row-major. rows and cols must be in [1, 4]
// (the kernel language's matrices); ValueError otherwise.
DType mat(int rows, int cols, DType scalar);

// A host value of any kind, as Python hands it over (int, float, bool).
struct Scalar {
  enum class Kind : std::uint8_t { Int, UInt, Float, Bool };
  Kind kind = Kind::Int;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double f = 0.0;

  static Scalar from(std::int64_t v) { return Scalar{Kind::Int, v, 0, 0.0}; }
  static Scalar from_unsigned(std::uint64_t v) { return Scalar{Kind::UInt, 0, v, 0.0}; }
  static Scalar from(double v) { return Scalar{Kind::Float, 0, 0, v}; }
  static Scalar from_bool(bool v) { return Scalar{Kind::Bool, v ? 1 : 0, 0, 0.0}; }
  double as_double() const;
  std::string str() const;
};

// Writes `value` converted to `t` into `out` (itemsize(t) bytes). Integers must fit the type
// (ValueError naming the range otherwise); floats convert to integers toward zero and must be
// finite and in range. `t` is an array element type (TypeError for boolean), as for load_scalar.
void convert_scalar(const Scalar& value, ScalarType t, void* out);
// Reads one element of type `t` as a Scalar of the matching kind.
Scalar load_scalar(ScalarType t, const void* in);

}  // namespace tack
