// tack.random (docs/design/random.md): Philox-4x32-10, lowered to plain integer IR. A state is a
// tuple of six u32: the key (k0, k1) and the counter (c0, c1, c2, c3); every draw computes one
// Philox block of the state's key and counter and returns the state with the counter's high
// half (c2, c3) advanced by one.
#include <functional>
#include <numbers>
#include <tuple>
#include <utility>

#include "lowering/lowerer.hpp"
#include "lowering/typing.hpp"

namespace tack::lowering {
namespace {

using frontend::SourceLoc;
using ST = ir::ScalarType;

constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // the round multipliers
constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // the key schedule's increments
constexpr int kRounds = 10;
constexpr std::size_t kStateWords = 6;

ir::Expr u32(std::uint32_t v) {
  return ir::make_const(ST::u32, static_cast<std::int64_t>(v));
}
ir::Expr u64(std::uint64_t v) {
  return ir::make_const(ST::u64, static_cast<std::int64_t>(v));
}

const char* const kUsage =
    "a tack.random state is the tuple tack.random.seed(key, counter) returns (six u32); pass it "
    "as it came back from the previous draw: state, u = tack.random.uniform(state)";

// uniform4 and the directions are vectors (they unpack like tuples: x, y = d).
Value as_vector(Value v) {
  v.rows = static_cast<int>(v.tuple.size());
  return v;
}

}  // namespace

Value Lowerer::lower_random(const std::string& name, const frontend::Call& c) {
  const std::string fn = name.substr(std::string("tack.random.").size());
  auto arity = [&](std::size_t n) {
    if (c.args.size() != n) {
      fail(c.loc, name + "() takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") +
                      ", got " + std::to_string(c.args.size()));
    }
  };
  // A u32 local holding `e` (each round's words are bound once: the rounds stay linear).
  auto bind = [&](ir::Expr e) { return spill(std::move(e)); };

  if (fn == "seed") {
    // seed(key, counter): both integers of any type, taken as 64 bits.
    arity(2);
    Sequence seq(*this);
    seq.add_expr(*c.args[0]);
    seq.add_expr(*c.args[1]);
    std::vector<ir::Expr> words;
    for (std::size_t k = 0; k < 2; ++k) {
      const Value& v = seq[k];
      if ((v.is_weak() && v.weak->is_float) || (!v.is_weak() && !ir::is_int(v.expr->type))) {
        fail(c.args[k]->loc, name +
                                 "() takes integers (a key and a counter, such as the loop "
                                 "index), got " +
                                 describe(v));
      }
      ir::Expr x = v.is_weak() ? make_constant(*v.weak, v.weak->i < 0 ? ST::i64 : ST::u64) : v.expr;
      x = bind(ir::cast(ST::u64, x));
      words.push_back(ir::cast(ST::u32, x));
      words.push_back(ir::cast(ST::u32, ir::shr(x, u64(32))));
    }
    std::vector<Value> state;
    for (const ir::Expr& w : words) state.push_back(Value::typed(w));  // k0 k1 c0 c1
    state.push_back(Value::typed(u32(0)));
    state.push_back(Value::typed(u32(0)));
    return Value::of_tuple(std::move(state));
  }

  const bool known = fn == "philox" || fn == "bits" || fn == "uniform" || fn == "uniform4" ||
                     fn == "normal" || fn == "direction2" || fn == "direction3";
  if (!known) {
    fail(c.func->loc, "unknown function '" + name +
                          "'; tack.random has seed, uniform, uniform4, normal, direction2, "
                          "direction3, bits and philox");
  }
  arity(1);
  Value sv = lower_expr(*c.args[0]);
  if (!sv.is_tuple() || sv.tuple.size() != kStateWords) {
    fail(c.args[0]->loc, name + "() takes a state, not " + describe(sv) + "; " + kUsage);
  }
  std::vector<ir::Expr> s;
  for (const Value& w : sv.tuple) {
    if (w.is_tuple() || w.is_weak() || w.expr->type != ST::u32) {
      fail(c.args[0]->loc, name + "() takes a state, not " + describe(sv) + "; " + kUsage);
    }
    s.push_back(cheap_to_repeat(w.expr) ? w.expr : bind(w.expr));
  }

