// The on-disk cache of compiled code: a second process loads a variant instead of compiling it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tack::detail {

// The cache directory: TACK_CACHE_DIR, else $XDG_CACHE_HOME/tack, else ~/.cache/tack. An empty
// TACK_CACHE_DIR ("") turns the cache off.
std::optional<std::string> cache_directory();

// Entries are keyed by the full text that determines the code (generated IR, options, target,
// LLVM and Tack versions); the file name is a hash of it and the file repeats the key, so a
// hash collision or a stale file is a miss, never wrong code.
std::optional<std::vector<char>> cache_load(const std::string& key);
// Best effort: an unwritable directory only costs the next process a compile.
void cache_store(const std::string& key, const std::vector<char>& object);

}  // namespace tack::detail
