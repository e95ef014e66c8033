// The on-disk cache of compiled kernels through the public API, in a fresh TACK_CACHE_DIR per
// test (the directory is read on every use): writes, loads by a new Kernel object, corrupt and
// stale files, unwritable and disabled caches, and one entry per distinct compiled code.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "support/disk_cache.hpp"
#include "support/hash.hpp"
#include "tack/tack.hpp"
#include "targets/target.hpp"

namespace tack {
namespace {

namespace fs = std::filesystem;

template <class T>
Array arr(const std::vector<T>& v) {
  return array(v, {static_cast<std::int64_t>(v.size())});
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& p, const std::string& content) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
}

// Whether a cache file holds a linked image (its key ends so; cpu_target.cpp) rather than an
// object.
bool is_image(const fs::path& p) {
  return read_file(p).find("\nlinked image\n") != std::string::npos;
}

// The cache entries (finished files, not temporaries) in `dir`, sorted: the objects, or with
// `images` the linked images stored beside them.
std::vector<fs::path> entries(const fs::path& dir, bool images = false) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".bin" &&
        e.path().parent_path().filename() != "records" && is_image(e.path()) == images)
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<fs::path> images(const fs::path& dir) {
  return entries(dir, true);
}

// The kernel records beside them (docs/design/kernel_records.md).
std::size_t records(const fs::path& dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir / "records", ec))
    n += e.is_regular_file() && e.path().extension() == ".bin";
  return n;
}

// Removes the linked images, so that the next load reads the objects.
void remove_images(const fs::path& dir) {
  for (const fs::path& p : images(dir)) fs::remove(p);
}

std::size_t all_files(const fs::path& dir) {
  std::size_t n = 0;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return 0;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    n += e.is_regular_file() && e.path().filename() != ".last-cleanup";  // the cleanups' stamp
  return n;
}

// Status-change time in nanoseconds.
std::int64_t ctime_ns(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return -1;
  return static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
}

// Access time in nanoseconds.
std::int64_t atime_ns(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return -1;
  return static_cast<std::int64_t>(st.st_atim.tv_sec) * 1000000000 + st.st_atim.tv_nsec;
}

// Modification time in nanoseconds.
std::int64_t mtime_ns(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return -1;
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// Sets the file's times to 2001-09-09: a rewrite of the file shows as a newer time.
void age(const fs::path& p) {
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = 1000000000;
  times[0].tv_nsec = times[1].tv_nsec = 0;
  ASSERT_EQ(::utimensat(AT_FDCWD, p.c_str(), times, 0), 0);
}

const std::int64_t kAged = std::int64_t{1000000000} * 1000000000;

// Saves and restores an environment variable.
class EnvGuard {
 public:
  explicit EnvGuard(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) old_ = v;
  }
  ~EnvGuard() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class DiskCache : public ::testing::Test {
 protected:
  void SetUp() override {
    set_debug(false);
    set_specialize_disjoint(true);
    char tmpl[] = "/tmp/tack_e2e_cacheXXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    dir_ = root_ / "cache";
    ::setenv("TACK_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    set_debug(false);
    set_specialize_disjoint(true);
    std::error_code ec;
    // Undo any chmod so the directory can be removed.
    for (const auto& e : fs::recursive_directory_iterator(root_, ec)) {
      if (e.is_directory()) fs::permissions(e.path(), fs::perms::owner_all, ec);
    }
    fs::permissions(root_, fs::perms::owner_all, ec);
    fs::remove_all(root_, ec);
  }

  // A kernel with a source text of its own, so that no other test shares its entries.
  static std::string source(const std::string& name, const char* body = "x[i] * 2.0 + 1.0") {
    return "def " + name + "(x, out):\n    for i in range(len(x)):\n        out[i] = " + body +
           "\n";
  }

  // Runs `k` on [0, 1, 2, 3] and checks the result of source()'s default body.
  static void run_and_check(const Kernel& k) {
    Array x = arr(std::vector<float>{0, 1, 2, 3}), out = zeros({4});
    k(x, out);
    EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{1, 3, 5, 7}));
  }

  EnvGuard cache_env_{"TACK_CACHE_DIR"};
  EnvGuard xdg_env_{"XDG_CACHE_HOME"};
  EnvGuard home_env_{"HOME"};
  fs::path root_;
  fs::path dir_;
};

TEST_F(DiskCache, ACompileWritesAFile) {
  EXPECT_TRUE(entries(dir_).empty());
  const Kernel k = kernel(source("dk_write"));
  run_and_check(k);
  const auto files = entries(dir_);
  ASSERT_EQ(files.size(), 1u);
  const std::string content = read_file(files[0]);
  EXPECT_EQ(content.compare(0, 9, "TACKOBJ2\n"), 0);
  EXPECT_NE(content.find("dk_write"), std::string::npos);  // the key repeats the IR
  // Beside the object, the image its link produced (codegen/linked_image.hpp).
  const auto linked = images(dir_);
  ASSERT_EQ(linked.size(), 1u);
  EXPECT_NE(read_file(linked[0]).find("TACKIMG1"), std::string::npos);
  EXPECT_EQ(records(dir_), 2u);    // the kernel's and its variant's
  EXPECT_EQ(all_files(dir_), 4u);  // no temporary left behind
  // A second call of the same kernel compiles nothing new.
  run_and_check(k);
  EXPECT_EQ(entries(dir_).size(), 1u);
  EXPECT_EQ(images(dir_).size(), 1u);
}

