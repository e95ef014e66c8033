// Linked only into a libtack with LLVM's static libraries in it (tack_shared_library(... STATIC),
// src/CMakeLists.txt): what keeps that library's glibc floor at 2.34 (docs/design/wheel.md).
//
// Debian's LLVM 19 was built where glibc has arc4random (2.36), so its Support library's
// llvm::sys::Process::GetRandomNumber calls it, and a wheel linking it would need glibc 2.36
// (manylinux_2_36: not Ubuntu 22.04, 2.35). This definition, hidden inside libtack, is what the
// static link binds that call to; arc4random's contract (uniform 32 bits, never fails) is met
// with getrandom(2) (glibc 2.25, Linux 3.17). A libtack linked with the shared libLLVM never
// sees it.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>

extern "C" __attribute__((visibility("hidden"))) std::uint32_t arc4random() {
  std::uint32_t value = 0;
  for (;;) {
    const ssize_t got = getrandom(&value, sizeof value, 0);
    if (got == static_cast<ssize_t>(sizeof value)) return value;
    if (got < 0 && errno != EINTR) __builtin_trap();  // no entropy source: arc4random aborts too
  }
}
