// The calling convention between dispatch and compiled CPU code (docs/design/llvm_codegen.md):
// a flat array of 8-byte argument slots, a chunk function over [begin, end) of the parallel
// loop's linearized iteration space, and an extent function giving that space's size.
#pragma once

#include <cstdint>

namespace tack::detail {

// Where debug-mode bounds checks record the first out-of-bounds access.
struct DebugStatus {
  std::int32_t failed = 0;
  std::int32_t param = -1;
  std::int32_t dim = -1;
  std::int64_t index = 0;
  std::int64_t extent = 0;
};

using ChunkFunction = void (*)(const std::uint64_t* args, std::int64_t begin, std::int64_t end,
                               DebugStatus* status);
using ExtentFunction = std::int64_t (*)(const std::uint64_t* args);

}  // namespace tack::detail
