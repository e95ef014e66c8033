// Test kernels shared by the C-style printer suites (OpenCL and CUDA): built by hand with the IR
// builder, so both dialects are checked on exactly the same program.
#pragma once

#include <string>
#include <vector>

#include "ir/builder.hpp"

namespace tack::test_kernels {

using namespace ir;
using ST = ir::ScalarType;

inline Expr vi(const std::string& n, ST t = ST::i64) {
  return var(t, n);
}

// One kernel that asks for every helper of every type: arithmetic, floor division, modulo,
// powers, shifts, casts both ways, min/max/abs, math functions, atomics, control flow, local
// arrays, bool parameters and vec arrays.
inline Function kitchen_sink() {
  const ST all[] = {ST::i8,  ST::i16, ST::i32, ST::i64, ST::u8,
                    ST::u16, ST::u32, ST::u64, ST::f32, ST::f64};
  FunctionBuilder fb("kitchen_sink");
  std::vector<ArrayRef> arrays;
  for (ST t : all) arrays.push_back(fb.array_param(std::string("a_") + std::string(name(t)), t));
  ArrayRef v3 = fb.array_param("v3", ST::f32, 2, 3);
  Expr flag = fb.scalar_param("flag", ST::boolean);
  std::vector<Stmt> body;
  Expr i = vi("i");
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    const ArrayRef& a = arrays[k];
    const ST t = a.type.elem;
    Expr x = load(a, {i}), y = load(a, {mod(add(i, const_i64(1)), shape(a, 0))});
    std::vector<Expr> values = {add(x, y),
                                sub(x, y),
                                mul(x, y),
                                floordiv(x, y),
                                mod(x, y),
                                power(x, y),
                                call(MathFn::Min, {x, y}),
                                call(MathFn::Max, {x, y}),
                                call(MathFn::Abs, {x}),
                                neg(x)};
    if (is_int(t)) {
      for (Expr e : {shl(x, y), shr(x, y), bit_and(x, y), bit_or(x, y), bit_xor(x, y), invert(x),
                     cast(t, cast(ST::f32, x)), cast(t, cast(ST::f64, x))})
        values.push_back(e);
    } else {
      values.push_back(truediv(x, y));
      for (MathFn fn :
           {MathFn::Sqrt,  MathFn::Cbrt,  MathFn::Sin,   MathFn::Cos,  MathFn::Tan,   MathFn::Asin,
            MathFn::Acos,  MathFn::Atan,  MathFn::Sinh,  MathFn::Cosh, MathFn::Tanh,  MathFn::Asinh,
            MathFn::Acosh, MathFn::Atanh, MathFn::Exp,   MathFn::Exp2, MathFn::Expm1, MathFn::Log,
            MathFn::Log2,  MathFn::Log10, MathFn::Log1p, MathFn::Erf,  MathFn::Erfc,  MathFn::Floor,
            MathFn::Ceil,  MathFn::Trunc, MathFn::Round})
        values.push_back(call(fn, {x}));
      for (MathFn fn : {MathFn::Atan2, MathFn::Fmod, MathFn::Copysign, MathFn::Hypot})
        values.push_back(call(fn, {x, y}));
      values.push_back(
          select(logical_or(call(MathFn::IsNan, {x}),
                            logical_and(call(MathFn::IsInf, {y}), call(MathFn::IsFinite, {x}))),
                 float_const(t, std::numeric_limits<double>::infinity()), float_const(t, -0.0)));
      for (ST to : all) {
        if (is_int(to)) values.push_back(cast(t, cast(to, x)));
      }
    }
    for (std::size_t n = 0; n < values.size(); ++n)
      body.push_back(
          store(a, {mod(add(i, const_i64(static_cast<std::int64_t>(n))), shape(a, 0))}, values[n]));
    for (AtomicOp op : {AtomicOp::Add, AtomicOp::Min, AtomicOp::Max})
      body.push_back(eval(atomic(op, a, {const_i64(0)}, x)));
  }
  body.push_back(local_array("loc", ST::f64, {2, 3}));
  body.push_back(local_store("loc", {const_i32(1), const_i32(2)}, const_f64(1.5)));
  body.push_back(if_then(
      flag, store(v3, {i, const_i64(0), const_i64(2)},
                  cast(ST::f32, local_load(ST::f64, "loc", {const_i32(1), const_i32(2)})))));
  body.push_back(
      for_range("k", const_u32(10), const_u32(0), const_u32(3),
                if_then(gt(vi("k", ST::u32), const_u32(4)), break_stmt(), continue_stmt())));
  body.push_back(labeled("done", block({if_then(flag, exit_block("done")),
                                        while_loop(logical_not(flag), break_stmt())})));
  return fb.build({range_dim("i", shape(arrays[0], 0)), range_dim("j", const_i32(2))},
                  block(std::move(body)));
}

}  // namespace tack::test_kernels
