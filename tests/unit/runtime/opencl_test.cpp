// The OpenCL backend on whatever OpenCL device answers (PoCL in CI): listing, SVM buffers,
// transfers, fills, views, pointer validation, queued launches and ordered frees, out of
// memory, DLPack, build errors. Skipped, with the reason, where no OpenCL device is present.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "memory/device_buffer.hpp"
#include "runtime/opencl/opencl_backend.hpp"
#include "runtime/opencl/opencl_buffer.hpp"
#include "runtime/opencl/opencl_program.hpp"
#include "tack/tack.hpp"

namespace tack {
namespace {

using detail::OpenClArgs;
using detail::OpenClBackend;
using detail::OpenClBuffer;

// Runs `fn`, expecting an exception of type E whose message contains `fragment`.
template <class E>
void expect_error(const std::function<void()>& fn, const std::string& fragment) {
  try {
    fn();
    ADD_FAILURE() << "expected an exception containing '" << fragment << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
        << "message: " << e.what() << "\nexpected to contain: " << fragment;
  }
}

// tack_core alone lists only the CPU: the device kinds are registered by tack_targets
// (targets/registry.cpp). This suite links tack_core only, so it lists OpenCL's devices itself,
// as the registry's line does.
const bool kOpenClListed = [] {
  detail::add_device_kind("opencl", [] {
    const auto& found = detail::opencl_devices();
    return std::vector<std::shared_ptr<detail::Backend>>(found.backends.begin(),
                                                         found.backends.end());
  });
  return true;
}();

std::shared_ptr<OpenClBackend> first_opencl() {
  const auto& found = detail::opencl_devices();
  return found.backends.empty() ? nullptr : found.backends.front();
}

class OpenCl : public ::testing::Test {
 protected:
  void SetUp() override {
    backend_ = first_opencl();
    if (!backend_) GTEST_SKIP() << detail::opencl_unavailable_reason();
    dev_ = Device(backend_);
  }
  void TearDown() override {
    if (backend_) backend_->synchronize();
  }
  OpenClBuffer& buf(const Array& a) { return dynamic_cast<OpenClBuffer&>(*a.buffer()); }