TEST_F(DiskCache, ANewKernelObjectLoadsTheEntry) {
  const std::string src = source("dk_load");
  run_and_check(kernel(src));
  const auto files = entries(dir_);
  ASSERT_EQ(files.size(), 1u);
  const std::string original = read_file(files[0]);
  age(files[0]);
  const fs::path image = images(dir_).at(0);
  age(image);
  // A new Kernel object has no variants of its own: it loads the image, never rewrites it.
  const Kernel again = kernel(src);
  run_and_check(again);
  EXPECT_EQ(again.variant_count(), 1u);
  EXPECT_EQ(mtime_ns(files[0]), kAged) << "the entry was rewritten: it was compiled, not loaded";
  EXPECT_EQ(mtime_ns(image), kAged) << "the image was rewritten: it was linked, not loaded";
  EXPECT_EQ(read_file(files[0]), original);
  EXPECT_EQ(entries(dir_).size(), 1u);
  // Without the image, the object loads and the image is written again (a link, no compile).
  remove_images(dir_);
  run_and_check(kernel(src));
  EXPECT_EQ(mtime_ns(files[0]), kAged) << "the object was rewritten: it was compiled";
  EXPECT_EQ(images(dir_).size(), 1u);
}

// Kernel records (docs/design/kernel_records.md): a new kernel object of the same pieces reads
// its name, parameters and variant from the records the first one wrote, and neither parses
// nor lowers; so does a kernel of one source text. (tests/python/test_kernel_records.py has
// the other process, changed keys and damaged records.)
TEST_F(DiskCache, ANewKernelOfTheSamePiecesComesFromItsRecords) {
  // The test command's CUDA check observes every variant, and no variant comes from a record
  // while it does; it is read at the first compile of the process (ctest runs each test in
  // its own).
  EnvGuard cuda_check("TACK_CUDA_CHECK");
  ::unsetenv("TACK_CUDA_CHECK");
  if (detail::variants_observed()) GTEST_SKIP() << "TACK_CUDA_CHECK was read before this test";
  const std::vector<SourcePiece> pieces{{source("dk_records"), 1, "records.py", false}};
  const auto before = detail::kernel_record_counts();
  run_and_check(kernel(pieces, "dk_records"));
  const auto written = detail::kernel_record_counts();
  EXPECT_EQ(written.parsed, before.parsed + 1);
  EXPECT_EQ(written.lowered, before.lowered + 1);
  EXPECT_EQ(written.from_records, before.from_records);
  const Kernel again = kernel(pieces, "dk_records");
  run_and_check(again);
  const auto read = detail::kernel_record_counts();
  EXPECT_EQ(read.parsed, written.parsed) << "the second kernel parsed its source";
  EXPECT_EQ(read.lowered, written.lowered) << "the second kernel lowered its variant";
  EXPECT_EQ(read.kernels_from_records, written.kernels_from_records + 1);
  EXPECT_EQ(read.from_records, written.from_records + 1);
  // Its arity error names the parameters the record holds.
  Array x = zeros({4});
  try {
    again(x);
    ADD_FAILURE() << "no TypeError";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("takes 2 arguments (x, out), got 1"), std::string::npos)
        << e.what();
  }
  // inspect lowers it then, to the same IR as a compiling kernel's.
  Array in = zeros({4}), out = zeros({4});
  EXPECT_EQ(inspect(again, {in, out}, "ir"),
            inspect(kernel(source("dk_records")), {in, out}, "ir"));
  EXPECT_EQ(detail::kernel_record_counts().lowered, read.lowered + 2);  // both kernels lowered
  // A kernel of one source text (Tack's own kernels are) has its records too.
  run_and_check(kernel(source("dk_records_single")));
  const auto single = detail::kernel_record_counts();
  run_and_check(kernel(source("dk_records_single")));
  EXPECT_EQ(detail::kernel_record_counts().parsed, single.parsed);
  EXPECT_EQ(detail::kernel_record_counts().lowered, single.lowered);
  EXPECT_EQ(detail::kernel_record_counts().from_records, single.from_records + 1);
  // None without the disk cache.
  ::setenv("TACK_CACHE_DIR", "", 1);
  const auto off = detail::kernel_record_counts();
  run_and_check(kernel(pieces, "dk_records"));
  EXPECT_EQ(detail::kernel_record_counts().from_records, off.from_records);
  EXPECT_EQ(detail::kernel_record_counts().lowered, off.lowered + 1);
}

// A damaged image (bytes of it flipped in turn) costs a link of the object beside it, never a
// wrong result or a recompile; the link writes a good image again. (An image that is well
// formed but unusable here, naming a function no library defines, is CodegenJit's test.)
TEST_F(DiskCache, ADamagedImageOnlyCostsALink) {
  const std::string src = source("dk_damaged_image");
  run_and_check(kernel(src));
  const fs::path object = entries(dir_).at(0);
  const fs::path image = images(dir_).at(0);
  const std::string original = read_file(image);
  age(object);
  for (std::size_t b = 0; b < original.size(); b += 7) {
    std::string damaged = original;
    damaged[b] = static_cast<char>(damaged[b] ^ 0x5a);
    write_file(image, damaged);
    run_and_check(kernel(src));
    ASSERT_EQ(mtime_ns(object), kAged) << "byte " << b << ": the object was compiled again";
  }
  // The last link wrote a good image: it loads, and nothing is written.
  age(image);
  run_and_check(kernel(src));
  EXPECT_EQ(mtime_ns(image), kAged);
  EXPECT_EQ(mtime_ns(object), kAged);
}

