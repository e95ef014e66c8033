// tex.sample(u, v, w) on a tack::Texture3D parameter (docs/design/textures.md), lowered to plain
// IR so that every backend computes the same values: each normalized coordinate is clamped to
// [0, 1] and scaled to texels (x = u * (W - 1)); linear filtering blends the eight texels
// around the point along x, then y, then z (a * (1 - f) + b * f), nearest reads texel
// floor(x + 0.5). The arithmetic is in the texture's type; a NaN coordinate gives NaN.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "lowering/lowerer.hpp"
#include "tack/texture.hpp"

namespace tack::lowering {

void Lowerer::refuse_texture(const Symbol& s, frontend::SourceLoc loc) {
  fail(loc, "'" + s.name + "' is a 3-D texture: sample it with " + s.name +
                ".sample(u, v, w); to index, store into or measure its texels, pass its array "
                "(tex.array in Python, Texture3D::array() in C++) to the kernel instead");
}

Value Lowerer::lower_texture_sample(const Symbol& tex, const std::string& method,
                                    const frontend::Call& c) {
  if (method != "sample") {
    fail(c.func->loc, "'" + tex.name + "." + method + "(...)': textures have one method, sample (" +
                          tex.name + ".sample(u, v, w))");
  }
  if (c.args.size() != 3) {
    fail(c.loc,
         tex.name + ".sample(u, v, w) takes 3 coordinates, got " + std::to_string(c.args.size()));
  }
  const ir::ScalarType t = tex.type;
  const ir::ArrayRef ref{tex.param, tex.array};
  Sequence seq(*this);
  for (const frontend::ExprPtr& a : c.args) seq.add_expr(*a);

  auto real = [&](double x) { return ir::float_const(t, x); };
  ir::Expr any_nan;
  // Per axis (x, y, z: the view's dimensions 2, 1, 0): the texel position, clamped, and the
  // last texel's index.
  ir::Expr pos[3], last[3];
  for (int k = 0; k < 3; ++k) {
    const Value& v = seq[static_cast<size_t>(k)];
    if (v.is_tuple() || v.array || v.is_none()) {
      fail(c.args[static_cast<size_t>(k)]->loc, "each coordinate of " + tex.name +
                                                    ".sample(u, v, w) is a number; coordinate " +
                                                    std::to_string(k + 1) + " is " + describe(v));
    }
    ir::Expr u = spill(convert_store(v, t, c.args[static_cast<size_t>(k)]->loc,
                                     "a coordinate of " + tex.name + ".sample"));
    ir::Expr nan = ir::call(ir::MathFn::IsNan, {u});
    any_nan = any_nan ? ir::logical_or(any_nan, nan) : nan;
    last[k] = spill(ir::sub(ir::shape(ref, 2 - k), ir::const_i64(1)));
    // NaN compares false both ways: it is clamped to 0 here and restored at the end.
    ir::Expr clamped =
        ir::select(ir::gt(u, real(0.0)), ir::select(ir::lt(u, real(1.0)), u, real(1.0)), real(0.0));
    pos[k] = spill(ir::mul(clamped, ir::cast(t, last[k])));
  }

  ir::Expr result;
  if (tex.texture == static_cast<std::uint8_t>(TextureFilter::Nearest)) {
    std::vector<ir::Expr> idx(3);
    for (int k = 0; k < 3; ++k) {
      idx[static_cast<size_t>(2 - k)] =
          ir::cast(ir::ScalarType::i64, ir::call(ir::MathFn::Floor, {ir::add(pos[k], real(0.5))}));
    }
    result = ir::load(ref, std::move(idx));
  } else {
    ir::Expr i0[3], i1[3], f[3];
    for (int k = 0; k < 3; ++k) {
      ir::Expr floor = spill(ir::call(ir::MathFn::Floor, {pos[k]}));
      f[k] = spill(ir::sub(pos[k], floor));
      i0[k] = spill(ir::cast(ir::ScalarType::i64, floor));
      i1[k] = spill(ir::select(ir::lt(i0[k], last[k]), ir::add(i0[k], ir::const_i64(1)), last[k]));
    }
    auto texel = [&](int x, int y, int z) {
      return spill(ir::load(ref, {(z ? i1 : i0)[2], (y ? i1 : i0)[1], (x ? i1 : i0)[0]}));
    };
    auto lerp = [&](ir::Expr a, ir::Expr b, const ir::Expr& w) {
      return ir::add(ir::mul(std::move(a), ir::sub(real(1.0), w)), ir::mul(std::move(b), w));
    };
    ir::Expr c00 = spill(lerp(texel(0, 0, 0), texel(1, 0, 0), f[0]));
    ir::Expr c10 = spill(lerp(texel(0, 1, 0), texel(1, 1, 0), f[0]));
    ir::Expr c01 = spill(lerp(texel(0, 0, 1), texel(1, 0, 1), f[0]));
    ir::Expr c11 = spill(lerp(texel(0, 1, 1), texel(1, 1, 1), f[0]));
    ir::Expr c0 = spill(lerp(c00, c10, f[1]));
    ir::Expr c1 = spill(lerp(c01, c11, f[1]));
    result = lerp(c0, c1, f[2]);
  }
  return Value::typed(ir::select(any_nan, real(std::nan("")), std::move(result)));
}

}  // namespace tack::lowering
