// The CPU backend, the device registry and the parallel runtime, each on its own: allocation
// and wrapping, the DLPack answers memory/ asks of a backend, device lookup and the default
// device, and parallel_for's coverage of its range.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "memory/device_buffer.hpp"
#include "runtime/backend.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/parallel.hpp"
#include "tack/error.hpp"

namespace tack::detail {
namespace {

TEST(BlockPool, ReleasesWhatItDropsOnceAndEverythingAtTheEnd) {
  std::vector<void*> released;
  alignas(64) static char blocks[3][1];
  {
    BlockPool pool(3 * kPoolMinBytes, [&](void* p) { released.push_back(p); });
    EXPECT_TRUE(pool.give(blocks[0], 2 * kPoolMinBytes));
    EXPECT_TRUE(pool.give(blocks[1], kPoolMinBytes));
    EXPECT_EQ(pool.held(), 3 * kPoolMinBytes);
    EXPECT_TRUE(pool.give(blocks[2], 2 * kPoolMinBytes));  // the oldest (0) makes room
    EXPECT_EQ(released, (std::vector<void*>{blocks[0]}));
    EXPECT_FALSE(pool.give(blocks[0], 4 * kPoolMinBytes));  // over the cap: the caller frees
    EXPECT_EQ(pool.take(2 * kPoolMinBytes).first, blocks[2]);
    EXPECT_EQ(pool.held(), kPoolMinBytes);
  }
  EXPECT_EQ(released, (std::vector<void*>{blocks[0], blocks[1]}));  // the rest at the end
}

TEST(HostPool, KeepsLargeBlocksUnderTheCapAndHandsThemBack) {
  HostPool pool;
  const std::size_t big = 2 * kPoolMinBytes;
  void* p = std::aligned_alloc(kCpuAlignment, big);
  if (pool.held() == 0 && !pool.give(p, big)) {  // a zero cap (AddressSanitizer, or the env)
    std::free(p);
    GTEST_SKIP() << "the pool is off";
  }
  EXPECT_EQ(pool.held(), big);
  EXPECT_EQ(pool.take(big * 2).first, nullptr);               // too small for this request
  EXPECT_EQ(pool.take(kPoolMinBytes).first, nullptr);         // more than a quarter too big
  const auto [q, capacity] = pool.take(big - kCpuAlignment);  // within a quarter: reused
  EXPECT_EQ(q, p);
  EXPECT_EQ(capacity, big);
  EXPECT_EQ(pool.held(), 0u);
  void* small = std::malloc(64);
  EXPECT_FALSE(pool.give(small, 64));  // small blocks go back to the C allocator
  std::free(small);
  EXPECT_TRUE(pool.give(q, capacity));  // freed with the pool
}

TEST(HostPool, AFullPoolFreesTheOldestBlocks) {
  setenv("TACK_CPU_POOL_MB", "3", 1);
  HostPool pool;  // a 3 MiB cap (unless AddressSanitizer turns it off)
  unsetenv("TACK_CPU_POOL_MB");
  void* a = std::aligned_alloc(kCpuAlignment, 2 * kPoolMinBytes);
  void* b = std::aligned_alloc(kCpuAlignment, 2 * kPoolMinBytes);
  if (!pool.give(a, 2 * kPoolMinBytes)) {
    std::free(a);
    std::free(b);
    GTEST_SKIP() << "the pool is off";
  }
  EXPECT_TRUE(pool.give(b, 2 * kPoolMinBytes));  // a, given first, is freed for it
  EXPECT_EQ(pool.held(), 2 * kPoolMinBytes);
  EXPECT_EQ(pool.take(2 * kPoolMinBytes).first, b);
  void* huge = std::malloc(4 * kPoolMinBytes);
  EXPECT_FALSE(pool.give(huge, 4 * kPoolMinBytes));  // over the cap by itself
  std::free(huge);
  std::free(b);
}

TEST(CpuBackend, ThePoolSeesOnlyRoots) {
  // A view frees nothing: dropping it leaves the pool as it was; dropping the root (after its
  // views) hands the allocation to the pool.
  auto cpu = std::static_pointer_cast<CpuBackend>(find_backend("cpu"));
  if (cpu->pool().cap() < 4 * kPoolMinBytes) GTEST_SKIP() << "the pool is off";
  cpu->pool().release_all();
  auto root = cpu->allocate(2 * kPoolMinBytes);
  auto view = root->make_view(kPoolMinBytes / 2, kPoolMinBytes);  // itself 1 MiB or more
  auto other = view->make_view(0, kPoolMinBytes);                 // a view of a view
  view.reset();
  other.reset();
  EXPECT_EQ(cpu->pool().held(), 0u);
  root.reset();
  EXPECT_GE(cpu->pool().held(), 2 * kPoolMinBytes);
  cpu->pool().release_all();
}

TEST(CpuBackend, ReusedMemoryIsNotAssumedZero) {
  // A freed buffer comes back from the pool with its old bytes: zeros() must still fill.
  auto cpu = find_backend("cpu");
  const std::size_t n = 3 * kPoolMinBytes;
  std::uintptr_t first = 0;
  {
    auto b = cpu->allocate(n);
    const std::byte ff{0xff};
    b->fill(&ff, 1);
    first = b->address();
  }
  auto again = cpu->allocate(n);
  const std::byte zero{0};
  again->fill(&zero, 1);
  std::vector<std::byte> host(n);
  again->to_host(host.data(), 0, n);
  for (std::size_t k = 0; k < n; k += 4099) ASSERT_EQ(host[k], zero) << k;
  (void)first;  // the same address when the pool is on; any address is correct
}

// The value of `field` ("THPeligible") in /proc/self/smaps for the mapping that holds `address`;
// -1 when the file or the field is missing.
long smaps_field(std::uintptr_t address, const std::string& field) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find('-')) {
      inside = address >= lo && address < hi;
      continue;
    }
    if (inside && line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  }
  return -1;
}

