// Disk cache files: "TACKOBJ2\n", the key's length, a checksum of the object, the key's text,
// then the object file. Written to an exclusively created temporary and renamed, so readers
// never see half a file; the checksum catches a damaged object before it reaches the JIT linker.
//
// A cache entry is code this process will run, so the cache trusts only what no one else can
// have written (docs/design/dispatch.md, "The disk cache is code"): the directory must be the
// user's own and writable by no one else, every entry a regular file of the user's writable by
// no one else, and of bounded size. Every check is made with fstat on the open descriptor, and
// entries are opened relative to the checked directory's descriptor, never by a path that could
// be swapped between the check and the use. The checksum is no defence against forgery.
#include "support/disk_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <iterator>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "support/hash.hpp"

namespace tack::detail {
namespace {

constexpr char kMagic[] = "TACKOBJ2\n";
constexpr std::size_t kHeader = sizeof(kMagic) - 1 + 16;

// A file descriptor closed on every path.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_;
};

// Why `st` (a directory or an entry) may not be trusted, or "" when it may: it must be the
// effective user's and writable by nobody else.
std::string distrust(const struct stat& st) {
  if (st.st_uid != ::geteuid()) {
    return "is owned by user id " + std::to_string(st.st_uid) + ", not by this user (" +
           std::to_string(::geteuid()) + ")";
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return std::string("is writable by ") + ((st.st_mode & S_IWOTH) ? "others" : "its group") +
           " (mode " + mode + ")";
  }
  return "";
}

// Directories refused in this process: each is named in one warning, then left alone.
std::mutex refused_mutex;
std::set<std::string>& refused_directories() {
  static auto* s = new std::set<std::string>;  // immortal: compiles may run during exit
  return *s;
}

bool refused(const std::string& dir) {
  std::lock_guard lock(refused_mutex);
  return refused_directories().count(dir) != 0;
}

void refuse(const std::string& dir, const std::string& why) {
  {
    std::lock_guard lock(refused_mutex);
    if (!refused_directories().insert(dir).second) return;
  }
  std::fprintf(stderr,
               "tack: warning: the kernel cache directory '%s' %s, so anyone who can write it "
               "could make Tack run their code; the disk cache is off for it in this process. "
               "Make it private (chown it to yourself, chmod 700) or set TACK_CACHE_DIR to a "
               "private directory (TACK_CACHE_DIR= turns the cache off).\n",
               dir.c_str(), why.c_str());
}

// Creates the missing directories of `path`, each private (0700); existing ones are left as
// they are (they are checked where they are used).
void make_directories(const std::string& path) {
  for (std::size_t at = path.find('/', 1);; at = path.find('/', at + 1)) {
    const std::string prefix = at == std::string::npos ? path : path.substr(0, at);
    if (!prefix.empty()) ::mkdir(prefix.c_str(), 0700);  // EEXIST and the like: checked later
    if (at == std::string::npos) return;
  }
}

// Opens `dir` as a directory and checks it on the open descriptor; refuses it (with the one
// warning) when it may not be trusted. An absent or unreadable directory is only a miss.
Fd open_trusted_directory(int at, const char* name, const std::string& shown) {
  if (refused(shown)) return Fd();
  // The configured directory itself may be a symlink (a cache on another disk): it is the
  // directory it resolves to that is checked. Its folders inside are never followed.
  const int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (at == AT_FDCWD ? 0 : O_NOFOLLOW);
  Fd fd(::openat(at, name, flags));
  if (!fd) return fd;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Fd();
  if (const std::string why = distrust(st); !why.empty()) {
    refuse(shown, why);
    return Fd();
  }
  return fd;
}

// The folder of the cache directory that holds `folder`'s entries, opened and checked.
Fd open_folder(std::string_view folder, bool create) {
  const auto dir = cache_directory();
  if (!dir || dir->empty()) return Fd();
  if (create) make_directories(*dir);
  Fd top = open_trusted_directory(AT_FDCWD, dir->c_str(), *dir);
  if (!top || folder.empty()) return top;
  const std::string name(folder);
  if (create) ::mkdirat(top.get(), name.c_str(), 0700);
  return open_trusted_directory(top.get(), name.c_str(), *dir + "/" + name);
}

std::string entry_name(const std::string& key) {
  return hex64(fnv1a(key)) + ".bin";
}

// At most `limit` + 1 bytes of `fd`: more than `limit` means the file is too large.
bool read_all(int fd, std::size_t limit, std::string* out) {
  out->clear();
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) return true;
    out->append(chunk, static_cast<std::size_t>(n));
    if (out->size() > limit) return false;
  }
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// A name no one can predict, for the temporary an entry is written to before its rename.
std::string temporary_name() {
  std::uint64_t r[2] = {0, 0};
  if (::getrandom(r, sizeof r, 0) != static_cast<ssize_t>(sizeof r)) {
    r[0] ^= static_cast<std::uint64_t>(::getpid()) << 32;  // exclusive creation still holds
  }
  return ".tmp-" + hex64(r[0]) + hex64(r[1]);
}