TEST_F(DiskCache, ACorruptFileOnlyCostsARecompile) {
  const std::string src = source("dk_corrupt");
  run_and_check(kernel(src));
  const auto files = entries(dir_);
  ASSERT_EQ(files.size(), 1u);
  const fs::path entry = files[0];
  const std::string original = read_file(entry);
  // The object starts after the magic, the key's length, the checksum and the key.
  std::uint64_t key_size = 0;
  std::memcpy(&key_size, original.data() + 9, 8);
  const std::size_t object_start = 9 + 16 + static_cast<std::size_t>(key_size);
  ASSERT_LT(object_start, original.size());
  const std::string header = original.substr(0, object_start);
  const std::string object = original.substr(object_start);
  std::string garbage_object(object.size(), '\0');
  for (std::size_t b = 0; b < garbage_object.size(); ++b) {
    garbage_object[b] = static_cast<char>((b * 131 + 7) & 0xff);
  }
  std::string stale_key = original;
  stale_key[9 + 16 + static_cast<std::size_t>(key_size) / 2] ^= 1;
  const std::pair<const char*, std::string> corruptions[] = {
      {"empty file", ""},
      {"not a cache file", "hello, this is not an object file\n"},
      {"broken magic", "TACKOBJ9\n" + original.substr(9)},
      {"truncated key", original.substr(0, 9 + 16 + static_cast<std::size_t>(key_size) / 2)},
      {"another key (stale entry)", stale_key},
      {"header only", header},
      {"object truncated to 16 bytes", header + object.substr(0, 16)},
      {"object truncated to half", header + object.substr(0, object.size() / 2)},
      {"garbage object", header + garbage_object},
  };
  for (const auto& [what, content] : corruptions) {
    SCOPED_TRACE(what);
    remove_images(dir_);  // else the image loads and the object is never read
    write_file(entry, content);
    age(entry);
    const Kernel k = kernel(src);
    run_and_check(k);  // still works: compiled again
    EXPECT_NE(mtime_ns(entry), kAged) << "not rewritten";
    const std::string rewritten = read_file(entry);
    EXPECT_EQ(rewritten.compare(0, header.size(), header), 0);
    EXPECT_GT(rewritten.size(), header.size());
    // And the rewritten entry loads.
    age(entry);
    run_and_check(kernel(src));
    EXPECT_EQ(mtime_ns(entry), kAged);
  }
  EXPECT_EQ(entries(dir_).size(), 1u);
}

// True when the process can write into a directory whose write permission is removed (root).
bool permissions_are_ignored(const fs::path& dir) {
  const fs::path probe = dir / "probe";
  {
    std::ofstream out(probe);
    if (!out) return false;
  }
  std::error_code ec;
  fs::remove(probe, ec);
  return true;
}

TEST_F(DiskCache, AnUnwritableDirectoryOnlyCostsCompiles) {
  fs::create_directories(dir_);
  // One entry made while writable, then the directory is made read-only (r-x).
  const std::string loaded_src = source("dk_ro_loaded");
  run_and_check(kernel(loaded_src));
  ASSERT_EQ(entries(dir_).size(), 1u);
  const fs::path loaded_entry = entries(dir_)[0];
  age(loaded_entry);
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  if (permissions_are_ignored(dir_)) {
    GTEST_SKIP() << "running with privileges that ignore directory permissions (root?): "
                    "chmod 0500 cannot make the cache unwritable here";
  }
  const Kernel fresh = kernel(source("dk_ro_fresh"));
  run_and_check(fresh);  // compiled, not stored
  run_and_check(fresh);
  EXPECT_EQ(fresh.variant_count(), 1u);
  EXPECT_EQ(entries(dir_).size(), 1u);
  // The object, its image and its records; no temporary left behind either.
  EXPECT_EQ(all_files(dir_), 2u + records(dir_));
  // Reading still works: the existing entry loads.
  run_and_check(kernel(loaded_src));
  EXPECT_EQ(mtime_ns(loaded_entry), kAged);
  // A second Kernel object of the fresh source compiles again, and works.
  run_and_check(kernel(source("dk_ro_fresh")));
}

TEST_F(DiskCache, ACacheDirectoryUnderARegularFileOnlyCostsCompiles) {
  const fs::path file = root_ / "a_file";
  write_file(file, "x");
  ::setenv("TACK_CACHE_DIR", (file / "cache").c_str(), 1);
  const Kernel k = kernel(source("dk_under_file"));
  run_and_check(k);
  run_and_check(kernel(source("dk_under_file")));
  EXPECT_EQ(read_file(file), "x");
}

TEST_F(DiskCache, MissingDirectoriesAreCreated) {
  const fs::path nested = root_ / "a" / "b" / "c";
  ::setenv("TACK_CACHE_DIR", nested.c_str(), 1);
  run_and_check(kernel(source("dk_nested")));
  EXPECT_EQ(entries(nested).size(), 1u);
}

