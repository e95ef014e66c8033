// Debug mode through the public API (tack::set_debug, TACK_DEBUG=1): every index is checked
// against its array's own shape (a view's, not its root's); an out-of-bounds access is skipped
// and the call raises IndexError naming the kernel, the array, the index and the shape. The rules
// are written once and run on every device present (Devices/DebugModeOnDevice.<test>/<device>);
// TACK_DEBUG=1 is tested in a fresh process, whose child runs a kernel on every device.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "common/on_device.hpp"
#include "tack/tack.hpp"

extern char** environ;

namespace tack {
namespace {

template <class T>
Array arr_on(const std::vector<T>& v, const Device& d) {
  return array(v, {static_cast<std::int64_t>(v.size())}, d);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool has_word(const std::string& text, const std::string& word) {
  return std::regex_search(text, std::regex("\\b" + word + "\\b"));
}

class DebugModeOnDevice : public test::OnDevice {
 protected:
  void SetUp() override {
    OnDevice::SetUp();  // debug off, disjoint specialization on
    set_debug(true);
  }
};

TACK_INSTANTIATE_ON_DEVICES(DebugModeOnDevice);

// The IndexError message of a call that must raise one.
template <class F>
std::string index_error(F&& call) {
  try {
    call();
  } catch (const IndexError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected IndexError";
  return "";
}

const char* kShiftLoad = R"(
def dm_shift_load(a, out):
    for i in range(len(out)):
        out[i] = a[i + 1]
)";

TEST_P(DebugModeOnDevice, OutOfBoundsLoadIsSkippedAndRaises) {
  const Kernel k = kernel(kShiftLoad);
  Array a = arr(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  Array out = arr(std::vector<float>(8, -1.0f));
  const std::string msg = index_error([&] { k(a, out); });
  EXPECT_TRUE(contains(msg, "dm_shift_load")) << msg;
  EXPECT_TRUE(contains(msg, "'a'")) << msg;
  EXPECT_TRUE(has_word(msg, "8")) << msg;                             // the index
  EXPECT_TRUE(contains(msg, "(8,)") || contains(msg, "[8]")) << msg;  // the shape
  // The other iterations ran; the skipped load gave 0.
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{2, 3, 4, 5, 6, 7, 8, 0}));
}

class KernelDebugOnDevice : public test::OnDevice {};  // the process-wide mode stays off
TACK_INSTANTIATE_ON_DEVICES(KernelDebugOnDevice);

TEST_P(KernelDebugOnDevice, DebugModeForOneKernel) {
  // Kernel::set_debug: this kernel's launches are checked, the process-wide mode stays off.
  const Kernel checked = kernel(kShiftLoad);
  checked.set_debug(true);
  EXPECT_TRUE(checked.debug());
  EXPECT_FALSE(debug());
  Array a = arr(std::vector<float>{1, 2, 3, 4});
  Array out = arr(std::vector<float>(4, -1.0f));
  const std::string msg = index_error([&] { checked(a, out); });
  EXPECT_TRUE(contains(msg, "dm_shift_load")) << msg;
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{2, 3, 4, 0}));
  // Another kernel of the same source is not checked: its variant has no bounds checks.
  const Kernel plain = kernel(kShiftLoad);
  EXPECT_FALSE(plain.debug());
  Array shorter = arr(std::vector<float>(3, 0.0f));
  EXPECT_NE(inspect(checked, {a, shorter}, "source"), inspect(plain, {a, shorter}, "source"));
  checked.set_debug(false);
  EXPECT_EQ(inspect(checked, {a, shorter}, "source"), inspect(plain, {a, shorter}, "source"));
}

