// The device kinds' registry (targets/registry.cpp) and what targets share (target.cpp): every
// built-in kind has its target and its devices listed, offline code is asked of the kinds that
// make it, scalars are packed in the slot's low bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "ir/builder.hpp"
#include "runtime/backend.hpp"
#include "runtime/opencl/opencl_backend.hpp"
#include "tack/error.hpp"
#include "targets/target.hpp"

namespace tack::detail {
namespace {

template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(TargetRegistry, EveryBuiltInKindHasItsTarget) {
  ASSERT_NE(target_for("cpu"), nullptr);
  EXPECT_EQ(target_for("cpu")->display_name(), "CPU");
  ASSERT_NE(target_for("opencl"), nullptr);
  EXPECT_EQ(target_for("opencl")->display_name(), "OpenCL");
  EXPECT_EQ(target_for(*find_backend("cpu")), target_for("cpu"));
  EXPECT_EQ(target_for("metal"), nullptr);
#ifdef TACK_HAVE_CUDA
  ASSERT_NE(target_for("cuda"), nullptr);
  EXPECT_TRUE(target_for("cuda")->compiles_offline());
  EXPECT_EQ(target_for("cuda")->default_arch(), std::string(kDefaultCudaArch));
#endif
  for (const auto& [kind, target] : registered_targets()) {
    EXPECT_EQ(target_for(kind), target) << kind;
  }
}

// The registry's line lists a kind's devices: OpenCL's, where a platform answers.
TEST(TargetRegistry, TheDeviceListHoldsEachKindsDevices) {
  const auto& found = opencl_devices();
  if (found.backends.empty()) GTEST_SKIP() << "no OpenCL device";
  const auto all = all_backends();
  EXPECT_EQ(all.front()->kind(), "cpu") << "the CPU stays first";
  for (const auto& b : found.backends) {
    EXPECT_NE(std::find(all.begin(), all.end(), b), all.end()) << b->name();
  }
}

TEST(TargetRegistry, OfflineCodeIsAskedOfKindsThatMakeIt) {
  const std::string m = error_of<ValueError>([] { offline_target("cpu"); });
  EXPECT_NE(m.find("device 'cpu' cannot be compiled for offline"), std::string::npos) << m;
  EXPECT_NE(m.find("device=\"cuda\""), std::string::npos) << m;
  EXPECT_EQ(&offline_target("cuda"), target_for("cuda"));
  EXPECT_EQ(target_for("cuda")->display_name(), "CUDA");
#ifndef TACK_HAVE_CUDA
  // Left out of this build: its modes are known, its code is the error saying why.
  EXPECT_NE(error_of<RuntimeError>([] {
              offline_target("cuda").offline_code(compiler::KernelIr{}, false, "ptx", "");
            }).find("built without CUDA"),
            std::string::npos);
#endif
}

TEST(TargetShared, ScalarsSitInTheSlotsLowBytes) {
  const std::uint64_t f = scalar_slot(Scalar::from(1.5), ir::ScalarType::f32);
  float back = 0;
  std::memcpy(&back, &f, sizeof back);
  EXPECT_EQ(back, 1.5f);
  EXPECT_EQ(scalar_slot(Scalar::from(std::int64_t{-1}), ir::ScalarType::i32) & 0xffffffffu,
            0xffffffffu);
  EXPECT_EQ(scalar_slot(Scalar::from_bool(true), ir::ScalarType::boolean), 1u);
  EXPECT_EQ(scalar_slot(Scalar::from(std::int64_t{7}), ir::ScalarType::u64), 7u);
}

TEST(TargetShared, WorkgroupLaunchesAreWholeGroups) {
  ir::Function fn;
  fn.name = "k";
  fn.workgroups = ir::WorkgroupUse{3, 5, "tack.barrier()", ""};
  check_whole_workgroups(fn, 2 * ir::kWorkgroupSize);
  const std::string m = error_of<ValueError>([&] { check_whole_workgroups(fn, 300); });
  EXPECT_NE(m.find("this call has 300"), std::string::npos) << m;
  EXPECT_NE(m.find("tack.barrier() on line 3"), std::string::npos) << m;
}

}  // namespace
}  // namespace tack::detail
