// The CPU target's process-wide switches (include/tack/kernel.hpp): the disjoint-arrays
// specialization, the tiered compile and the streaming threshold. They are the CPU's, so they
// live with its target.
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "tack/kernel.hpp"
#include "targets/cpu/cpu_target.hpp"

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

// The last-level cache's size: the largest data or unified cache Linux lists for CPU 0 (a
// virtual machine's sysconf may report the host's), else sysconf's level 3, else 32 MiB.
std::uint64_t read_last_level_cache_bytes() {
  std::uint64_t largest = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream type_file(dir + "/type"), size_file(dir + "/size");
    std::string type, size;
    if (!(type_file >> type) || !(size_file >> size) || type == "Instruction") continue;
    char* end = nullptr;
    std::uint64_t bytes = std::strtoull(size.c_str(), &end, 10);
    if (end != nullptr && (*end == 'K' || *end == 'k')) bytes <<= 10;
    if (end != nullptr && (*end == 'M' || *end == 'm')) bytes <<= 20;
    if (bytes > largest) largest = bytes;
  }
  if (largest > 0) return largest;
  const long l3 = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
  return l3 > 0 ? static_cast<std::uint64_t>(l3) : std::uint64_t{32} << 20;
}

std::atomic<std::uint64_t>& streaming_bytes() {
  static std::atomic<std::uint64_t> bytes{[] {
    const char* s = std::getenv("TACK_STREAM_BYTES");
    if (s != nullptr && *s != '\0') {
      char* end = nullptr;
      const std::uint64_t v = std::strtoull(s, &end, 10);
      if (end != nullptr && *end == '\0') return v;
    }
    return detail::last_level_cache_bytes();
  }()};
  return bytes;
}

}  // namespace

// Read once per process (16 files of /sys: 0.15 ms), on the background worker at import.
std::uint64_t detail::last_level_cache_bytes() {
  static const std::uint64_t bytes = read_last_level_cache_bytes();
  return bytes;
}

void set_streaming_threshold(std::uint64_t bytes) {
  streaming_bytes().store(bytes, std::memory_order_relaxed);
}
std::uint64_t streaming_threshold() {
  return streaming_bytes().load(std::memory_order_relaxed);
}

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