// The size limit's bookkeeping (docs/design/cache_limit.md).
constexpr char kStamp[] = ".last-cleanup";    // its modification time: the last cleanup's start
constexpr std::time_t kCleanupEvery = 3600;   // seconds between cleanups of one directory
constexpr std::time_t kRefreshAfter = 86400;  // a load refreshes an entry's time once a day
constexpr unsigned kStoresPerCheck = 256;     // stores of a process between looks at the stamp

// Whether `name` is of Tack's own making: an entry (entry_name: 16 hex digits, ".bin") or a
// temporary (temporary_name: ".tmp-", 32 hex digits). A cleanup touches nothing else.
bool all_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}
bool is_entry_name(std::string_view name) {
  return name.size() == 20 && name.substr(16) == ".bin" && all_hex(name.substr(0, 16));
}
bool is_temporary_name(std::string_view name) {
  return name.size() == 37 && name.substr(0, 5) == ".tmp-" && all_hex(name.substr(5));
}

// When an entry was last used: written (modification time) or loaded (access time).
std::time_t last_used(const struct stat& st) {
  return std::max(st.st_atime, st.st_mtime);
}

std::atomic<bool> stop_cleaning{false};  // set at exit: a running cleanup stops at its next file
std::atomic<std::uint64_t> cleanups_started{0};

