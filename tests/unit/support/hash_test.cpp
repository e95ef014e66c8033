// support/hash.hpp is FNV-1a of 64 bits as its authors define it: the offset basis and prime of
// the specification, checked against its published values.
#include <gtest/gtest.h>

#include <cstdint>

#include "support/hash.hpp"

namespace tack::detail {
namespace {

TEST(Fnv1a, MatchesTheSpecificationsValues) {
  EXPECT_EQ(fnv1a(""), 0xcbf29ce484222325ull);  // the offset basis
  EXPECT_EQ(fnv1a("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a("foobar"), 0x85944171f73967e8ull);
  Fnv1a pieces;
  pieces.add("foo", 3);
  pieces.add("bar", 3);
  EXPECT_EQ(pieces.value(), fnv1a("foobar"));  // added in pieces, the same hash
  EXPECT_EQ(hex64(0xaf63dc4c8601ec8cull), "af63dc4c8601ec8c");
}

}  // namespace
}  // namespace tack::detail
