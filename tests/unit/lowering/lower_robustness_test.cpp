// Lowering never crashes and never breaks an internal invariant: thousands of mutants of good
// kernels (one token replaced by another), each lowered for several signatures, must give IR
// that passes the verifier or a user error (CompileError, TypeError), never an InternalError.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "lower_test_util.hpp"

namespace tack::lowering::test {
namespace {

using ST = ScalarType;

const char* const kSeeds[] = {
    R"(@tack.func
def clamp(v, lo, hi):
    if v < lo:
        return lo
    elif v > hi:
        return hi
    return v

@tack.func
def add_to(a, i, v):
    a[i] += v

@tack.kernel
def k(x, y, n):
    m = n // 2 if n > 0 else 1
    for i in range(len(x)):
        t = x[i] * 2 + 1
        buf = tack.zeros((2, 4), tack.f32)
        for j in range(4):
            buf[1, j] = t - j
        if 0 <= i < m and y[i] != 0:
            t += clamp(y[i], 0.0, 1.0)
        elif not x[i]:
            t = -t
        else:
            s = 0
            while s < 3:
                s += 1
                if s == 2:
                    break
        x[i] = t + buf[1, 2]
        add_to(y, i, math.sqrt(abs(t)))
        tack.atomic_add(y, 0, 1)
)",
    R"(@tack.kernel
def k(a, b, c):
    n = a.shape[1]
    for i, j in tack.ndrange(c.shape[0], c.shape[1]):
        acc = 0.0
        for q in range(n):
            acc += a[i, q] * b[q, j]
        c[i, j] = acc if acc > 0 else tack.f32(min(acc, 0, -1))
)",
    R"(@tack.func
def bucket(v, lo, hi, n):
    if v < lo:
        return 0
    elif v >= hi:
        return n - 1
    return int((v - lo) / (hi - lo) * n)

@tack.kernel
def k(values, counts, lo):
    n = len(counts)
    for i in range(len(values)):
        b = bucket(values[i], lo, lo + 1.0, n)
        old = tack.atomic_add(counts, b, 1)
        counts[b % n] = old ** 2 // 3 % 5 << 1 >> 1 & 7 | 1 ^ 2
)",
};

// Replacements keep the syntax mostly valid, so most mutants reach the lowering: a name or
// literal is replaced by an atom, an operator by an operator.
const char* const kAtoms[] = {
    "0",
    "1",
    "-1",
    "2.5",
    "300",
    "True",
    "x",
    "y",
    "i",
    "j",
    "n",
    "a",
    "b",
    "buf",
    "t",
    "m",
    "math.pi",
    "math.nan",
    "1e308",
    "2 ** 70",
    "0.0",
    "len(x)",
    "x[i]",
    "x[i, 0]",
    "x[i][0]",
    "(1, 2)",
    "tack.f32(i)",
    "tack.u8(n)",
    "tack.bool(i)",
    "int(t)",
    "float(n)",
    "abs(i)",
    "min(i, 2.5)",
    "round(t)",
    "math.floor(t)",
    "clamp(t, 0, 1)",
    "bucket(t, 0, 1, n)",
    "add_to(x, i, 1)",
    "tack.atomic_max(x, i, 1)",
    "tack.zeros(4)",
    "x.shape[0]",
    "x.shape",
    "0xffffffffffffffff",
    "-128",
    "tack.i8(-1)",
    "tack",
    "math",
    "range",
};
const char* const kOperators[] = {"+",   "-",  "*",  "/",  "//", "%",   "**", "<",
                                  "<=",  "==", "!=", "&",  "|",  "^",   "<<", ">>",
                                  "and", "or", "+=", "-=", "*=", "//=", "="};

// Deterministic so that a failure reproduces.
struct Rng {
  uint64_t state;
  uint64_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
};

// Names, numbers and one- or two-character operators, as (position, length).
std::vector<std::pair<size_t, size_t>> token_spans(const std::string& s) {
  std::vector<std::pair<size_t, size_t>> spans;
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t start = i;
    if (std::isalpha(c) || c == '_') {
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
    } else if (std::isdigit(c)) {
      while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
    } else if (std::isspace(c) || c == '"' || c == '@' || c == '#') {
      ++i;
      continue;
    } else {
      ++i;
      if (i < s.size() && std::string("*/<>=").find(s[i]) != std::string::npos) ++i;
    }
    spans.emplace_back(start, i - start);
  }
  return spans;
}

