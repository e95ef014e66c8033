// The crash report of kernel code (crash_report.hpp). The handler reads a fixed table of atomic
// ranges and calls write(2): both are async-signal-safe; it allocates nothing and takes no lock.
#include "support/crash_report.hpp"

#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <mutex>

namespace tack::detail {
namespace {

// Enough for every kernel a process keeps loaded; a kernel past it only goes unreported.
constexpr std::size_t kSlots = 4096;
struct Range {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
};
Range ranges[kSlots];
// A slot being filled: its begin is this until its end is written.
constexpr std::uintptr_t kClaimed = ~std::uintptr_t{0};

struct sigaction previous_segv, previous_bus;

constexpr char kMessage[] =
    "\ntack: a Tack kernel crashed (a memory fault in JIT-compiled kernel code, most often an "
    "index out of its array's bounds); rerun with TACK_DEBUG=1 to check every index (the "
    "access is then skipped and the call raises IndexError naming the array and index)\n";

std::uintptr_t faulting_instruction(void* context) {
#if defined(__x86_64__) && defined(__linux__)
  return static_cast<std::uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__) && defined(__linux__)
  return static_cast<std::uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.pc);
#else
  (void)context;
  return 0;
#endif
}

bool in_kernel_code(std::uintptr_t pc) {
  if (pc == 0) return false;
  for (const Range& r : ranges) {
    const std::uintptr_t b = r.begin.load(std::memory_order_acquire);
    if (b != 0 && b != kClaimed && pc >= b && pc < r.end.load(std::memory_order_relaxed))
      return true;
  }
  return false;
}

void on_fault(int sig, siginfo_t* info, void* context) {
  if (in_kernel_code(faulting_instruction(context))) {
    const ssize_t ignored = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    (void)ignored;
  }
  // Go on as the signal would have without us.
  struct sigaction& previous = sig == SIGSEGV ? previous_segv : previous_bus;
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(sig, info, context);
    return;
  }
  if (previous.sa_handler == SIG_IGN) return;
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != nullptr) {
    previous.sa_handler(sig);
    return;
  }
  // The default action: restored, and the faulting instruction runs again and ends the process
  // with the signal (and its core), as if no handler had been there.
  ::sigaction(sig, &previous, nullptr);
}

void install() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_sigaction = &on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGSEGV, &action, &previous_segv);
  ::sigaction(SIGBUS, &action, &previous_bus);
}

}  // namespace

void register_kernel_code(std::uintptr_t begin, std::uintptr_t end) {
  static std::once_flag installed;
  std::call_once(installed, install);
  if (begin == 0 || end <= begin) return;
  for (Range& r : ranges) {
    // Claim a free slot, write its end, then publish its begin: a handler never sees a begin
    // without its end.
    std::uintptr_t expected = 0;
    if (!r.begin.compare_exchange_strong(expected, kClaimed, std::memory_order_acquire)) continue;
    r.end.store(end, std::memory_order_relaxed);
    r.begin.store(begin, std::memory_order_release);
    return;
  }
}

void unregister_kernel_code(std::uintptr_t begin, std::uintptr_t end) {
  for (Range& r : ranges) {
    if (r.begin.load(std::memory_order_relaxed) == begin &&
        r.end.load(std::memory_order_relaxed) == end) {
      r.begin.store(0, std::memory_order_release);
      return;
    }
  }
}

}  // namespace tack::detail