TEST_P(DebugModeOnDevice, OutOfBoundsStoreIsSkippedAndRaises) {
  const Kernel k = kernel(R"(
def dm_store(a, n):
    for i in range(n):
        a[i * 3] = 5
)");
  Array a = zeros({10}, i32, dev_);
  const std::string msg = index_error([&] { k(a, 6); });  // indices 0, 3, 6, 9, 12, 15
  EXPECT_TRUE(contains(msg, "dm_store")) << msg;
  EXPECT_TRUE(contains(msg, "'a'")) << msg;
  EXPECT_TRUE(has_word(msg, "12") || has_word(msg, "15")) << msg;
  EXPECT_TRUE(contains(msg, "(10,)")) << msg;
  EXPECT_EQ(a.to_vector<std::int32_t>(), (std::vector<std::int32_t>{5, 0, 0, 5, 0, 0, 5, 0, 0, 5}));
}

TEST_P(DebugModeOnDevice, StorePastAViewsRowsInsideItsRootIsReported) {
  const Kernel k = kernel(R"(
def dm_shift_store(a, n):
    for i in range(n):
        a[i + 2] = 5.0
)");
  Array root = zeros({10}, f32, dev_);
  Array view = root.slice(2, 6);  // 4 rows; root rows 6.. lie beyond the view
  const std::string msg = index_error([&] { k(view, 4); });  // view[2..5]: 4 and 5 outside
  EXPECT_TRUE(contains(msg, "dm_shift_store")) << msg;
  EXPECT_TRUE(contains(msg, "'a'")) << msg;
  EXPECT_TRUE(contains(msg, "(4,)")) << msg;
  EXPECT_TRUE(has_word(msg, "4") || has_word(msg, "5")) << msg;
  // The in-bounds stores happened; the skipped ones did not reach the root.
  EXPECT_EQ(root.to_vector<float>(), (std::vector<float>{0, 0, 0, 0, 5, 5, 0, 0, 0, 0}));
}

TEST_P(DebugModeOnDevice, LoadPastAViewsRowsInsideItsRootIsReported) {
  const Kernel k = kernel(kShiftLoad);
  Array root = arr(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  Array view = root.slice(0, 4);  // root[4] exists, view[4] does not
  Array out = arr(std::vector<float>(4, -1.0f));
  const std::string msg = index_error([&] { k(view, out); });
  EXPECT_TRUE(contains(msg, "'a'") && contains(msg, "(4,)") && has_word(msg, "4")) << msg;
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{2, 3, 4, 0}));
}

TEST_P(DebugModeOnDevice, ViewRowsOfA2DRoot) {
  const Kernel k = kernel(R"(
def dm_rows(m, r):
    for i, j in tack.ndrange(r, m.shape[1]):
        m[i, j] = 1
)");
  Array root = zeros({6, 5}, i32, dev_);
  Array view = root.slice(1, 4);  // shape (3, 5)
  const std::string msg = index_error([&] { k(view, 4); });
  EXPECT_TRUE(contains(msg, "dm_rows") && contains(msg, "'m'") && contains(msg, "(3, 5)")) << msg;
  EXPECT_TRUE(has_word(msg, "3")) << msg;
  EXPECT_TRUE(contains(msg, "axis 0")) << msg;
  std::vector<std::int32_t> expected(30, 0);
  for (int e = 5; e < 20; ++e) expected[e] = 1;
  EXPECT_EQ(root.to_vector<std::int32_t>(), expected);
}

TEST_P(DebugModeOnDevice, EachAxisIsCheckedNotTheFlatExtent) {
  // m[0, 5] of a (4, 4) array lies inside the 16 elements but outside axis 1.
  const Kernel k = kernel(R"(
def dm_col(m, j, out):
    for i in range(m.shape[0]):
        out[i] = m[i, j]
)");
  std::vector<std::int32_t> values(16);
  for (int e = 0; e < 16; ++e) values[e] = e;
  Array m = arr(values, {4, 4});
  Array out = arr(std::vector<std::int32_t>(4, -1));
  const std::string msg = index_error([&] { k(m, 5, out); });
  EXPECT_TRUE(contains(msg, "dm_col") && contains(msg, "'m'") && has_word(msg, "5")) << msg;
  EXPECT_TRUE(contains(msg, "(4, 4)") && contains(msg, "axis 1")) << msg;
  EXPECT_EQ(out.to_vector<std::int32_t>(), std::vector<std::int32_t>(4, 0));
}

