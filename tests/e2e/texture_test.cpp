// tack::Texture3D through the public C++ API, on every device present: the extent of a flat or
// 3-D array, trilinear and nearest samples at texels and between them, clamp-to-edge, the
// texture as a view (a write to its array is seen by the next sample), the refusals with their
// values, and the kernel-side refusal of any use but sample (docs/design/textures.md).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/on_device.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

using test::expect_error;

class TextureOnDevice : public test::OnDevice {};
TACK_INSTANTIATE_ON_DEVICES(TextureOnDevice);

const Kernel& sample_points() {
  static const Kernel k = kernel(R"(
def tx_points(tex, uvw, out):
    for i in range(out.shape[0]):
        out[i] = tex.sample(uvw[i, 0], uvw[i, 1], uvw[i, 2])
)");
  return k;
}

std::vector<float> sample(const Texture3D& t, const std::vector<float>& uvw, Device dev) {
  const auto n = static_cast<std::int64_t>(uvw.size() / 3);
  Array points = array(uvw, {n, 3}, dev);
  Array out = zeros({n}, DType(ScalarType::f32), dev);
  sample_points()(t, points, out);
  return out.to_vector<float>();
}

TEST_P(TextureOnDevice, FlatArrayIsXFastestUnderItsExtent) {
  std::vector<float> v(5 * 3 * 2);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);  // x + 5y + 15z
  Texture3D t(arr(v), std::array<std::int64_t, 3>{5, 3, 2});
  EXPECT_EQ(t.extent(), (std::array<std::int64_t, 3>{5, 3, 2}));
  EXPECT_EQ(t.array().shape(), (Shape{2, 3, 5}));
  // Texels (4, 1, 1) and (2, 2, 0); half-way between x = 1 and 2; the centre of the box.
  EXPECT_EQ(sample(t, {1.0f, 0.5f, 1.0f, 0.5f, 1.0f, 0.0f, 1.5f / 4, 0, 0, 0.5f, 0.5f, 0.5f}, dev_),
            (std::vector<float>{24, 12, 1.5f, 2 + 5 + 7.5f}));
}

TEST_P(TextureOnDevice, CoordinatesOutsideTheUnitCubeClampToTheEdge) {
  std::vector<float> v(8);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  Texture3D t(arr(v, {2, 2, 2}));
  const float inf = INFINITY;
  EXPECT_EQ(sample(t, {-3, -1, -0.5f, 2, 9, 1, inf, -inf, 0}, dev_), (std::vector<float>{0, 7, 1}));
  std::vector<float> nan = sample(t, {NAN, 0, 0}, dev_);
  EXPECT_TRUE(std::isnan(nan[0]));
}

TEST_P(TextureOnDevice, NearestReadsTheClosestTexel) {
  std::vector<float> v(3 * 3 * 3);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  Texture3D t(arr(v, {3, 3, 3}), std::nullopt, TextureFilter::Nearest);
  // x = 0.2 * 2 = 0.4 -> 0; 0.25 * 2 = 0.5 -> 1 (half-way rounds up); 0.9 * 2 = 1.8 -> 2.
  EXPECT_EQ(sample(t, {0.2f, 0.25f, 0.9f}, dev_), (std::vector<float>{0 + 3 * 1 + 9 * 2}));
}

TEST_P(TextureOnDevice, SamplesSeeTheArrayAsItIsNow) {
  Array a = zeros({2, 2, 2}, DType(ScalarType::f32), dev_);
  Texture3D t(a);
  EXPECT_EQ(sample(t, {1, 1, 1}, dev_), (std::vector<float>{0}));
  a.slice(1, 2).fill(6.0);  // z = 1, through a view
  EXPECT_EQ(sample(t, {1, 1, 1}, dev_), (std::vector<float>{6}));
  t.update();
  EXPECT_EQ(sample(t, {1, 1, 0.5f}, dev_), (std::vector<float>{3}));
}

TEST_P(TextureOnDevice, BadArgumentsStateTheValues) {
  expect_error<TypeError>(
      [&] {
        Texture3D(zeros({8}, DType(ScalarType::i32), dev_), {{2, 2, 2}});
      },
      {"f32 or f64 texels", "int32", "astype"});
  expect_error<TypeError>(
      [&] {
        Texture3D(zeros({8}, DType(ScalarType::f32, 3), dev_), {{2, 2, 2}});
      },
      {"scalar texels", "vec(3, f32)"});
  expect_error<ValueError>(
      [&] {
        Texture3D(zeros({24}, DType(ScalarType::f32), dev_), {{2, 3, 5}});
      },
      {"shape (2, 3, 5) has 30 texels", "24 elements", "product is 24"});
  expect_error<ValueError>([&] { Texture3D(zeros({24}, DType(ScalarType::f32), dev_)); },
                           {"needs shape=(W, H, D)", "1-D array"});
  expect_error<ValueError>(
      [&] {
        Texture3D(zeros({24}, DType(ScalarType::f32), dev_), {{24, -1, -1}});
      },
      {"three positive sizes", "(24, -1, -1)"});
}

TEST_P(TextureOnDevice, KernelsOnlySampleATexture) {
  Kernel k = kernel(R"(
def tx_index(t, out):
    for i in range(out.shape[0]):
        out[i] = t[0, 0, i]
)");
  Texture3D t(zeros({2, 2, 2}, DType(ScalarType::f32), dev_));
  Array out = zeros({2}, DType(ScalarType::f32), dev_);
  expect_error<CompileError>([&] { k(t, out); },
                             {"line 4", "'t' is a 3-D texture: sample it with t.sample(u, v, w)"});
  // The array itself compiles its own variant.
  k(t.array(), out);
  EXPECT_EQ(k.variant_count(), 1u);
}

}  // namespace
}  // namespace tack
