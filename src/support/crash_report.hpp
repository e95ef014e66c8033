// A crash inside a kernel without debug mode is a bare segfault; this says what it was. The
// code of every loaded kernel is registered here; a SIGSEGV or SIGBUS whose instruction is in it
// prints, from a handler that only writes, "a Tack kernel crashed ...; rerun with TACK_DEBUG=1
// to check every index", then goes on as the signal would have (the previous handler, or the
// default: the process ends with the signal and its core).
#pragma once

#include <cstdint>

namespace tack::detail {

// [begin, end) holds a loaded kernel's code. The first call installs the handlers.
void register_kernel_code(std::uintptr_t begin, std::uintptr_t end);
void unregister_kernel_code(std::uintptr_t begin, std::uintptr_t end);

// Marks this thread as running kernel code for its lifetime (around a chunk call): a fault in
// a function the kernel calls (memset, a math routine) is reported as the kernel's too.
class KernelCodeScope {
 public:
  KernelCodeScope();
  ~KernelCodeScope();
  KernelCodeScope(const KernelCodeScope&) = delete;
  KernelCodeScope& operator=(const KernelCodeScope&) = delete;

 private:
  bool outer_;
};

}  // namespace tack::detail
