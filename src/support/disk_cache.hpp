// The on-disk cache of compiled code (CPU objects, OpenCL program binaries): a second process
// loads a variant instead of compiling it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tack::detail {

// The cache directory: TACK_CACHE_DIR, else $XDG_CACHE_HOME/tack, else ~/.cache/tack. An empty
// TACK_CACHE_DIR ("") turns the cache off.
std::optional<std::string> cache_directory();

// Entries live in `folder` of the cache directory ("" for the CPU's objects, "opencl", ...) and
// are keyed by the full text that determines the code (generated code, options, target,
// versions); the file name is a hash of it and the file repeats the key and a checksum of the
// content, so a hash collision, a stale file or a damaged one is a miss, never wrong code.
std::optional<std::vector<char>> cache_load(std::string_view folder, const std::string& key);
// Best effort: an unwritable directory only costs the next process a compile.
void cache_store(std::string_view folder, const std::string& key, const std::vector<char>& content);

}  // namespace tack::detail
