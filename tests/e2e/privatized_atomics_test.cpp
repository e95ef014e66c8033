// Privatized atomics (docs/design/privatized_atomics.md): histograms with atomic add, min and
// max over every integer type give exactly the atomics' result, on every device; on the CPU a
// fanned-out launch privatizes exactly when the rules allow it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/on_device.hpp"
#include "runtime/parallel.hpp"
#include "tack/tack.hpp"
#include "targets/cpu/private_atomics.hpp"

namespace tack {
namespace {

class PrivatizedAtomicsOnDevice : public test::OnDevice {
 protected:
  // Whether a CPU launch of enough work fans out at all here (TACK_NUM_THREADS=1 does not).
  bool fans_out() const { return on_cpu() && detail::num_threads() > 1; }
  // Runs `call` and says whether it ran privatized.
  template <class F>
  bool privatized(F&& call) const {
    const std::uint64_t before = detail::privatized_launch_count();
    call();
    return detail::privatized_launch_count() > before;
  }
};

TACK_INSTANTIATE_ON_DEVICES(PrivatizedAtomicsOnDevice);

constexpr std::int64_t kValues = 1 << 20;  // enough work to fan out on the CPU

std::vector<std::int64_t> values() {
  std::vector<std::int64_t> v(kValues);
  std::uint64_t x = 88172645463325252ull;
  for (auto& e : v) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    e = static_cast<std::int64_t>(x % 100000) - 50000;
  }
  return v;
}

const char* kHistogram = R"(
def ph_hist(v, bins):
    for i in range(len(v)):
        tack.atomic_add(bins, v[i] % len(bins), 1)
)";

template <class T>
void check_add(const Kernel& k, const Array& v, const std::vector<std::int64_t>& host, DType t,
               const Device& dev) {
  const std::int64_t nbins = 200;
  // Bins start away from zero: the merge adds onto what is there.
  std::vector<T> start(nbins);
  for (std::int64_t b = 0; b < nbins; ++b) start[b] = static_cast<T>(b * 3);
  Array bins = array(start, {nbins}, dev);
  ASSERT_EQ(bins.dtype(), t);
  k(v, bins);
  std::vector<std::uint64_t> count(nbins, 0);
  for (std::int64_t x : host) ++count[static_cast<std::size_t>(((x % nbins) + nbins) % nbins)];
  std::vector<T> want(nbins);
  for (std::int64_t b = 0; b < nbins; ++b) {
    // Integer adds wrap, as the atomics do: u8 and i8 bins overflow here.
    want[b] = static_cast<T>(static_cast<std::uint64_t>(start[b]) + count[b]);
  }
  EXPECT_EQ(bins.to_vector<T>(), want) << t.str();
}

TEST_P(PrivatizedAtomicsOnDevice, HistogramsOfEveryIntegerType) {
  const Kernel k = kernel(kHistogram);
  const auto host = values();
  Array v = arr(host);
  std::uint64_t runs = 0;
  auto each = [&](auto tag, DType t) {
    using T = decltype(tag);
    const bool p = privatized([&] { check_add<T>(k, v, host, t, dev_); });
    runs += p ? 1 : 0;
  };
  each(std::int8_t{}, i8);
  each(std::int16_t{}, i16);
  each(std::int32_t{}, i32);
  each(std::int64_t{}, i64);
  each(std::uint8_t{}, u8);
  each(std::uint16_t{}, u16);
  each(std::uint32_t{}, u32);
  each(std::uint64_t{}, u64);
  EXPECT_EQ(runs, fans_out() ? 8u : 0u);
}

TEST_P(PrivatizedAtomicsOnDevice, MinAndMaxPerBin) {
  const Kernel k = kernel(R"(
def ph_minmax(v, lo, hi):
    for i in range(len(v)):
        b = v[i] % len(lo)
        tack.atomic_min(lo, b, v[i])
        tack.atomic_max(hi, b, v[i])
)");
  const auto host = values();
  const std::int64_t nbins = 64;
  // Some bins start beyond every value, so the merge must keep them.
  std::vector<std::int64_t> lo0(nbins, 1000), hi0(nbins, -1000);
  lo0[3] = -60000;
  hi0[5] = 60000;
  Array lo = arr(lo0), hi = arr(hi0);
  EXPECT_EQ(privatized([&] { k(arr(host), lo, hi); }), fans_out());
  std::vector<std::int64_t> want_lo = lo0, want_hi = hi0;
  for (std::int64_t x : host) {
    const auto b = static_cast<std::size_t>(((x % nbins) + nbins) % nbins);
    want_lo[b] = std::min(want_lo[b], x);
    want_hi[b] = std::max(want_hi[b], x);
  }
  EXPECT_EQ(lo.to_vector<std::int64_t>(), want_lo);
  EXPECT_EQ(hi.to_vector<std::int64_t>(), want_hi);
}