TEST_P(DebugModeOnDevice, NegativeIndexIsOutOfBounds) {
  const Kernel k = kernel(R"(
def dm_negative(a, out):
    for i in range(len(out)):
        out[i] = a[i - 1]
)");
  Array a = arr(std::vector<std::int64_t>{1, 2, 3, 4});
  Array out = arr(std::vector<std::int64_t>(4, 9));
  const std::string msg = index_error([&] { k(a, out); });
  EXPECT_TRUE(contains(msg, "dm_negative") && contains(msg, "index -1 ")) << msg;
  EXPECT_EQ(out.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3}));
}

TEST_P(DebugModeOnDevice, OutOfBoundsAtomicIsSkipped) {
  const Kernel k = kernel(R"(
def dm_atomic(bins, h):
    for i in range(len(bins)):
        tack.atomic_add(h, bins[i], 1)
)");
  Array h = zeros({4}, i32, dev_);
  Array bins = arr(std::vector<std::int32_t>{0, 1, 4, 3, 1, 100});
  const std::string msg = index_error([&] { k(bins, h); });
  EXPECT_TRUE(contains(msg, "'h'")) << msg;
  EXPECT_EQ(h.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 2, 0, 1}));
}

TEST_P(DebugModeOnDevice, LocalArrayOutOfBounds) {
  const Kernel k = kernel(R"(
def dm_local(x, out):
    for i in range(len(x)):
        buf = tack.zeros(4, tack.i32)
        j = x[i]
        buf[j] = 7
        out[i] = buf[0] + buf[1] + buf[2] + buf[3]
)");
  Array x = arr(std::vector<std::int32_t>{0, 3, 6, 2});
  Array out = arr(std::vector<std::int32_t>(4, -1));
  const std::string msg = index_error([&] { k(x, out); });
  EXPECT_TRUE(contains(msg, "dm_local")) << msg;
  EXPECT_TRUE(contains(msg, "local array")) << msg;
  EXPECT_TRUE(has_word(msg, "6")) << msg;
  EXPECT_TRUE(has_word(msg, "4")) << msg;  // its extent
  // The skipped store left iteration 2's buffer zero; the others stored 7.
  EXPECT_EQ(out.to_vector<std::int32_t>(), (std::vector<std::int32_t>{7, 7, 0, 7}));
}

TEST_P(DebugModeOnDevice, LocalArrayInBoundsIsFine) {
  const Kernel k = kernel(R"(
def dm_local_ok(x, out):
    for i in range(len(x)):
        buf = tack.zeros((2, 3), tack.f32)
        for r in range(2):
            for c in range(3):
                buf[r, c] = x[i] * (r + 1) + c
        out[i] = buf[1, 2] - buf[0, 0]
)");
  Array x = arr(std::vector<float>{1, 2, 3});
  Array out = zeros({3}, f32, dev_);
  k(x, out);
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{3, 4, 5}));
}

TEST_P(DebugModeOnDevice, SixteenElementKernelWorks) {
  const Kernel k = kernel(R"(
def dm_ok(x, out):
    for i in range(len(x)):
        out[i] = x[i] * 2 + x[len(x) - 1 - i]
)");
  std::vector<float> x0(16);
  for (int i = 0; i < 16; ++i) x0[i] = static_cast<float>(i);
  Array x = arr(x0), out = zeros({16}, f32, dev_);
  k(x, out);
  std::vector<float> expected(16);
  for (int i = 0; i < 16; ++i) expected[i] = x0[i] * 2 + x0[15 - i];
  EXPECT_EQ(out.to_vector<float>(), expected);
}

