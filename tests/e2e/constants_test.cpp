// Host constants through the C++ front door (tack::kernel with NamedConstants; Python's
// @tack.kernel binds module globals and closure variables the same way): numbers weakly typed
// like literals, typed constants, tuples, per-function bindings, the refusals, and device
// functions reached through aliases. On every device.
#include <gtest/gtest.h>

#include <vector>

#include "common/on_device.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

using test::expect_error;

class ConstantsOnDevice : public test::OnDevice {};
TACK_INSTANTIATE_ON_DEVICES(ConstantsOnDevice);

const char* kScale = R"(
@tack.func
def helper(v):
    return v * SCALE

def scaled(x, out):
    for i in range(len(x)):
        a, b = PAIR
        out[i] = helper(x[i]) + a * b + (1 if FLAG else 0)
)";

std::vector<NamedConstant> scale_constants(double scale_for_helper) {
  return {
      {"helper", "SCALE", ConstantValue::number(Scalar::from(scale_for_helper))},
      {"scaled", "SCALE", ConstantValue::number(Scalar::from(std::int64_t{1000}))},  // unused
      {"scaled", "PAIR",
       ConstantValue::tuple({ConstantValue::number(Scalar::from(std::int64_t{2})),
                             ConstantValue::number(Scalar::from(0.25))})},
      {"scaled", "FLAG", ConstantValue::number(Scalar::from_bool(true))},
  };
}

TEST_P(ConstantsOnDevice, ConstantsAreReadPerFunction) {
  std::vector<float> x = {1.0f, 2.0f, -3.0f};
  for (double scale : {2.0, 10.0}) {
    Kernel k = kernel({{kScale, 1, "k.py"}}, "scaled", scale_constants(scale));
    Array out = zeros({3}, f32, dev_);
    k(arr(x), out);
    auto got = out.to_vector<float>();
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(got[i], x[i] * static_cast<float>(scale) + 0.5f + 1.0f) << scale;
    }
  }
}

TEST_P(ConstantsOnDevice, TypedConstantsKeepTheirDtype) {
  // An f64 constant makes the arithmetic f64 (a weak 0.1 would stay f32).
  Kernel k =
      kernel({{R"(
def k(x, out):
    for i in range(len(x)):
        out[i] = x[i] * TENTH
)",
               1, "k.py"}},
             "k", {{"k", "TENTH", ConstantValue::typed(Scalar::from(0.1), ScalarType::f64)}});
  Array out = zeros({1}, f64, dev_);
  std::vector<float> x = {3.0f};
  k(arr(x), out);
  EXPECT_EQ(out.to_vector<double>()[0], 3.0 * 0.1);
}

TEST_P(ConstantsOnDevice, ConstantRefusals) {
  const char* src = R"(
def k(x):
    for i in range(len(x)):
        x[i] = W
)";
  Array x = zeros({2}, f32, dev_);
  expect_error<CompileError>(
      [&] {
        kernel({{src, 1, "k.py"}}, "k",
               {{"k", "W", ConstantValue::unsupported("a numpy.ndarray")}})(x);
      },
      {"line 4", "'W' is a numpy.ndarray outside the kernel", "pass 'W' as an argument"});
  expect_error<CompileError>(
      [&] {
        kernel(
            {{src, 1, "k.py"}}, "k",
            {{"k", "W", ConstantValue::typed(Scalar::from(std::int64_t{300}), ScalarType::u8)}})(x);
      },
      {"the constant 'W' is 300 of dtype u8, which does not fit"});
  // Bound for another function only: an unknown name here.
  expect_error<CompileError>(
      [&] {
        kernel({{src, 1, "k.py"}}, "k",
               {{"other", "W", ConstantValue::number(Scalar::from(1.0))}})(x);
      },
      {"unknown name 'W'"});
}

TEST_P(ConstantsOnDevice, ALocalOfTheSameNameIsALocal) {
  // Python makes a name assigned anywhere in a function local to it: the constant is not read.
  Kernel k = kernel({{R"(
def k(x):
    for i in range(len(x)):
        N = 5.0
        x[i] = N
)",
                      1, "k.py"}},
                    "k", {{"k", "N", ConstantValue::number(Scalar::from(1.0))}});
  Array x = zeros({2}, f32, dev_);
  k(x);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{5.0f, 5.0f}));
}

TEST_P(ConstantsOnDevice, AliasesReachDeviceFunctionsByAnotherName) {
  // `helpers.triple(x)` and `t(x)` both call the undecorated `triple`, a device function by its
  // piece's flag (Python's tack.func(g)); the alias also holds in the frontend's checks (a
  // call before the parallel loop must be pure).
  Kernel k =
      kernel({{R"(
def k(x):
    n = t(2)
    for i in range(len(x)):
        x[i] = helpers.triple(x[i]) + n
)",
               1, "k.py"},
              {"def triple(v):\n    return v * 3\n", 10, "helpers.py", /*device_function=*/true}},
             "k", {}, {{"k", "helpers.triple", "triple"}, {"k", "t", "triple"}});
  std::vector<float> x = {1.0f, 2.0f};
  Array a = arr(x);
  k(a);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{9.0f, 12.0f}));
}

}  // namespace
}  // namespace tack