TEST_P(PrivatizedAtomicsOnDevice, UnsignedMinAndMax) {
  const Kernel k = kernel(R"(
def ph_uminmax(v, lo, hi):
    for i in range(len(v)):
        b = v[i] % len(lo)
        tack.atomic_min(lo, b, v[i])
        tack.atomic_max(hi, b, v[i])
)");
  std::vector<std::uint32_t> host(kValues);
  for (std::size_t i = 0; i < host.size(); ++i) {
    host[i] = static_cast<std::uint32_t>(i * 2654435761u);
  }
  const std::int64_t nbins = 16;
  Array lo = arr(std::vector<std::uint32_t>(nbins, std::numeric_limits<std::uint32_t>::max()));
  Array hi = arr(std::vector<std::uint32_t>(nbins, 0));
  EXPECT_EQ(privatized([&] { k(arr(host), lo, hi); }), fans_out());
  std::vector<std::uint32_t> want_lo(nbins, std::numeric_limits<std::uint32_t>::max());
  std::vector<std::uint32_t> want_hi(nbins, 0);
  for (std::uint32_t x : host) {
    want_lo[x % nbins] = std::min(want_lo[x % nbins], x);
    want_hi[x % nbins] = std::max(want_hi[x % nbins], x);
  }
  EXPECT_EQ(lo.to_vector<std::uint32_t>(), want_lo);
  EXPECT_EQ(hi.to_vector<std::uint32_t>(), want_hi);
}

// Cases the rules exclude still give the atomics' result, and run the atomic code.
TEST_P(PrivatizedAtomicsOnDevice, ExcludedCasesRunTheAtomicCode) {
  const auto host = values();
  Array v = arr(host);
  const Kernel hist = kernel(kHistogram);
  auto count_into = [&](std::int64_t nbins) {
    std::vector<std::int64_t> c(static_cast<std::size_t>(nbins), 0);
    for (std::int64_t x : host) ++c[static_cast<std::size_t>(((x % nbins) + nbins) % nbins)];
    return c;
  };
  // Too large a target (128 KiB of i64): not privatized.
  Array big = zeros({16384}, i64, dev_);
  EXPECT_FALSE(privatized([&] { hist(v, big); }));
  EXPECT_EQ(big.to_vector<std::int64_t>(), count_into(16384));
  // The target overlaps another argument (here the same array, whose length the kernel reads;
  // an iteration reading an aliasing array must see its own atomics): no copies. Views of one
  // allocation that do not overlap are privatized.
  const Kernel alias = kernel(R"(
def ph_alias(v, bins, ref):
    for i in range(len(v)):
        tack.atomic_add(bins, v[i] % len(ref), 1)
)");
  Array bins = zeros({256}, i64, dev_);
  EXPECT_FALSE(privatized([&] { alias(v, bins, bins); }));
  EXPECT_EQ(bins.to_vector<std::int64_t>(), count_into(256));
  Array both = zeros({kValues + 256}, i64, dev_);
  copyto(both.slice(0, kValues), v);
  Array tail = both.slice(kValues, kValues + 256);
  EXPECT_EQ(privatized([&] { hist(both.slice(0, kValues), tail); }), fans_out());
  EXPECT_EQ(tail.to_vector<std::int64_t>(), count_into(256));
  // The old value is used: not privatized.
  const Kernel used = kernel(R"(
def ph_used(v, bins, out):
    for i in range(len(v)):
        old = tack.atomic_add(bins, v[i] % len(bins), 1)
        out[i] = old >= 0
)");
  Array b2 = zeros({256}, i64, dev_);
  Array out = zeros({kValues}, i8, dev_);
  EXPECT_FALSE(privatized([&] { used(v, b2, out); }));
  EXPECT_EQ(b2.to_vector<std::int64_t>(), count_into(256));
  // Float adds are never privatized (a partial sum rounds differently).
  const Kernel fl = kernel(R"(
def ph_float(v, bins):
    for i in range(len(v)):
        tack.atomic_add(bins, v[i] % len(bins), 1.0)
)");
  Array fb = zeros({256}, f64, dev_);
  EXPECT_FALSE(privatized([&] { fl(v, fb); }));
  const auto want = count_into(256);
  const auto got = fb.to_vector<double>();
  for (std::size_t b = 0; b < 256; ++b) ASSERT_EQ(got[b], static_cast<double>(want[b]));
  // Debug mode checks indices on the real array: not privatized.
  set_debug(true);
  Array db = zeros({256}, i64, dev_);
  EXPECT_FALSE(privatized([&] { hist(v, db); }));
  EXPECT_EQ(db.to_vector<std::int64_t>(), count_into(256));
}

// Small launches never fan out, so they run the atomic code as before.
TEST_P(PrivatizedAtomicsOnDevice, SmallLaunchesAreNotPrivatized) {
  const Kernel hist = kernel(kHistogram);
  Array bins = zeros({256}, i32, dev_);
  EXPECT_FALSE(privatized([&] { hist(arr(std::vector<std::int64_t>{1, 2, 3, 257}), bins); }));
  const auto got = bins.to_vector<std::int32_t>();
  EXPECT_EQ(got[1], 2);
  EXPECT_EQ(got[2], 1);
  EXPECT_EQ(got[3], 1);
}

}  // namespace
}  // namespace tack
