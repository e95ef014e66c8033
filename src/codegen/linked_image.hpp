// A kernel's code as JITLink laid it out in memory, kept beside its object in the disk cache so
// that a later process loads it without LLVM: one mapping, a copy, the fixups that depend on
// where the mapping lands, and the pages' protections (docs/design/cpu_limits.md, "Cache loads
// from the linked image"). The format is this file's own; nothing here includes LLVM.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tack::codegen {

// Page protections, as the bits of mprotect's PROT_READ, PROT_WRITE, PROT_EXEC.
inline constexpr std::uint32_t kImageRead = 1, kImageWrite = 2, kImageExec = 4;

struct LinkedImage {
  std::uint64_t base = 0;               // where the image was linked (page aligned)
  std::uint64_t size = 0;               // bytes from base, a whole number of pages
  std::uint64_t chunk = 0, extent = 0;  // the entry points' offsets from base
  struct Bytes {
    std::uint64_t offset;
    std::vector<char> data;
  };
  std::vector<Bytes> contents;  // everything else is zero
  struct Pages {
    std::uint64_t offset, size;  // page aligned
    std::uint32_t prot;          // kImageRead | kImageWrite | kImageExec
  };
  std::vector<Pages> pages;
  std::vector<std::uint64_t> rebases;  // 64-bit pointers into the image: add the load delta
  struct Bind {
    std::uint64_t offset;
    std::int64_t addend;
    std::string symbol;  // a 64-bit pointer to this C function (or libmvec's) plus the addend
  };
  std::vector<Bind> binds;
};

std::vector<char> serialize(const LinkedImage& image);

// Throws tack::RuntimeError when `bytes` is not a well-formed image (every offset and size is
// checked against the image's extent before anything is mapped).
LinkedImage deserialize(const std::vector<char>& bytes);

// A loaded image: mapped, fixed up and protected. Unmaps on destruction.
class LoadedImage {
 public:
  LoadedImage(const LoadedImage&) = delete;
  LoadedImage& operator=(const LoadedImage&) = delete;
  ~LoadedImage();

  void* address(std::uint64_t offset) const { return static_cast<char*>(memory_) + offset; }

  // Maps `image` and resolves its binds with `resolve` (a symbol's address, or null: then a
  // RuntimeError naming the symbol, and nothing stays mapped).
  static std::unique_ptr<LoadedImage> load(const LinkedImage& image,
                                           void* (*resolve)(const std::string& symbol));

 private:
  LoadedImage(void* memory, std::uint64_t size) : memory_(memory), size_(size) {}
  void* memory_;
  std::uint64_t size_;
};

}  // namespace tack::codegen