TEST(LowerRobustness, MutantsGiveVerifiedIrOrUserErrors) {
  const std::vector<std::vector<ArgType>> signatures[] = {
      {{f32s, f32s, num(ST::i32)},
       {f64s, i32s, num(ST::i64)},
       {arr(ST::u8), arr(ST::boolean), num(ST::f32)}},
      {{arr(ST::f32, 2), arr(ST::f32, 2), arr(ST::f32, 2)},
       {arr(ST::i32, 2), arr(ST::f64, 2), arr(ST::i64, 2)},
       {arr(ST::f32, 1, 3), arr(ST::f32, 2), arr(ST::u64, 2)}},
      {{f32s, i32s, num(ST::f32)},
       {arr(ST::i64), i64s, num(ST::i32)},
       {f64s, arr(ST::u32), num(ST::f64)}},
  };
  Rng rng{0x9E3779B97F4A7C15ull};
  int compiled = 0, refused = 0;
  for (int iter = 0; iter < 600; ++iter) {
    size_t seed = static_cast<size_t>(iter) % std::size(kSeeds);
    std::string src = kSeeds[seed];
    int mutations = 1 + static_cast<int>(rng.below(2));
    for (int m = 0; m < mutations; ++m) {
      auto spans = token_spans(src);
      auto [pos, len] = spans[rng.below(spans.size())];
      char c = src[pos];
      bool atom = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      if (atom && (src.substr(pos, len) == "def" || src.substr(pos, len) == "for")) continue;
      src.replace(pos, len,
                  atom ? kAtoms[rng.below(std::size(kAtoms))]
                       : kOperators[rng.below(std::size(kOperators))]);
    }
    for (const auto& sig : signatures[seed]) {
      try {
        lower(src, sig);
        ++compiled;
      } catch (const InternalError& e) {
        FAIL() << e.what() << "\nfor the kernel:\n"
               << src << "\nsignature: " << compiler::to_string(sig);
      } catch (const CompileError& e) {
        ++refused;
        ASSERT_GE(e.line(), 1) << src;
        ASSERT_GE(e.column(), 1) << src;
      } catch (const Error&) {
        ++refused;  // a mutated kernel name (ValueError), a parameter count (TypeError)
      }
    }
  }
  // Both outcomes occur: the mutants are neither all trivially broken nor all unchanged.
  EXPECT_GT(compiled, 100);
  EXPECT_GT(refused, 100);
}

TEST(LowerRobustness, DeepExpressionsLower) {
  // The front end allows expressions up to 1000 levels high.
  std::string e = "x[i]";
  for (int k = 0; k < 990; ++k) e += " + x[i]";
  EXPECT_NO_THROW(lower(
      "@tack.kernel\ndef k(x):\n    for i in range(len(x)):\n        x[i] = " + e + "\n", {f32s}));
}

TEST(LowerRobustness, NestedCallsDoNotRepeatWork) {
  // Each argument is bound once, so the IR grows linearly with the nesting.
  std::string call = "x[i]";
  for (int k = 0; k < 30; ++k) call = "sq(" + call + ")";
  std::string text = ir_text(
      "@tack.func\ndef sq(v):\n    return v * v\n\n@tack.kernel\ndef k(x):\n"
      "    for i in range(len(x)):\n        x[i] = " +
          call + "\n",
      {f32s});
  EXPECT_LT(text.size(), 3000u);
}

std::string call_chain(int depth, int calls_per_level) {
  std::string src;
  for (int k = depth; k >= 1; --k) {
    src += "@tack.func\ndef f" + std::to_string(k) + "(v):\n    return ";
    if (k == depth) {
      src += "v + 1\n\n";
      continue;
    }
    for (int c = 0; c < calls_per_level; ++c) {
      src += (c ? " + " : "") + std::string("f") + std::to_string(k + 1) + "(v)";
    }
    src += "\n\n";
  }
  return src + "@tack.kernel\ndef k(x):\n    for i in range(len(x)):\n        x[i] = f1(x[i])\n";
}

TEST(LowerRobustness, InliningIsBounded) {
  EXPECT_NO_THROW(lower(call_chain(30, 1), {f32s}));
  try {
    lower(call_chain(40, 1), {f32s});
    FAIL() << "no error for 40 nested calls";
  } catch (const CompileError& e) {
    EXPECT_NE(e.message().find("more than 32 levels deep"), std::string::npos) << e.what();
  }
  // Two calls per level double at each level: 2^20 inlined calls would be too many.
  try {
    lower(call_chain(20, 2), {f32s});
    FAIL() << "no error for 2^20 inlined calls";
  } catch (const CompileError& e) {
    EXPECT_NE(e.message().find("inlines more than 10000 device-function calls"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tack::lowering::test