TEST_F(DiskCache, EmptyTackCacheDirDisablesTheCache) {
  const fs::path xdg = root_ / "xdg", home = root_ / "home";
  fs::create_directories(xdg);
  fs::create_directories(home);
  ::setenv("XDG_CACHE_HOME", xdg.c_str(), 1);
  ::setenv("HOME", home.c_str(), 1);
  ::setenv("TACK_CACHE_DIR", "", 1);
  const std::string src = source("dk_disabled");
  run_and_check(kernel(src));
  run_and_check(kernel(src));
  EXPECT_EQ(all_files(root_), 0u);
  // Without TACK_CACHE_DIR the cache is $XDG_CACHE_HOME/tack ...
  ::unsetenv("TACK_CACHE_DIR");
  run_and_check(kernel(src));
  EXPECT_EQ(entries(xdg / "tack").size(), 1u);
  EXPECT_EQ(all_files(home), 0u);
  // ... else ~/.cache/tack.
  ::unsetenv("XDG_CACHE_HOME");
  run_and_check(kernel(src));
  EXPECT_EQ(entries(home / ".cache" / "tack").size(), 1u);
}

TEST_F(DiskCache, TheDirectoryIsReadOnEveryUse) {
  const fs::path first = root_ / "first", second = root_ / "second";
  ::setenv("TACK_CACHE_DIR", first.c_str(), 1);
  const Kernel k = kernel(source("dk_switch"));
  run_and_check(k);
  ::setenv("TACK_CACHE_DIR", second.c_str(), 1);
  Array xi = arr(std::vector<std::int32_t>{0, 1, 2, 3}), oi = zeros({4}, i32);
  k(xi, oi);  // a new variant, compiled while the second directory is set
  EXPECT_EQ(oi.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 3, 5, 7}));
  EXPECT_EQ(entries(first).size(), 1u);
  EXPECT_EQ(entries(second).size(), 1u);
}

TEST_F(DiskCache, DifferentSourcesTypesAndFlagsGiveDifferentEntries) {
  const std::string src = source("dk_keys");
  const Kernel k = kernel(src);
  Array x = arr(std::vector<float>{0, 1, 2, 3}), out = zeros({4});
  k(x, out);
  EXPECT_EQ(entries(dir_).size(), 1u);
  k(x, out);  // the same code: no new entry
  EXPECT_EQ(entries(dir_).size(), 1u);

  Array xi = arr(std::vector<std::int32_t>{0, 1, 2, 3}), oi = zeros({4}, i32);
  k(xi, oi);  // other types
  EXPECT_EQ(entries(dir_).size(), 2u);

  Array xd = arr(std::vector<double>{0, 1, 2, 3}), od = zeros({4}, f64);
  k(x, od);  // one parameter's type differs
  EXPECT_EQ(entries(dir_).size(), 3u);

  k(x, x);  // overlapping arrays: the code without the noalias promise
  EXPECT_EQ(entries(dir_).size(), 4u);

  set_specialize_disjoint(false);
  Array out2 = zeros({4});
  k(x, out2);  // disjoint arrays, specialization off: the same default code as above
  EXPECT_EQ(entries(dir_).size(), 4u);
  set_specialize_disjoint(true);

  set_debug(true);
  k(x, out);  // debug mode
  EXPECT_EQ(entries(dir_).size(), 5u);
  set_debug(false);

  run_and_check(kernel(source("dk_keys", "x[i] * 2.0 + 1.0 + 0.0 * x[i]")));  // other source
  EXPECT_EQ(entries(dir_).size(), 6u);
  run_and_check(kernel(source("dk_keys_renamed")));  // the same body in another kernel
  EXPECT_EQ(entries(dir_).size(), 7u);
  run_and_check(kernel(src));  // the first source again, in a new Kernel: loaded
  EXPECT_EQ(entries(dir_).size(), 7u);
  // Every entry holds a distinct key.
  std::vector<std::string> keys;
  for (const auto& e : entries(dir_)) {
    const std::string c = read_file(e);
    std::uint64_t key_size = 0;
    std::memcpy(&key_size, c.data() + 9, 8);
    keys.push_back(c.substr(25, static_cast<std::size_t>(key_size)));
  }
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(std::unique(keys.begin(), keys.end()), keys.end());
}

// An entry whose header and key are intact but whose code bytes are damaged (a flipped byte in
// .text) must not load: the checksum over the object turns it into a recompile. Before the
// checksum this gave SEGVs, wrong results and an endless loop. Each damaged entry runs in a
// child process (alarm: a hang fails instead of blocking); every 23rd byte keeps it short.
TEST_F(DiskCache, ADamagedObjectOnlyCostsARecompile) {
  const std::string src = source("dk_damaged");
  run_and_check(kernel(src));
  const fs::path entry = entries(dir_)[0];
  remove_images(dir_);  // each child then reads the damaged object (and writes an image)
  const std::string original = read_file(entry);
  std::uint64_t key_size = 0;
  std::memcpy(&key_size, original.data() + 9, 8);
  const std::size_t object_start = 9 + 16 + static_cast<std::size_t>(key_size);
  int failures = 0;
  for (std::size_t b = object_start; b < original.size(); b += 23) {
    std::string damaged = original;
    damaged[b] = static_cast<char>(damaged[b] ^ 0x5a);
    write_file(entry, damaged);
    remove_images(dir_);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::alarm(20);
      try {
        Array x = arr(std::vector<float>{0, 1, 2, 3}), out = zeros({4});
        kernel(src)(x, out);
        ::_exit(out.to_vector<float>() == std::vector<float>{1, 3, 5, 7} ? 0 : 2);
      } catch (...) {
        ::_exit(3);
      }
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ++failures;
      ADD_FAILURE() << "object byte " << b - object_start << " flipped: "
                    << (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                          : "signal " + std::to_string(WTERMSIG(status)));
    }
  }
  EXPECT_EQ(failures, 0);
}