std::string thp_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string s;
  std::getline(f, s);
  return s;
}

// Large allocations take whole huge pages, advised for transparent huge pages, and start at a
// rotating color (a page and a cache line apart) so that arrays do not share cache sets.
TEST(CpuBackend, LargeAllocationsAreAdvisedForHugePagesAndColored) {
  if (const char* e = std::getenv("TACK_CPU_HUGE_PAGES"); e && std::string(e) == "0")
    GTEST_SKIP() << "TACK_CPU_HUGE_PAGES=0";
  auto cpu = find_backend("cpu");
  std::vector<std::shared_ptr<DeviceBuffer>> held;
  std::vector<std::uintptr_t> colors;
  for (int k = 0; k < 3; ++k) {
    held.push_back(cpu->allocate(kHugeAllocBytes + 12345));
    const std::uintptr_t a = held.back()->address();
    EXPECT_EQ(a % kCpuAlignment, 0u);
    const std::uintptr_t offset = a % kHugePageBytes;
    EXPECT_EQ(offset % (4096 + 64), 0u) << offset;
    EXPECT_LT(offset, 16u * (4096 + 64));
    colors.push_back(offset);
    const std::byte one{1};
    held.back()->fill(&one, 1);
  }
  EXPECT_NE(colors[0], colors[1]);
  EXPECT_NE(colors[1], colors[2]);
  const std::string mode = thp_mode();
  const long eligible = smaps_field(held[0]->address(), "THPeligible");
  if (mode.find("[never]") != std::string::npos || eligible < 0) {
    GTEST_SKIP() << "no transparent huge pages here ('" << mode << "')";
  }
  EXPECT_EQ(eligible, 1) << "the allocation was not advised for huge pages (mode " << mode << ")";
  // A small allocation keeps the plain alignment and no color of its own.
  auto small = cpu->allocate(kHugeAllocBytes - 1);
  EXPECT_EQ(small->address() % kCpuAlignment, 0u);
}

