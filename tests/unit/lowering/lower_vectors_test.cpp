// Vectors and matrices in the lowering (docs/design/vectors.md): a vector is its scalar
// components, so the IR is what the same code written on scalars would be. A whole-element store
// reads the value completely before the first component is stored, a number used by every
// component is evaluated once, and an index known only at run time selects a component.
#include <gtest/gtest.h>

#include "lower_test_util.hpp"

namespace tack::lowering::test {
namespace {

using ST = ScalarType;

const ArgType vec3s = arr(ST::f32, 1, 3);

TEST(LowerVectors, WholeElementStoreReadsTheValueFirst) {
  // p and q may be one array: every component of q[i] * s is read before p[i] is written.
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(p, q, s):
    for i in range(len(p)):
        p[i] = q[i] * s
)",
                      {vec3s, vec3s, num(ST::f32)}),
            "let _t: f32 = (q[i, 0:i64] * s)\n"
            "let _t_1: f32 = (q[i, 1:i64] * s)\n"
            "let _t_2: f32 = (q[i, 2:i64] * s)\n"
            "p[i, 0:i64] = _t\n"
            "p[i, 1:i64] = _t_1\n"
            "p[i, 2:i64] = _t_2\n");
}

TEST(LowerVectors, PermutingAnElementInPlace) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(p):
    for i in range(len(p)):
        p[i] = [p[i, 1], p[i, 0], p[i, 2]]
)",
                      {vec3s}),
            "let _t: f32 = p[i, 1:i32]\n"
            "let _t_1: f32 = p[i, 0:i32]\n"
            "let _t_2: f32 = p[i, 2:i32]\n"
            "p[i, 0:i64] = _t\n"
            "p[i, 1:i64] = _t_1\n"
            "p[i, 2:i64] = _t_2\n");
}

TEST(LowerVectors, BroadcastNumberAndNormalizationAreEvaluatedOnce) {
  // x[i] is read once for three components; normalized() divides once.
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(p, x, out):
    for i in range(len(p)):
        out[i] = p[i] * x[i] + p[i].normalized()
)",
                      {vec3s, f32s, vec3s}),
            "let _t: f32 = p[i, 0:i64]\n"
            "let _t_1: f32 = p[i, 1:i64]\n"
            "let _t_2: f32 = p[i, 2:i64]\n"
            "let _t_3: f32 = x[i]\n"
            "let _t_4: f32 = p[i, 0:i64]\n"
            "let _t_5: f32 = p[i, 1:i64]\n"
            "let _t_6: f32 = p[i, 2:i64]\n"
            "let _t_7: f32 = (1.0:f32 / sqrt((((_t_4 * _t_4) + (_t_5 * _t_5)) + (_t_6 * _t_6))))\n"
            "out[i, 0:i64] = ((_t * _t_3) + (_t_4 * _t_7))\n"
            "out[i, 1:i64] = ((_t_1 * _t_3) + (_t_5 * _t_7))\n"
            "out[i, 2:i64] = ((_t_2 * _t_3) + (_t_6 * _t_7))\n");
}

TEST(LowerVectors, RuntimeIndicesSelectAComponent) {
  EXPECT_EQ(loop_body(R"(
@tack.kernel
def k(p, k, out):
    for i in range(len(p)):
        v = p[i]
        v[k] = 1.0
        out[i, 0] = v[k + 1]
)",
                      {vec3s, num(ST::i32), vec3s}),
            "let v_0: f32 = p[i, 0:i64]\n"
            "let v_1: f32 = p[i, 1:i64]\n"
            "let v_2: f32 = p[i, 2:i64]\n"
            "if (k == 0:i32) {\n"
            "  v_0 = 1.0:f32\n"
            "}\n"
            "if (k == 1:i32) {\n"
            "  v_1 = 1.0:f32\n"
            "}\n"
            "if (k == 2:i32) {\n"
            "  v_2 = 1.0:f32\n"
            "}\n"
            "let _t: i32 = (k + 1:i32)\n"
            "out[i, 0:i32] = select((_t == 0:i32), v_0, select((_t == 1:i32), v_1, v_2))\n");
}

TEST(LowerVectors, VectorCodeIsTheHandWrittenScalarCode) {
  // The same dot product written with a vector and on components lowers to the same IR.
  const std::string vector_form = loop_body(R"(
@tack.kernel
def k(p, q, out):
    for i in range(len(p)):
        out[i] = p[i].dot(q[i])
)",
                                            {vec3s, vec3s, f32s});
  const std::string scalar_form = loop_body(R"(
@tack.kernel
def k(p, q, out):
    for i in range(len(p)):
        out[i] = p[i, 0] * q[i, 0] + p[i, 1] * q[i, 1] + p[i, 2] * q[i, 2]
)",
                                            {vec3s, vec3s, f32s});
  auto without_index_types = [](std::string s) {
    for (const char* t : {":i64", ":i32"}) {
      for (size_t at; (at = s.find(t)) != std::string::npos;) s.erase(at, 4);
    }
    return s;
  };
  EXPECT_EQ(without_index_types(vector_form), without_index_types(scalar_form));
}

}  // namespace
}  // namespace tack::lowering::test