  std::shared_ptr<OpenClBackend> backend_;
  std::optional<Device> dev_;
};

// ---- runtime loading and the device list (these run everywhere) -------------------------------

TEST(OpenClRuntime, MissingLibraryIsAnOrdinaryState) {
  std::string why;
  EXPECT_EQ(detail::OpenClApi::load("/nonexistent/libOpenCL.so.1", &why), nullptr);
  EXPECT_NE(why.find("no OpenCL library could be loaded"), std::string::npos) << why;
}

TEST(OpenClRuntime, LibraryWithoutTheEntryPointsIsRefused) {
  std::string why;
  EXPECT_EQ(detail::OpenClApi::load("libm.so.6", &why), nullptr);
  EXPECT_NE(why.find("lacks clGetPlatformIDs"), std::string::npos) << why;
  EXPECT_TRUE(detail::discover_opencl(nullptr).backends.empty());
}

TEST(OpenClRuntime, CpuStaysFirstAndDefault) {
  auto all = devices();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front().name(), "cpu");
  EXPECT_EQ(default_device().name(), "cpu");
  const auto& found = detail::opencl_devices();
  std::size_t listed = 0;
  for (const auto& d : all) listed += d.kind() == "opencl";
  EXPECT_EQ(listed, found.backends.size());
  if (found.backends.empty()) {
    expect_error<ValueError>([] { device("opencl"); }, "no device named 'opencl'");
  }
}

// A missing, broken or turned-off runtime: the process lists the CPU alone and runs on. Each
// case runs this test again in a child process, with the environment that breaks OpenCL (the
// device list is made once per process).
TEST(OpenClRuntime, AbsentOrBrokenRuntimeListsOnlyTheCpu) {
  if (std::getenv("TACK_TEST_CHILD") != nullptr) {
    ASSERT_EQ(devices().size(), 1u);
    EXPECT_EQ(devices().front().name(), "cpu");
    EXPECT_TRUE(detail::opencl_devices().backends.empty());
    expect_error<ValueError>([] { device("opencl"); }, "no device named 'opencl'");
    Array a = full({4}, Scalar::from(1.0), f32);
    EXPECT_EQ(a.item<float>({3}), 1.0f);
    return;
  }
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  for (const char* env : {"TACK_OPENCL_LIBRARY=/nonexistent/libOpenCL.so.1",
                          "TACK_OPENCL_LIBRARY=libm.so.6", "TACK_OPENCL=0"}) {
    const std::string cmd = std::string("env ") + env + " TACK_TEST_CHILD=1 '" + exe +
                            "' --gtest_filter=OpenClRuntime.AbsentOrBrokenRuntimeListsOnlyTheCpu"
                            " >/dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << env;
  }
}

// Queued frees: synchronize() waits for their callbacks, which a driver may run after
// clFinish (NVIDIA does); the registry counts them. No device needed.
TEST(SvmRegistry, WaitsForTheCallbacksOfQueuedFrees) {
  detail::SvmRegistry r;
  EXPECT_TRUE(r.wait_for_frees(std::chrono::milliseconds(0))) << "nothing queued";
  r.add(0x1000, 64);
  r.free_queued();
  EXPECT_FALSE(r.wait_for_frees(std::chrono::milliseconds(20))) << "the callback has not run";
  EXPECT_TRUE(r.find(0x1010, nullptr, nullptr)) << "still live until the callback";
  std::thread callback([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    r.free_done(0x1000, [] {});  // as a driver thread would
  });
  EXPECT_TRUE(r.wait_for_frees(std::chrono::seconds(10)));
  EXPECT_FALSE(r.find(0x1010, nullptr, nullptr)) << "forgotten by the callback";
  callback.join();
}

// The race of issue 8: a free's callback used to release the memory and then forget its range,
// so an allocation made in between at the same address lost its range (a live array then read
// as "cpu" memory). The range is forgotten before the release runs.
TEST(SvmRegistry, ForgetsTheRangeBeforeTheMemoryIsReleased) {
  detail::SvmRegistry r;
  r.add(0x2000, 64);
  r.free_queued();
  bool registered_during_release = true;
  r.free_done(0x2000, [&] {
    registered_during_release = r.find(0x2000, nullptr, nullptr);
    r.add(0x2000, 64);  // a new allocation at the released address, as another thread's
  });
  EXPECT_FALSE(registered_during_release);
  EXPECT_TRUE(r.find(0x2010, nullptr, nullptr)) << "the new allocation's range was forgotten";
  EXPECT_TRUE(r.wait_for_frees(std::chrono::milliseconds(0)));
}

TEST_F(OpenCl, DevicesAreNamedByIndex) {
  EXPECT_EQ(device("opencl").name(), "opencl:0");
  EXPECT_EQ(device("opencl:0"), device("opencl"));
  EXPECT_EQ(device("opencl:0").kind(), "opencl");
  expect_error<ValueError>([] { device("opencl:99"); }, "the devices present are 'cpu'");
}

// ---- allocation and transfers -----------------------------------------------------------------

TEST_F(OpenCl, TransfersRoundTrip) {
  std::vector<float> v(1000);
  std::iota(v.begin(), v.end(), -3.5f);
  Array a = array(v, {10, 100}, *dev_);
  EXPECT_EQ(a.device().name(), "opencl:0");
  EXPECT_EQ(a.buffer()->backend_name(), "opencl");
  EXPECT_FALSE(a.buffer()->starts_zeroed());
  EXPECT_EQ(a.to_vector<float>(), v);
  EXPECT_EQ(a.item<float>({3, 7}), v[307]);
  EXPECT_EQ(a.item<float>({-1, -1}), v[999]);

  std::vector<std::int64_t> w = {-1, 2, -3, 1ll << 40};
  Array b = array(w, {4}, *dev_);
  EXPECT_EQ(b.to_vector<std::int64_t>(), w);
}

TEST_F(OpenCl, ReadRangeIsCheckedFirst) {
  Array a = zeros({4}, i32, *dev_);
  std::int32_t out = 7;
  expect_error<IndexError>([&] { a.buffer()->read_range(14, 4, &out); },
                           "cannot read bytes [14, 18) of a buffer of 16 bytes");
  EXPECT_EQ(out, 7);  // nothing was read
  expect_error<IndexError>([&] { a.item<std::int32_t>({4}); }, "out of bounds for axis 0");
  a.buffer()->read_range(12, 4, &out);
  EXPECT_EQ(out, 0);
}

TEST_F(OpenCl, ZerosFillsEveryDtype) {
  const DType all[] = {i8, i16, i32, i64, u8, u16, u32, u64, f32, f64};
  for (DType t : all) {
    { Array junk = full({333}, Scalar::from(std::int64_t{5}), t, *dev_); }  // dirty memory
    Array z = zeros({333}, t, *dev_);
    std::vector<unsigned char> bytes(z.nbytes(), 0xff);
    z.to_host(bytes.data(), bytes.size());
    for (unsigned char c : bytes) ASSERT_EQ(c, 0) << t.str();
  }
}

// Every pattern size the dtypes make: 1, 2, 4, 8 (scalars) and vec(n, t) up to 16 x 8 = 128
// bytes; Array::fill repeats one value over the components.
TEST_F(OpenCl, FillsEveryDtypeAndVectorWidth) {
  const DType scalars[] = {i8, i16, i32, i64, u8, u16, u32, u64, f32, f64};
  for (DType t : scalars) {
    const std::int64_t value = itemsize(t.scalar) == 1 ? 100 : 1000;
    unsigned char one[8];
    convert_scalar(Scalar::from(value), t.scalar, one);
    for (int n : {0, 1, 2, 3, 4, 5, 8, 12, 16}) {
      DType d = n == 0 ? t : vec(n, t);
      Array a = empty({37}, d, *dev_);
      a.fill(Scalar::from(value));
      std::vector<unsigned char> bytes(a.nbytes());
      a.to_host(bytes.data(), bytes.size());
      const std::size_t cs = itemsize(t.scalar);
      for (std::size_t k = 0; k < bytes.size(); k += cs)
        ASSERT_EQ(std::memcmp(bytes.data() + k, one, cs), 0) << d.str() << " at byte " << k;
    }
  }
}

// Raw patterns whose bytes all differ, at every size from 1 to 128: powers of two take the
// native fill, the others (and large buffers) the doubling path.
TEST_F(OpenCl, RawPatternsOfEverySize) {
  for (std::size_t size = 1; size <= 128; ++size) {
    std::vector<unsigned char> pattern(size);
    for (std::size_t i = 0; i < size; ++i) pattern[i] = static_cast<unsigned char>(i * 7 + 1);
    const std::size_t count = size < 8 ? 40000 : 3001;  // above the 64 KiB host run for small ones
    Array a = empty({static_cast<std::int64_t>(count * size)}, u8, *dev_);
    a.buffer()->fill(pattern.data(), size);
    std::vector<unsigned char> bytes(a.nbytes());
    a.to_host(bytes.data(), bytes.size());
    for (std::size_t k = 0; k < bytes.size(); ++k)
      ASSERT_EQ(bytes[k], pattern[k % size]) << "pattern of " << size << " bytes, byte " << k;
  }
}

// ---- views ------------------------------------------------------------------------------------

TEST_F(OpenCl, ViewsAtOddOffsetsReadAndWrite) {
  std::vector<std::uint8_t> v(21);
  std::iota(v.begin(), v.end(), 0);
  Array a = array(v, {7, 3}, *dev_);
  Array mid = a.slice(1, 4);  // bytes [3, 12): an odd offset
  ASSERT_TRUE(mid.is_view());
  EXPECT_EQ(mid.address(), a.address() + 3);
  EXPECT_EQ(mid.item<std::uint8_t>({0, 0}), 3);
  EXPECT_EQ(mid.item<std::uint8_t>({2, 2}), 11);
  mid.fill(200.0);
  std::vector<std::uint8_t> rows = {0,   1,  2,  200, 200, 200, 200, 200, 200, 200, 200,
                                    200, 12, 13, 14,  15,  16,  17,  18,  19,  20};
  EXPECT_EQ(a.to_vector<std::uint8_t>(), rows);
  std::vector<std::uint8_t> w = {9, 8, 7};
  copyto(mid.slice(1, 2), HostView{w.data(), ScalarType::u8, {1, 3}, {}});  // a view of a view
  EXPECT_EQ(a.item<std::uint8_t>({2, 0}), 9);
  EXPECT_EQ(a.item<std::uint8_t>({2, 2}), 7);
  EXPECT_EQ(mid.slice(1, 2).address(), a.address() + 6);
}

TEST_F(OpenCl, ReshapeAndZerosOfViews) {
  std::vector<float> v(24, 1.0f);
  Array a = array(v, {6, 4}, *dev_);
  Array flat = a.reshape({24});
  Array rows = a.slice(2, 4);
  Array z = zeros_like(rows);  // a new array on the same device
  EXPECT_EQ(z.device(), a.device());
  rows.fill(0.0);
  EXPECT_EQ(flat.item<float>({7}), 1.0f);
  EXPECT_EQ(flat.item<float>({8}), 0.0f);
  EXPECT_EQ(flat.item<float>({15}), 0.0f);
  EXPECT_EQ(flat.item<float>({16}), 1.0f);
  Array empty_rows = a.slice(3, 3);
  EXPECT_FALSE(empty_rows.is_view());
  EXPECT_EQ(empty_rows.device(), a.device());
}

TEST_F(OpenCl, VersionAndSharedAreTheAllocations) {
  Array a = zeros({8, 2}, f32, *dev_);
  Array v = a.slice(2, 5);
  const auto before = a.version();
  v.fill(3.0);
  EXPECT_GT(a.version(), before);
  EXPECT_EQ(a.version(), v.version());
  EXPECT_FALSE(v.shared());
  auto* m = to_dlpack_versioned(a);
  EXPECT_TRUE(v.shared());
  m->deleter(m);
}

// ---- pointer kinds ----------------------------------------------------------------------------

TEST_F(OpenCl, ArrayFromPtrValidatesTheMemorySpace) {
  std::vector<float> host(16, 1.0f);
  const auto host_address = reinterpret_cast<std::uintptr_t>(host.data());
  EXPECT_EQ(memory_space(host_address, *dev_), "cpu");
  expect_error<ValueError>([&] { array_from_ptr(host_address, f32, {16}, false, *dev_); },
                           "is cpu memory, but device 'opencl:0' accepts only opencl memory");
  expect_error<TypeError>(
      [&] { array_from_ptr(std::nullopt, f32, {16}, false, *dev_, nullptr, "a str"); },
      "got a str");

  Array owner = full({16}, Scalar::from(2.0), f32, *dev_);
  const std::uintptr_t inside = owner.address() + 4 * sizeof(float);
  EXPECT_EQ(memory_space(inside, *dev_), "opencl");
  Array wrapped = array_from_ptr(inside, f32, {12}, false, *dev_);
  EXPECT_TRUE(wrapped.shared());
  EXPECT_FALSE(wrapped.writable());
  EXPECT_EQ(wrapped.item<float>({11}), 2.0f);
  expect_error<RuntimeError>([&] { wrapped.fill(1.0); }, "read-only");
  expect_error<ValueError>([&] { array_from_ptr(inside, f32, {1000}, false, *dev_); },
                           "past the end of its OpenCL allocation");
}

// A wrapped pointer at an address not aligned to the element: the fill cannot be the native
// one (it needs the pattern's alignment), so it takes the doubling path.
TEST_F(OpenCl, MisalignedWrappedFill) {
  Array owner = zeros({64}, u8, *dev_);
  Array w = array_from_ptr(owner.address() + 1, i32, {10}, true, *dev_);
  w.fill(Scalar::from(std::int64_t{0x01020304}));
  auto bytes = owner.to_vector<std::uint8_t>();
  EXPECT_EQ(bytes[0], 0);
  for (int k = 0; k < 10; ++k) {
    std::int32_t x;
    std::memcpy(&x, &bytes[1 + 4 * k], 4);
    EXPECT_EQ(x, 0x01020304) << k;
  }
  EXPECT_EQ(bytes[41], 0);
}

// ---- queued launches --------------------------------------------------------------------------

const char* kIncrement =
    "__kernel void increment(__global const float* a, long n, __global float* b, long m) {\n"
    "  for (long i = get_global_id(0); i < n; i += get_global_size(0)) b[i] = a[i] + 1.0f;\n"
    "}\n";

// Holds the device's in-order queue behind a user event, so commands queue up but do not run.
class QueueGate {
 public:
  explicit QueueGate(OpenClBackend& b) : b_(b) {
    cl_int err;
    event_ = b.api().CreateUserEvent(b.context(), &err);
    EXPECT_EQ(err, CL_SUCCESS);
    EXPECT_EQ(b.api().EnqueueMarkerWithWaitList(b.queue(), 1, &event_, nullptr), CL_SUCCESS);
  }
  void open() {
    if (event_ == nullptr) return;
    b_.api().SetUserEventStatus(event_, CL_COMPLETE);
    b_.api().ReleaseEvent(event_);
    event_ = nullptr;
  }
  ~QueueGate() { open(); }

