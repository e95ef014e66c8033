// The CUDA backend's memory layer against tests/cuda/fake_driver.cpp, a libcuda.so.1 stand-in
// that keeps device memory in host memory (CTest sets TACK_CUDA_LIBRARY to it): discovery, the
// seed's buffer rules (queued copies, fills native and doubled, views at an offset, element
// reads with the range checked first, stream-ordered frees, memory spaces for array_from_ptr,
// DLPack's device and stream rules) and the dead-context rule of the guarantees table. The fake
// counts every call the real driver would fault on or reject; each test ends with none.
// Kernels cannot run on the fake: a launch is a clean RuntimeError. The per-device memory
// suites (tests/unit/memory) also run on the fake's "cuda:0" (CTest cuda_fake_memory*).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/on_device.hpp"
#include "runtime/backend.hpp"
#include "runtime/cuda/cuda_backend.hpp"
#include "runtime/cuda/cuda_compile.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

using test::expect_error;

// The fake's controls, found in the library the backend loaded.
struct Fake {
  int (*errors)() = nullptr;
  int (*frees)() = nullptr;
  std::size_t (*live)() = nullptr;
  CUdeviceptr (*alloc)(std::size_t, int) = nullptr;
  void (*free)(CUdeviceptr) = nullptr;
  void (*reset_primary)() = nullptr;
  int (*pool_allocations)() = nullptr;
  void (*retain_primary)() = nullptr;
  int (*count)(int) = nullptr;
  void (*set_noop_kernels)(int) = nullptr;
  enum Count { kSyncs = 0, kWaits = 1, kWaitsOnLegacy = 2, kLegacyWaits = 3, kLaunches = 4 };

  Fake() {
    const char* path = std::getenv("TACK_CUDA_LIBRARY");
    void* h = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
    if (h == nullptr) return;
    errors = reinterpret_cast<int (*)()>(dlsym(h, "tackfake_errors"));
    frees = reinterpret_cast<int (*)()>(dlsym(h, "tackfake_frees"));
    live = reinterpret_cast<std::size_t (*)()>(dlsym(h, "tackfake_live_allocations"));
    alloc = reinterpret_cast<CUdeviceptr (*)(std::size_t, int)>(dlsym(h, "tackfake_alloc"));
    free = reinterpret_cast<void (*)(CUdeviceptr)>(dlsym(h, "tackfake_free"));
    reset_primary = reinterpret_cast<void (*)()>(dlsym(h, "tackfake_reset_primary"));
    pool_allocations = reinterpret_cast<int (*)()>(dlsym(h, "tackfake_pool_allocations"));
    retain_primary = reinterpret_cast<void (*)()>(dlsym(h, "tackfake_retain_primary"));
    count = reinterpret_cast<int (*)(int)>(dlsym(h, "tackfake_count"));
    set_noop_kernels = reinterpret_cast<void (*)(int)>(dlsym(h, "tackfake_set_noop_kernels"));
  }
  bool ok() const {
    return errors && frees && live && alloc && free && reset_primary && pool_allocations &&
           retain_primary && count && set_noop_kernels;
  }
};

class CudaFake : public ::testing::Test {
 protected:
  void SetUp() override {
    static Fake f;
    fake_ = &f;
    if (!fake_->ok()) GTEST_SKIP() << "TACK_CUDA_LIBRARY is not the fake driver";
    dev_ = device("cuda");
  }
  void TearDown() override {
    if (fake_->ok()) {
      EXPECT_EQ(fake_->errors(), 0) << "Tack made a call the driver rejects";
    }
  }
  Fake* fake_ = nullptr;
  Device dev_ = default_device();
};

