// Names the host binds for a kernel's functions: compile-time constants (names a function reads
// but does not define: Python's module globals and closure variables) and aliases of device
// functions (a function called by another name, or through a module: `f = tack.func(g)`,
// `mylib.helper(x)`).
#pragma once

#include <string>
#include <vector>

#include "tack/dtype.hpp"

namespace tack {

// One constant's value.
struct ConstantValue {
  enum class Kind : std::uint8_t {
    Number,       // an int, float or bool: weakly typed like a literal (a bool is a bool)
    Typed,        // a number of a fixed dtype (Python's tack.constant(v, dtype))
    Tuple,        // a tuple of constants
    Unsupported,  // an object a kernel cannot read: using the name is a CompileError
  };
  Kind kind = Kind::Number;
  Scalar value;                         // Number, Typed
  ScalarType dtype = ScalarType::f32;   // Typed
  std::vector<ConstantValue> elements;  // Tuple
  std::string what;                     // Unsupported: what the object is, for the message

  static ConstantValue number(Scalar v) { return {Kind::Number, v, ScalarType::f32, {}, {}}; }
  static ConstantValue typed(Scalar v, ScalarType t) { return {Kind::Typed, v, t, {}, {}}; }
  static ConstantValue tuple(std::vector<ConstantValue> e) {
    return {Kind::Tuple, Scalar{}, ScalarType::f32, std::move(e), {}};
  }
  static ConstantValue unsupported(std::string what) {
    return {Kind::Unsupported, Scalar{}, ScalarType::f32, {}, std::move(what)};
  }
};

// `name` as the function `function` of the kernel's source sees it (each function has its own
// module, so two functions may bind one name differently).
struct NamedConstant {
  std::string function;
  std::string name;
  ConstantValue value;
};

// `name` (a bare or dotted name) called from `function` is the device function `target`.
struct FunctionAlias {
  std::string function;
  std::string name;
  std::string target;
};

}  // namespace tack