 private:
  OpenClBackend& b_;
  cl_event event_ = nullptr;
};

TEST_F(OpenCl, LaunchesAreQueuedAndHostReadsWait) {
  auto k = backend_->build_program(kIncrement, "increment");
  std::vector<float> v(5000);
  std::iota(v.begin(), v.end(), 0.0f);
  Array a = array(v, {5000}, *dev_);
  Array b = empty({5000}, f32, *dev_);
  {
    QueueGate gate(*backend_);
    backend_->launch(*k, OpenClArgs().array(a).array(b).list(), 64);  // returns: queued
    EXPECT_TRUE(buf(b).allocation().pending());
    EXPECT_TRUE(buf(a.slice(1, 2)).allocation().pending());  // views share the allocation
  }
  EXPECT_EQ(b.item<float>({4999}), 5000.0f);  // the read waited for the launch
  EXPECT_FALSE(buf(b).allocation().pending());
  // A host write is queued behind launches: the launch reads the old a.
  backend_->launch(*k, OpenClArgs().array(a).array(b).list(), 64);
  a.fill(-1.0);
  EXPECT_EQ(b.item<float>({10}), 11.0f);
  EXPECT_EQ(a.item<float>({10}), -1.0f);
  sync();
}

TEST_F(OpenCl, DroppedArrayIsFreedAfterTheLaunchesBeforeIt) {
  auto k = backend_->build_program(kIncrement, "increment");
  std::vector<float> v(1 << 16, 41.0f);
  Array b = empty({1 << 16}, f32, *dev_);
  // Written before the gate closes the queue (host writes block until they are done).
  std::optional<Array> a = array(v, {1 << 16}, *dev_);
  const std::uintptr_t address = a->address();
  {
    QueueGate gate(*backend_);
    backend_->launch(*k, OpenClArgs().array(*a).array(b).list(), 256);
    a.reset();  // dropped while the launch that reads it is still queued
    EXPECT_EQ(backend_->memory_space(address), "opencl") << "freed before its launch ran";
  }
  backend_->synchronize();
  EXPECT_EQ(backend_->memory_space(address), "cpu") << "never freed";
  auto out = b.to_vector<float>();
  for (float x : out) ASSERT_EQ(x, 42.0f);
}

// A dropped allocation of 1 MiB or more is kept and handed to the next allocation of its size
// at once: work queued on the new array runs after the launches queued on the old one.
TEST_F(OpenCl, DroppedLargeArrayIsReusedInQueueOrder) {
  if (backend_->pool().cap() < (std::size_t{4} << 20)) GTEST_SKIP() << "the pool is off";
  auto k = backend_->build_program(kIncrement, "increment");
  const std::int64_t n = std::int64_t{1} << 19;  // 2 MiB of f32
  std::vector<float> v(static_cast<std::size_t>(n), 41.0f);
  Array b = empty({n}, f32, *dev_);
  std::optional<Array> a = array(v, {n}, *dev_);
  const std::uintptr_t address = a->address();
  std::optional<Array> c;
  {
    QueueGate gate(*backend_);
    backend_->launch(*k, OpenClArgs().array(*a).array(b).list(), 256);
    a.reset();  // dropped while the launch that reads it is still queued
    EXPECT_EQ(backend_->pool().held(), static_cast<std::size_t>(n) * 4);
    c = empty({n - 100}, f32, *dev_);  // within a quarter of the size: the kept block
    EXPECT_EQ(c->address(), address);
    EXPECT_TRUE(buf(*c).allocation().pending()) << "its last owner's launch is still queued";
    c->fill(5.0);  // queued behind the launch that reads the old contents
  }
  for (float x : b.to_vector<float>()) ASSERT_EQ(x, 42.0f);
  for (float x : c->to_vector<float>()) ASSERT_EQ(x, 5.0f);
  EXPECT_EQ(backend_->memory_space(address), "opencl");
  c.reset();
  backend_->pool().release_all();  // frees, in queue order, what the pool kept
  backend_->synchronize();
  EXPECT_EQ(backend_->memory_space(address), "cpu");
  EXPECT_EQ(backend_->pool().held(), 0u);
}

TEST_F(OpenCl, ThePoolSeesOnlyRoots) {
  if (backend_->pool().cap() < (std::size_t{4} << 20)) GTEST_SKIP() << "the pool is off";
  backend_->pool().release_all();
  const std::int64_t n = std::int64_t{1} << 19;  // 2 MiB of f32
  std::optional<Array> root = empty({n}, f32, *dev_);
  std::optional<Array> view = root->slice(n / 4, n);  // 1.5 MiB of it
  view.reset();                                       // a view frees nothing
  EXPECT_EQ(backend_->pool().held(), 0u);
  view = root->slice(0, n / 2);
  root.reset();  // the view keeps the root alive
  EXPECT_EQ(backend_->pool().held(), 0u);
  view.reset();  // the last holder: the root's allocation goes to the pool
  EXPECT_EQ(backend_->pool().held(), static_cast<std::size_t>(n) * 4);
  backend_->pool().release_all();
  backend_->synchronize();
}

TEST_F(OpenCl, SharedArraysCompleteTheirLaunches) {
  auto k = backend_->build_program(kIncrement, "increment");
  Array a = full({1000}, Scalar::from(1.0), f32, *dev_);
  Array b = zeros({1000}, f32, *dev_);
  auto* m = to_dlpack_versioned(b);  // b is now shared outside Tack
  backend_->launch(*k, OpenClArgs().array(a).array(b).list(), 64);
  EXPECT_FALSE(buf(b).allocation().pending());  // completed before launch returned
  // Read as the other side would: through a queue of its own, which is not ordered after
  // Tack's, so it sees the result only if the launch has really completed. (A raw host read
  // of coarse-grained SVM is valid on PoCL only; a GPU needs a copy or a map.)
  const detail::OpenClApi& api = backend_->api();
  cl_int err = CL_SUCCESS;
  cl_command_queue other = api.CreateCommandQueueWithProperties(
      backend_->context(), backend_->device_id(), nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  float x = 0;
  ASSERT_EQ(
      api.EnqueueSVMMemcpy(other, CL_TRUE, &x, reinterpret_cast<const void*>(b.address() + 999 * 4),
                           4, 0, nullptr, nullptr),
      CL_SUCCESS);
  api.ReleaseCommandQueue(other);
  EXPECT_EQ(x, 2.0f);
  m->deleter(m);
}

TEST_F(OpenCl, WorkGroupsOfCpuDevicesKeepPrivateArraysSmall) {
  const std::size_t global = 3 * 1024;
  EXPECT_EQ(backend_->work_group_size(0, global), 0u) << "no private arrays: the driver chooses";
  if (!backend_->info().cpu) {
    EXPECT_EQ(backend_->work_group_size(16 << 10, global), 0u) << "GPUs keep them per item";
    return;
  }
  const auto budget = static_cast<std::size_t>(OpenClBackend::kWorkGroupPrivateBytes);
  for (std::int64_t bytes : {std::int64_t{4}, std::int64_t{1000}, std::int64_t{16 << 10},
                             std::int64_t{64 << 10}, std::int64_t{1} << 22}) {
    const std::size_t local = backend_->work_group_size(bytes, global);
    ASSERT_GE(local, 1u);
    EXPECT_EQ(global % local, 0u) << bytes;
    EXPECT_EQ(local & (local - 1), 0u) << "a power of two: " << local;
    if (local > 1) {
      EXPECT_LE(local * static_cast<std::size_t>(bytes), budget) << bytes;
    }
    // The largest such size: doubling it breaks the budget or the divisibility.
    EXPECT_TRUE(2 * local * static_cast<std::size_t>(bytes) > budget || global % (2 * local) != 0)
        << bytes;
  }
  EXPECT_EQ(backend_->work_group_size(16 << 10, global), 64u);
  EXPECT_EQ(backend_->work_group_size(16 << 10, 96), 32u) << "bounded by what divides 96";
}

TEST_F(OpenCl, LaunchRefusesArraysOfAnotherDevice) {
  auto k = backend_->build_program(kIncrement, "increment");
  Array host = zeros({10}, f32, device("cpu"));
  Array b = zeros({10}, f32, *dev_);
  expect_error<RuntimeError>(
      [&] { backend_->launch(*k, OpenClArgs().array(host).array(b).list(), 16); },
      "is an array on device 'cpu', but the launch runs on 'opencl:0'");
  // Too few arguments: the runtime refuses to enqueue (the message names the kernel).
  expect_error<RuntimeError>([&] { backend_->launch(*k, OpenClArgs().array(b).list(), 16); },
                             "OpenCL kernel 'increment'");
}

TEST_F(OpenCl, ConcurrentLaunchesFromHostThreads) {
  // clSetKernelArg and the enqueue must not interleave between threads sharing one kernel.
  auto k = backend_->build_program(kIncrement, "increment");
  constexpr int kThreads = 4;
  std::vector<Array> in, out;
  for (int t = 0; t < kThreads; ++t) {
    in.push_back(full({512}, Scalar::from(100.0 * t), f32, *dev_));
    out.push_back(zeros({512}, f32, *dev_));
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 25; ++r)
        backend_->launch(*k, OpenClArgs().array(in[t]).array(out[t]).list(), 128);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    for (float x : out[t].to_vector<float>()) ASSERT_EQ(x, 100.0f * t + 1.0f) << "thread " << t;
  }
}

// ---- faults -----------------------------------------------------------------------------------

TEST_F(OpenCl, OutOfMemoryLeavesOtherArraysIntact) {
  Array keep = full({256}, Scalar::from(7.0), f64, *dev_);
  expect_error<RuntimeError>([&] { empty({std::int64_t{1} << 47}, f64, *dev_); },
                             "on device 'opencl:0'");
  expect_error<RuntimeError>([&] { empty({std::int64_t{1} << 47}, f64, *dev_); },
                             "out of device memory");
  expect_error<RuntimeError>(
      [&] { empty({static_cast<std::int64_t>(backend_->info().max_alloc)}, vec(2, u8), *dev_); },
      "per allocation");
  for (double x : keep.to_vector<double>()) ASSERT_EQ(x, 7.0);
  Array after = full({4}, Scalar::from(1.0), f32, *dev_);
  EXPECT_EQ(after.item<float>({3}), 1.0f);
}

TEST_F(OpenCl, BuildErrorQuotesTheGeneratedLine) {
  const std::string source =
      "__kernel void broken(__global float* a, long n) {\n"
      "  long i = get_global_id(0);\n"
      "  a[i] = undefined_name + 1.0f;\n"
      "}\n";
  try {
    backend_->build_program(source, "broken");
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.kernel(), "broken");
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(e.message().find("undefined_name"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("a[i] = undefined_name + 1.0f;"), std::string::npos)
        << e.what();
  }
}

TEST(OpenClBuildLog, VendorFormatsPointAtTheLine) {
  const std::string source = "line one\nline two\nline three\n";
  const char* logs[] = {
      "error: /root/.cache/pocl/kcache/tempfile_x.cl:2:5: use of undeclared identifier 'q'",
      "<kernel>:2:5: error: use of undeclared identifier 'q'",
      "/tmp/OCL123.cl:2:5: error: use of undeclared identifier 'q'\n1 error generated.",
  };
  for (const char* log : logs) {
    try {
      detail::throw_build_error("k", "opencl:0", source, log);
    } catch (const CompileError& e) {
      EXPECT_EQ(e.line(), 2) << log;
      EXPECT_EQ(e.column(), 5) << log;
      EXPECT_EQ(e.message().rfind("use of undeclared identifier 'q'", 0), 0u) << e.message();
      EXPECT_NE(std::string(e.what()).find("line two"), std::string::npos) << e.what();
    }
  }
  expect_error<CompileError>(
      [&] { detail::throw_build_error("k", "opencl:0", source, "something odd"); },
      "rejected the generated source: something odd");
  // A link-time error has no location (NVIDIA's ptxas): it points at the name's first use.
  const std::string calls =
      "long f(long);\n__kernel void k(__global long* a) {\n  a[0] = f(1);\n}\n";
  try {
    detail::throw_build_error("k", "opencl:0", calls,
                              "ptxas fatal   : Unresolved extern function 'f'\n");
    ADD_FAILURE() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.column(), 6);
    EXPECT_NE(e.message().find("Unresolved extern function 'f'"), std::string::npos) << e.what();
  }
  try {
    detail::throw_build_error("k", "opencl:0", "__kernel void k() {\n  g_1(2);\n}\n",
                              "error : unresolved `g_1` (used by 'k')");
    ADD_FAILURE() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.column(), 3);
  }
}

