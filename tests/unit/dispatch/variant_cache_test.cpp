// Dispatch without a device in sight: the variant key (what recompiles and what does not), the
// variant cache, and the order of the checks every call runs. Runs on the CPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "dispatch/kernel_impl.hpp"
#include "tack/tack.hpp"

namespace tack::detail {
namespace {

const char* kScale = R"(
def scale(x, s, out):
    for i in range(len(x)):
        out[i] = x[i] * s
)";

const char* kCount = R"(
def count(values, bins):
    for i in range(len(values)):
        tack.atomic_add(bins, 0, 1)
)";

class VariantCache : public ::testing::Test {
 protected:
  void SetUp() override { set_debug(false); }
  void TearDown() override { set_debug(false); }
};

TEST_F(VariantCache, ScalarValuesShareAVariantAndTypesDoNot) {
  KernelImpl k(kScale, "", 1);
  Array x = ones({8}), out = zeros({8});
  Variant& a = k.variant_for(std::vector<KernelArg>{x, 2.0, out}.data(), 3);
  Variant& b = k.variant_for(std::vector<KernelArg>{x, -7.5, out}.data(), 3);
  EXPECT_EQ(&a, &b) << "a scalar's value is not part of the key";
  Array y = ones({100}), out2 = zeros({100});
  EXPECT_EQ(&k.variant_for(std::vector<KernelArg>{y, 2.0, out2}.data(), 3), &a)
      << "nor the launch length";
  Variant& ints = k.variant_for(std::vector<KernelArg>{x, 3, out}.data(), 3);
  EXPECT_NE(&ints, &a) << "an int scalar is typed i32";
  Variant& wide = k.variant_for(
      std::vector<KernelArg>{x, std::numeric_limits<std::int64_t>::max(), out}.data(), 3);
  EXPECT_NE(&wide, &ints) << "an int that needs 64 bits is typed i64";
  Array xd = ones({8}, f64), outd = zeros({8}, f64);
  Variant& f64s = k.variant_for(std::vector<KernelArg>{xd, 2.0, outd}.data(), 3);
  EXPECT_NE(&f64s, &a);
  EXPECT_EQ(f64s.key.args[1].type, ir::ScalarType::f64) << "a float is f64 beside f64 arrays";
  EXPECT_EQ(a.key.args[1].type, ir::ScalarType::f32);
}

TEST_F(VariantCache, DebugModeIsPartOfTheKey) {
  KernelImpl k(kScale, "", 1);
  Array x = ones({8}), out = zeros({8});
  const std::vector<KernelArg> args{x, 2.0, out};
  Variant& plain = k.variant_for(args.data(), 3);
  set_debug(true);
  Variant& checked = k.variant_for(args.data(), 3);
  set_debug(false);
  EXPECT_NE(&plain, &checked);
  EXPECT_TRUE(checked.key.debug);
  EXPECT_EQ(&k.variant_for(args.data(), 3), &plain);
}

TEST_F(VariantCache, EqualKeysHashEqually) {
  KernelImpl k(kScale, "", 1);
  Array x = ones({8}), out = zeros({8});
  Variant& v = k.variant_for(std::vector<KernelArg>{x, 2.0, out}.data(), 3);
  VariantKey copy = v.key;
  EXPECT_EQ(copy.hash(), v.key.hash());
  copy.debug = !copy.debug;
  EXPECT_NE(copy.hash(), v.key.hash());
}

TEST_F(VariantCache, TheVariantHoldsTheCompilersAnalyses) {
  KernelImpl k(kCount, "", 1);
  Array values = ones({64}), bins = zeros({4}, i32);
  Variant& v = k.variant_for(std::vector<KernelArg>{values, bins}.data(), 2);
  // Lowered now if it came from its kernel record (a disk cache an earlier run wrote).
  const compiler::KernelIr& ir = k.lowered(v);
  EXPECT_EQ(ir.written, (std::vector<bool>{false, true}));
  ASSERT_EQ(ir.atomics.size(), 1u);
  EXPECT_EQ(ir.atomics[0].param, 1);
  EXPECT_TRUE(ir.privatized.has_value()) << "the CPU target asks for privatized atomics";
  // The checks read the variant's own copies (a variant from its kernel record has no IR).
  EXPECT_EQ(v.facts.written, &v.written);
  EXPECT_EQ(v.written, ir.written);
  EXPECT_EQ(v.facts.atomics, &v.atomics);
  EXPECT_EQ(v.atomics, ir.atomics);
  EXPECT_EQ(v.code->code_count(), 0u) << "nothing is compiled before the first launch";
}

TEST_F(VariantCache, ChecksRunInOrderBeforeTheLaunch) {
  KernelImpl k(kCount, "", 1);
  // Arity first (TypeError), before any array is looked at.
  Array values = ones({64});
  EXPECT_THROW(k.call(std::vector<KernelArg>{values}.data(), 1), TypeError);
  // A read-only, misaligned atomic target: the read-only rule is reported first.
  std::vector<std::int32_t> host(8, 0);
  const auto misaligned = reinterpret_cast<std::uintptr_t>(host.data()) + 1;
  Array ro = array_from_ptr(misaligned, i32, {4}, false);
  try {
    k.call(std::vector<KernelArg>{values, ro}.data(), 2);
    ADD_FAILURE() << "launched";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("read-only"), std::string::npos) << e.what();
  }
  Array rw = array_from_ptr(misaligned, i32, {4}, true);
  try {
    k.call(std::vector<KernelArg>{values, rw}.data(), 2);
    ADD_FAILURE() << "launched";
  } catch (const ValueError& e) {
    // The seed's wording, then Tack's detail.
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("Kernel 'count': atomic target parameter 1 requires 4-byte alignment;", 0),
              0u)
        << what;
    EXPECT_NE(what.find("'bins'"), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(misaligned)), std::string::npos) << what;
  }
  EXPECT_EQ(host, std::vector<std::int32_t>(8, 0)) << "a refused call wrote memory";
  EXPECT_EQ(k.variant_count(), 0u) << "a refused call compiled code";
}

}  // namespace
}  // namespace tack::detail
