// Folding of weakly typed literal expressions with Python's semantics (see constants.hpp).
#include "lowering/constants.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include "ir/builder.hpp"

namespace tack::lowering {
namespace {

using frontend::BinaryOp;
using frontend::CompareOp;
using frontend::UnaryOp;

constexpr Int128 kMin = -(static_cast<Int128>(1) << 63);     // INT64_MIN
constexpr Int128 kMax = (static_cast<Int128>(1) << 64) - 1;  // UINT64_MAX
constexpr const char* kOverflow = "the constant expression overflows 64 bits";
constexpr const char* kDivZero = "division by zero in a constant expression";

Folded ok(Constant c) {
  return Folded{c, {}};
}
Folded fail(std::string why) {
  return Folded{std::nullopt, std::move(why)};
}
Folded checked_int(Int128 v) {
  if (v < kMin || v > kMax) return fail(kOverflow);
  return ok(Constant::of_int(v));
}

// Python's floor division and modulo on integers: the quotient rounds toward -infinity.
Int128 floor_div(Int128 a, Int128 b) {
  Int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
Int128 floor_mod(Int128 a, Int128 b) {
  Int128 r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// CPython's float floor division and modulo (Objects/floatobject.c, float_divmod).
void float_divmod(double vx, double wx, double* floordiv, double* mod) {
  double m = std::fmod(vx, wx);
  double div = (vx - m) / wx;
  if (m != 0.0) {
    if ((wx < 0) != (m < 0)) {
      m += wx;
      div -= 1.0;
    }
  } else {
    m = std::copysign(0.0, wx);
  }
  double fd;
  if (div != 0.0) {
    fd = std::floor(div);
    if (div - fd > 0.5) fd += 1.0;
  } else {
    fd = std::copysign(0.0, vx / wx);
  }
  *floordiv = fd;
  *mod = m;
}

Folded int_pow(Int128 base, Int128 exp) {
  if (exp < 0) {
    // Python: int ** negative int is a float.
    if (base == 0) return fail("0 cannot be raised to a negative power");
    return ok(Constant::of_float(std::pow(static_cast<double>(base), static_cast<double>(exp))));
  }
  Int128 result = 1;
  Int128 b = base;
  while (exp > 0) {
    if (exp & 1) {
      if (__builtin_mul_overflow(result, b, &result) || result < kMin || result > kMax) {
        return fail(kOverflow);
      }
    }
    exp >>= 1;
    if (exp > 0 && (__builtin_mul_overflow(b, b, &b) || b > kMax)) {
      // b only grows from here; it overflows unless |base| <= 1, which never gets here.
      return fail(kOverflow);
    }
  }
  return checked_int(result);
}

Folded float_binary(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::Add:
      return ok(Constant::of_float(a + b));
    case BinaryOp::Sub:
      return ok(Constant::of_float(a - b));
    case BinaryOp::Mul:
      return ok(Constant::of_float(a * b));
    case BinaryOp::TrueDiv:
      if (b == 0.0) return fail(kDivZero);
      return ok(Constant::of_float(a / b));
    case BinaryOp::FloorDiv:
    case BinaryOp::Mod: {
      if (b == 0.0) return fail(kDivZero);
      double q, r;
      float_divmod(a, b, &q, &r);
      return ok(Constant::of_float(op == BinaryOp::FloorDiv ? q : r));
    }
    case BinaryOp::Pow: {
      if (a == 0.0 && b < 0.0) return fail("0.0 cannot be raised to a negative power");
      if (a < 0.0 && std::isfinite(b) && b != std::floor(b)) {
        return fail("a negative number raised to a fractional power is complex");
      }
      double r = std::pow(a, b);
      if (std::isinf(r) && std::isfinite(a) && std::isfinite(b)) return fail(kOverflow);
      return ok(Constant::of_float(r));
    }
    default:
      return fail("the operator '" + std::string(frontend::spelling(op)) +
                  "' takes integers, not floats");
  }
}

Folded int_binary(BinaryOp op, Int128 a, Int128 b) {
  switch (op) {
    case BinaryOp::Add:
      return checked_int(a + b);
    case BinaryOp::Sub:
      return checked_int(a - b);
    case BinaryOp::Mul: {
      Int128 r;
      if (__builtin_mul_overflow(a, b, &r)) return fail(kOverflow);
      return checked_int(r);
    }
    case BinaryOp::TrueDiv:
      if (b == 0) return fail(kDivZero);
      return ok(Constant::of_float(static_cast<double>(a) / static_cast<double>(b)));
    case BinaryOp::FloorDiv:
      if (b == 0) return fail(kDivZero);
      return checked_int(floor_div(a, b));
    case BinaryOp::Mod:
      if (b == 0) return fail(kDivZero);
      return checked_int(floor_mod(a, b));
    case BinaryOp::Pow:
      return int_pow(a, b);
    case BinaryOp::BitAnd:
      return checked_int(a & b);
    case BinaryOp::BitOr:
      return checked_int(a | b);
    case BinaryOp::BitXor:
      return checked_int(a ^ b);
    case BinaryOp::Shl:
      if (b < 0) return fail("negative shift count");
      if (a == 0) return ok(Constant::of_int(0));
      if (b > 64) return fail(kOverflow);
      return checked_int(a * (static_cast<Int128>(1) << static_cast<int>(b)));
    case BinaryOp::Shr:
      if (b < 0) return fail("negative shift count");
      if (b >= 100) return ok(Constant::of_int(a < 0 ? -1 : 0));
      return ok(Constant::of_int(a >> static_cast<int>(b)));  // arithmetic: Python's floor
    case BinaryOp::MatMul:
      break;  // refused by fold_binary
  }
  return fail("unknown operator");
}

}  // namespace

std::string Constant::text() const {
  if (is_float) {
    if (std::isnan(f)) return "nan";
    if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, f);
    std::string s(buf, r.ptr);
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return s;
  }
  // Int128 has no std::to_string: print the magnitude digit by digit.
  Int128 v = i;
  bool neg = v < 0;
  std::string s;
  do {
    int digit = static_cast<int>(v % 10);
    s.insert(s.begin(), static_cast<char>('0' + (digit < 0 ? -digit : digit)));
    v /= 10;
  } while (v != 0);
  return neg ? "-" + s : s;
}

Folded fold_binary(BinaryOp op, const Constant& a, const Constant& b) {
  if (op == BinaryOp::MatMul) return fail("'@' takes vectors and matrices, not numbers");
  if (a.is_float || b.is_float) return float_binary(op, a.as_double(), b.as_double());
  return int_binary(op, a.i, b.i);
}

Folded fold_unary(UnaryOp op, const Constant& a) {
  switch (op) {
    case UnaryOp::Neg:
      return a.is_float ? ok(Constant::of_float(-a.f)) : checked_int(-a.i);
    case UnaryOp::Pos:
      return ok(a);
    case UnaryOp::Invert:
      if (a.is_float) return fail("'~' takes an integer, not a float");
      return checked_int(~a.i);
    case UnaryOp::Not:
      break;
  }
  return fail("'not' is a truth test, not folded here");
}

bool fold_compare(CompareOp op, const Constant& a, const Constant& b) {
  if (a.is_float || b.is_float) {
    double x = a.as_double(), y = b.as_double();
    switch (op) {
      case CompareOp::Lt:
        return x < y;
      case CompareOp::Le:
        return x <= y;
      case CompareOp::Gt:
        return x > y;
      case CompareOp::Ge:
        return x >= y;
      case CompareOp::Eq:
        return x == y;
      case CompareOp::Ne:
        return x != y;
    }
  }
  switch (op) {
    case CompareOp::Lt:
      return a.i < b.i;
    case CompareOp::Le:
      return a.i <= b.i;
    case CompareOp::Gt:
      return a.i > b.i;
    case CompareOp::Ge:
      return a.i >= b.i;
    case CompareOp::Eq:
      return a.i == b.i;
    case CompareOp::Ne:
      return a.i != b.i;
  }
  return false;
}

bool truth(const Constant& c) {
  return c.is_float ? c.f != 0.0 || std::isnan(c.f) : c.i != 0;
}

bool fits(const Constant& c, ir::ScalarType t) {
  if (c.is_float || !ir::is_int(t)) return false;
  int bits = ir::bits(t);
  if (ir::is_signed_int(t)) {
    Int128 lo = -(static_cast<Int128>(1) << (bits - 1));
    Int128 hi = (static_cast<Int128>(1) << (bits - 1)) - 1;
    return c.i >= lo && c.i <= hi;
  }
  return c.i >= 0 && c.i <= (static_cast<Int128>(1) << bits) - 1;
}

ir::ScalarType default_type(const Constant& c, ir::ScalarType default_float) {
  if (c.is_float) return default_float;
  if (fits(c, ir::ScalarType::i32)) return ir::ScalarType::i32;
  if (fits(c, ir::ScalarType::i64)) return ir::ScalarType::i64;
  return ir::ScalarType::u64;
}

ir::Expr make_constant(const Constant& c, ir::ScalarType t) {
  if (ir::is_bool(t)) return ir::const_bool(truth(c));
  if (tack::is_float(t)) return ir::float_const(t, c.as_double());
  if (!c.is_float) return ir::int_const(t, static_cast<int64_t>(static_cast<uint64_t>(c.i)));
  // float -> int as the IR's Cast: truncate toward zero, saturate, NaN -> 0.
  double v = std::trunc(c.f);
  if (std::isnan(v)) return ir::int_const(t, 0);
  int bits = ir::bits(t);
  double lo = ir::is_signed_int(t) ? -std::ldexp(1.0, bits - 1) : 0.0;
  double hi = ir::is_signed_int(t) ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);
  if (v < lo) v = lo;
  if (v >= hi) {
    // The largest value of t; not representable as a double for 64 bits, so build it directly.
    Int128 max = (static_cast<Int128>(1) << (ir::is_signed_int(t) ? bits - 1 : bits)) - 1;
    return ir::int_const(t, static_cast<int64_t>(static_cast<uint64_t>(max)));
  }
  if (v < 0) return ir::int_const(t, static_cast<int64_t>(v));
  return ir::int_const(t, static_cast<int64_t>(static_cast<uint64_t>(v)));
}

double round_half_even(double v) {
  if (!std::isfinite(v)) return v;
  double r = std::round(v);  // half away from zero
  if (std::fabs(v - std::trunc(v)) == 0.5) r = 2.0 * std::round(v / 2.0);
  return r;
}

}  // namespace tack::lowering
