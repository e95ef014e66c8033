// FNV-1a, 64 bits: the one hash Tack uses for cache keys, file names and checksums (none of
// them needs to resist deliberate collisions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tack::detail {

class Fnv1a {
 public:
  void add(const void* data, std::size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < size; ++i) {
      h_ ^= p[i];
      h_ *= 1099511628211ull;
    }
  }
  template <class T>
  void add_value(const T& v) {
    add(&v, sizeof v);
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 14695981039346656037ull;  // 0xcbf29ce484222325
};

inline std::uint64_t fnv1a(std::string_view s) {
  Fnv1a h;
  h.add(s.data(), s.size());
  return h.value();
}

// Sixteen lowercase hex digits.
std::string hex64(std::uint64_t v);

}  // namespace tack::detail