TEST(CpuBackend, AllocatesAlignedOwnedBuffersAndWrapsWithoutOwning) {
  auto cpu = find_backend("cpu");
  for (std::size_t n : {0, 1, 63, 64, 1000, 1 << 20}) {
    auto b = cpu->allocate(n);
    EXPECT_EQ(b->nbytes(), n);
    EXPECT_EQ(b->address() % kCpuAlignment, 0u) << n << " bytes";
    EXPECT_TRUE(b->owned());
    EXPECT_FALSE(b->shared());
    EXPECT_EQ(b->backend(), cpu);
  }
  std::vector<std::byte> host(32);
  auto w = cpu->wrap(reinterpret_cast<std::uintptr_t>(host.data()), host.size(), nullptr);
  EXPECT_FALSE(w->owned()) << "Tack never frees what it did not allocate";
  EXPECT_TRUE(w->shared()) << "wrapped memory is someone else's from the start";
  EXPECT_EQ(cpu->memory_space(reinterpret_cast<std::uintptr_t>(host.data())), "cpu");
  EXPECT_TRUE(cpu->device_memory_spaces().empty()) << "the CPU checks no pointer kinds";
}

TEST(CpuBackend, AnswersDlpacksQuestions) {
  auto cpu = find_backend("cpu");
  const dlpack::Device d = cpu->dlpack_device();
  EXPECT_EQ(d.device_type, dlpack::kCPU);
  EXPECT_EQ(d.device_id, 0);
  EXPECT_TRUE(cpu->holds_dlpack({dlpack::kCPU, 0}));
  EXPECT_TRUE(cpu->holds_dlpack({dlpack::kCUDAHost, 0})) << "pinned host memory is host memory";
  EXPECT_FALSE(cpu->holds_dlpack({dlpack::kOpenCL, 0}));
  EXPECT_TRUE(cpu->host_memory());
  EXPECT_NO_THROW(cpu->check_dlpack_stream(-1));
  EXPECT_THROW(cpu->check_dlpack_stream(1), ValueError);
}

TEST(DeviceRegistry, FindsDevicesByNameAndKeepsADefault) {
  auto cpu = find_backend("cpu");
  EXPECT_EQ(cpu->name(), "cpu");
  EXPECT_EQ(all_backends().front(), cpu) << "the CPU is always present, and first";
  try {
    find_backend("tpu:7");
    ADD_FAILURE() << "found";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("the devices present are 'cpu'"), std::string::npos)
        << e.what();
  }
  const auto before = default_backend();
  set_default_backend(cpu);
  EXPECT_EQ(default_backend(), cpu);
  set_default_backend(before);
  for (const auto& b : all_backends()) {
    EXPECT_EQ(find_backend(b->name()), b) << b->name();
    EXPECT_EQ(find_backend(b->kind()), find_backend(b->kind())) << "a kind names its first";
  }
}

TEST(Parallel, CoversTheRangeExactlyOnceForEveryGrain) {
  EXPECT_GE(num_threads(), 1);
  for (std::int64_t n : {0, 1, 7, 1000, 100003}) {
    for (std::int64_t grain : {1, 16, 1000, 1 << 20}) {
      std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
      parallel_for(n, grain, [&](std::int64_t b, std::int64_t e) {
        ASSERT_LE(0, b);
        ASSERT_LE(b, e);
        ASSERT_LE(e, n);
        for (std::int64_t i = b; i < e; ++i) ++hits[static_cast<std::size_t>(i)];
      });
      for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(hits[static_cast<std::size_t>(i)].load(), 1)
            << "n " << n << ", grain " << grain << ", index " << i;
      }
    }
  }
}

TEST(Parallel, WorkBelowTheGrainRunsOnTheCallingThread) {
  const auto caller = std::this_thread::get_id();
  std::atomic<bool> elsewhere{false};
  parallel_for(100, 1000, [&](std::int64_t, std::int64_t) {
    if (std::this_thread::get_id() != caller) elsewhere = true;
  });
  EXPECT_FALSE(elsewhere.load());
}

}  // namespace
}  // namespace tack::detail
