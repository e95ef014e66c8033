// tack.random through the C++ front door: Philox-4x32-10 against Random123's known-answer
// vectors on every device, and a uniform stream that depends on (key, counter) only.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/on_device.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

class RandomOnDevice : public test::OnDevice {};
TACK_INSTANTIATE_ON_DEVICES(RandomOnDevice);

TEST_P(RandomOnDevice, PhiloxKnownAnswers) {
  Kernel k = kernel(R"(
def k(inp, out):
    for i in range(inp.shape[0]):
        s = (inp[i, 0], inp[i, 1], inp[i, 2], inp[i, 3], inp[i, 4], inp[i, 5])
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = tack.random.philox(s)
)");
  // key (2 words), counter (4 words) -> output (4 words)
  const std::vector<std::uint32_t> states = {
      0,          0,          0,          0,          0,          0,  //
      0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF,
      0xA4093822, 0x299F31D0, 0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344};
  const std::vector<std::uint32_t> want = {0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8,
                                           0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD,
                                           0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1};
  Array out = zeros({3, 4}, u32, dev_);
  k(arr(states, {3, 6}), out);
  EXPECT_EQ(out.to_vector<std::uint32_t>(), want);
}

TEST_P(RandomOnDevice, UniformStreamsDependOnKeyAndCounterOnly) {
  Kernel k = kernel(R"(
def k(key, u):
    for i in range(u.shape[0]):
        s = tack.random.seed(key, i)
        s, u[i] = tack.random.uniform(s)
)");
  Array big = zeros({100000}, f32, dev_), small = zeros({10}, f32, dev_);
  k(42, big);
  k(42, small);
  auto b = big.to_vector<float>(), s = small.to_vector<float>();
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_EQ(s[i], b[i]) << i;
  for (float x : b) ASSERT_TRUE(x >= 0.0f && x < 1.0f);
}

}  // namespace
}  // namespace tack
