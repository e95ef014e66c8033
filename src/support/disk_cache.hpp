// The on-disk cache of compiled code (CPU objects, OpenCL program binaries): a second process
// loads a variant instead of compiling it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tack::detail {

// The largest entry Tack writes (header, key and object): a larger object is compiled in every
// process instead. The largest it reads is four times that, so that a cache written by another
// version still loads while a planted huge or endless file (a sparse file, /dev/zero) cannot
// exhaust memory. Kernels past the compiler's size limit are far below it.
inline constexpr std::uint64_t kMaxStoredEntryBytes = std::uint64_t{64} << 20;
inline constexpr std::uint64_t kMaxCacheEntryBytes = 4 * kMaxStoredEntryBytes;

// The cache directory: TACK_CACHE_DIR, else $XDG_CACHE_HOME/tack, else ~/.cache/tack. An empty
// TACK_CACHE_DIR ("") turns the cache off.
std::optional<std::string> cache_directory();

// Entries live in `folder` of the cache directory ("" for the CPU's objects, "opencl", ...) and
// are keyed by the full text that determines the code (generated code, options, target,
// versions); the file name is a hash of it and the file repeats the key and a checksum of the
// content, so a hash collision, a stale file or a damaged one is a miss, never wrong code.
// Only what nobody else can have written is read: the directory and its folder must be the
// user's and writable by nobody else (else the cache is off for that directory, with one
// warning on stderr), and an entry must be a regular file of the user's, writable by nobody
// else, of at most kMaxCacheEntryBytes; anything else is a miss (docs/design/dispatch.md).
std::optional<std::vector<char>> cache_load(std::string_view folder, const std::string& key);
// Best effort: an unwritable directory only costs the next process a compile.
void cache_store(std::string_view folder, const std::string& key, const std::vector<char>& content);

}  // namespace tack::detail