TEST_F(OpenCl, ProgramsAreCachedInMemoryAndOnDisk) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tack-ocl-cache-" + std::to_string(::getpid()));
  ::setenv("TACK_CACHE_DIR", dir.c_str(), 1);
  // PoCL keeps its own cache, so Tack writes binaries only when it is off (as it is here: the
  // variable is read by Tack at each build; PoCL read it long ago and keeps its cache on).
  const bool driver_cache = detail::driver_caches_programs(backend_->info());
  ::setenv("POCL_KERNEL_CACHE", "0", 1);
  ::setenv("CUDA_CACHE_DISABLE", "1", 1);
  const std::string source = std::string(kIncrement) + "// cache test\n";
  auto first = backend_->build_program(source, "increment");
  EXPECT_EQ(backend_->build_program(source, "increment"), first);  // in memory
  EXPECT_FALSE(first->from_disk());
  // A fresh context (a second discovery) has an empty memory cache: it loads the binary.
  auto fresh = detail::discover_opencl(detail::OpenClApi::instance());
  ASSERT_FALSE(fresh.backends.empty());
  auto again = fresh.backends.front()->build_program(source, "increment");
  EXPECT_TRUE(again->from_disk());
  // A corrupt file costs only a recompile.
  for (const auto& e : fs::directory_iterator(dir / "opencl")) {
    std::FILE* f = std::fopen(e.path().c_str(), "r+b");
    std::fputs("garbage", f);
    std::fclose(f);
  }
  auto third = detail::discover_opencl(detail::OpenClApi::instance());
  auto rebuilt = third.backends.front()->build_program(source, "increment");
  EXPECT_FALSE(rebuilt->from_disk());
  // With the driver's cache on, Tack writes nothing.
  ::unsetenv("POCL_KERNEL_CACHE");
  ::unsetenv("CUDA_CACHE_DISABLE");
  fs::remove_all(dir);
  if (driver_cache) {
    const std::string other = std::string(kIncrement) + "// not written\n";
    backend_->build_program(other, "increment");
    EXPECT_FALSE(fs::exists(dir / "opencl")) << "wrote a binary the driver caches itself";
  }
  ::unsetenv("TACK_CACHE_DIR");
  fs::remove_all(dir);
}

