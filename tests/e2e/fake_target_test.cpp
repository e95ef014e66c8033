// A third device kind that exists only in this test: a Backend of host memory ("fake") and a
// Target registered for it. Kernels launch on it through the public API with nothing in
// dispatch/ knowing it exists: the seam of docs/architecture.md ("Adding a device") is the
// whole of what a device adds. The fake target delegates code generation to the CPU target
// (its memory is host memory) and records what dispatch asked of it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "memory/device_buffer.hpp"
#include "runtime/backend.hpp"
#include "tack/tack.hpp"
#include "targets/cpu/cpu_target.hpp"
#include "targets/target.hpp"

namespace tack {
namespace {

using detail::Backend;
using detail::DeviceBuffer;

class FakeBuffer final : public DeviceBuffer {
 public:
  FakeBuffer(std::byte* data, std::size_t nbytes, std::shared_ptr<detail::AllocationState> state,
             std::shared_ptr<Backend> backend)
      : DeviceBuffer(nbytes, std::move(state)), data_(data), backend_(std::move(backend)) {}
  ~FakeBuffer() override {
    if (!is_view() && owned()) std::free(data_);
  }
  std::uintptr_t address() const override { return reinterpret_cast<std::uintptr_t>(data_); }
  std::optional<detail::ByteSpan> span() const override {
    return detail::ByteSpan{address(), address() + nbytes_};
  }
  void from_host(const void* src, std::size_t offset, std::size_t count) override {
    check_range(offset, count, "write");
    if (count) std::memcpy(data_ + offset, src, count);
  }
  void to_host(void* dst, std::size_t offset, std::size_t count) const override {
    check_range(offset, count, "read");
    if (count) std::memcpy(dst, data_ + offset, count);
  }
  void fill(const void* pattern, std::size_t size) override {
    for (std::size_t at = 0; at + size <= nbytes_; at += size)
      std::memcpy(data_ + at, pattern, size);
  }
  std::string_view backend_name() const override { return "fake"; }
  std::shared_ptr<Backend> backend() const override { return backend_; }

 protected:
  std::shared_ptr<DeviceBuffer> make_view_impl(std::size_t offset, std::size_t count) override {
    return std::make_shared<FakeBuffer>(data_ + offset, count, state_, backend_);
  }

 private:
  std::byte* data_;
  std::shared_ptr<Backend> backend_;
};

class FakeBackend : public Backend {
 public:
  std::string name() const override { return "fake:0"; }
  std::string kind() const override { return "fake"; }
  std::shared_ptr<DeviceBuffer> allocate(std::size_t nbytes) override {
    auto* p = static_cast<std::byte*>(
        std::aligned_alloc(64, std::max<std::size_t>(64, (nbytes + 63) / 64 * 64)));
    return std::make_shared<FakeBuffer>(p, nbytes, std::make_shared<detail::AllocationState>(),
                                        shared_from_this());
  }
  std::shared_ptr<DeviceBuffer> wrap(std::uintptr_t address, std::size_t nbytes,
                                     std::shared_ptr<void> hold) override {
    auto state = std::make_shared<detail::AllocationState>();
    state->owned = false;
    state->hold = std::move(hold);
    state->shared.store(true);
    return std::make_shared<FakeBuffer>(reinterpret_cast<std::byte*>(address), nbytes,
                                        std::move(state), shared_from_this());
  }
  std::string memory_space(std::uintptr_t) const override { return "cpu"; }
};

// What dispatch asked of the fake target.
struct Calls {
  std::atomic<int> compiles{0}, launches{0}, inspects{0};
};

class FakeCode final : public detail::VariantCode {
 public:
  FakeCode(std::unique_ptr<detail::VariantCode> inner, Calls& calls)
      : inner_(std::move(inner)), calls_(calls) {}
  codegen::TackDebugStatus launch(const KernelArg* args, std::size_t count) override {
    ++calls_.launches;
    return inner_->launch(args, count);
  }
  std::string inspect(const KernelArg* args, std::size_t count, bool optimized) override {
    ++calls_.inspects;
    return "fake device code\n" + inner_->inspect(args, count, optimized);
  }
  std::size_t code_count() const override { return inner_->code_count(); }

