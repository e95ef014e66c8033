// The builtin table (src/lowering/builtins/): every entry complete, every spelling found once,
// the families and what needs workgroups as documented.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "lowering/builtins/builtin.hpp"

namespace tack::lowering {
namespace {

TEST(BuiltinTable, EveryEntryIsCompleteAndEverySpellingFindsIt) {
  std::set<std::string> families;
  int entries = 0;
  for (const Builtin& b : all_builtins()) {
    ASSERT_FALSE(b.names.empty());
    const std::string& n = b.names[0];
    EXPECT_NE(b.lower, nullptr) << n;
    EXPECT_FALSE(b.signature.empty()) << n;
    EXPECT_FALSE(b.doc.empty()) << n;
    EXPECT_FALSE(b.family.empty()) << n;
    EXPECT_TRUE(b.max_args < 0 || b.max_args >= b.min_args) << n;
    for (const std::string& s : b.names) EXPECT_EQ(find_builtin(s), &b) << s;
    for (const std::string& s : b.stubs) {
      EXPECT_EQ(find_builtin(s), &b) << "a stub is one of the entry's spellings: " << s;
      EXPECT_EQ(s.rfind("tack.", 0), 0u) << s;
    }
    families.insert(b.family);
    ++entries;
  }
  EXPECT_EQ(families, (std::set<std::string>{"python", "math", "casts", "atomics", "local arrays",
                                             "vectors", "workgroups", "random"}));
  EXPECT_GT(entries, 80);
  EXPECT_EQ(find_builtin("tack.no_such_thing"), nullptr);
  EXPECT_EQ(find_builtin("range"), nullptr) << "range is the loop's, not a call";
}

TEST(BuiltinTable, SpellingsOfOneBuiltinShareItsEntry) {
  EXPECT_EQ(find_builtin("sqrt"), find_builtin("math.sqrt"));
  EXPECT_EQ(find_builtin("tack.sqrt"), find_builtin("math.sqrt"));
  EXPECT_NE(find_builtin("math.floor"), find_builtin("tack.floor"))
      << "Python's floor gives an int, NumPy's keeps the float";
  EXPECT_EQ(find_builtin("tack.float32")->type, ir::ScalarType::f32);
  EXPECT_EQ(find_builtin("tack.atomic_min")->atomic, ir::AtomicOp::Min);
}

TEST(BuiltinTable, OnlyWorkgroupBuiltinsNeedWorkgroups) {
  std::set<std::string> need;
  for (const Builtin& b : all_builtins()) {
    if (b.needs == Needs::Workgroups) need.insert(b.names[0]);
  }
  EXPECT_EQ(need, (std::set<std::string>{"tack.barrier", "tack.thread_id", "tack.block_sum",
                                         "tack.block_min", "tack.block_max", "tack.shared",
                                         "tack.shared_like"}));
}

}  // namespace
}  // namespace tack::lowering
