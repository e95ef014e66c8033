// The helper functions a C-style kernel calls for the semantics C does not give directly:
// Python's floor division and modulo, integer powers, masked shifts, saturating float->int
// casts, Python's min/max, exact range counts, atomics by compare-and-swap, debug bounds checks.
// Each is emitted once, on first use, in the dialect's spelling. The templates below are the
// generated C with $NAME placeholders ($H: the helper's qualifiers, return type and name).
#include <cmath>
#include <map>
#include <string>

#include "codegen/c_style/c_style_emitter.hpp"
#include "codegen/kernel_abi.hpp"
#include "support/error.hpp"

namespace tack::codegen::detail {

using namespace ir;

namespace {

std::string suffix(ScalarType t) {
  return std::string(name(t));
}

std::int64_t int_max(ScalarType t) {
  const int b = bits(t);
  if (is_unsigned_int(t)) return b == 64 ? -1 : static_cast<std::int64_t>((1ull << b) - 1);
  return static_cast<std::int64_t>((1ull << (b - 1)) - 1);
}

std::int64_t int_min(ScalarType t) {
  if (is_unsigned_int(t)) return 0;
  return -static_cast<std::int64_t>((1ull << (bits(t) - 1)) - 1) - 1;
}

// Replaces each $NAME (letters, digits, '_') of `text` by its value.
std::string fill(const char* text, const std::map<std::string, std::string>& values) {
  std::string out;
  for (const char* p = text; *p != '\0';) {
    if (*p != '$') {
      out += *p++;
      continue;
    }
    const char* e = ++p;
    while ((*e >= 'A' && *e <= 'Z') || (*e >= 'a' && *e <= 'z') || (*e >= '0' && *e <= '9') ||
           *e == '_')
      ++e;
    const std::string key(p, e);
    auto it = values.find(key);
    TACK_INTERNAL_ASSERT(it != values.end(), "C-style helper template without $" + key);
    out += it->second;
    p = e;
  }
  return out;
}

}  // namespace

std::string Emitter::floordiv(ScalarType t) {
  const std::string fn = "tack_floordiv_" + suffix(t);
  if (defined(fn)) return fn;
  std::map<std::string, std::string> v = {{"H", d_.helper_prefix() + " " + ty(t) + " " + fn},
                                          {"T", ty(t)}};
  const char* text;
  if (is_float(t)) {
    // CPython's float floor division (floatobject.c, _float_div_mod), in T's precision; a
    // zero divisor gives a / b (IEEE: +-inf or NaN), as the contract says.
    v["Z"] = float_literal(t, 0.0);
    v["ONE"] = float_literal(t, 1.0);
    v["HALF"] = float_literal(t, 0.5);
    v["FMOD"] = d_.math_name(MathFn::Fmod, t);
    v["FLOOR"] = d_.math_name(MathFn::Floor, t);
    v["COPYSIGN"] = d_.math_name(MathFn::Copysign, t);
    text = R"($H($T a, $T b) {
  if (b == $Z) return a / b;
  $T m = $FMOD(a, b);
  $T d = (a - m) / b;
  if (m != $Z) {
    if ((b < $Z) != (m < $Z)) d -= $ONE;
  }
  if (d != $Z) {
    $T f = $FLOOR(d);
    if (d - f > $HALF) f += $ONE;
    return f;
  }
  return $COPYSIGN($Z, a / b);
}
)";
  } else if (is_signed_int(t)) {
    // Rounds toward -infinity; x // 0 == 0; MIN // -1 wraps to MIN (C's MIN / -1 is undefined).
    v["U"] = wide_u(t);
    text = R"($H($T a, $T b) {
  if (b == 0) return 0;
  if (b == -1) return ($T)(($U)0 - ($U)a);
  $T q = ($T)(a / b);
  $T r = ($T)(a % b);
  if (r != 0 && ((r < 0) != (b < 0))) q = ($T)(q - 1);
  return q;
}
)";
  } else {
    text = "$H($T a, $T b) { return b == 0 ? ($T)0 : ($T)(a / b); }\n";
  }
  define(fn, fill(text, v));
  return fn;
}