TEST_P(DebugModeOnDevice, LargeInBoundsKernel) {
  const Kernel k = kernel(R"(
def dm_big(x, out):
    for i in range(len(x)):
        out[i] = x[i] * 2 + x[len(x) - 1 - i]
)");
  const int n = 1000000;
  std::vector<float> x0(n);
  for (int i = 0; i < n; ++i) x0[i] = static_cast<float>(i % 1000);
  Array x = arr(x0), out = zeros({n}, f32, dev_);
  k(x, out);
  const auto got = out.to_vector<float>();
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], x0[i] * 2 + x0[n - 1 - i]) << i;
}

// Many iterations out of bounds in a launch that fans out over the workers (CPU threads, OpenCL
// work items): one consistent report (index, axis, extent of one access), the in-bounds
// iterations all done.
TEST_P(DebugModeOnDevice, OutOfBoundsInALaunchThatFansOut) {
  const Kernel k = kernel(R"(
def dm_double(a, out):
    for i in range(len(out)):
        out[i] = a[i * 2] + 1.0
)");
  const std::int64_t n = 2000000;
  Array a = zeros({n}, f32, dev_),
        out = arr(std::vector<float>(static_cast<std::size_t>(n), -1.0f));
  const std::string msg = index_error([&] { k(a, out); });
  const std::regex report(
      "index (\\d+) is out of bounds for axis 0 of array 'a' with shape \\(2000000,\\) "
      "\\(extent 2000000\\)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(msg, m, report)) << msg;
  const std::int64_t index = std::stoll(m[1].str());
  EXPECT_TRUE(index >= n && index < 2 * n && index % 2 == 0) << msg;
  const auto got = out.to_vector<float>();
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 1.0f) << i;  // skipped loads give 0
}

TEST_P(DebugModeOnDevice, NoErrorAfterAFailedDebugCall) {
  const Kernel k = kernel(kShiftLoad);
  Array a = arr(std::vector<float>{0, 1, 2, 3});
  Array out4 = zeros({4}, f32, dev_);
  EXPECT_THROW(k(a, out4), IndexError);
  Array out3 = zeros({3}, f32, dev_);
  k(a, out3);  // the next, in-bounds call does not report the old violation
  EXPECT_EQ(out3.to_vector<float>(), (std::vector<float>{1, 2, 3}));
}

TEST_P(DebugModeOnDevice, DebugModeIsPartOfTheVariantKey) {
  set_debug(false);
  const Kernel k = kernel(R"(
def dm_keyed(x, out):
    for i in range(len(out)):
        out[i] = x[i + 1]
)");
  Array x = arr(std::vector<float>{0, 1, 2, 3, 4});
  Array out = zeros({4}, f32, dev_);
  k(x, out);
  EXPECT_EQ(k.variant_count(), 1u);
  set_debug(true);
  EXPECT_TRUE(debug());
  Array bigger = zeros({5}, f32, dev_);
  EXPECT_THROW(k(x, bigger), IndexError);
  EXPECT_EQ(k.variant_count(), 2u);
  set_debug(false);
  EXPECT_FALSE(debug());
  k(x, out);  // the plain variant again: no recompile
  EXPECT_EQ(k.variant_count(), 2u);
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
}

TEST_P(DebugModeOnDevice, SetDebugFalseAfterwardsCompilesAnotherVariant) {
  const Kernel k = kernel(R"(
def dm_after(x, out):
    for i in range(len(x)):
        out[i] = x[i] + 1.0
)");
  Array x = arr(std::vector<float>{1, 2}), out = zeros({2}, f32, dev_);
  k(x, out);  // debug on (the fixture)
  EXPECT_EQ(k.variant_count(), 1u);
  set_debug(false);
  k(x, out);
  EXPECT_EQ(k.variant_count(), 2u);
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{2, 3}));
  const std::string plain = inspect(k, {x, out}, "source");
  set_debug(true);
  EXPECT_NE(inspect(k, {x, out}, "source"), plain);  // the checked variant's code
}

// ---- TACK_DEBUG=1: read at the first use of the switch, so tested in a fresh process ---------

