// privatize_atomics: atomic statements on the targets become verified read-modify-writes.
#include <gtest/gtest.h>

#include "analysis/privatizable.hpp"
#include "ir/builder.hpp"
#include "ir/printer.hpp"
#include "ir/verifier.hpp"
#include "transforms/privatize.hpp"

namespace tack::transforms {
namespace {

using namespace tack::ir;

TEST(PrivatizeAtomics, RewritesEachOpAndEvaluatesIndicesOnce) {
  FunctionBuilder fb("k");
  ArrayRef x = fb.array_param("x", ScalarType::i32);
  ArrayRef bins = fb.array_param("bins", ScalarType::i32);
  ArrayRef lo = fb.array_param("lo", ScalarType::i64);
  ArrayRef hi = fb.array_param("hi", ScalarType::u8);
  ArrayRef other = fb.array_param("other", ScalarType::i32);
  Expr i = var(ScalarType::i64, "i");
  Expr b = cast(ScalarType::i64, load(x, {i}));
  Function f = fb.build(
      {range_dim("i", shape(x, 0))},
      block({let("tack_private_0", const_i32(5)),  // a name the fresh ones must avoid
             eval(atomic(AtomicOp::Add, bins, {b}, var(ScalarType::i32, "tack_private_0"))),
             eval(atomic(AtomicOp::Min, lo, {b}, cast(ScalarType::i64, load(x, {i})))),
             eval(atomic(AtomicOp::Max, hi, {b}, int_const(ScalarType::u8, 7))),
             eval(atomic(AtomicOp::Add, other, {b}, const_i32(1)))}));
  auto targets = analysis::privatizable_atomic_targets(f);
  targets.pop_back();  // leave `other` atomic
  ASSERT_EQ(targets.size(), 3u);
  Function p = privatize_atomics(f, targets);
  EXPECT_TRUE(verify(p).empty()) << to_string(p);
  const std::string text = to_string(p);
  EXPECT_EQ(text.find("atomic_min"), std::string::npos) << text;
  EXPECT_EQ(text.find("atomic_max"), std::string::npos) << text;
  EXPECT_NE(text.find("atomic_add(other"), std::string::npos) << text;
  EXPECT_EQ(text.find("atomic_add(bins"), std::string::npos) << text;
  EXPECT_NE(text.find("tack_private_1"), std::string::npos) << text;
  EXPECT_NE(text.find("bins[tack_private_1] = (bins[tack_private_1] + tack_private_2)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("min(lo["), std::string::npos) << text;
  EXPECT_NE(text.find("max(hi["), std::string::npos) << text;
  // The original is unchanged.
  EXPECT_NE(to_string(f).find("atomic_min"), std::string::npos);
}

}  // namespace
}  // namespace tack::transforms
