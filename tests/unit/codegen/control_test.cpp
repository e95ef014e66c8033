// Control flow in generated code: sequential ranges, break/continue, while, labeled exits,
// short-circuit logic, single-arm selects, and local arrays.
#include <gtest/gtest.h>

#include "codegen/llvm/llvm_codegen.hpp"
#include "ir/builder.hpp"
#include "kernel_runner.hpp"

namespace tack::codegen {
namespace {

using namespace tack::ir;
using testing::Args;
using testing::run;

const Expr kI = Var::make(ScalarType::i64, "i");

// One-iteration kernel over an i64 output array; `body` stores results into it.
std::vector<int64_t> run_once(const std::function<Stmt(const ArrayRef&)>& body, size_t outputs,
                              CodegenOptions opts = {}, TackDebugStatus* status = nullptr) {
  FunctionBuilder fb("once");
  ArrayRef out = fb.array_param("out", ScalarType::i64);
  Function f = fb.build({range_dim("i", const_i64(1))}, body(out));
  auto m = compile(f, opts);
  std::vector<int64_t> v(outputs, -999);
  run(*m, Args().array(v), status);
  return v;
}

Expr v64(const char* n) {
  return var(ScalarType::i64, n);
}
Expr v32(const char* n) {
  return var(ScalarType::i32, n);
}

TEST(CodegenControl, ForRangesIncludingNegativeSteps) {
  // Sum and count of range(start, stop, step) for several ranges, each into out[2k], out[2k+1].
  struct R {
    int32_t a, b, c;
  };
  const R ranges[] = {{0, 10, 1}, {10, 0, -3}, {5, 5, 1},
                      {0, 10, 0}, {-5, 6, 5},  {2147483640, 2147483647, 3}};
  auto body = [&](const ArrayRef& out) {
    std::vector<Stmt> s;
    int64_t k = 0;
    for (const R& r : ranges) {
      std::string sum = "sum" + std::to_string(k), cnt = "cnt" + std::to_string(k);
      s.push_back(let(sum, const_i64(0)));
      s.push_back(let(cnt, const_i64(0)));
      s.push_back(for_range(
          "k" + std::to_string(k), const_i32(r.a), const_i32(r.b), const_i32(r.c),
          block({assign(sum, add(v64(sum.c_str()),
                                 cast(ScalarType::i64, v32(("k" + std::to_string(k)).c_str())))),
                 assign(cnt, add(v64(cnt.c_str()), const_i64(1)))})));
      s.push_back(store(out, {const_i64(2 * k)}, v64(sum.c_str())));
      s.push_back(store(out, {const_i64(2 * k + 1)}, v64(cnt.c_str())));
      ++k;
    }
    return block(s);
  };
  std::vector<int64_t> v = run_once(body, 12);
  EXPECT_EQ(v, (std::vector<int64_t>{45, 10, 22, 4, 0, 0, 0, 0, 0, 3, 6442450929, 3}));
}

TEST(CodegenControl, AssigningTheLoopVariableDoesNotChangeIteration) {
  auto body = [](const ArrayRef& out) {
    return block(
        {let("n", const_i64(0)),
         for_range("k", const_i64(0), const_i64(5), const_i64(1),
                   block({assign("k", const_i64(100)), assign("n", add(v64("n"), const_i64(1)))})),
         store(out, {const_i64(0)}, v64("n"))});
  };
  EXPECT_EQ(run_once(body, 1), (std::vector<int64_t>{5}));
}

TEST(CodegenControl, BreakContinueAndWhile) {
  // for k in range(100): if k % 2 == 1: continue; if k > 10: break; s += k   -> 0+2+...+10 = 30
  // while w < 1000: w = w * 2 + 1                                               -> 1023
  auto body = [](const ArrayRef& out) {
    Expr k = v64("k");
    return block(
        {let("s", const_i64(0)),
         for_range("k", const_i64(0), const_i64(100), const_i64(1),
                   block({if_then(eq(mod(k, const_i64(2)), const_i64(1)), block({continue_stmt()})),
                          if_then(gt(k, const_i64(10)), block({break_stmt()})),
                          assign("s", add(v64("s"), k))})),
         let("w", const_i64(0)),
         while_loop(lt(v64("w"), const_i64(1000)),
                    block({assign("w", add(mul(v64("w"), const_i64(2)), const_i64(1)))})),
         store(out, {const_i64(0)}, v64("s")), store(out, {const_i64(1)}, v64("w"))});
  };
  EXPECT_EQ(run_once(body, 2), (std::vector<int64_t>{30, 1023}));
}

TEST(CodegenControl, NestedBreakLeavesOnlyTheInnerLoop) {
  auto body = [](const ArrayRef& out) {
    return block({let("n", const_i64(0)),
                  for_range("a", const_i64(0), const_i64(3), const_i64(1),
                            block({for_range(
                                "b", const_i64(0), const_i64(10), const_i64(1),
                                block({if_then(eq(v64("b"), const_i64(2)), block({break_stmt()})),
                                       assign("n", add(v64("n"), const_i64(1)))}))})),
                  store(out, {const_i64(0)}, v64("n"))});
  };
  EXPECT_EQ(run_once(body, 1), (std::vector<int64_t>{6}));
}

TEST(CodegenControl, LabeledBlockExitImplementsReturn) {
  // An inlined device function `find(x)`: the first k in range(10) with k * k >= x, else -1.
  auto find = [](int64_t x, const std::string& r) {
    return labeled("ret_" + r,
                   block({for_range("k" + r, const_i64(0), const_i64(10), const_i64(1),
                                    block({if_then(ge(mul(var(ScalarType::i64, "k" + r),
                                                          var(ScalarType::i64, "k" + r)),
                                                      const_i64(x)),
                                                   block({assign(r, var(ScalarType::i64, "k" + r)),
                                                          exit_block("ret_" + r)}))})),
                          assign(r, const_i64(-1)), exit_block("ret_" + r)}));
  };
  auto body = [&](const ArrayRef& out) {
    return block({let("r1", const_i64(0)), find(17, "r1"), let("r2", const_i64(0)), find(500, "r2"),
                  store(out, {const_i64(0)}, v64("r1")), store(out, {const_i64(1)}, v64("r2"))});
  };
  EXPECT_EQ(run_once(body, 2), (std::vector<int64_t>{5, -1}));
}

TEST(CodegenControl, ContinueInParallelBodySkipsTheRestOfTheIteration) {
  FunctionBuilder fb("skip_odd");
  ArrayRef out = fb.array_param("out", ScalarType::i64);
  Function f =
      fb.build({range_dim("i", shape(out, 0))},
               block({if_then(eq(mod(kI, const_i64(2)), const_i64(1)), block({continue_stmt()})),
                      store(out, {kI}, kI)}));
  auto m = compile(f, {});
  std::vector<int64_t> v(6, -1);
  run(*m, Args().array(v), nullptr, 4);
  EXPECT_EQ(v, (std::vector<int64_t>{0, -1, 2, -1, 4, -1}));
}

// Short circuit and single-arm selects are observable in debug mode: an access in the arm or
// operand that is not evaluated must not be reported.
TEST(CodegenControl, ShortCircuitAndSelectEvaluateOnlyWhatIsNeeded) {
  FunctionBuilder fb("guarded");
  ArrayRef a = fb.array_param("a", ScalarType::i64);
  ArrayRef out = fb.array_param("out", ScalarType::i64);
  Expr n = shape(a, 0);
  Expr prev = select(gt(kI, const_i64(0)), load(a, {sub(kI, const_i64(1))}), const_i64(-1));
  Expr safe =
      logical_and(lt(add(kI, const_i64(1)), n), gt(load(a, {add(kI, const_i64(1))}), const_i64(0)));
  Expr either =
      logical_or(ge(add(kI, const_i64(1)), n), gt(load(a, {add(kI, const_i64(1))}), const_i64(0)));
  Function f = fb.build(
      {range_dim("i", n)},
      block(
          {store(out, {mul(kI, const_i64(3))}, prev),
           store(out, {add(mul(kI, const_i64(3)), const_i64(1))}, cast(ScalarType::i64, safe)),
           store(out, {add(mul(kI, const_i64(3)), const_i64(2))}, cast(ScalarType::i64, either))}));
  auto m = compile(f, {.bounds_check = true});
  std::vector<int64_t> av = {5, 0, 7};
  std::vector<int64_t> o(9, -9);
  TackDebugStatus st;
  run(*m, Args().array(av).array(o), &st);
  EXPECT_EQ(st.failed, 0);
  EXPECT_EQ(o, (std::vector<int64_t>{-1, 0, 0, 5, 1, 1, 0, 0, 1}));
}

TEST(CodegenControl, LocalArraysAreZeroedPerIteration) {
  // t = local f32[2, 3]; t[0, i % 3] += i; out[i] = sum of t  -> exactly i (zeroed every time)
  FunctionBuilder fb("locals");
  ArrayRef out = fb.array_param("out", ScalarType::f32);
  Expr col = mod(kI, const_i64(3));
  Expr t = local_load(ScalarType::f32, "t", {const_i32(0), col});
  Stmt sum_loop = for_range(
      "r", const_i32(0), const_i32(2), const_i32(1),
      block({for_range(
          "c", const_i32(0), const_i32(3), const_i32(1),
          block({assign("s", add(var(ScalarType::f32, "s"),
                                 local_load(ScalarType::f32, "t", {v32("r"), v32("c")})))}))}));
  Function f = fb.build(
      {range_dim("i", shape(out, 0))},
      block({local_array("t", ScalarType::f32, {2, 3}),
             local_store("t", {const_i32(0), col}, add(t, cast(ScalarType::f32, kI))),
             let("s", const_f32(0)), sum_loop, store(out, {kI}, var(ScalarType::f32, "s"))}));
  for (bool checked : {false, true}) {
    auto m = compile(f, {.bounds_check = checked});
    std::vector<float> v(7, -1);
    run(*m, Args().array(v), nullptr, 3);
    EXPECT_EQ(v, (std::vector<float>{0, 1, 2, 3, 4, 5, 6}));
  }
}

TEST(CodegenControl, BoolLocalArraysAndLogic) {
  auto body = [](const ArrayRef& out) {
    return block(
        {local_array("flags", ScalarType::boolean, {4}),
         local_store("flags", {const_i32(2)}, const_bool(true)),
         let("x", local_load(ScalarType::boolean, "flags", {const_i32(2)})),
         let("y", local_load(ScalarType::boolean, "flags", {const_i32(1)})),
         store(out, {const_i64(0)}, cast(ScalarType::i64, var(ScalarType::boolean, "x"))),
         store(out, {const_i64(1)}, cast(ScalarType::i64, var(ScalarType::boolean, "y"))),
         store(out, {const_i64(2)},
               cast(ScalarType::i64, logical_not(var(ScalarType::boolean, "y")))),
         store(out, {const_i64(3)},
               cast(ScalarType::i64, bit_xor(var(ScalarType::boolean, "x"), const_bool(true))))});
  };
  EXPECT_EQ(run_once(body, 4), (std::vector<int64_t>{1, 0, 1, 0}));
}

}  // namespace
}  // namespace tack::codegen