// ---- the disk cache is code: trust nothing others can write (docs/design/dispatch.md) ----------

// The parts of an entry: everything before the object (magic, sizes, key), and the object.
struct EntryParts {
  std::string key;
  std::string object;
};

EntryParts parse_entry(const std::string& content) {
  std::uint64_t key_size = 0;
  std::memcpy(&key_size, content.data() + 9, 8);
  return {content.substr(25, static_cast<std::size_t>(key_size)),
          content.substr(25 + static_cast<std::size_t>(key_size))};
}

// An entry for `key` holding `object`, with a valid checksum: what a forger writes.
std::string forge_entry(const std::string& key, const std::string& object) {
  const std::uint64_t key_size = key.size();
  const std::uint64_t checksum = detail::fnv1a(object);
  std::string out = "TACKOBJ2\n";
  out.append(reinterpret_cast<const char*>(&key_size), 8);
  out.append(reinterpret_cast<const char*>(&checksum), 8);
  return out + key + object;
}

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return 0;
  return static_cast<unsigned>(st.st_mode & 07777);
}

// Another user's id, for the ownership rules: only root can give a file away.
constexpr uid_t kOtherUser = 4242;

class DiskCacheTrust : public DiskCache {
 protected:
  // Kernel A writes x * 2 + 1; kernel B (the same parameters and types) writes x * 100.
  // Returns A's entry path after planting, at A's key, B's object with a valid checksum.
  fs::path plant_forgery() {
    run_and_check(kernel(source("dk_forged_a")));
    const fs::path a_entry = entries(dir_)[0];
    {
      Array x = arr(std::vector<float>{0, 1, 2, 3}), out = zeros({4});
      kernel(source("dk_forged_a", "x[i] * 100.0"))(x, out);
    }
    fs::path b_entry;
    for (const auto& e : entries(dir_)) {
      if (e != a_entry) b_entry = e;
    }
    const EntryParts a = parse_entry(read_file(a_entry)), b = parse_entry(read_file(b_entry));
    fs::remove(b_entry);
    remove_images(dir_);  // the next load of A reads its (forged) object
    write_file(a_entry, forge_entry(a.key, b.object));
    fs::permissions(a_entry, fs::perms::owner_read | fs::perms::owner_write);
    return a_entry;
  }

  // Kernel A's result from a new Kernel object: A's own values, or B's if the forgery ran.
  static std::vector<float> run_a() {
    Array x = arr(std::vector<float>{0, 1, 2, 3}), out = zeros({4});
    kernel(source("dk_forged_a"))(x, out);
    return out.to_vector<float>();
  }
  static inline const std::vector<float> kA{1, 3, 5, 7}, kB{0, 100, 200, 300};
};

TEST_F(DiskCacheTrust, NewDirectoriesArePrivate) {
  const fs::path nested = root_ / "new" / "cache";
  ::setenv("TACK_CACHE_DIR", nested.c_str(), 1);
  run_and_check(kernel(source("dk_private")));
  EXPECT_EQ(mode_of(nested), 0700u);
  EXPECT_EQ(mode_of(root_ / "new"), 0700u);
  ASSERT_EQ(entries(nested).size(), 1u);
  EXPECT_EQ(mode_of(entries(nested)[0]) & 077u, 0u) << "an entry is writable by others";
}

// The baseline that makes the tests below able to fail: an entry of the user's own, with the
// right key and checksum, is trusted, whatever object it holds.
TEST_F(DiskCacheTrust, AForgedEntryOfTheUsersOwnIsTrusted) {
  plant_forgery();
  EXPECT_EQ(run_a(), kB);
}

// The linked images obey the same rules as the objects: kernel B's image planted at kernel A's
// image key, of the user's own, runs (the baseline); writable by its group, it is ignored.
TEST_F(DiskCacheTrust, AForgedImageIsTrustedOnlyAsAnObjectIs) {
  run_and_check(kernel(source("dk_forged_a")));
  const fs::path a_image = images(dir_).at(0);
  {
    Array x = arr(std::vector<float>{0, 1, 2, 3}), out = zeros({4});
    kernel(source("dk_forged_a", "x[i] * 100.0"))(x, out);
  }
  fs::path b_image;
  for (const auto& e : images(dir_)) {
    if (e != a_image) b_image = e;
  }
  ASSERT_FALSE(b_image.empty());
  const EntryParts a = parse_entry(read_file(a_image)), b = parse_entry(read_file(b_image));
  const std::string forged = forge_entry(a.key, b.object);
  write_file(a_image, forged);
  fs::permissions(a_image, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(run_a(), kB) << "the baseline: a forged image of the user's own is trusted";
  write_file(a_image, forged);
  fs::permissions(a_image, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_write);
  EXPECT_EQ(run_a(), kA) << "a forged image writable by its group ran";
}

TEST_F(DiskCacheTrust, AnEntryWritableByOthersIsIgnored) {
  const fs::path entry = plant_forgery();
  for (const auto extra : {fs::perms::others_write, fs::perms::group_write}) {
    fs::permissions(entry, fs::perms::owner_read | fs::perms::owner_write | extra);
    EXPECT_EQ(run_a(), kA) << "a forged entry writable by others ran";
  }
}

TEST_F(DiskCacheTrust, AnEntryOwnedBySomeoneElseIsIgnored) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a file to another user";
  const fs::path entry = plant_forgery();
  ASSERT_EQ(::chown(entry.c_str(), kOtherUser, kOtherUser), 0);
  EXPECT_EQ(run_a(), kA) << "another user's entry ran";
}