TEST_F(CudaFake, IsListedAsCudaZero) {
  EXPECT_EQ(dev_.name(), "cuda:0");
  EXPECT_EQ(dev_.kind(), "cuda");
  bool listed = false;
  for (const Device& d : devices()) listed = listed || d.name() == "cuda:0";
  EXPECT_TRUE(listed);
  auto b = std::dynamic_pointer_cast<detail::CudaBackend>(detail::find_backend("cuda:0"));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->info().arch(), "sm_90");
  EXPECT_EQ(b->info().name, "Tack fake CUDA device");
  // Stream-ordered allocation from a pool of Tack's own (the device's default pool, which other
  // libraries share, is left as it is); cuMemAlloc where the device has no pools.
  const bool pools = std::getenv("TACKFAKE_NO_POOLS") == nullptr;
  EXPECT_EQ(b->pool() != nullptr, pools);
  const int before = fake_->pool_allocations();
  Array a = zeros({8}, f32, dev_);
  EXPECT_EQ(fake_->pool_allocations(), before + (pools ? 1 : 0));
}

TEST_F(CudaFake, TransfersFillsAndViews) {
  Array a = array(std::vector<float>{1, 2, 3, 4, 5, 6}, {6}, dev_);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  Array v = a.slice(2, 5);  // a view at an offset, no copy
  EXPECT_TRUE(v.is_view());
  EXPECT_EQ(v.address(), a.address() + 2 * sizeof(float));
  v.fill(7.0);  // 32-bit native fill through the view
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, 2, 7, 7, 7, 6}));
  float x = 0;
  const std::int64_t at[] = {1};
  v.read_element(at, &x);  // one element, after what is queued
  EXPECT_EQ(x, 7.0f);
  Array d = zeros({1000}, f64, dev_);
  EXPECT_EQ(d.to_vector<double>(), std::vector<double>(1000, 0.0));
  d.fill(1.5);  // an 8-byte pattern: one run from the host, doubled by device copies
  EXPECT_EQ(d.to_vector<double>(), std::vector<double>(1000, 1.5));
  Array h = full({5}, Scalar::from(std::int64_t{0x1234}), u16, dev_);  // 16-bit native fill
  EXPECT_EQ(h.to_vector<std::uint16_t>(), std::vector<std::uint16_t>(5, 0x1234));
  Array b = full({3}, Scalar::from(std::int64_t{9}), u8, dev_);
  EXPECT_EQ(b.to_vector<std::uint8_t>(), std::vector<std::uint8_t>(3, 9));
  Array e = zeros({0}, f32, dev_);  // empty arrays have their own address too
  EXPECT_NE(e.address(), 0u);
  const std::int64_t past[] = {3};
  expect_error<IndexError>([&] { v.read_element(past, &x); }, {"3"});
}

TEST_F(CudaFake, DroppedArraysAreFreedInStreamOrder) {
  sync();  // frees deferred by earlier tests (a device without pools frees at synchronization)
  const std::size_t before = fake_->live();
  const int frees = fake_->frees();
  {
    std::optional<Array> a = zeros({1 << 16}, f32, dev_);
    Array v = a->slice(10, 20);
    EXPECT_EQ(fake_->live(), before + 1);
    a.reset();  // the view keeps the root's memory
    EXPECT_EQ(fake_->live(), before + 1);
  }
  sync();
  EXPECT_EQ(fake_->live(), before);
  EXPECT_EQ(fake_->frees(), frees + 1);
}

TEST_F(CudaFake, OutOfMemoryLeavesEverythingAsItWas) {
  Array a = array(std::vector<int>{1, 2, 3}, {3}, dev_);
  expect_error<RuntimeError>([&] { empty({std::int64_t{1} << 31}, f32, dev_); },
                             {"cannot allocate", "cuda:0", "out of device memory"});
  EXPECT_EQ(a.to_vector<int>(), (std::vector<int>{1, 2, 3}));
}

