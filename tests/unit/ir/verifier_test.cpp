// The verifier accepts well-formed kernels and names each kind of malformed IR.
#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/verifier.hpp"
#include "tack/error.hpp"

namespace tack::ir {
namespace {

// gtest without gmock: a substring check with a readable failure.
::testing::AssertionResult Has(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

const Expr kI = Var::make(ScalarType::i64, "i");

// A kernel with one f32 array `a`, one i64 scalar `n`, and the given parallel body.
Function kernel(Stmt body, std::vector<Stmt> prelude = {}) {
  FunctionBuilder fb("k");
  fb.array_param("a", ScalarType::f32);
  Expr n = fb.scalar_param("n", ScalarType::i64);
  for (Stmt& s : prelude) fb.prelude(s);
  return fb.build({range_dim("i", n)}, std::move(body));
}

ArrayRef array_a() {
  return ArrayRef{0, ArrayType{ScalarType::f32, 1, 0}};
}

// The single error message of f; fails the test if there is not exactly one.
std::string only_error(const Function& f) {
  std::vector<std::string> errors = verify(f);
  EXPECT_EQ(errors.size(), 1u) << ::testing::PrintToString(errors);
  return errors.empty() ? std::string() : errors[0];
}

TEST(IrVerifier, AcceptsWellFormedKernel) {
  Stmt body = block({
      let("x", load(array_a(), {kI})),
      local_array("t", ScalarType::f32, {2, 2}),
      local_store("t", {const_i32(1), const_i32(1)}, var(ScalarType::f32, "x")),
      labeled("ret", block({for_range("k", const_i32(0), const_i32(3), const_i32(1),
                                      block({if_then(const_bool(true), block({exit_block("ret")})),
                                             continue_stmt()}))})),
      if_then(lt(var(ScalarType::f32, "x"), const_f32(0)), block({continue_stmt()})),
      store(array_a(), {kI}, local_load(ScalarType::f32, "t", {const_i32(1), const_i32(1)})),
      eval(atomic(AtomicOp::Max, array_a(), {kI}, const_f32(1))),
  });
  Function f = kernel(body, {let("m", const_i64(3))});
  EXPECT_EQ(verify(f), std::vector<std::string>{});
  EXPECT_NO_THROW(verify_or_throw(f, "test"));
}

TEST(IrVerifier, UndefinedAndShadowedNames) {
  EXPECT_TRUE(Has(only_error(kernel(block({assign("y", const_f32(1))}))), "undefined local 'y'"));
  EXPECT_TRUE(
      Has(only_error(kernel(block({let("z", var(ScalarType::f32, "y"))}))), "undefined local 'y'"));
  EXPECT_TRUE(Has(only_error(kernel(block({let("y", const_f32(1)), let("y", const_f32(2))}))),
                  "already defined"));
  EXPECT_TRUE(Has(only_error(kernel(block({let("i", const_i64(1))}))), "already defined"));
  // A Let's scope ends with its block.
  EXPECT_TRUE(
      Has(only_error(kernel(block({block({let("y", const_f32(1))}), assign("y", const_f32(2))}))),
          "undefined local 'y'"));
}

TEST(IrVerifier, TypeMismatches) {
  EXPECT_TRUE(Has(only_error(kernel(block({let("y", const_f32(1)), assign("y", const_f64(2))}))),
                  "assignment of f64 to f32"));
  EXPECT_TRUE(Has(only_error(kernel(
                      block({let("y", Binary::make(BinaryOp::Add, const_f32(1), const_f64(1)))}))),
                  "differ in type"));
  EXPECT_TRUE(Has(only_error(kernel(block(
                      {let("y", Binary::make(BinaryOp::TrueDiv, const_i32(1), const_i32(2)))}))),
                  "operator '/' on i32"));
  EXPECT_TRUE(Has(only_error(kernel(block({let("y", Var::make(ScalarType::i32, "i"))}))),
                  "is i64, read as i32"));
  EXPECT_TRUE(Has(only_error(kernel(block({ArrayStore::make(0, {kI}, const_f64(1))}))),
                  "store of 'a' (f32) as f64"));
  EXPECT_TRUE(Has(only_error(kernel(block({let("y", IntConst::make(ScalarType::u8, 256))}))),
                  "not wrapped"));
  EXPECT_TRUE(Has(only_error(kernel(block({let("y", FloatConst::make(ScalarType::f32, 0.1))}))),
                  "not exactly a float"));
  EXPECT_TRUE(
      Has(only_error(kernel(block({let("y", MathCall::make(MathFn::Sin, {const_i32(1)}))}))),
          "sin of i32"));
}

TEST(IrVerifier, ParamKindsAndIndexCounts) {
  EXPECT_TRUE(Has(only_error(kernel(block({let("y", Param::make(ScalarType::f32, 0))}))),
                  "used as a scalar"));
  EXPECT_TRUE(Has(only_error(kernel(block({let("y", ArrayLoad::make(ScalarType::i64, 1, {kI}))}))),
                  "through scalar 'n'"));
  EXPECT_TRUE(
      Has(only_error(kernel(block({let("y", ArrayLoad::make(ScalarType::f32, 0, {kI, kI}))}))),
          "with 2 indices, needs 1"));
  EXPECT_TRUE(Has(only_error(kernel(block({let("y", ArrayShape::make(0, 1))}))), "out of range"));
  EXPECT_TRUE(Has(only_error(kernel(block({let("y", ArrayLoad::make(ScalarType::f32, 7, {kI}))}))),
                  "does not exist"));
}

TEST(IrVerifier, KernelShape) {
  FunctionBuilder fb("k");
  fb.array_param("a", ScalarType::f32);
  Function no_loop = fb.build_raw(block({let("x", const_i32(1))}));
  EXPECT_TRUE(Has(only_error(no_loop), "must end with its one ParallelFor"));

  Function nested = kernel(block({ParallelFor::make({range_dim("j", const_i64(2))}, block({}))}));
  EXPECT_TRUE(Has(only_error(nested), "not the last statement"));

  Function effectful = kernel(block({}), {store(array_a(), {const_i64(0)}, const_f32(1))});
  EXPECT_TRUE(Has(only_error(effectful), "prelude"));

  Function atomic_prelude =
      kernel(block({}), {eval(atomic(AtomicOp::Add, array_a(), {const_i64(0)}, const_f32(1)))});
  EXPECT_TRUE(Has(only_error(atomic_prelude), "atomic in the prelude"));

  Function shared = kernel(block({assign("m", const_i64(2))}), {let("m", const_i64(3))});
  EXPECT_TRUE(Has(only_error(shared), "assigned inside the ParallelFor"));

  Function tail = FunctionBuilder("k").build_raw(block(
      {ParallelFor::make({range_dim("i", const_i64(2))}, block({})), let("x", const_i32(1))}));
  std::vector<std::string> errors = verify(tail);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_TRUE(Has(errors[0], "must end with its one ParallelFor"));
  EXPECT_TRUE(Has(errors[1], "statements after the ParallelFor"));
}

TEST(IrVerifier, LoopsAndLabels) {
  EXPECT_TRUE(Has(only_error(kernel(block({break_stmt()}))), "break outside a loop"));
  EXPECT_TRUE(verify(kernel(block({continue_stmt()}))).empty());  // ends the iteration
  EXPECT_TRUE(Has(only_error(kernel(block({exit_block("ret")}))), "outside that"));
  EXPECT_TRUE(
      Has(only_error(kernel(block({labeled("r", block({labeled("r", block({}))}))}))), "shadows"));
  EXPECT_TRUE(
      Has(only_error(kernel(block({local_array("t", ScalarType::f64, {100000})}))), "larger than"));
  EXPECT_TRUE(Has(only_error(kernel(block({let("y", var(ScalarType::f32, "t")),
                                           local_array("t", ScalarType::f32, {2})}))),
                  "undefined local 't'"));
}

TEST(IrVerifier, VerifyOrThrowNamesThePass) {
  Function f = kernel(block({break_stmt()}));
  try {
    verify_or_throw(f, "lowering");
    FAIL() << "no throw";
  } catch (const InternalError& e) {
    EXPECT_TRUE(Has(e.what(), "after lowering"));
    EXPECT_TRUE(Has(e.what(), "kernel k("));
  }
}

}  // namespace
}  // namespace tack::ir