 private:
  std::unique_ptr<detail::VariantCode> inner_;
  Calls& calls_;
};

class FakeTarget final : public detail::Target {
 public:
  explicit FakeTarget(Calls& calls) : calls_(calls) {}
  std::unique_ptr<detail::VariantCode> compile(const std::shared_ptr<Backend>& device,
                                               const compiler::KernelIr& kernel,
                                               const detail::ParamFacts& facts,
                                               bool debug) const override {
    ++calls_.compiles;
    EXPECT_EQ(device->kind(), "fake");
    return std::make_unique<FakeCode>(detail::cpu_target().compile(device, kernel, facts, debug),
                                      calls_);
  }

 private:
  Calls& calls_;
};

class FakeDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    static Calls* calls = new Calls;  // the registered target outlives every test's kernels
    static FakeTarget* target = [] {
      auto* t = new FakeTarget(*calls);
      detail::register_target("fake", t);
      return t;
    }();
    (void)target;
    calls_ = calls;
    device_.emplace(std::make_shared<FakeBackend>());
  }
  void TearDown() override { set_debug(false); }

  Calls* calls_ = nullptr;
  std::optional<Device> device_;
};

const char* kSaxpy = R"(
def saxpy(a, x, y):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]
)";

TEST_F(FakeDevice, KernelsLaunchThroughTheRegisteredTarget) {
  const int compiles = calls_->compiles, launches = calls_->launches;
  Kernel k = kernel(kSaxpy);
  Array x = full({100}, Scalar::from(2.0), f32, *device_);
  Array y = full({100}, Scalar::from(1.0), f32, *device_);
  EXPECT_EQ(x.device().kind(), "fake");
  const auto version = y.version();
  k(Scalar::from(3.0), x, y);
  k(Scalar::from(3.0), x, y);
  EXPECT_EQ(calls_->compiles - compiles, 1) << "one variant, compiled once";
  EXPECT_EQ(calls_->launches - launches, 2);
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>(100, 13.0f));
  EXPECT_GT(y.version(), version) << "dispatch bumps the written array's version";
  EXPECT_EQ(k.variant_count(), 1u);
  const std::string source = inspect(k, {KernelArg(Scalar::from(3.0)), x, y}, "source");
  EXPECT_EQ(source.rfind("fake device code\n", 0), 0u) << source;
  EXPECT_NE(inspect(k, {KernelArg(Scalar::from(3.0)), x, y}, "ir").find("saxpy"),
            std::string::npos);
}

TEST_F(FakeDevice, DispatchChecksApplyOnEveryDevice) {
  Kernel k = kernel(kSaxpy);
  Array owner = zeros({8}, f32, *device_);
  Array ro = array_from_ptr(owner.address(), f32, {8}, false, *device_);
  const int launches = calls_->launches;
  EXPECT_THROW(k(Scalar::from(1.0), owner, ro), ValueError) << "a read-only written array";
  Array cpu = zeros({8});
  EXPECT_THROW(k(Scalar::from(1.0), owner, cpu), RuntimeError) << "arrays of two devices";
  EXPECT_EQ(calls_->launches, launches) << "a refused call reached the target";
}

TEST_F(FakeDevice, DebugModeStatusBecomesTheIndexError) {
  set_debug(true);
  Kernel k = kernel("def past(x):\n    for i in range(x.shape[0]):\n        x[i + 1] = 1.0\n");
  Array x = zeros({4}, f32, *device_);
  try {
    k(x);
    ADD_FAILURE() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("index 4 is out of bounds for axis 0 of array 'x'"),
              std::string::npos)
        << e.what();
  }
}

// A device kind no target serves: its arrays work, its kernels are refused by name.
class NoTargetBackend final : public FakeBackend {
 public:
  std::string name() const override { return "none:0"; }
  std::string kind() const override { return "none"; }
};

TEST_F(FakeDevice, ADeviceWithoutATargetIsARuntimeError) {
  const Device none(std::make_shared<NoTargetBackend>());
  Kernel k = kernel(kSaxpy);
  Array x = zeros({4}, f32, none), y = zeros({4}, f32, none);
  try {
    k(Scalar::from(1.0), x, y);
    ADD_FAILURE() << "launched";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot launch kernels on device 'none:0' (kind 'none')"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tack
