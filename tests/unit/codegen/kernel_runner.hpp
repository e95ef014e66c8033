// Test helpers: pack arguments into the CPU kernel ABI's slots and run a compiled kernel.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "codegen/kernel_abi.hpp"
#include "codegen/llvm/llvm_codegen.hpp"

namespace tack::codegen::testing {

// The flat args array, filled parameter by parameter in order.
class Args {
 public:
  template <class T>
  Args& array(T* data, std::vector<int64_t> extents) {
    slots_.push_back(reinterpret_cast<uint64_t>(data));
    for (int64_t e : extents) slots_.push_back(static_cast<uint64_t>(e));
    return *this;
  }
  template <class T>
  Args& array(std::vector<T>& v) {
    return array(v.data(), {static_cast<int64_t>(v.size())});
  }
  Args& i64(int64_t v) { return push(scalar_slot_i64(v)); }
  Args& u64(uint64_t v) { return push(scalar_slot_u64(v)); }
  Args& f32(float v) { return push(scalar_slot_f32(v)); }
  Args& f64(double v) { return push(scalar_slot_f64(v)); }
  const uint64_t* data() const { return slots_.data(); }

 private:
  Args& push(uint64_t s) {
    slots_.push_back(s);
    return *this;
  }
  std::vector<uint64_t> slots_;
};

// Runs the whole iteration space, in pieces of `chunk` iterations (to exercise the split of
// multi-dim loops at arbitrary points), optionally on several threads at once.
inline int64_t run(const JitModule& m, const Args& args, TackDebugStatus* status = nullptr,
                   int64_t chunk = 0, int threads = 1) {
  int64_t n = m.extent()(args.data());
  if (chunk <= 0) chunk = n > 0 ? n : 1;
  if (threads <= 1) {
    for (int64_t b = 0; b < n; b += chunk)
      m.chunk()(args.data(), b, std::min(n, b + chunk), status);
    return n;
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int64_t b = t * chunk; b < n; b += chunk * threads) {
        m.chunk()(args.data(), b, std::min(n, b + chunk), status);
      }
    });
  }
  for (std::thread& th : pool) th.join();
  return n;
}

}  // namespace tack::codegen::testing
