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

// Set while this thread runs a kernel's code (KernelCodeScope): a fault in a function the kernel
// calls (memset, a math routine) is the kernel's too. initial-exec: read by the signal handler
// without the dynamic TLS lookup.
__attribute__((tls_model("initial-exec"))) thread_local bool running_kernel_code = false;

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
  if (in_kernel_code(faulting_instruction(context)) || running_kernel_code) {
    const ssize_t ignored = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    (void)ignored;
  }
  // Go on as the signal would have without us.
  struct sigaction& previous = sig == SIGSEGV ? previous_segv : previous_bus;
  const bool ignored_or_default = previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN;
  if (!ignored_or_default && (previous.sa_flags & SA_SIGINFO) != 0) {
    previous.sa_sigaction(sig, info, context);
    return;
  }
  if (!ignored_or_default) {
    previous.sa_handler(sig);
    return;
  }
  // A signal sent by kill() or raise() that was ignored stays ignored.
  if (previous.sa_handler == SIG_IGN && info != nullptr && info->si_code <= 0) return;
  // The default action (a fault cannot be ignored: the kernel would kill the process anyway):
  // restored and raised again, pending until this handler returns, so the process ends with
  // the signal and its core, as if no handler had been there.
  struct sigaction fallback;
  std::memset(&fallback, 0, sizeof fallback);
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(sig, &fallback, nullptr);
  ::raise(sig);
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

KernelCodeScope::KernelCodeScope() : outer_(running_kernel_code) {
  running_kernel_code = true;
}
KernelCodeScope::~KernelCodeScope() {
  running_kernel_code = outer_;
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
