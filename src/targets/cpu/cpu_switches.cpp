// The CPU target's process-wide switches (include/tack/kernel.hpp): the disjoint-arrays
// specialization and the tiered compile. They are the CPU's, so they live with its target.
#include <atomic>
#include <cstdlib>
#include <string_view>

#include "tack/kernel.hpp"

namespace tack {
namespace {

std::atomic<bool>& disjoint_flag() {
  static std::atomic<bool> flag{[] {
    const char* s = std::getenv("TACK_DISJOINT");
    return s == nullptr || *s == '\0' || std::string_view(s) != "0";
  }()};
  return flag;
}

std::atomic<bool>& tiered_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

}  // namespace

void set_specialize_disjoint(bool on) {
  disjoint_flag().store(on, std::memory_order_relaxed);
}
bool specialize_disjoint() {
  return disjoint_flag().load(std::memory_order_relaxed);
}

void set_tiered_compile(bool on) {
  tiered_flag().store(on, std::memory_order_relaxed);
}
bool tiered_compile() {
  const char* v = std::getenv("TACK_TIERED_COMPILE");  // read on every compile, as documented
  if (v != nullptr && (v[0] == '0' || v[0] == '1') && v[1] == '\0') return v[0] == '1';
  return tiered_flag().load(std::memory_order_relaxed);
}

}  // namespace tack