// Runs this test binary again with `filter` and the extra environment; returns its output and
// exit status.
std::pair<int, std::string> rerun_self(const std::string& filter,
                                       const std::vector<std::string>& extra_env) {
  char exe[4096];
  const ssize_t len = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) return {-1, "cannot read /proc/self/exe"};
  exe[len] = '\0';
  char tmpl[] = "/tmp/tack_e2e_debugXXXXXX";
  const int fd = ::mkstemp(tmpl);
  if (fd < 0) return {-1, "mkstemp failed"};
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    bool replaced = false;
    for (const auto& x : extra_env) {
      if (entry.compare(0, x.find('=') + 1, x, 0, x.find('=') + 1) == 0) replaced = true;
    }
    if (!replaced) env.push_back(entry);
  }
  for (const auto& x : extra_env) env.push_back(x);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string filter_arg = "--gtest_filter=" + filter;
  std::vector<char*> argv{exe, filter_arg.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, 1);
  posix_spawn_file_actions_adddup2(&actions, fd, 2);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, exe, &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  int status = -1;
  if (rc == 0) ::waitpid(pid, &status, 0);
  std::string output;
  if (FILE* f = std::fopen(tmpl, "r")) {
    std::array<char, 4096> buf{};
    std::size_t n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) output.append(buf.data(), n);
    std::fclose(f);
  }
  ::close(fd);
  ::unlink(tmpl);
  if (rc != 0) return {-1, "posix_spawn failed"};
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// The switch is one per process, so these stay plain tests; the child checks every device.
// Runs only in the child started by TackDebugEnvironmentVariableTurnsDebugModeOn.
TEST(DebugModeEnvironment, ChildSeesDebugFromTheEnvironment) {
  const char* child = std::getenv("TACK_E2E_DEBUG_CHILD");
  if (child == nullptr) GTEST_SKIP() << "runs only in the child process of the test below";
  ASSERT_EQ(std::string(child), "1");
  EXPECT_TRUE(debug());  // TACK_DEBUG=1, no set_debug call
  const Kernel k = kernel(kShiftLoad);
  for (const Device& d : devices()) {
    SCOPED_TRACE(d.name());
    Array a = arr_on(std::vector<float>{1, 2, 3}, d), out = zeros({3}, f32, d);
    EXPECT_THROW(k(a, out), IndexError);
    EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{2, 3, 0}));
  }
  std::printf("TACK_E2E_CHILD_RAN\n");
}

TEST(DebugModeEnvironment, ChildSeesNoDebugWithTackDebugZero) {
  const char* child = std::getenv("TACK_E2E_DEBUG_CHILD");
  if (child == nullptr) GTEST_SKIP() << "runs only in the child process of the test below";
  ASSERT_EQ(std::string(child), "0");
  EXPECT_FALSE(debug());
  std::printf("TACK_E2E_CHILD_RAN\n");
}

TEST(DebugModeEnvironment, TackDebugEnvironmentVariableTurnsDebugModeOn) {
  if (std::getenv("TACK_E2E_DEBUG_CHILD") != nullptr) GTEST_SKIP() << "in the child";
  {
    auto [status, output] = rerun_self("DebugModeEnvironment.ChildSeesDebugFromTheEnvironment",
                                       {"TACK_DEBUG=1", "TACK_E2E_DEBUG_CHILD=1"});
    EXPECT_EQ(status, 0) << output;
    EXPECT_TRUE(contains(output, "TACK_E2E_CHILD_RAN")) << output;
    EXPECT_TRUE(contains(output, "[  PASSED  ] 1 test")) << output;
  }
  {
    auto [status, output] = rerun_self("DebugModeEnvironment.ChildSeesNoDebugWithTackDebugZero",
                                       {"TACK_DEBUG=0", "TACK_E2E_DEBUG_CHILD=0"});
    EXPECT_EQ(status, 0) << output;
    EXPECT_TRUE(contains(output, "TACK_E2E_CHILD_RAN")) << output;
  }
}

}  // namespace
}  // namespace tack
