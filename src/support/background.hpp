// One background worker thread for the process, for work whose result a later caller may need
// at once: whoever needs a task's result first runs it (if the worker has not started it) or
// waits for it. The CPU target's tiered compile queues each kernel's optimized build here
// (targets/cpu/cpu_target.cpp, docs/design/cpu_limits.md "Tiered compile").
#pragma once

#include <functional>
#include <memory>

namespace tack::detail {

class BackgroundTask {
 public:
  // `work` must not throw (a task that can fail handles its own errors). It is destroyed once
  // it has run, with what it captured (a task may hold what holds the task).
  explicit BackgroundTask(std::function<void()> work) : work_(std::move(work)) {}
  // Returns once the work has run: runs it on this thread if nobody has started it, or waits
  // for the thread that has.
  void finish();
  bool done() const;
  // Drops the work if nobody has started it: it leaves the queue and what it captured is
  // destroyed now (a running task finishes). finish() then returns at once.
  void cancel();

 private:
  friend class BackgroundWorker;
  enum class State { pending, running, done };
  State state_ = State::pending;  // guarded by the worker's mutex
  std::function<void()> work_;
};

// Queues `task` for the worker (started on first use). At exit the worker finishes every
// queued task before the process ends; in a child made by fork() the queued tasks run on a new
// worker, or in finish().
void run_in_background(std::shared_ptr<BackgroundTask> task);

// Runs every task queued so far and waits for them (tests, and the end of a benchmark warm-up).
void finish_background_tasks();

}  // namespace tack::detail
