// The cells each work item of tack.dataset's contour, slice and clip walks
// (src/dataset/marching.hpp): the rule, and what each device present gets. The results do not
// depend on it (tests/python/dataset/test_cell_chunks.py); the time does (docs/performance.md).
#include <gtest/gtest.h>

#include <cstdlib>

#include "dataset/marching.hpp"
#include "runtime/backend.hpp"
#include "tack/tack.hpp"

namespace tack::dataset::detail {
namespace {

TEST(CellChunk, OneWhereWorkItemsCoalesceSixtyFourWhereNot) {
  bool bad = true;
  EXPECT_EQ(device_cell_chunk(true, nullptr, &bad), 1);
  EXPECT_FALSE(bad);
  EXPECT_EQ(device_cell_chunk(false, nullptr, &bad), 64);
  EXPECT_EQ(device_cell_chunk(false, "", &bad), 64);  // empty is unset
  EXPECT_FALSE(bad);
}

TEST(CellChunk, TheSettingWinsWhereItIsANumberOfCells) {
  bool bad = true;
  EXPECT_EQ(device_cell_chunk(true, "7", &bad), 7);
  EXPECT_FALSE(bad);
  EXPECT_EQ(device_cell_chunk(false, "1", &bad), 1);
  EXPECT_EQ(device_cell_chunk(false, "1048576", &bad), kLongestDeviceChunk);
  EXPECT_FALSE(bad);
  for (const char* refused : {"0", "-3", "7x", "x", " ", "1048577", "99999999999999999999"}) {
    EXPECT_EQ(device_cell_chunk(false, refused, &bad), 64) << refused;
    EXPECT_TRUE(bad) << refused;
    EXPECT_EQ(device_cell_chunk(true, refused, &bad), 1) << refused;
  }
}

TEST(CellChunk, EachDeviceGetsItsOwn) {
  if (const char* set = std::getenv("TACK_DEVICE_CELL_CHUNK"); set != nullptr && *set != '\0')
    GTEST_SKIP() << "TACK_DEVICE_CELL_CHUNK is set";
  for (const Device& d : devices()) {
    const std::int64_t chunk = cell_chunk(d, 1'000'000);
    if (d.kind() == "cpu") {
      EXPECT_GE(chunk, 512);  // a few dozen runs per thread
    } else {
      EXPECT_EQ(chunk, d.backend()->capabilities().coalescing ? 1 : 64) << d.name();
    }
  }
}

}  // namespace
}  // namespace tack::dataset::detail