TEST_F(DiskCacheTrust, ADirectoryWritableByOthersTurnsTheCacheOffWithOneWarning) {
  const fs::path entry = plant_forgery();
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::others_all);
  testing::internal::CaptureStderr();
  EXPECT_EQ(run_a(), kA) << "an entry of a world-writable directory ran";
  run_and_check(kernel(source("dk_world_second")));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("'" + dir_.string() + "' is writable by others (mode 0707)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("chmod 700"), std::string::npos) << err;
  EXPECT_EQ(err.find("warning"), err.rfind("warning")) << "more than one warning: " << err;
  EXPECT_EQ(entries(dir_).size(), 1u) << "written into a world-writable directory";
}

TEST_F(DiskCacheTrust, ADirectoryOwnedBySomeoneElseTurnsTheCacheOff) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a directory to another user";
  const fs::path other = root_ / "someone_elses";
  fs::create_directories(other);
  ::setenv("TACK_CACHE_DIR", other.c_str(), 1);
  ASSERT_EQ(::chown(other.c_str(), kOtherUser, kOtherUser), 0);
  testing::internal::CaptureStderr();
  run_and_check(kernel(source("dk_other_owner")));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("is owned by user id 4242"), std::string::npos) << err;
  EXPECT_EQ(all_files(other), 0u);
}

TEST_F(DiskCacheTrust, ASubfolderWritableByOthersIsRefused) {
  // The OpenCL binaries' folder is checked as the directory is.
  fs::create_directories(dir_ / "opencl");
  fs::permissions(dir_ / "opencl", fs::perms::all);
  std::vector<char> object{'x'};
  testing::internal::CaptureStderr();
  detail::cache_store("opencl", "a key", object);
  EXPECT_FALSE(detail::cache_load("opencl", "a key").has_value());
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("opencl' is writable by others"), std::string::npos) << err;
  EXPECT_EQ(all_files(dir_ / "opencl"), 0u);
}

// What is not a regular file is never read: a symlink (to /dev/zero, to a forged entry), a
// FIFO (which would block a read forever), a device, a directory. Each runs in a child with an
// alarm, so that a hang fails instead of blocking the suite.
TEST_F(DiskCacheTrust, OnlyRegularFilesAreRead) {
  const fs::path entry = plant_forgery();
  const fs::path forged = root_ / "forged.bin";
  fs::rename(entry, forged);
  const std::pair<const char*, std::function<void()>> plants[] = {
      {"symlink to a forged entry", [&] { fs::create_symlink(forged, entry); }},
      {"symlink to /dev/zero", [&] { fs::create_symlink("/dev/zero", entry); }},
      {"FIFO", [&] { ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0); }},
      {"directory", [&] { fs::create_directory(entry); }},
  };
  for (const auto& [what, plant] : plants) {
    SCOPED_TRACE(what);
    std::error_code ec;
    fs::remove_all(entry, ec);
    plant();
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::alarm(30);
      try {
        ::_exit(run_a() == kA ? 0 : 2);
      } catch (...) {
        ::_exit(3);
      }
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                              : "signal " + std::to_string(WTERMSIG(status)));
  }
}

TEST_F(DiskCacheTrust, AnEntryLargerThanTheBoundIsNotRead) {
  const fs::path entry = plant_forgery();
  // The forged entry, then a sparse tail past the bound: nothing is read, nothing allocated.
  const int fd = ::open(entry.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(detail::kMaxCacheEntryBytes) + 1), 0);
  ::close(fd);
  EXPECT_EQ(run_a(), kA);
  EXPECT_LT(fs::file_size(entry), 1u << 20) << "the oversized entry was not replaced";
  // A 6 GiB sparse file, as the reproduction.
  const int fd2 = ::open(entry.c_str(), O_WRONLY | O_TRUNC);
  ASSERT_GE(fd2, 0);
  ASSERT_EQ(::ftruncate(fd2, off_t{6} << 30), 0);
  ::close(fd2);
  EXPECT_EQ(run_a(), kA);
}

// Writes go to an unpredictable, exclusively created temporary: symlinks planted at the names
// the cache once used (<entry>.tmp<pid>.<n>) lead nowhere.
TEST_F(DiskCacheTrust, PlantedSymlinksAtTemporaryNamesAreNotFollowed) {
  const std::string src = source("dk_planted");
  run_and_check(kernel(src));
  const fs::path entry = entries(dir_)[0];
  fs::remove(entry);
  remove_images(dir_);
  const fs::path victim = root_ / "victim";
  write_file(victim, "precious");
  for (int n = 0; n < 64; ++n) {
    fs::create_symlink(
        victim, entry.string() + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(n));
  }
  run_and_check(kernel(src));
  EXPECT_EQ(read_file(victim), "precious");
  EXPECT_EQ(entries(dir_).size(), 1u);
  std::size_t others = 0;
  for (const auto& e : fs::directory_iterator(dir_))
    others += !e.is_symlink() && !e.is_directory() && e.path() != entry && !is_image(e.path()) &&
              e.path().filename() != ".last-cleanup";
  EXPECT_EQ(others, 0u) << "a temporary was left behind";
}

