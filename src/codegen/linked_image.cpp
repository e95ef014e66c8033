// The linked image's file format and its loader. Format (little-endian, all sizes in bytes):
//   "TACKIMG1", u64 base, u64 size, u64 chunk, u64 extent,
//   u32 n, n x (u64 offset, u64 length, bytes)             the contents
//   u32 n, n x (u64 offset, u64 size, u32 prot)             the pages' protections
//   u32 n, n x u64 offset                                   the rebases
//   u32 n, n x (u64 offset, i64 addend, u32 length, name)   the binds
// The disk cache's checksum guards the bytes; this parser guards every offset anyway, so a
// malformed image is a RuntimeError and never a write outside the mapping.
#include "codegen/linked_image.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "support/byte_stream.hpp"
#include "support/error.hpp"

namespace tack::codegen {
namespace {

constexpr char kMagic[8] = {'T', 'A', 'C', 'K', 'I', 'M', 'G', '1'};
constexpr std::uint64_t kMaxSize = std::uint64_t{1} << 30;
constexpr std::uint32_t kMaxSymbol = 4096;

std::uint64_t page_size() {
  static const std::uint64_t size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

// Whether [offset, offset + length) lies within `size` (without overflow).
bool within(std::uint64_t offset, std::uint64_t length, std::uint64_t size) {
  return offset <= size && length <= size - offset;
}

}  // namespace

std::vector<char> serialize(const LinkedImage& image) {
  detail::ByteWriter w;
  w.bytes(kMagic, sizeof kMagic);
  w.put(image.base);
  w.put(image.size);
  w.put(image.chunk);
  w.put(image.extent);
  w.put(static_cast<std::uint32_t>(image.contents.size()));
  for (const auto& c : image.contents) {
    w.put(c.offset);
    w.put(static_cast<std::uint64_t>(c.data.size()));
    w.bytes(c.data.data(), c.data.size());
  }
  w.put(static_cast<std::uint32_t>(image.pages.size()));
  for (const auto& p : image.pages) {
    w.put(p.offset);
    w.put(p.size);
    w.put(p.prot);
  }
  w.put(static_cast<std::uint32_t>(image.rebases.size()));
  for (std::uint64_t r : image.rebases) w.put(r);
  w.put(static_cast<std::uint32_t>(image.binds.size()));
  for (const auto& b : image.binds) {
    w.put(b.offset);
    w.put(b.addend);
    w.put(static_cast<std::uint32_t>(b.symbol.size()));
    w.bytes(b.symbol.data(), b.symbol.size());
  }
  return std::move(w.out);
}

LinkedImage deserialize(const std::vector<char>& bytes) {
  detail::ByteReader r(bytes, "cannot load a cached kernel image");
  if (std::memcmp(r.take(sizeof kMagic), kMagic, sizeof kMagic) != 0) r.bad("no magic");
  LinkedImage image;
  image.base = r.get<std::uint64_t>();
  image.size = r.get<std::uint64_t>();
  image.chunk = r.get<std::uint64_t>();
  image.extent = r.get<std::uint64_t>();
  const std::uint64_t page = page_size();
  if (image.size == 0 || image.size > kMaxSize || image.size % page != 0 || image.base % page != 0)
    r.bad("its size or base is not whole pages");
  if (image.chunk >= image.size || image.extent >= image.size)
    r.bad("an entry point lies outside it");
  for (std::uint32_t n = r.get<std::uint32_t>(); n > 0; --n) {
    LinkedImage::Bytes c;
    c.offset = r.get<std::uint64_t>();
    const auto length = r.get<std::uint64_t>();
    if (!within(c.offset, length, image.size)) r.bad("its contents lie outside it");
    const char* p = r.take(length);
    c.data.assign(p, p + length);
    image.contents.push_back(std::move(c));
  }
  for (std::uint32_t n = r.get<std::uint32_t>(); n > 0; --n) {
    LinkedImage::Pages p;
    p.offset = r.get<std::uint64_t>();
    p.size = r.get<std::uint64_t>();
    p.prot = r.get<std::uint32_t>();
    if (!within(p.offset, p.size, image.size) || p.offset % page != 0 || p.size % page != 0)
      r.bad("a page range is not whole pages within it");
    if (p.prot > 7 || ((p.prot & kImageWrite) && (p.prot & kImageExec)))
      r.bad("a page range is both writable and executable");
    image.pages.push_back(p);
  }
  for (std::uint32_t n = r.get<std::uint32_t>(); n > 0; --n) {
    const auto offset = r.get<std::uint64_t>();
    if (!within(offset, 8, image.size)) r.bad("a rebase lies outside it");
    image.rebases.push_back(offset);
  }
  for (std::uint32_t n = r.get<std::uint32_t>(); n > 0; --n) {
    LinkedImage::Bind b;
    b.offset = r.get<std::uint64_t>();
    b.addend = r.get<std::int64_t>();
    const auto length = r.get<std::uint32_t>();
    if (!within(b.offset, 8, image.size) || length == 0 || length > kMaxSymbol)
      r.bad("a bind lies outside it or names no symbol");
    const char* p = r.take(length);
    b.symbol.assign(p, length);
    image.binds.push_back(std::move(b));
  }
  if (!r.done()) r.bad("bytes follow its end");
  return image;
}

std::unique_ptr<LoadedImage> LoadedImage::load(const LinkedImage& image,
                                               void* (*resolve)(const std::string& symbol)) {
  void* memory =
      ::mmap(nullptr, image.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw RuntimeError("cannot map memory for a cached kernel image");
  std::unique_ptr<LoadedImage> loaded(new LoadedImage(memory, image.size));
  char* at = static_cast<char*>(memory);
  for (const auto& c : image.contents) std::memcpy(at + c.offset, c.data.data(), c.data.size());
  const std::uint64_t delta = reinterpret_cast<std::uint64_t>(memory) - image.base;
  for (std::uint64_t offset : image.rebases) {
    std::uint64_t v;
    std::memcpy(&v, at + offset, 8);
    v += delta;
    std::memcpy(at + offset, &v, 8);
  }
  for (const auto& b : image.binds) {
    void* target = resolve(b.symbol);
    if (target == nullptr)
      throw RuntimeError("cannot load a cached kernel image: undefined symbol " + b.symbol);
    const std::uint64_t v = reinterpret_cast<std::uint64_t>(target) + b.addend;
    std::memcpy(at + b.offset, &v, 8);
  }
  // Pages no segment claims are left readable only; then each segment gets its protection.
  if (::mprotect(memory, image.size, PROT_READ) != 0)
    throw RuntimeError("cannot protect a cached kernel image");
  for (const auto& p : image.pages) {
    const int prot = ((p.prot & kImageRead) ? PROT_READ : 0) |
                     ((p.prot & kImageWrite) ? PROT_WRITE : 0) |
                     ((p.prot & kImageExec) ? PROT_EXEC : 0);
    if (::mprotect(at + p.offset, p.size, prot) != 0)
      throw RuntimeError("cannot protect a cached kernel image");
  }
  return loaded;
}

LoadedImage::~LoadedImage() {
  ::munmap(memory_, size_);
}

}  // namespace tack::codegen
