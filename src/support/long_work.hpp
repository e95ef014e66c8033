// The long-work hook of a kernel call: a caller that holds a lock other threads wait for
// (Python's GIL) lets go of it only when the call is about to work for long or to wait, so a
// warm launch of a few microseconds keeps it (docs/design/dispatch.md, "The warm path").
#pragma once

#include "tack/kernel.hpp"

namespace tack::detail {

// Installs `hook` as this thread's for the scope's life (the previous one comes back after).
class LongWorkScope {
 public:
  explicit LongWorkScope(BeforeLongWork* hook);
  ~LongWorkScope();
  LongWorkScope(const LongWorkScope&) = delete;
  LongWorkScope& operator=(const LongWorkScope&) = delete;

 private:
  BeforeLongWork* previous_;
};

// Called before anything of a call that may take long or wait for another thread: a compile,
// a lock a compile holds, a launch predicted past a few microseconds or fanned out over
// threads, a device's launch, a wait for data in flight. Tells this thread's hook, once per
// call (the hook is cleared on the first call), and is free when there is none.
void before_long_work();

}  // namespace tack::detail
