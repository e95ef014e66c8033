// What Tack reports about its own work: each kernel compiled, and each kernel loaded from the
// disk cache instead (kernel, device, signature, time). TACK_LOG=1 prints the events to stderr
// as they happen; a program may also collect them (Python's `tack` logger does: docs/kernels.md,
// "Logging").
#pragma once

#include <string>
#include <vector>

namespace tack {

// Collect events for take_log_events() (off by default: nothing is kept).
void set_log_collect(bool on);
// True when collected events wait; a relaxed read, cheap enough for every launch.
bool log_events_pending();
// The collected events, oldest first, emptying the collection.
std::vector<std::string> take_log_events();

}  // namespace tack