// clean_cache's work on the checked cache directory `top`. It takes no lock and reads no
// environment: it runs on the cleanup thread, beside a caller's setenv or fork.
CacheCleanup clean_directory(Fd top, std::uint64_t limit) {
  CacheCleanup result;
  struct Entry {
    std::time_t used;
    std::uint64_t bytes;
    std::size_t folder;  // into `folders`
    std::string name;
  };
  std::vector<Fd> folders;
  std::vector<Entry> entries;
  const std::time_t now = std::time(nullptr);
  // The entries of one folder (an open, checked directory): only Tack's own files, named as
  // it names entries and temporaries; a stale temporary is removed at once. Of the top level's
  // folders only kCacheFolders are looked into.
  auto scan = [&](Fd folder, std::vector<std::string>* subfolders) {
    const int dup = ::fcntl(folder.get(), F_DUPFD_CLOEXEC, 0);
    if (dup < 0) return;
    DIR* listing = ::fdopendir(dup);
    if (listing == nullptr) {
      ::close(dup);
      return;
    }
    const std::size_t index = folders.size();
    folders.push_back(std::move(folder));
    const int fd = folders.back().get();
    while (const dirent* e = ::readdir(listing)) {
      if (stop_cleaning.load(std::memory_order_relaxed)) break;
      const std::string_view name = e->d_name;
      if (name == "." || name == "..") continue;
      struct stat st {};
      if (::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        const bool ours = std::find(std::begin(kCacheFolders), std::end(kCacheFolders), name) !=
                          std::end(kCacheFolders);
        if (subfolders != nullptr && ours) subfolders->emplace_back(name);
        continue;
      }
      if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) continue;
      const auto bytes = static_cast<std::uint64_t>(st.st_size);
      if (is_temporary_name(name)) {
        if (now - st.st_mtime > kCleanupEvery && ::unlinkat(fd, e->d_name, 0) == 0) {
          ++result.removed_files;
          result.removed_bytes += bytes;
        }
        continue;
      }
      if (!is_entry_name(name)) continue;
      entries.push_back({last_used(st), bytes, index, std::string(name)});
      ++result.files;
      result.bytes += bytes;
    }
    ::closedir(listing);
  };
  std::vector<std::string> subfolders;
  scan(std::move(top), &subfolders);
  for (const auto& name : subfolders) {
    // Checked as every folder is; one that may not be trusted is left alone (its warning is
    // the stores' and loads' to give).
    Fd sub(::openat(folders.front().get(), name.c_str(),
                    O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
    struct stat st {};
    if (sub && ::fstat(sub.get(), &st) == 0 && distrust(st).empty()) scan(std::move(sub), nullptr);
  }
  if (limit == 0 || result.bytes <= limit) return result;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  const std::uint64_t target = limit / 10 * 9;
  std::uint64_t left = result.bytes;
  for (const Entry& e : entries) {
    if (left <= target || stop_cleaning.load(std::memory_order_relaxed)) break;
    if (::unlinkat(folders[e.folder].get(), e.name.c_str(), 0) != 0) continue;
    left -= e.bytes;
    ++result.removed_files;
    result.removed_bytes += e.bytes;
  }
  return result;
}

// The one cleanup thread of a process. It is never destroyed (a compile, and so a store, may run
// during exit); at exit it is told to stop and joined (it stops within a file), and no cleanup
// starts after that. fork() leaves the child a Cleaner of its own with no thread (the parent's
// is not there), the mutex held by no one (pthread_atfork).
class Cleaner {
 public:
  static Cleaner& get() {
    static Cleaner* cleaner = [] {
      auto* c = new Cleaner;
      std::atexit([] {
        stop_cleaning = true;
        get().wait();
      });
      ::pthread_atfork([] { get().mutex_.lock(); }, [] { get().mutex_.unlock(); },
                       [] {
                         Cleaner& c = get();
                         c.thread_ = nullptr;  // the parent's, not there: left alone
                         c.running_ = false;
                         c.mutex_.unlock();
                       });
      return c;
    }();
    return *cleaner;
  }
  // Whether start() would start a cleanup now (before a store claims the stamp's hour).
  bool can_start() const { return !running_.load() && !stop_cleaning.load(); }
  void start(Fd top, std::uint64_t limit) {
    std::lock_guard lock(mutex_);
    if (running_.load() || stop_cleaning.load()) return;
    if (thread_ != nullptr) {  // the last one, finished
      thread_->join();
      delete thread_;
    }
    thread_ = nullptr;
    running_ = true;
    try {
      thread_ = new std::thread([this, top = std::move(top), limit]() mutable {
        clean_directory(std::move(top), limit);
        running_ = false;
      });
    } catch (const std::exception&) {  // no thread to be had: the next hour's store tries again
      running_ = false;
      return;
    }
    cleanups_started.fetch_add(1);
  }
  void wait() {
    std::lock_guard lock(mutex_);
    if (thread_ != nullptr) {
      thread_->join();
      delete thread_;
      thread_ = nullptr;
    }
  }

 private:
  Cleaner() = default;
  std::mutex mutex_;
  std::thread* thread_ = nullptr;
  std::atomic<bool> running_{false};
};

// After a store: every kStoresPerCheck-th store of the process (the first included) looks at the
// directory's stamp, and past the hour claims it (so that the processes storing meanwhile do not
// scan too) and starts a cleanup. `open_top` opens the cache directory (only on those stores).
std::atomic<unsigned> stores_made{0};
template <class OpenTop>
void after_store(OpenTop&& open_top) {
  if (stores_made.fetch_add(1, std::memory_order_relaxed) % kStoresPerCheck != 0) return;
  const std::uint64_t limit = cache_limit_bytes();
  if (limit == 0 || !Cleaner::get().can_start()) return;
  Fd top = open_top();
  if (!top) return;
  struct stat st {};
  const std::time_t now = std::time(nullptr);
  if (::fstatat(top.get(), kStamp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      now - st.st_mtime < kCleanupEvery && st.st_mtime <= now) {
    return;
  }
  // O_NONBLOCK: a FIFO planted at the stamp's name cannot hang the store.
  Fd stamp(
      ::openat(top.get(), kStamp, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600));
  struct stat stamp_st {};
  if (!stamp || ::fstat(stamp.get(), &stamp_st) != 0 || !S_ISREG(stamp_st.st_mode) ||
      ::futimens(stamp.get(), nullptr) != 0)
    return;
  Cleaner::get().start(std::move(top), limit);
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
  Fd dir = open_folder(folder, false);
  if (!dir) return std::nullopt;
  // O_NOFOLLOW: a symlink is not an entry; O_NONBLOCK: opening a FIFO cannot hang.
  Fd fd(
      ::openat(dir.get(), entry_name(key).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd) return std::nullopt;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || !distrust(st).empty()) {
    return std::nullopt;  // not a regular file of ours writable by no one else: recompiled
  }
  if (st.st_size < 0 || static_cast<std::uint64_t>(st.st_size) > kMaxCacheEntryBytes) {
    return std::nullopt;
  }
  std::string content;
  if (!read_all(fd.get(), kMaxCacheEntryBytes, &content)) return std::nullopt;
  const std::size_t magic = sizeof(kMagic) - 1;
  if (content.size() < kHeader || content.compare(0, magic, kMagic) != 0) return std::nullopt;
  std::uint64_t key_size, checksum;
  std::memcpy(&key_size, content.data() + magic, 8);
  std::memcpy(&checksum, content.data() + magic + 8, 8);
  if (key_size != key.size() || content.size() - kHeader < key_size) return std::nullopt;
  if (content.compare(kHeader, key_size, key) != 0) return std::nullopt;
  const std::size_t object_at = kHeader + key_size;
  if (fnv1a(std::string_view(content).substr(object_at)) != checksum) return std::nullopt;
  // Used now: a cleanup removes the least recently used entries first. The access time, set
  // explicitly (a noatime mount never sets it, relatime at most daily), says so; the
  // modification time stays when the entry was written.
  if (std::time(nullptr) - last_used(st) > kRefreshAfter) {
    const struct timespec times[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
    ::futimens(fd.get(), times);
  }
  return std::vector<char>(content.begin() + static_cast<std::ptrdiff_t>(object_at), content.end());
}

void cache_store(std::string_view folder, const std::string& key, const std::vector<char>& object) {
  if (kHeader + key.size() + object.size() > kMaxStoredEntryBytes) return;  // compiled each time
  Fd dir = open_folder(folder, true);
  if (!dir) return;
  std::string tmp;
  Fd out;
  for (int attempt = 0; attempt < 8 && !out; ++attempt) {
    tmp = temporary_name();
    out = Fd(::openat(dir.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                      0600));
    if (!out && errno != EEXIST) return;  // an unwritable directory: the next process compiles
  }
  if (!out) return;
  const std::uint64_t key_size = key.size();
  const std::uint64_t checksum = fnv1a(std::string_view(object.data(), object.size()));
  std::string header(kMagic, sizeof(kMagic) - 1);
  header.append(reinterpret_cast<const char*>(&key_size), 8);
  header.append(reinterpret_cast<const char*>(&checksum), 8);
  const bool written = write_all(out.get(), header.data(), header.size()) &&
                       write_all(out.get(), key.data(), key.size()) &&
                       write_all(out.get(), object.data(), object.size());
  const bool closed = ::close(out.release()) == 0;  // a failed close may mean lost data
  if (!written || !closed ||
      ::renameat(dir.get(), tmp.c_str(), dir.get(), entry_name(key).c_str()) != 0) {
    ::unlinkat(dir.get(), tmp.c_str(), 0);
    return;
  }
  after_store([&] {
    // The cleanup thread's own descriptor of the cache directory.
    return folder.empty() ? Fd(::fcntl(dir.get(), F_DUPFD_CLOEXEC, 0)) : open_folder("", false);
  });
}

std::optional<std::uint64_t> parse_cache_limit(std::string_view text) {
  std::size_t at = 0;
  std::uint64_t value = 0;
  for (; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at) {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[at] - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (at == 0) return std::nullopt;
  std::string_view unit = text.substr(at);
  int shift = 0;
  if (!unit.empty()) {
    switch (std::toupper(static_cast<unsigned char>(unit[0]))) {
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      case 'T':
        shift = 40;
        break;
      case 'B':
        shift = -1;
        break;
      default:
        return std::nullopt;
    }
    unit.remove_prefix(1);
    if (shift < 0) {
      shift = 0;
      if (!unit.empty()) return std::nullopt;  // "B" alone
    } else if (unit == "iB" || unit == "IB" || unit == "ib" || unit == "B" || unit == "b") {
      unit = {};
    }
    if (!unit.empty()) return std::nullopt;
  }
  if (shift > 0 && value > (UINT64_MAX >> shift)) return std::nullopt;
  return value << shift;
}

std::uint64_t cache_limit_bytes() {
  const char* text = std::getenv("TACK_CACHE_LIMIT");
  if (text == nullptr || *text == '\0') return kDefaultCacheLimitBytes;
  if (const auto limit = parse_cache_limit(text)) return *limit;
  static std::once_flag warned;
  std::call_once(warned, [text] {
    std::fprintf(stderr,
                 "tack: warning: TACK_CACHE_LIMIT='%s' is not a size; the kernel cache keeps the "
                 "default limit of 2 GiB. Give bytes with an optional K, M, G or T (binary "
                 "units), e.g. TACK_CACHE_LIMIT=512M, or 0 for no limit.\n",
                 text);
  });
  return kDefaultCacheLimitBytes;
}

std::uint64_t cache_cleanups_started() {
  return cleanups_started.load();
}

void wait_for_cache_cleanup() {
  Cleaner::get().wait();
}

CacheCleanup clean_cache(std::uint64_t limit) {
  Fd top = open_folder("", false);
  if (!top) return CacheCleanup();
  return clean_directory(std::move(top), limit);
}

}  // namespace tack::detail