std::string Emitter::mod(ScalarType t) {
  const std::string fn = "tack_mod_" + suffix(t);
  if (defined(fn)) return fn;
  std::map<std::string, std::string> v = {{"H", d_.helper_prefix() + " " + ty(t) + " " + fn},
                                          {"T", ty(t)}};
  const char* text;
  if (is_float(t)) {
    // The remainder takes the divisor's sign (a zero one too); x % 0.0 is NaN, as NumPy's.
    v["Z"] = float_literal(t, 0.0);
    v["NAN"] = float_literal(t, std::nan(""));
    v["FMOD"] = d_.math_name(MathFn::Fmod, t);
    v["COPYSIGN"] = d_.math_name(MathFn::Copysign, t);
    text = R"($H($T a, $T b) {
  if (b == $Z) return $NAN;
  $T m = $FMOD(a, b);
  if (m != $Z) {
    if ((b < $Z) != (m < $Z)) m += b;
  } else {
    m = $COPYSIGN($Z, b);
  }
  return m;
}
)";
  } else if (is_signed_int(t)) {
    text = R"($H($T a, $T b) {
  if (b == 0 || b == -1) return 0;
  $T r = ($T)(a % b);
  if (r != 0 && ((r < 0) != (b < 0))) r = ($T)(r + b);
  return r;
}
)";
  } else {
    text = "$H($T a, $T b) { return b == 0 ? ($T)0 : ($T)(a % b); }\n";
  }
  define(fn, fill(text, v));
  return fn;
}

std::string Emitter::int_pow(ScalarType t) {
  const std::string fn = "tack_pow_" + suffix(t);
  if (defined(fn)) return fn;
  std::map<std::string, std::string> v = {{"H", d_.helper_prefix() + " " + ty(t) + " " + fn},
                                          {"T", ty(t)},
                                          {"U", wide_u(t)},
                                          {"U64", ty(ScalarType::u64)}};
  // A negative exponent gives the truncated 1 / a**|n|. Repeated squaring in the unsigned type:
  // the low bits are the wrapped result.
  const char* negative = R"(
  if (n < 0) {
    if (a == 1) return 1;
    if (a == -1) return (n & 1) ? ($T)-1 : ($T)1;
    return 0;
  })";
  v["NEGATIVE"] = is_signed_int(t) ? fill(negative, v) : "";
  define(fn, fill(R"($H($T a, $T n) {$NEGATIVE
  $U r = 1, x = ($U)a;
  for ($U64 e = ($U64)n; e != 0; e >>= 1) {
    if (e & 1) r *= x;
    x *= x;
  }
  return ($T)r;
}
)",
                  v));
  return fn;
}

std::string Emitter::shift(bool left, ScalarType t) {
  const std::string fn = std::string(left ? "tack_shl_" : "tack_shr_") + suffix(t);
  if (defined(fn)) return fn;
  // The count is read as unsigned (a negative signed count is huge); a count of the width or
  // more shifts everything out, which also keeps C's (and OpenCL's masking) rules out of play.
  // >> is arithmetic for signed types.
  const std::map<std::string, std::string> v = {{"H", d_.helper_prefix() + " " + ty(t) + " " + fn},
                                                {"T", ty(t)},
                                                {"SAME_U", same_u(t)},
                                                {"U", wide_u(t)},
                                                {"BITS", std::to_string(bits(t))}};
  const char* text;
  if (left) {
    text = R"($H($T a, $T b) {
  $SAME_U c = ($SAME_U)b;
  if (c >= $BITS) return 0;
  return ($T)(($U)a << c);
}
)";
  } else if (is_signed_int(t)) {
    text = R"($H($T a, $T b) {
  $SAME_U c = ($SAME_U)b;
  if (c >= $BITS) return a < 0 ? ($T)-1 : ($T)0;
  return ($T)(a >> c);
}
)";
  } else {
    text = R"($H($T a, $T b) {
  $SAME_U c = ($SAME_U)b;
  if (c >= $BITS) return 0;
  return ($T)(a >> c);
}
)";
  }
  define(fn, fill(text, v));
  return fn;
}

std::string Emitter::float_to_int(ScalarType to, ScalarType from) {
  const std::string fn = "tack_cast_" + suffix(to) + "_" + suffix(from);
  if (defined(fn)) return fn;
  // Truncates toward zero, saturates at the target's range, NaN -> 0 (never C's undefined
  // out-of-range conversion). The bounds are powers of two, exact in both float types.
  const int b = bits(to);
  const double hi = std::ldexp(1.0, is_unsigned_int(to) ? b : b - 1);
  const double lo = is_unsigned_int(to) ? 0.0 : -hi;
  const std::map<std::string, std::string> v = {{"H", d_.helper_prefix() + " " + ty(to) + " " + fn},
                                                {"T", ty(to)},
                                                {"F", ty(from)},
                                                {"HI", float_literal(from, hi)},
                                                {"LO", float_literal(from, lo)},
                                                {"MAX", int_literal(to, int_max(to))},
                                                {"MIN", int_literal(to, int_min(to))}};
  define(fn, fill(R"($H($F x) {
  if (x != x) return 0;
  if (x >= $HI) return $MAX;
  if (x <= $LO) return $MIN;
  return ($T)x;
}
)",
                  v));
  return fn;
}