// The size limit (docs/design/cache_limit.md).
class DiskCacheLimit : public DiskCache {
 protected:
  // An entry of `bytes` bytes of content in `folder`, last used at `when` (seconds since 1970).
  fs::path put(std::string_view folder, const std::string& key, std::size_t bytes, time_t when) {
    detail::cache_store(folder, key, std::vector<char>(bytes, 'x'));
    const fs::path p = (folder.empty() ? dir_ : dir_ / std::string(folder)) /
                       (detail::hex64(detail::fnv1a(key)) + ".bin");
    struct timespec times[2];
    times[0].tv_sec = times[1].tv_sec = when;
    times[0].tv_nsec = times[1].tv_nsec = 0;
    EXPECT_EQ(::utimensat(AT_FDCWD, p.c_str(), times, 0), 0) << p;
    return p;
  }
  // No limit unless a test sets one: a store then never starts a cleanup of its own beside
  // the test's.
  void SetUp() override {
    DiskCache::SetUp();
    ::setenv("TACK_CACHE_LIMIT", "0", 1);
  }
  EnvGuard limit_env_{"TACK_CACHE_LIMIT"};
  static inline const std::string kFresh = ".tmp-" + std::string(32, 'a');
  static inline const std::string kStale = ".tmp-" + std::string(32, 'b');
};

TEST_F(DiskCacheLimit, TheLimitIsBytesWithABinaryUnit) {
  using detail::parse_cache_limit;
  EXPECT_EQ(parse_cache_limit("0"), 0u);
  EXPECT_EQ(parse_cache_limit("1048576"), 1048576u);
  EXPECT_EQ(parse_cache_limit("12B"), 12u);
  EXPECT_EQ(parse_cache_limit("64k"), 64u << 10);
  EXPECT_EQ(parse_cache_limit("512M"), 512u << 20);
  EXPECT_EQ(parse_cache_limit("2G"), std::uint64_t{2} << 30);
  EXPECT_EQ(parse_cache_limit("2GiB"), std::uint64_t{2} << 30);
  EXPECT_EQ(parse_cache_limit("2gb"), std::uint64_t{2} << 30);
  EXPECT_EQ(parse_cache_limit("1T"), std::uint64_t{1} << 40);
  for (const char* bad :
       {"", "M", "1.5G", "-1", "2X", "2 G", "2GG", "99999999999999999999", "17179869184T"})
    EXPECT_EQ(parse_cache_limit(bad), std::nullopt) << bad;
  ::unsetenv("TACK_CACHE_LIMIT");
  EXPECT_EQ(detail::cache_limit_bytes(), detail::kDefaultCacheLimitBytes);
  ::setenv("TACK_CACHE_LIMIT", "300M", 1);
  EXPECT_EQ(detail::cache_limit_bytes(), 300u << 20);
  ::setenv("TACK_CACHE_LIMIT", "lots", 1);  // the default, with one warning
  EXPECT_EQ(detail::cache_limit_bytes(), detail::kDefaultCacheLimitBytes);
}

TEST_F(DiskCacheLimit, ACleanupRemovesTheLeastRecentlyUsedEntriesOfEveryFolder) {
  // Ten entries of about 10 KiB, alternately in the objects' and the records' folder, used
  // at times 1000, 2000, ... (entry 0 the longest ago).
  std::vector<fs::path> used;
  for (int i = 0; i < 10; ++i)
    used.push_back(put(i % 2 ? "records" : "", "k" + std::to_string(i), 10000, 1000 * (i + 1)));
  const std::uint64_t each = fs::file_size(used[0]);
  // Files not named as Tack names them, anything in a folder Tack does not store in, and a
  // fresh temporary are left alone, however old; a temporary an hour old (a process died
  // writing it) is removed.
  const std::string hex_name = std::string(16, 'c') + ".bin";
  write_file(dir_ / "notes.bin", std::string(50000, 'n'));
  fs::create_directory(dir_ / "other");
  write_file(dir_ / "other" / hex_name, std::string(50000, 'o'));
  write_file(dir_ / "records" / ".tmp-partial", "partial");
  for (const fs::path& p :
       {dir_ / "notes.bin", dir_ / "other" / hex_name, dir_ / "records" / ".tmp-partial"})
    age(p);
  write_file(dir_ / kFresh, "partial");
  write_file(dir_ / "records" / kStale, "partial");
  age(dir_ / "records" / kStale);

  // Within the limit: nothing is removed.
  detail::CacheCleanup within = detail::clean_cache(20 * each);
  EXPECT_EQ(within.files, 10u);
  EXPECT_EQ(within.bytes, 10 * each);
  EXPECT_EQ(within.removed_files, 1u);  // the stale temporary only
  EXPECT_FALSE(fs::exists(dir_ / "records" / kStale));

  // Over it: the oldest go until the rest is at most 90% of the limit (5 * each -> 4.5 * each:
  // the six oldest go, four remain).
  detail::CacheCleanup over = detail::clean_cache(5 * each);
  EXPECT_EQ(over.files, 10u);
  EXPECT_EQ(over.removed_files, 6u);
  EXPECT_EQ(over.removed_bytes, 6 * each);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(fs::exists(used[i]), i >= 6) << i;
  for (const fs::path& p : {dir_ / "notes.bin", dir_ / "other" / hex_name,
                            dir_ / "records" / ".tmp-partial", dir_ / kFresh})
    EXPECT_TRUE(fs::exists(p)) << p;

  // No limit: nothing more goes.
  EXPECT_EQ(detail::clean_cache(0).removed_files, 0u);
}