TEST_F(CudaFake, WrappedPointersAreCheckedForTheirMemorySpace) {
  std::vector<float> host(4, 1.0f);
  expect_error<ValueError>(
      [&] { array_from_ptr(reinterpret_cast<std::uintptr_t>(host.data()), f32, {4}, true, dev_); },
      {"is cpu memory", "cuda:0", "cuda_pinned", "tack.array"});
  expect_error<TypeError>([&] { array_from_ptr(std::nullopt, f32, {4}, true, dev_, {}, "a str"); },
                          {"a str"});
  auto backend = detail::find_backend("cuda:0");
  for (int kind : {0, 1, 2}) {
    const CUdeviceptr p = fake_->alloc(64, kind);
    EXPECT_EQ(backend->memory_space(p), kind == 0   ? "cuda"
                                        : kind == 1 ? "cuda_pinned"
                                                    : "cuda_managed");
    {
      Array w = array_from_ptr(p, f32, {16}, true, dev_);
      w.fill(2.0);
      EXPECT_TRUE(w.shared());  // memory of someone else: launches binding it complete
      EXPECT_EQ(w.to_vector<float>(), std::vector<float>(16, 2.0f));
    }
    sync();
    fake_->free(p);  // Tack never freed it: this is the only free, so no error is counted
  }
  EXPECT_EQ(backend->memory_space(reinterpret_cast<std::uintptr_t>(host.data())), "cpu");
  // Device memory of another GPU would fault in a kernel here: refused before wrapping.
  const CUdeviceptr other = fake_->alloc(64, 3);
  expect_error<ValueError>([&] { array_from_ptr(other, f32, {16}, true, dev_); },
                           {"memory of CUDA device 1", "cuda:1"});
  fake_->free(other);
  // So is memory of another context on this GPU: Tack's context cannot reach it.
  const CUdeviceptr foreign = fake_->alloc(64, 4);
  expect_error<ValueError>([&] { array_from_ptr(foreign, f32, {16}, true, dev_); },
                           {"another CUDA context", "cuda:0"});
  fake_->free(foreign);
}

TEST_F(CudaFake, DlpackDeviceAndStreams) {
  auto backend = detail::find_backend("cuda:0");
  const dlpack::Device d = backend->dlpack_device();
  EXPECT_EQ(d.device_type, dlpack::kCUDA);
  EXPECT_EQ(d.device_id, 0);
  EXPECT_TRUE(backend->holds_dlpack({dlpack::kCUDA, 0}));
  EXPECT_FALSE(backend->holds_dlpack({dlpack::kCUDA, 1}));
  EXPECT_FALSE(backend->holds_dlpack({dlpack::kCPU, 0}));
  expect_error<ValueError>([&] { backend->check_dlpack_stream(0); }, {"stream 0 is ambiguous"});
  const int waits = fake_->count(Fake::kWaits), legacy = fake_->count(Fake::kLegacyWaits);
  for (std::int64_t s : {-1, 1, 2}) {
    backend->check_dlpack_stream(s);
    backend->order_dlpack_export(s);  // an event recorded here, waited for there
  }
  EXPECT_EQ(fake_->count(Fake::kWaits), waits + 2);  // -1 asks for no ordering
  EXPECT_EQ(fake_->count(Fake::kLegacyWaits), legacy + 1);
  // An import hands the producer Tack's own stream.
  const auto stream = backend->dlpack_consumer_stream();
  ASSERT_TRUE(stream.has_value());
  EXPECT_EQ(*stream, static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(
                         std::static_pointer_cast<detail::CudaBackend>(backend)->stream())));
}

