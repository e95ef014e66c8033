// The per-device test fixture: a suite written once with TEST_P(OnDevice, ...) and instantiated
// with TACK_INSTANTIATE_ON_DEVICES(Suite) runs on every device present (tack::devices(): the CPU
// always, OpenCL devices where a platform answers). Test names end in the device ("/cpu",
// "/opencl_0"). The test's device is also the default device for its duration, so arrays made
// without a device argument land on it.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "tack/tack.hpp"

namespace tack {
// How GoogleTest prints a device parameter ("cpu", not its bytes).
inline void PrintTo(const Device& d, std::ostream* os) {
  *os << d.name();
}
}  // namespace tack

namespace tack::test {

// Runs `fn`, which must throw E, and checks that the message holds every fragment.
template <class E>
void expect_error(const std::function<void()>& fn, const std::vector<std::string>& fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected an exception";
  } catch (const E& e) {
    for (const auto& f : fragments) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos)
          << "message: " << e.what() << "\nexpected to contain: " << f;
    }
  }
}

// Arrays only (links with the core layer alone): the device, made the default for the test.
class ArraysOnDevice : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    dev_ = GetParam();
    previous_ = default_device();
    set_default_device(dev_);
  }
  void TearDown() override {
    sync();
    set_default_device(previous_);
  }
  bool on_cpu() const { return dev_.kind() == "cpu"; }
  template <class T>
  Array arr(const std::vector<T>& v, Shape shape = {}) const {
    if (shape.empty()) shape = {static_cast<std::int64_t>(v.size())};
    return array(v, shape, dev_);
  }
  Device dev_ = default_device();
  Device previous_ = default_device();
};

// Kernels too: the process-wide kernel settings are at their defaults (debug mode off, the
// disjoint specialization on) at the start and the end of every test.
class OnDevice : public ArraysOnDevice {
 protected:
  void SetUp() override {
    ArraysOnDevice::SetUp();
    set_debug(false);
    set_specialize_disjoint(true);
  }
  void TearDown() override {
    set_debug(false);
    set_specialize_disjoint(true);
    ArraysOnDevice::TearDown();
  }
};

inline std::string device_test_name(const ::testing::TestParamInfo<Device>& info) {
  std::string name = info.param.name();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

}  // namespace tack::test

// Instantiates a TEST_P suite (a class deriving from tack::test::OnDevice or ArraysOnDevice, or
// one of them through `using`) once per device present.
#define TACK_INSTANTIATE_ON_DEVICES(suite)                                         \
  INSTANTIATE_TEST_SUITE_P(Devices, suite, ::testing::ValuesIn(::tack::devices()), \
                           ::tack::test::device_test_name)
