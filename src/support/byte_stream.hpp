// Little binary formats of the disk cache (linked images, kernel records): values appended as
// their bytes, read back with every length checked, so a short or damaged file is an error and
// never a read past its end.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/error.hpp"

namespace tack::detail {

class ByteWriter {
 public:
  template <typename T>
  void put(T v) {
    const char* p = reinterpret_cast<const char*>(&v);
    out.insert(out.end(), p, p + sizeof v);
  }
  void bytes(const char* p, std::size_t n) { out.insert(out.end(), p, p + n); }
  // A length, then the text.
  void text(std::string_view s) {
    put(static_cast<std::uint32_t>(s.size()));
    bytes(s.data(), s.size());
  }
  std::vector<char> out;
};

// Reads what a ByteWriter wrote; a read past the end throws RuntimeError("<what>: it ends
// early"), as does bad(why).
class ByteReader {
 public:
  ByteReader(const std::vector<char>& in, std::string what) : in_(in), what_(std::move(what)) {}
  template <typename T>
  T get() {
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  const char* take(std::size_t n) {
    if (n > in_.size() - at_) bad("it ends early");
    const char* p = in_.data() + at_;
    at_ += n;
    return p;
  }
  std::string text() {
    const auto n = get<std::uint32_t>();
    return std::string(take(n), n);
  }
  bool done() const { return at_ == in_.size(); }
  [[noreturn]] void bad(const std::string& why) const { throw RuntimeError(what_ + ": " + why); }

 private:
  const std::vector<char>& in_;
  std::size_t at_ = 0;
  std::string what_;
};

}  // namespace tack::detail