// Memory shared outside Tack: the other library may use it with no Tack call in between, so
// writes, fills and launches that touch it complete before returning; Tack's own memory is only
// queued. A wrapped pointer's producer wrote it on the legacy default stream: Tack's stream
// waits for that work first.
TEST_F(CudaFake, SharedMemoryCompletesBeforeReturning) {
  const CUdeviceptr p = fake_->alloc(64, 0);
  {
    const int legacy = fake_->count(Fake::kWaitsOnLegacy);
    Array shared = array_from_ptr(p, f32, {16}, true, dev_);
    EXPECT_EQ(fake_->count(Fake::kWaitsOnLegacy), legacy + 1);
    Array own = zeros({16}, f32, dev_);
    const std::vector<float> data(16, 1.0f);
    auto syncs_of = [&](const std::function<void()>& fn) {
      const int before = fake_->count(Fake::kSyncs);
      fn();
      return fake_->count(Fake::kSyncs) - before;
    };
    EXPECT_EQ(syncs_of([&] { own.fill(2.0); }), 0);
    EXPECT_GE(syncs_of([&] { shared.fill(2.0); }), 1);
    EXPECT_EQ(syncs_of([&] { copyto(own, array(data, {16}, device("cpu"))); }), 0);
    EXPECT_GE(syncs_of([&] { copyto(shared, array(data, {16}, device("cpu"))); }), 1);
    if (!detail::nvrtc_available()) return;  // the launch half needs NVRTC's PTX
    fake_->set_noop_kernels(1);              // launches are taken and run nothing
    const Kernel k = kernel(R"(
def fake_touch(x):
    for i in range(len(x)):
        x[i] = 1.0
)");
    const int launches = fake_->count(Fake::kLaunches);
    EXPECT_EQ(syncs_of([&] { k(own); }), 0);
    EXPECT_EQ(syncs_of([&] { k(shared); }), 1);
    EXPECT_EQ(fake_->count(Fake::kLaunches), launches + 2);
    fake_->set_noop_kernels(0);
  }
  sync();
  fake_->free(p);
}

// Guarantees table, "Dead CUDA context": the buffer refuses to touch its memory (RuntimeError),
// and dropping it frees nothing (the context took the memory with it).
TEST_F(CudaFake, DeadContextRefusesEveryOperation) {
  std::optional<Array> a_ = array(std::vector<float>{1, 2, 3}, {3}, dev_);
  std::optional<Array> v_ = a_->slice(1, 3);
  Array& a = *a_;
  Array& v = *v_;
  fake_->reset_primary();   // cuDevicePrimaryCtxReset by the embedding program,
  fake_->retain_primary();  // then another library makes the primary context again
  const std::vector<std::string> dead = {"this CUDA array: the CUDA context", "destroyed"};
  expect_error<RuntimeError>([&] { a.to_vector<float>(); }, dead);
  expect_error<RuntimeError>([&] { v.fill(1.0); }, dead);
  float x = 0;
  const std::int64_t at[] = {0};
  expect_error<RuntimeError>([&] { v.read_element(at, &x); }, dead);
  expect_error<RuntimeError>(
      [&] {
        copyto(a, array(std::vector<float>{4, 5, 6}, {3}, device("cpu")));
      },
      dead);
  expect_error<RuntimeError>([&] { (void)a.address(); }, dead);
  expect_error<RuntimeError>([&] { zeros({4}, f32, dev_); }, {"CUDA context", "destroyed"});
  const int frees = fake_->frees();
  v_.reset();  // no free on a dead context, no crash
  a_.reset();
  EXPECT_EQ(fake_->frees(), frees);
}

// The same when nobody made the context again (the driver says the primary context is inactive).
TEST_F(CudaFake, DeadContextWhileInactive) {
  std::optional<Array> a = array(std::vector<float>{1, 2}, {2}, dev_);
  fake_->reset_primary();
  expect_error<RuntimeError>([&] { a->to_vector<float>(); }, {"Cannot read this CUDA array"});
  const int frees = fake_->frees();
  a.reset();
  EXPECT_EQ(fake_->frees(), frees);
}

TEST_F(CudaFake, KernelLaunchesFailCleanlyOnTheFake) {
  const Kernel k = kernel(R"(
def fake_scale(x, s):
    for i in range(len(x)):
        x[i] = x[i] * s
)");
  Array x = array(std::vector<float>{1, 2}, {2}, dev_);
  const auto version = x.version();
  // NVRTC compiles (where installed); the fake refuses to load the module: a RuntimeError,
  // and nothing is written.
  EXPECT_THROW(k(x, 2.0), RuntimeError);
  EXPECT_EQ(x.version(), version);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1, 2}));
}

}  // namespace
}  // namespace tack