std::string Emitter::min_max(bool is_min, ScalarType t) {
  const std::string fn = std::string(is_min ? "tack_min_" : "tack_max_") + suffix(t);
  if (defined(fn)) return fn;
  // Python's min/max: the first argument wins ties and NaN comparisons (not fmin/fmax); but
  // -0.0 is below +0.0 (IEEE 754-2019), so min takes a -0.0 and max a +0.0 from either side.
  const std::string tie = !is_float(t) ? ""
                          : is_min     ? " || (b == a && signbit(b))"
                                       : " || (b == a && !signbit(b))";
  const std::map<std::string, std::string> v = {{"H", d_.helper_prefix() + " " + ty(t) + " " + fn},
                                                {"T", ty(t)},
                                                {"OP", is_min ? "<" : ">"},
                                                {"TIE", tie}};
  define(fn, fill("$H($T a, $T b) { return ((b $OP a)$TIE) ? b : a; }\n", v));
  return fn;
}

std::string Emitter::int_abs(ScalarType t) {
  const std::string fn = "tack_abs_" + suffix(t);
  if (defined(fn)) return fn;
  // abs(MIN) wraps to MIN.
  const std::map<std::string, std::string> v = {
      {"H", d_.helper_prefix() + " " + ty(t) + " " + fn}, {"T", ty(t)}, {"U", wide_u(t)}};
  define(fn, fill("$H($T a) { return a < 0 ? ($T)(($U)0 - ($U)a) : a; }\n", v));
  return fn;
}

std::string Emitter::range_count(ScalarType t) {
  const std::string fn = "tack_range_count_" + suffix(t);
  if (defined(fn)) return fn;
  // max(0, ceil((stop - start) / step)), exactly: the difference is taken in the unsigned
  // type, where it cannot overflow; step == 0 runs nothing.
  const std::map<std::string, std::string> v = {
      {"H", d_.helper_prefix() + " " + ty(ScalarType::u64) + " " + fn},
      {"T", ty(t)},
      {"U", wide_u(t)},
      {"U64", ty(ScalarType::u64)}};
  const char* text;
  if (is_signed_int(t)) {
    text = R"($H($T start, $T stop, $T step) {
  if (step > 0 && start < stop)
    return (($U64)(($U)stop - ($U)start) - 1) / ($U64)($U)step + 1;
  if (step < 0 && stop < start)
    return (($U64)(($U)start - ($U)stop) - 1) / ($U64)(($U)0 - ($U)step) + 1;
  return 0;
}
)";
  } else {
    text = R"($H($T start, $T stop, $T step) {
  if (step == 0 || stop <= start) return 0;
  return (($U64)(stop - start) - 1) / ($U64)step + 1;
}
)";
  }
  define(fn, fill(text, v));
  return fn;
}

