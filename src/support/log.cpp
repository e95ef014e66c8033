// The log of compiles and cache loads: stderr under TACK_LOG=1, and a collection a program
// drains (the Python binding forwards it to the `tack` logger after each call).
#include "support/log.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "tack/log.hpp"

namespace tack {
namespace {

bool print_from_environment() {
  static const bool on = [] {
    const char* s = std::getenv("TACK_LOG");
    return s != nullptr && std::string(s) == "1";
  }();
  return on;
}

struct Collection {
  std::mutex mutex;
  std::vector<std::string> events;
  std::atomic<bool> on{false};
  std::atomic<bool> pending{false};
};

// Never destroyed: a kernel may compile while statics are destroyed at exit.
Collection& collection() {
  static auto* c = new Collection;
  return *c;
}

}  // namespace

void set_log_collect(bool on) {
  collection().on.store(on, std::memory_order_relaxed);
}

bool log_events_pending() {
  return collection().pending.load(std::memory_order_relaxed);
}

std::vector<std::string> take_log_events() {
  Collection& c = collection();
  std::lock_guard lock(c.mutex);
  std::vector<std::string> out;
  out.swap(c.events);
  c.pending.store(false, std::memory_order_relaxed);
  return out;
}

namespace detail {

bool log_enabled() {
  return print_from_environment() || collection().on.load(std::memory_order_relaxed);
}

void log_event(const std::string& message) {
  if (print_from_environment()) std::fprintf(stderr, "tack: %s\n", message.c_str());
  Collection& c = collection();
  if (!c.on.load(std::memory_order_relaxed)) return;
  std::lock_guard lock(c.mutex);
  if (c.events.size() < 10000) c.events.push_back(message);  // bounded if nobody drains it
  c.pending.store(true, std::memory_order_relaxed);
}

}  // namespace detail
}  // namespace tack
