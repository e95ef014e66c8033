// stream_stores: the flagged parameters' stores, and only theirs, become streaming stores; the
// rest of the kernel is the same nodes.
#include <gtest/gtest.h>

#include "ir/builder.hpp"
#include "ir/printer.hpp"
#include "transforms/stream_stores.hpp"

namespace tack::transforms {
namespace {

using namespace tack::ir;

TEST(StreamStores, OnlyTheFlaggedParametersStoresStream) {
  FunctionBuilder fb("k");
  ArrayRef x = fb.array_param("x", ScalarType::f32);
  ArrayRef y = fb.array_param("y", ScalarType::f32);
  ArrayRef z = fb.array_param("z", ScalarType::f32);
  Expr i = var(ScalarType::i64, "i");
  const Function f = fb.build({range_dim("i", shape(x, 0))},
                              block({store(y, {i}, load(x, {i})), store(z, {i}, load(x, {i}))}));
  const Function s = stream_stores(f, {false, true, false});
  const std::string text = to_string(s);
  EXPECT_NE(text.find("y[i] = stream x[i]"), std::string::npos) << text;
  EXPECT_NE(text.find("z[i] = x[i]"), std::string::npos) << text;
  EXPECT_EQ(to_string(stream_stores(f, {false, false, false})), to_string(f));
  EXPECT_EQ(to_string(f).find("stream"), std::string::npos) << "the input is unchanged";
}

}  // namespace
}  // namespace tack::transforms