std::string Emitter::atomic(AtomicOp op, ScalarType t) {
  static const char* names[] = {"add", "min", "max"};
  const std::string fn =
      std::string("tack_atomic_") + names[static_cast<int>(op)] + "_" + suffix(t);
  if (defined(fn)) return fn;
  const int b = bits(t);
  if (b == 64) features_.atomics64 = true;
  std::map<std::string, std::string> v = {
      {"H", d_.helper_prefix() + " " + ty(t) + " " + fn}, {"T", ty(t)}, {"P", global_ptr(ty(t))}};
  const std::string native = d_.atomic_native(op, t, "p", "v");
  if (!native.empty()) {
    v["NATIVE"] = native;
    define(fn, fill("$H($P p, $T v) { return $NATIVE; }\n", v));
    return fn;
  }
  // The new value from the current one. Floats: minNum/maxNum (a NaN operand loses to a
  // number); integers: Python's min/max, and wrapping addition.
  const std::string cmp = op == AtomicOp::Min ? " < " : " > ";
  if (op == AtomicOp::Add) {
    v["NEXT"] =
        is_float(t) ? "cur + v" : fill("($T)(($U)cur + ($U)v)", {{"T", ty(t)}, {"U", wide_u(t)}});
  } else if (is_float(t)) {
    v["NEXT"] = "(cur != cur) ? v : ((v != v) ? cur : ((v" + cmp + "cur) ? v : cur))";
  } else {
    v["NEXT"] = "(v" + cmp + "cur) ? v : cur";
  }
  if (b >= 32) {
    // Compare-and-swap on the element's own word (its bits, for floats).
    const std::string U = ty(b == 64 ? ScalarType::u64 : ScalarType::u32);
    v["U"] = U;
    v["W"] = global_ptr(U);
    v["FROM_BITS"] = is_float(t) ? d_.bits_to_float(t, "old") : "(" + ty(t) + ")old";
    v["TO_BITS"] = is_float(t) ? d_.float_to_bits(t, "next") : "(" + U + ")next";
    v["CAS"] = d_.atomic_cas(b, "w", "old", fill("$TO_BITS", v));
    define(fn, fill(R"($H($P p, $T v) {
  $W w = ($W)p;
  $U old = *(volatile $W)w;
  for (;;) {
    $T cur = $FROM_BITS;
    $T next = $NEXT;
    $U prev = $CAS;
    if (prev == old) return cur;
    old = prev;
  }
}
)",
                    v));
    return fn;
  }
  // 8- and 16-bit elements: compare-and-swap on the aligned 32-bit word that holds them
  // (little-endian byte order; allocations are rounded up, so the word is inside).
  v["U"] = ty(ScalarType::u32);
  v["W"] = global_ptr(ty(ScalarType::u32));
  v["U64"] = ty(ScalarType::u64);
  v["SAME_U"] = same_u(t);
  v["MASK"] = b == 8 ? "0xffu" : "0xffffu";
  v["CAS"] = d_.atomic_cas(32, "w", "old", "desired");
  define(fn, fill(R"($H($P p, $T v) {
  $W w = ($W)(($U64)p & ~($U64)3);
  $U shift = ($U)((($U64)p & 3) * 8);
  $U mask = $MASK << shift;
  $U old = *(volatile $W)w;
  for (;;) {
    $T cur = ($T)((old & mask) >> shift);
    $T next = $NEXT;
    $U desired = (old & ~mask) | ((($U)($SAME_U)next << shift) & mask);
    $U prev = $CAS;
    if (prev == old) return cur;
    old = prev;
  }
}
)",
                  v));
  return fn;
}

std::string Emitter::status_type() {
  const std::string name = "TackDebugStatus";
  if (defined(name)) return name;
  // codegen/kernel_abi.hpp's TackDebugStatus: three ints, then two 8-byte-aligned longs.
  define(name, fill(R"(typedef struct {
  $I failed;
  $I param;
  $I dim;
  $L index;
  $L extent;
  $L extra;
} TackDebugStatus;
)",
                    {{"I", ty(ScalarType::i32)}, {"L", ty(ScalarType::i64)}}));
  return name;
}

std::string Emitter::assert_failed() {
  const std::string fn = "tack_assert_failed";
  if (defined(fn)) return fn;
  // The first failure wins the flag and records the assert's site and the iteration.
  const std::map<std::string, std::string> v = {
      {"H", d_.helper_prefix() + " void " + fn},
      {"S", global_ptr(status_type())},
      {"I", ty(ScalarType::i32)},
      {"L", ty(ScalarType::i64)},
      {"P", std::to_string(kAssertParam)},
      {"CAS",
       d_.atomic_cas(32, "(" + global_ptr(ty(ScalarType::u32)) + ")&s->failed", "0u", "1u")}};
  define(fn, fill(R"($H($S s, $I site, $L i, $L j, $L k) {
  if ($CAS == 0u) {
    s->param = $P;
    s->dim = site;
    s->index = i;
    s->extent = j;
    s->extra = k;
  }
}
)",
                  v));
  return fn;
}

std::string Emitter::in_bounds() {
  const std::string fn = "tack_in_bounds";
  if (defined(fn)) return fn;
  // The first violation wins the flag and records where it was; the access is then skipped.
  const std::map<std::string, std::string> v = {
      {"H", d_.helper_prefix() + " " + ty(ScalarType::boolean) + " " + fn},
      {"S", global_ptr(status_type())},
      {"I", ty(ScalarType::i32)},
      {"L", ty(ScalarType::i64)},
      {"CAS",
       d_.atomic_cas(32, "(" + global_ptr(ty(ScalarType::u32)) + ")&s->failed", "0u", "1u")}};
  define(fn, fill(R"($H($S s, $I param, $I dim, $L index, $L extent) {
  if (index >= 0 && index < extent) return true;
  if ($CAS == 0u) {
    s->param = param;
    s->dim = dim;
    s->index = index;
    s->extent = extent;
  }
  return false;
}
)",
                  v));
  return fn;
}

}  // namespace tack::codegen::detail
