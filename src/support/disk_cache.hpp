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

// The folders of the cache directory beside its top level (the CPU's objects and images): the
// only ones entries are stored in, and the only ones a cleanup looks into.
inline constexpr std::string_view kRecordsFolder = "records";  // kernel records
inline constexpr std::string_view kOpenClFolder = "opencl";    // OpenCL program binaries
inline constexpr std::string_view kCudaFolder = "cuda";        // CUDA PTX
inline constexpr std::string_view kCacheFolders[] = {kRecordsFolder, kOpenClFolder, kCudaFolder};

// Entries live in `folder` of the cache directory ("" or one of kCacheFolders) and
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

// The cache's size limit (docs/design/cache_limit.md): TACK_CACHE_LIMIT in bytes, with an
// optional K, M, G or T (binary units); 0 is no limit; default 2 GiB. An unreadable value is
// the default, with one warning on stderr.
inline constexpr std::uint64_t kDefaultCacheLimitBytes = std::uint64_t{2} << 30;
std::uint64_t cache_limit_bytes();
// Parses a TACK_CACHE_LIMIT value; nullopt when it is not one.
std::optional<std::uint64_t> parse_cache_limit(std::string_view text);

// What a cleanup found and removed.
struct CacheCleanup {
  std::uint64_t files = 0, bytes = 0;                  // entries found, before removing any
  std::uint64_t removed_files = 0, removed_bytes = 0;  // least recently used ones removed
};
// Keeps the cache directory within `limit` bytes: when its entries (every folder's) total more,
// the least recently used (written or loaded longest ago: a load sets the access time, at most
// once a day) are
// removed until they total at most 90% of it. Temporaries left by a process that died while
// writing are removed once an hour old. Synchronous; `cache_store` runs it on a thread of its
// own at most once an hour per cache directory (the stamp file .last-cleanup says when).
CacheCleanup clean_cache(std::uint64_t limit);
// How many cleanups stores have started in this process, and waiting for the running one to
// end (tests).
std::uint64_t cache_cleanups_started();
void wait_for_cache_cleanup();

}  // namespace tack::detail
