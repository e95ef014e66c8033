// The background worker: a task cancelled before it starts never runs, and what it captured is
// destroyed at once (a dropped kernel's queued optimized build, targets/cpu/cpu_target.cpp).
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <memory>

#include "support/background.hpp"

namespace tack::detail {
namespace {

TEST(Background, ACancelledTaskNeverRunsAndReleasesWhatItHolds) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  auto blocker = std::make_shared<BackgroundTask>([&started, released]() noexcept {
    started.set_value();
    released.wait();  // holds the worker: the next task stays queued
  });
  run_in_background(blocker);
  started.get_future().wait();

  std::atomic<bool> ran{false};
  auto held = std::make_shared<int>(7);
  const std::weak_ptr<int> watch = held;
  auto task = std::make_shared<BackgroundTask>([&ran, held]() noexcept { ran = true; });
  held.reset();
  run_in_background(task);
  EXPECT_FALSE(task->done());
  task->cancel();
  EXPECT_TRUE(task->done());
  EXPECT_TRUE(watch.expired());  // destroyed by cancel(), not when the worker reaches it
  task->finish();                // returns at once

  release.set_value();
  blocker->finish();
  finish_background_tasks();
  EXPECT_FALSE(ran.load());
}

TEST(Background, CancellingARunningOrFinishedTaskChangesNothing) {
  std::atomic<int> runs{0};
  auto task = std::make_shared<BackgroundTask>([&runs]() noexcept { ++runs; });
  run_in_background(task);
  task->finish();
  task->cancel();
  EXPECT_TRUE(task->done());
  EXPECT_EQ(runs.load(), 1);
}

}  // namespace
}  // namespace tack::detail