// ---- DLPack -----------------------------------------------------------------------------------

TEST_F(OpenCl, DLPackRoundTrip) {
  std::vector<std::int32_t> v = {1, 2, 3, 4, 5, 6};
  Array a = array(v, {2, 3}, *dev_);
  EXPECT_EQ(dlpack_device(a).device_type, dlpack::kOpenCL);
  EXPECT_EQ(dlpack_device(a).device_id, 0);
  auto* m = to_dlpack_versioned(a);
  EXPECT_EQ(m->dl_tensor.device.device_type, dlpack::kOpenCL);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(m->dl_tensor.data), a.address());
  Array b = from_dlpack(m, std::nullopt, *dev_);  // Tack owns m now
  EXPECT_EQ(b.address(), a.address());
  EXPECT_EQ(b.to_vector<std::int32_t>(), v);
  b.fill(9.0);
  EXPECT_EQ(a.item<std::int32_t>({1, 2}), 9);

  // No device asked for: the array is where the memory is, whatever the default device.
  Array same = from_dlpack(to_dlpack_versioned(a));
  EXPECT_EQ(same.device(), *dev_);
  EXPECT_EQ(same.address(), a.address());

  // The CPU cannot address OpenCL memory: there the import is a copy, which copy=false
  // refuses; a host pointer labelled OpenCL is refused too.
  auto* m2 = to_dlpack_versioned(a);
  expect_error<ValueError>([&] { from_dlpack(m2, false, device("cpu")); },
                           "lives on device type 4 (id 0) ('opencl:0'), not on device 'cpu'");
  void* const real = m2->dl_tensor.data;
  std::vector<std::int32_t> host(6);
  m2->dl_tensor.data = host.data();
  expect_error<ValueError>([&] { from_dlpack(m2, std::nullopt, *dev_); },
                           "accepts only opencl memory");
  m2->dl_tensor.data = real;
  Array on_cpu = from_dlpack(m2, std::nullopt, device("cpu"));  // a copy: m2 released at once
  EXPECT_EQ(on_cpu.device(), device("cpu"));
  EXPECT_EQ(on_cpu.to_vector<std::int32_t>(), std::vector<std::int32_t>(6, 9));
  on_cpu.fill(1.0);
  EXPECT_EQ(a.item<std::int32_t>({0, 0}), 9) << "a copy, not the device's memory";
}

