// bounds_only: the kernel's prelude and loop bounds with an empty loop, for launches sized on
// the host.
#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/printer.hpp"
#include "ir/verifier.hpp"
#include "transforms/bounds_only.hpp"

namespace tack::transforms {
namespace {

using namespace tack::ir;

TEST(BoundsOnly, KeepsThePreludeAndBoundsAndEmptiesTheLoop) {
  FunctionBuilder fb("k");
  ArrayRef x = fb.array_param("x", ScalarType::f32);
  Expr step = fb.scalar_param("step", ScalarType::i64);
  fb.prelude(let("half", floordiv(shape(x, 0), const_i64(2))));
  Function f = fb.build({range_dim("i", const_i64(0), var(ScalarType::i64, "half"), step)},
                        block({store(x, {var(ScalarType::i64, "i")}, const_f32(1.0f))}));
  f.asserts.push_back(AssertSite{3, "i < 4", ""});
  f.workgroups = WorkgroupUse{4, 5, "tack.barrier()", "    tack.barrier()"};
  const std::string original = to_string(f);

  Function b = bounds_only(f);
  for (const auto& e : verify(b)) ADD_FAILURE() << e << "\n" << to_string(b);
  const std::string text = to_string(b);
  EXPECT_NE(text.find("half"), std::string::npos) << "the prelude stays: " << text;
  EXPECT_NE(text.find("step"), std::string::npos) << "the bounds stay: " << text;
  EXPECT_EQ(text.find("x["), std::string::npos) << "the body is gone: " << text;
  ASSERT_NE(b.parallel_for(), nullptr);
  EXPECT_EQ(b.parallel_for()->dims.size(), 1u);
  EXPECT_EQ(b.params.size(), f.params.size()) << "a call's packed arguments still fit";
  EXPECT_TRUE(b.asserts.empty());
  EXPECT_EQ(b.workgroups.line, 0);
  EXPECT_EQ(to_string(f), original) << "the kernel itself is unchanged";
}

}  // namespace
}  // namespace tack::transforms