  // One Philox-4x32-10 block of the state's key and the counter (c0, c1, c2, c3).
  auto block = [&](ir::Expr c2, ir::Expr c3) {
    ir::Expr k0 = s[0], k1 = s[1];
    ir::Expr x0 = s[2], x1 = s[3], x2 = std::move(c2), x3 = std::move(c3);
    for (int r = 0; r < kRounds; ++r) {
      if (r > 0) {
        k0 = bind(ir::add(k0, u32(kW0)));
        k1 = bind(ir::add(k1, u32(kW1)));
      }
      const ir::Expr p0 = bind(ir::mul(ir::cast(ST::u64, x0), u64(kM0)));
      const ir::Expr p1 = bind(ir::mul(ir::cast(ST::u64, x2), u64(kM1)));
      const ir::Expr hi0 = ir::cast(ST::u32, ir::shr(p0, u64(32)));
      const ir::Expr hi1 = ir::cast(ST::u32, ir::shr(p1, u64(32)));
      const ir::Expr n0 = bind(ir::bit_xor(ir::bit_xor(hi1, x1), k0));
      const ir::Expr n1 = bind(ir::cast(ST::u32, p1));
      const ir::Expr n2 = bind(ir::bit_xor(ir::bit_xor(hi0, x3), k1));
      const ir::Expr n3 = bind(ir::cast(ST::u32, p0));
      x0 = n0, x1 = n1, x2 = n2, x3 = n3;
    }
    return std::vector<ir::Expr>{x0, x1, x2, x3};
  };
  // The draw counter (c2, c3) plus one, carrying from c2 into c3.
  auto advance = [&](const ir::Expr& c2, const ir::Expr& c3) {
    const ir::Expr n2 = bind(ir::add(c2, u32(1)));
    return std::pair{n2, bind(ir::add(c3, ir::select(ir::eq(n2, u32(0)), u32(1), u32(0))))};
  };
  const std::vector<ir::Expr> x = block(s[4], s[5]);
  if (fn == "philox") {
    return Value::of_tuple(
        {Value::typed(x[0]), Value::typed(x[1]), Value::typed(x[2]), Value::typed(x[3])});
  }
  const ST t = default_float();
  // uniform4 in f64 takes a second block, so its draw advances the counter by two.
  auto [c2, c3] = advance(s[4], s[5]);
  std::vector<ir::Expr> second;
  if (fn == "uniform4" && t == ST::f64) {
    second = block(c2, c3);
    std::tie(c2, c3) = advance(c2, c3);
  }
  std::vector<Value> next = {Value::typed(s[0]), Value::typed(s[1]), Value::typed(s[2]),
                             Value::typed(s[3]), Value::typed(c2),   Value::typed(c3)};
  auto result = [&](Value v) {
    return Value::of_tuple({Value::of_tuple(std::move(next)), std::move(v)});
  };
  const ir::Expr x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
  if (fn == "bits") return result(Value::typed(x0));

  // Uniform floats in [0, 1) from the block's words: 24 bits for f32, 53 for f64.
  auto unit = [&](const ir::Expr& hi, const ir::Expr& lo) -> ir::Expr {
    if (t == ST::f32) {
      return ir::mul(ir::cast(ST::f32, ir::shr(hi, u32(8))), ir::float_const(ST::f32, 0x1p-24));
    }
    const ir::Expr w = ir::bit_or(ir::shl(ir::cast(ST::u64, hi), u64(32)), ir::cast(ST::u64, lo));
    return ir::mul(ir::cast(ST::f64, ir::shr(w, u64(11))), ir::float_const(ST::f64, 0x1p-53));
  };
  if (fn == "uniform4") {  // every word of the block: four f32 (or two blocks' four f64)
    std::vector<Value> four;
    if (t == ST::f32) {
      for (const ir::Expr& w : x) four.push_back(Value::typed(unit(w, w)));
    } else {
      for (const std::vector<ir::Expr>& b : {std::cref(x), std::cref(second)}) {
        four.push_back(Value::typed(unit(b[0], b[1])));
        four.push_back(Value::typed(unit(b[2], b[3])));
      }
    }
    return result(as_vector(Value::of_tuple(std::move(four))));
  }
  const ir::Expr u = bind(unit(x0, x1));
  if (fn == "uniform") return result(Value::typed(u));
  const ir::Expr v = bind(unit(x2, x3));
  const ir::Expr one = ir::float_const(t, 1.0), two = ir::float_const(t, 2.0);
  const ir::Expr two_pi = ir::float_const(t, 2.0 * std::numbers::pi);
  const ir::Expr angle = bind(ir::mul(two_pi, v));
  if (fn == "normal") {
    // Box-Muller: sqrt(-2 log(1 - u)) cos(2 pi v); 1 - u is in (0, 1], so the log is finite.
    const ir::Expr radius =
        ir::call(ir::MathFn::Sqrt,
                 {ir::mul(ir::float_const(t, -2.0), ir::call(ir::MathFn::Log, {ir::sub(one, u)}))});
    return result(Value::typed(ir::mul(radius, ir::call(ir::MathFn::Cos, {angle}))));
  }
  if (fn == "direction2") {
    return result(as_vector(Value::of_tuple({Value::typed(ir::call(ir::MathFn::Cos, {angle})),
                                             Value::typed(ir::call(ir::MathFn::Sin, {angle}))})));
  }
  // direction3: z uniform in [-1, 1), the azimuth uniform: uniform on the sphere (Archimedes).
  const ir::Expr z = bind(ir::sub(one, ir::mul(two, u)));
  const ir::Expr r = bind(ir::call(
      ir::MathFn::Sqrt,
      {ir::call(ir::MathFn::Max, {ir::sub(one, ir::mul(z, z)), ir::float_const(t, 0.0)})}));
  return result(as_vector(Value::of_tuple(
      {Value::typed(ir::mul(r, ir::call(ir::MathFn::Cos, {angle}))),
       Value::typed(ir::mul(r, ir::call(ir::MathFn::Sin, {angle}))), Value::typed(z)})));
}

}  // namespace tack::lowering