// A hand-made versioned tensor over `data`, counting its deleter's calls.
struct TestTensor {
  dlpack::ManagedTensorVersioned m{};
  std::vector<std::int64_t> shape, strides;
  int deleted = 0;
  TestTensor(void* data, std::vector<std::int64_t> sh, std::vector<std::int64_t> st,
             std::uint64_t byte_offset = 0)
      : shape(std::move(sh)), strides(std::move(st)) {
    m.version = dlpack::kVersion;
    m.manager_ctx = this;
    m.deleter = [](dlpack::ManagedTensorVersioned* self) {
      ++static_cast<TestTensor*>(self->manager_ctx)->deleted;
    };
    m.dl_tensor.data = data;
    m.dl_tensor.device = {dlpack::kOpenCL, 0};
    m.dl_tensor.ndim = static_cast<std::int32_t>(shape.size());
    m.dl_tensor.dtype = {dlpack::kInt, 32, 1};
    m.dl_tensor.shape = shape.data();
    m.dl_tensor.strides = strides.empty() ? nullptr : strides.data();
    m.dl_tensor.byte_offset = byte_offset;
  }
};

TEST_F(OpenCl, DLPackCopiesOfDeviceMemoryAreMadeOnTheDevice) {
  std::vector<std::int32_t> v = {1, 2, 3, 4, 5, 6};
  Array a = array(v, {2, 3}, *dev_);
  // copy=True of a contiguous tensor: a new allocation of the device, the producer released.
  auto* m = to_dlpack_versioned(a);
  Array b = from_dlpack(m, true, *dev_);
  EXPECT_NE(b.address(), a.address());
  EXPECT_EQ(b.device(), *dev_);
  EXPECT_EQ(b.shape(), (Shape{2, 3}));
  EXPECT_EQ(b.to_vector<std::int32_t>(), v);
  b.fill(0.0);
  EXPECT_EQ(a.to_vector<std::int32_t>(), v);

  void* base = reinterpret_cast<void*>(a.address());
  auto imported = [&](TestTensor& t, std::optional<bool> copy) {
    Array r = from_dlpack(&t.m, copy, *dev_);
    EXPECT_EQ(t.deleted, 1);  // copied: released at once
    EXPECT_NE(r.address(), a.address());
    return r.to_vector<std::int32_t>();
  };
  TestTensor odd(base, {3}, {2});
  EXPECT_EQ(imported(odd, true), (std::vector<std::int32_t>{1, 3, 5}));
  TestTensor reversed(base, {3}, {-2}, 5 * 4);
  EXPECT_EQ(imported(reversed, true), (std::vector<std::int32_t>{6, 4, 2}));
  TestTensor broadcast(base, {2, 3}, {0, 1});
  EXPECT_EQ(imported(broadcast, true), (std::vector<std::int32_t>{1, 2, 3, 1, 2, 3}));
  // Not contiguous without copy: refused, and the caller keeps the tensor.
  TestTensor strided(base, {3}, {2});
  expect_error<ValueError>([&] { from_dlpack(&strided.m, std::nullopt, *dev_); },
                           "not C-contiguous");
  EXPECT_EQ(strided.deleted, 0);
  // Empty device tensors never touch their pointer.
  TestTensor empty_tensor(nullptr, {0, 4}, {});
  Array e = from_dlpack(&empty_tensor.m, std::nullopt, *dev_);
  EXPECT_EQ(e.shape(), (Shape{0, 4}));
  EXPECT_EQ(e.device(), *dev_);
  // A copy reads only memory of the device: a span past the allocation is refused.
  TestTensor past_the_end(base, {100000}, {});
  expect_error<ValueError>([&] { from_dlpack(&past_the_end.m, true, *dev_); }, "");
  EXPECT_EQ(past_the_end.deleted, 0);
  std::vector<std::int32_t> host(6);
  TestTensor host_memory(host.data(), {6}, {});
  expect_error<ValueError>([&] { from_dlpack(&host_memory.m, true, *dev_); },
                           "accepts only opencl memory");
}

TEST_F(OpenCl, DLPackStreamsAreRefusedLikeTheCpus) {
  Array a = zeros({4}, f32, *dev_);
  ExportRequest r;
  r.max_version = dlpack::Version{1, 0};
  r.stream = 1;
  expect_error<ValueError>([&] { export_dlpack(a, r); }, "has no DLPack streams");
  r.stream = -1;
  ExportedTensor t = export_dlpack(a, r);
  auto* m = static_cast<dlpack::ManagedTensorVersioned*>(t.tensor);
  m->deleter(m);
}

}  // namespace
}  // namespace tack
