// The helper functions a C-style kernel calls for the semantics C does not give directly:
// Python's floor division and modulo, integer powers, masked shifts, saturating float->int
// casts, Python's min/max, exact range counts, atomics by compare-and-swap, debug bounds checks.
// Each is emitted once, on first use, in the dialect's spelling.
#include <cmath>
#include <string>

#include "codegen/c_style/c_style_emitter.hpp"
#include "support/error.hpp"

namespace tack::codegen::detail {

using namespace ir;

namespace {

std::string suffix(ScalarType t) { return std::string(name(t)); }

std::int64_t int_max(ScalarType t) {
  const int b = bits(t);
  if (is_unsigned_int(t)) return b == 64 ? -1 : static_cast<std::int64_t>((1ull << b) - 1);
  return static_cast<std::int64_t>((1ull << (b - 1)) - 1);
}

std::int64_t int_min(ScalarType t) {
  if (is_unsigned_int(t)) return 0;
  return -static_cast<std::int64_t>((1ull << (bits(t) - 1)) - 1) - 1;
}

}  // namespace

std::string Emitter::floordiv(ScalarType t) {
  const std::string fn = "tack_floordiv_" + suffix(t);
  if (defined(fn)) return fn;
  const std::string T = ty(t), H = d_.helper_prefix() + " " + T + " " + fn;
  std::string c;
  if (is_float(t)) {
    // CPython's float floor division (floatobject.c, _float_div_mod), in T's precision; a
    // zero divisor gives a / b (IEEE: +-inf or NaN), as the contract says.
    const std::string z = float_literal(t, 0.0), one = float_literal(t, 1.0),
                      half = float_literal(t, 0.5);
    c = H + "(" + T + " a, " + T + " b) {\n"
        "  if (b == " + z + ") return a / b;\n"
        "  " + T + " m = " + d_.math_name(MathFn::Fmod, t) + "(a, b);\n"
        "  " + T + " d = (a - m) / b;\n"
        "  if (m != " + z + ") {\n"
        "    if ((b < " + z + ") != (m < " + z + ")) d -= " + one + ";\n"
        "  }\n"
        "  if (d != " + z + ") {\n"
        "    " + T + " f = " + d_.math_name(MathFn::Floor, t) + "(d);\n"
        "    if (d - f > " + half + ") f += " + one + ";\n"
        "    return f;\n"
        "  }\n"
        "  return " + d_.math_name(MathFn::Copysign, t) + "(" + z + ", a / b);\n"
        "}\n";
  } else if (is_signed_int(t)) {
    // Rounds toward -infinity; x // 0 == 0; MIN // -1 wraps to MIN (C's MIN / -1 is undefined).
    const std::string u = wide_u(t);
    c = H + "(" + T + " a, " + T + " b) {\n"
        "  if (b == 0) return 0;\n"
        "  if (b == -1) return (" + T + ")((" + u + ")0 - (" + u + ")a);\n"
        "  " + T + " q = (" + T + ")(a / b);\n"
        "  " + T + " r = (" + T + ")(a % b);\n"
        "  if (r != 0 && ((r < 0) != (b < 0))) q = (" + T + ")(q - 1);\n"
        "  return q;\n"
        "}\n";
  } else {
    c = H + "(" + T + " a, " + T + " b) { return b == 0 ? (" + T + ")0 : (" + T + ")(a / b); }\n";
  }
  define(fn, c);
  return fn;
}

std::string Emitter::mod(ScalarType t) {
  const std::string fn = "tack_mod_" + suffix(t);
  if (defined(fn)) return fn;
  const std::string T = ty(t), H = d_.helper_prefix() + " " + T + " " + fn;
  std::string c;
  if (is_float(t)) {
    // The remainder takes the divisor's sign (a zero one too); x % 0.0 is NaN, as NumPy's.
    const std::string z = float_literal(t, 0.0);
    c = H + "(" + T + " a, " + T + " b) {\n"
        "  if (b == " + z + ") return " + float_literal(t, std::nan("")) + ";\n"
        "  " + T + " m = " + d_.math_name(MathFn::Fmod, t) + "(a, b);\n"
        "  if (m != " + z + ") {\n"
        "    if ((b < " + z + ") != (m < " + z + ")) m += b;\n"
        "  } else {\n"
        "    m = " + d_.math_name(MathFn::Copysign, t) + "(" + z + ", b);\n"
        "  }\n"
        "  return m;\n"
        "}\n";
  } else if (is_signed_int(t)) {
    c = H + "(" + T + " a, " + T + " b) {\n"
        "  if (b == 0 || b == -1) return 0;\n"
        "  " + T + " r = (" + T + ")(a % b);\n"
        "  if (r != 0 && ((r < 0) != (b < 0))) r = (" + T + ")(r + b);\n"
        "  return r;\n"
        "}\n";
  } else {
    c = H + "(" + T + " a, " + T + " b) { return b == 0 ? (" + T + ")0 : (" + T + ")(a % b); }\n";
  }
  define(fn, c);
  return fn;
}

std::string Emitter::int_pow(ScalarType t) {
  const std::string fn = "tack_pow_" + suffix(t);
  if (defined(fn)) return fn;
  const std::string T = ty(t), u = wide_u(t), u64 = ty(ScalarType::U64);
  std::string c = d_.helper_prefix() + " " + T + " " + fn + "(" + T + " a, " + T + " n) {\n";
  if (is_signed_int(t)) {
    // A negative exponent gives the truncated 1 / a**|n|.
    c += "  if (n < 0) {\n"
         "    if (a == 1) return 1;\n"
         "    if (a == -1) return (n & 1) ? (" + T + ")-1 : (" + T + ")1;\n"
         "    return 0;\n"
         "  }\n";
  }
  // Repeated squaring in the unsigned type: the low bits are the wrapped result.
  c += "  " + u + " r = 1, x = (" + u + ")a;\n"
       "  for (" + u64 + " e = (" + u64 + ")n; e != 0; e >>= 1) {\n"
       "    if (e & 1) r *= x;\n"
       "    x *= x;\n"
       "  }\n"
       "  return (" + T + ")r;\n"
       "}\n";
  define(fn, c);
  return fn;
}

std::string Emitter::shift(bool left, ScalarType t) {
  const std::string fn = std::string(left ? "tack_shl_" : "tack_shr_") + suffix(t);
  if (defined(fn)) return fn;
  const std::string T = ty(t), U = same_u(t), w = std::to_string(bits(t));
  // The count is read as unsigned (a negative signed count is huge); a count of the width or
  // more shifts everything out, which also keeps C's (and OpenCL's masking) rules out of play.
  std::string c = d_.helper_prefix() + " " + T + " " + fn + "(" + T + " a, " + T + " b) {\n"
                  "  " + U + " c = (" + U + ")b;\n";
  if (left) {
    c += "  if (c >= " + w + ") return 0;\n"
         "  return (" + T + ")((" + wide_u(t) + ")a << c);\n";
  } else if (is_signed_int(t)) {
    c += "  if (c >= " + w + ") return a < 0 ? (" + T + ")-1 : (" + T + ")0;\n"
         "  return (" + T + ")(a >> c);\n";  // arithmetic for signed types
  } else {
    c += "  if (c >= " + w + ") return 0;\n"
         "  return (" + T + ")(a >> c);\n";
  }
  c += "}\n";
  define(fn, c);
  return fn;
}

std::string Emitter::float_to_int(ScalarType to, ScalarType from) {
  const std::string fn = "tack_cast_" + suffix(to) + "_" + suffix(from);
  if (defined(fn)) return fn;
  const std::string T = ty(to), F = ty(from);
  // Truncates toward zero, saturates at the target's range, NaN -> 0 (never C's undefined
  // out-of-range conversion). The bounds are powers of two, exact in both float types.
  const int b = bits(to);
  const double hi = std::ldexp(1.0, is_unsigned_int(to) ? b : b - 1);
  const double lo = is_unsigned_int(to) ? 0.0 : -hi;
  std::string c = d_.helper_prefix() + " " + T + " " + fn + "(" + F + " x) {\n"
                  "  if (x != x) return 0;\n"
                  "  if (x >= " + float_literal(from, hi) + ") return " + int_literal(to, int_max(to)) + ";\n"
                  "  if (x <= " + float_literal(from, lo) + ") return " + int_literal(to, int_min(to)) + ";\n"
                  "  return (" + T + ")x;\n"
                  "}\n";
  define(fn, c);
  return fn;
}

std::string Emitter::min_max(bool is_min, ScalarType t) {
  const std::string fn = std::string(is_min ? "tack_min_" : "tack_max_") + suffix(t);
  if (defined(fn)) return fn;
  const std::string T = ty(t);
  // Python's min/max: the first argument wins ties and NaN comparisons (not fmin/fmax).
  const std::string body = is_min ? "(b < a) ? b : a" : "(b > a) ? b : a";
  define(fn, d_.helper_prefix() + " " + T + " " + fn + "(" + T + " a, " + T + " b) { return " +
                 body + "; }\n");
  return fn;
}

std::string Emitter::int_abs(ScalarType t) {
  const std::string fn = "tack_abs_" + suffix(t);
  if (defined(fn)) return fn;
  const std::string T = ty(t), u = wide_u(t);
  // abs(MIN) wraps to MIN.
  define(fn, d_.helper_prefix() + " " + T + " " + fn + "(" + T + " a) { return a < 0 ? (" + T +
                 ")((" + u + ")0 - (" + u + ")a) : a; }\n");
  return fn;
}

std::string Emitter::range_count(ScalarType t) {
  const std::string fn = "tack_range_count_" + suffix(t);
  if (defined(fn)) return fn;
  const std::string T = ty(t), u = wide_u(t), u64 = ty(ScalarType::U64);
  // max(0, ceil((stop - start) / step)), exactly: the difference is taken in the unsigned
  // type, where it cannot overflow; step == 0 runs nothing.
  std::string c = d_.helper_prefix() + " " + u64 + " " + fn + "(" + T + " start, " + T + " stop, " +
                  T + " step) {\n";
  if (is_signed_int(t)) {
    c += "  if (step > 0 && start < stop)\n"
         "    return ((" + u64 + ")((" + u + ")stop - (" + u + ")start) - 1) / (" + u64 + ")(" +
         u + ")step + 1;\n"
         "  if (step < 0 && stop < start)\n"
         "    return ((" + u64 + ")((" + u + ")start - (" + u + ")stop) - 1) / (" + u64 + ")((" +
         u + ")0 - (" + u + ")step) + 1;\n"
         "  return 0;\n";
  } else {
    c += "  if (step == 0 || stop <= start) return 0;\n"
         "  return ((" + u64 + ")(stop - start) - 1) / (" + u64 + ")step + 1;\n";
  }
  c += "}\n";
  define(fn, c);
  return fn;
}

std::string Emitter::atomic(AtomicOp op, ScalarType t) {
  static const char* names[] = {"add", "min", "max"};
  const std::string fn = std::string("tack_atomic_") + names[static_cast<int>(op)] + "_" + suffix(t);
  if (defined(fn)) return fn;
  const std::string T = ty(t), P = global_ptr(T);
  const int b = bits(t);
  if (b == 64) features_.atomics64 = true;
  std::string c = d_.helper_prefix() + " " + T + " " + fn + "(" + P + " p, " + T + " v) {\n";
  const std::string native = d_.atomic_native(op, t, "p", "v");
  if (!native.empty()) {
    define(fn, c + "  return " + native + ";\n}\n");
    return fn;
  }
  // The new value from the current one. Floats: minNum/maxNum (a NaN operand loses to a
  // number); integers: Python's min/max, and wrapping addition.
  std::string next;
  if (op == AtomicOp::Add) {
    next = is_float(t) ? "cur + v" : "(" + T + ")((" + wide_u(t) + ")cur + (" + wide_u(t) + ")v)";
  } else {
    const char* cmp = op == AtomicOp::Min ? " < " : " > ";
    next = "(v" + std::string(cmp) + "cur) ? v : cur";
    if (is_float(t)) next = "(cur != cur) ? v : ((v != v) ? cur : ((v" + std::string(cmp) + "cur) ? v : cur))";
  }
  if (b >= 32) {
    // Compare-and-swap on the element's own word (its bits, for floats).
    const std::string U = ty(b == 64 ? ScalarType::U64 : ScalarType::U32), W = global_ptr(U);
    const std::string from = is_float(t) ? d_.bits_to_float(t, "old") : "(" + T + ")old";
    const std::string to = is_float(t) ? d_.float_to_bits(t, "next") : "(" + U + ")next";
    c += "  " + W + " w = (" + W + ")p;\n"
         "  " + U + " old = *(volatile " + W + ")w;\n"
         "  for (;;) {\n"
         "    " + T + " cur = " + from + ";\n"
         "    " + T + " next = " + next + ";\n"
         "    " + U + " prev = " + d_.atomic_cas(b, "w", "old", to) + ";\n"
         "    if (prev == old) return cur;\n"
         "    old = prev;\n"
         "  }\n"
         "}\n";
  } else {
    // 8- and 16-bit elements: compare-and-swap on the aligned 32-bit word that holds them
    // (little-endian byte order; allocations are rounded up, so the word is inside).
    const std::string U = ty(ScalarType::U32), W = global_ptr(U), u64 = ty(ScalarType::U64);
    const std::string mask = b == 8 ? "0xffu" : "0xffffu";
    c += "  " + W + " w = (" + W + ")((" + u64 + ")p & ~(" + u64 + ")3);\n"
         "  " + U + " shift = (" + U + ")(((" + u64 + ")p & 3) * 8);\n"
         "  " + U + " mask = " + mask + " << shift;\n"
         "  " + U + " old = *(volatile " + W + ")w;\n"
         "  for (;;) {\n"
         "    " + T + " cur = (" + T + ")((old & mask) >> shift);\n"
         "    " + T + " next = " + next + ";\n"
         "    " + U + " desired = (old & ~mask) | (((" + U + ")(" + same_u(t) +
         ")next << shift) & mask);\n"
         "    " + U + " prev = " + d_.atomic_cas(32, "w", "old", "desired") + ";\n"
         "    if (prev == old) return cur;\n"
         "    old = prev;\n"
         "  }\n"
         "}\n";
  }
  define(fn, c);
  return fn;
}

std::string Emitter::status_type() {
  const std::string name = "TackDebugStatus";
  if (defined(name)) return name;
  // codegen/kernel_abi.hpp's TackDebugStatus: three ints, then two 8-byte-aligned longs.
  define(name, "typedef struct {\n"
               "  " + ty(ScalarType::I32) + " failed;\n"
               "  " + ty(ScalarType::I32) + " param;\n"
               "  " + ty(ScalarType::I32) + " dim;\n"
               "  " + ty(ScalarType::I64) + " index;\n"
               "  " + ty(ScalarType::I64) + " extent;\n"
               "} " + name + ";\n");
  return name;
}

std::string Emitter::in_bounds() {
  const std::string fn = "tack_in_bounds";
  if (defined(fn)) return fn;
  const std::string S = global_ptr(status_type()), L = ty(ScalarType::I64), I = ty(ScalarType::I32);
  const std::string W = global_ptr(ty(ScalarType::U32));
  // The first violation wins the flag and records where it was; the access is then skipped.
  define(fn, d_.helper_prefix() + " " + ty(ScalarType::Bool) + " " + fn + "(" + S + " s, " + I +
                 " param, " + I + " dim, " + L + " index, " + L + " extent) {\n"
                 "  if (index >= 0 && index < extent) return true;\n"
                 "  if (" + d_.atomic_cas(32, "(" + W + ")&s->failed", "0u", "1u") + " == 0u) {\n"
                 "    s->param = param;\n"
                 "    s->dim = dim;\n"
                 "    s->index = index;\n"
                 "    s->extent = extent;\n"
                 "  }\n"
                 "  return false;\n"
                 "}\n");
  return fn;
}

}  // namespace tack::codegen::detail
