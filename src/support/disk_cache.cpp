// Disk cache files: "TACKOBJ2\n", the key's length, a checksum of the object, the key's text,
// then the object file. Written to a temporary name and renamed, so readers never see half a
// file; the checksum catches a damaged object before it reaches the JIT linker.
#include "support/disk_cache.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "support/hash.hpp"

namespace tack::detail {
namespace {

constexpr char kMagic[] = "TACKOBJ2\n";

// The entry's path: the folder of the cache directory, a hash of the key.
std::optional<std::string> entry_path(std::string_view folder, const std::string& key) {
  auto dir = cache_directory();
  if (!dir) return std::nullopt;
  if (!folder.empty()) *dir += "/" + std::string(folder);
  return *dir + "/" + hex64(fnv1a(key)) + ".bin";
}

}  // namespace

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::optional<std::string> cache_directory() {
  if (const char* d = std::getenv("TACK_CACHE_DIR")) {
    if (*d == '\0') return std::nullopt;
    return std::string(d);
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tack";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tack";
  return std::nullopt;
}

std::optional<std::vector<char>> cache_load(std::string_view folder, const std::string& key) {
  const auto path = entry_path(folder, key);
  if (!path) return std::nullopt;
  std::ifstream in(*path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t magic = sizeof(kMagic) - 1;
  const std::size_t header = magic + 16;
  if (content.size() < header || content.compare(0, magic, kMagic) != 0) return std::nullopt;
  std::uint64_t key_size, checksum;
  std::memcpy(&key_size, content.data() + magic, 8);
  std::memcpy(&checksum, content.data() + magic + 8, 8);
  if (key_size != key.size() || content.size() < header + key_size) return std::nullopt;
  if (content.compare(header, key_size, key) != 0) return std::nullopt;
  const std::size_t object_at = header + key_size;
  if (fnv1a(std::string_view(content).substr(object_at)) != checksum) return std::nullopt;
  return std::vector<char>(content.begin() + static_cast<std::ptrdiff_t>(object_at), content.end());
}

void cache_store(std::string_view folder, const std::string& key, const std::vector<char>& object) {
  const auto path = entry_path(folder, key);
  if (!path) return;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(*path).parent_path(), ec);
  if (ec) return;
  const std::string& final_path = *path;
  static std::atomic<unsigned> counter{0};  // two threads of one process never share a temp
  const std::string tmp =
      final_path + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    const std::uint64_t key_size = key.size();
    const std::uint64_t checksum = fnv1a(std::string_view(object.data(), object.size()));
    out.write(kMagic, sizeof(kMagic) - 1);
    out.write(reinterpret_cast<const char*>(&key_size), 8);
    out.write(reinterpret_cast<const char*>(&checksum), 8);
    out.write(key.data(), static_cast<std::streamsize>(key.size()));
    out.write(object.data(), static_cast<std::streamsize>(object.size()));
    if (!out) {
      out.close();
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, final_path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace tack::detail