TEST_F(DiskCacheLimit, ALoadRefreshesAnEntryLastUsedOverADayAgo) {
  const fs::path old_entry = put("", "old", 100, 1000000000);
  const std::int64_t set = ctime_ns(old_entry);
  ::usleep(20000);  // past the file system's clock tick
  ASSERT_TRUE(detail::cache_load("", "old"));
  EXPECT_GT(atime_ns(old_entry), kAged);  // used now
  EXPECT_GT(ctime_ns(old_entry), set);    // set by the load (not only by relatime's update)
  EXPECT_EQ(mtime_ns(old_entry), kAged);  // written then
  // One used within the day is not written on a load: its status-change time, which setting
  // a time changes (and the file system's own access-time updates do not), stays.
  const fs::path new_entry = put("", "new", 100, ::time(nullptr) - 3600);
  const std::int64_t changed = ctime_ns(new_entry);
  ASSERT_TRUE(detail::cache_load("", "new"));
  EXPECT_EQ(ctime_ns(new_entry), changed);
  // An entry loaded recently but written long ago counts as used recently.
  const fs::path reused = put("", "reused", 10000, 1000);
  struct timespec times[2] = {{::time(nullptr), 0}, {0, UTIME_OMIT}};
  ASSERT_EQ(::utimensat(AT_FDCWD, reused.c_str(), times, 0), 0);
  const fs::path unused = put("", "unused", 10000, 2000);
  // About 20 KB against 15 KB: one of the two large entries goes, the one not used since 1970.
  EXPECT_EQ(detail::clean_cache(15000).removed_files, 1u);
  EXPECT_FALSE(fs::exists(unused));
  EXPECT_TRUE(fs::exists(reused));
}

TEST_F(DiskCacheLimit, StoresStartACleanupAtMostOnceAnHour) {
  // 256 stores always include one that looks at the stamp (every 256th of the process does).
  auto store_many = [](const std::string& prefix) {
    for (int i = 0; i < 256; ++i) detail::cache_store("", prefix + std::to_string(i), {'v'});
  };
  const fs::path aged = put("", "aged", 100000, 1000);
  ASSERT_FALSE(fs::exists(dir_ / ".last-cleanup"));  // no limit: no store looked at the stamp
  ::setenv("TACK_CACHE_LIMIT", "64K", 1);
  const std::uint64_t before = detail::cache_cleanups_started();
  store_many("a");
  EXPECT_EQ(detail::cache_cleanups_started(), before + 1);
  ASSERT_TRUE(fs::exists(dir_ / ".last-cleanup"));
  // The cleanup runs on its own thread: the aged entry goes.
  detail::wait_for_cache_cleanup();
  EXPECT_FALSE(fs::exists(aged));

  // Within the hour of the stamp: no other cleanup starts.
  const fs::path aged_again = put("", "aged again", 100000, 1000);
  store_many("b");
  EXPECT_EQ(detail::cache_cleanups_started(), before + 1);
  EXPECT_TRUE(fs::exists(aged_again));

  // An hour later (the stamp aged) it does; and with no limit (0) none ever starts.
  age(dir_ / ".last-cleanup");
  ::setenv("TACK_CACHE_LIMIT", "0", 1);
  store_many("c");
  EXPECT_EQ(detail::cache_cleanups_started(), before + 1);
  ::setenv("TACK_CACHE_LIMIT", "64K", 1);
  store_many("d");
  EXPECT_EQ(detail::cache_cleanups_started(), before + 2);
  detail::wait_for_cache_cleanup();
  EXPECT_FALSE(fs::exists(aged_again));
}

TEST_F(DiskCacheLimit, AForkedChildCleansOnItsOwn) {
  auto store_many = [](const std::string& prefix) {
    for (int i = 0; i < 256; ++i) detail::cache_store("", prefix + std::to_string(i), {'v'});
  };
  ::setenv("TACK_CACHE_LIMIT", "64K", 1);
  store_many("parent");  // the parent's cleaner now exists and has had a thread
  detail::wait_for_cache_cleanup();
  // (Aged after this store: the 257th of the process, it looks at the stamp too.)
  const fs::path aged = put("", "aged in the child", 100000, 1000);
  age(dir_ / ".last-cleanup");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The child's own cleanup starts, runs and is waited for: the aged entry goes.
    const std::uint64_t before = detail::cache_cleanups_started();
    store_many("child");
    const bool started = detail::cache_cleanups_started() == before + 1;
    detail::wait_for_cache_cleanup();
    ::_exit(started && !fs::exists(aged) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child did not clean the cache on its own";
  EXPECT_FALSE(fs::exists(aged));
}

}  // namespace
}  // namespace tack
