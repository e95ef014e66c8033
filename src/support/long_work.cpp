// The long-work hook: one pointer per thread, told once.
#include "support/long_work.hpp"

namespace tack::detail {
namespace {

thread_local BeforeLongWork* current_hook = nullptr;

}  // namespace

LongWorkScope::LongWorkScope(BeforeLongWork* hook) : previous_(current_hook) {
  current_hook = hook;
}

LongWorkScope::~LongWorkScope() {
  current_hook = previous_;
}

void before_long_work() {
  BeforeLongWork* hook = current_hook;
  if (hook == nullptr) return;
  current_hook = nullptr;  // once per call: the work that follows is the caller's to wait for
  hook->before_long_work();
}

}  // namespace tack::detail
