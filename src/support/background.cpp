#include "support/background.hpp"

#include <pthread.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
#include <thread>

namespace tack::detail {

// The queue, the thread and every task's state, under one mutex: a fork() then never copies a
// task halfway through a change of state (the prepare handler holds the mutex).
class BackgroundWorker {
 public:
  static BackgroundWorker& get() {
    static BackgroundWorker worker;  // destroyed at exit: finishes the queue, joins the thread
    return worker;
  }

  void push(std::shared_ptr<BackgroundTask> task) {
    std::unique_lock lock(mutex());
    queue_.push_back(std::move(task));
    if (thread_ == nullptr && !stopping_) thread_ = new std::thread([this] { loop(); });
    cv().notify_all();
  }

  void finish(BackgroundTask& task) {
    std::unique_lock lock(mutex());
    if (task.state_ == BackgroundTask::State::pending) {
      cv().wait(lock, [&] { return !pausing_; });           // a fork is waiting
      if (task.state_ != BackgroundTask::State::pending) {  // the worker took it meanwhile
        cv().wait(lock, [&] { return task.state_ == BackgroundTask::State::done; });
        return;
      }
      task.state_ = BackgroundTask::State::running;  // taken from the queue's view: it skips it
      ++running_;
      std::function<void()> work = std::move(task.work_);  // what it holds goes with it
      lock.unlock();
      work();
      work = nullptr;
      lock.lock();
      --running_;
      task.state_ = BackgroundTask::State::done;
      cv().notify_all();
      return;
    }
    cv().wait(lock, [&] { return task.state_ == BackgroundTask::State::done; });
  }

  void cancel(BackgroundTask& task) {
    std::function<void()> work;  // destroyed after the lock is released: it may hold anything
    std::shared_ptr<BackgroundTask> queued;
    std::unique_lock lock(mutex());
    if (task.state_ != BackgroundTask::State::pending) return;
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (it->get() != &task) continue;
      queued = std::move(*it);  // the caller's reference keeps the task alive past the lock
      queue_.erase(it);
      break;
    }
    work = std::move(task.work_);
    task.state_ = BackgroundTask::State::done;
    cv().notify_all();
    lock.unlock();
  }

  bool done(const BackgroundTask& task) {
    std::unique_lock lock(mutex());
    return task.state_ == BackgroundTask::State::done;
  }

  void finish_all() {
    std::deque<std::shared_ptr<BackgroundTask>> all;
    {
      std::unique_lock lock(mutex());
      all = queue_;
      if (current_) all.push_back(current_);
    }
    for (const auto& t : all) finish(*t);
  }

  ~BackgroundWorker() {
    std::thread* t = nullptr;
    {
      std::unique_lock lock(mutex());
      stopping_ = true;
      t = thread_;
      thread_ = nullptr;
      cv().notify_all();
    }
    if (t != nullptr) {
      // exit() called on the worker itself (a fatal error inside a build) cannot join it.
      if (t->get_id() != std::this_thread::get_id())
        t->join();
      else
        t->detach();
      delete t;
    }
    // Tasks queued after the worker stopped, or in a forked child whose worker never started.
    while (true) {
      std::shared_ptr<BackgroundTask> next;
      {
        std::unique_lock lock(mutex());
        if (queue_.empty()) break;
        next = std::move(queue_.front());
        queue_.pop_front();
      }
      finish(*next);
    }
  }

 private:
  BackgroundWorker() {
    new (mutex_storage_) std::mutex;
    new (cv_storage_) std::condition_variable;
    pthread_atfork(&prepare, &parent, &child);
  }

  std::mutex& mutex() { return *std::launder(reinterpret_cast<std::mutex*>(mutex_storage_)); }
  std::condition_variable& cv() {
    return *std::launder(reinterpret_cast<std::condition_variable*>(cv_storage_));
  }

  void loop() {
    std::unique_lock lock(mutex());
    while (true) {
      cv().wait(lock, [&] { return stopping_ || (!queue_.empty() && !pausing_); });
      if (queue_.empty()) return;  // stopping, and nothing left
      if (pausing_) continue;      // a fork is waiting
      std::shared_ptr<BackgroundTask> task = std::move(queue_.front());
      queue_.pop_front();
      if (task->state_ != BackgroundTask::State::pending) continue;  // a caller took it
      task->state_ = BackgroundTask::State::running;
      ++running_;
      current_ = task;
      std::function<void()> work = std::move(task->work_);  // what it holds goes with it
      lock.unlock();
      work();
      work = nullptr;
      lock.lock();
      --running_;
      current_.reset();
      task->state_ = BackgroundTask::State::done;
      cv().notify_all();
    }
  }

  // fork(): waits for the tasks running now, on the worker or in finish() (a compile holds
  // LLVM's locks, which the child would find taken), and holds every thread between tasks
  // until the fork is done. The
  // child has no worker thread: a new one starts with the next push (not here: a fork handler
  // should not start threads), finish() runs a queued task itself, and the exit runs what is
  // left. Its mutex and condition variable are made anew.
  static void prepare() {
    BackgroundWorker& w = get();
    w.mutex().lock();
    w.pausing_ = true;
    while (w.running_ > 0) {
      std::unique_lock lock(w.mutex(), std::adopt_lock);
      w.cv().wait(lock);
      lock.release();  // still held, through the fork
    }
  }
  static void parent() {
    BackgroundWorker& w = get();
    w.pausing_ = false;
    w.cv().notify_all();
    w.mutex().unlock();
  }
  static void child() {
    BackgroundWorker& w = get();
    new (w.mutex_storage_) std::mutex;
    new (w.cv_storage_) std::condition_variable;
    w.pausing_ = false;
    w.thread_ = nullptr;  // the parent's thread: not ours to join (its object is leaked)
  }

  alignas(std::mutex) unsigned char mutex_storage_[sizeof(std::mutex)];
  alignas(std::condition_variable) unsigned char cv_storage_[sizeof(std::condition_variable)];
  std::deque<std::shared_ptr<BackgroundTask>> queue_;
  int running_ = 0;                          // tasks running now, on the worker or in finish()
  std::shared_ptr<BackgroundTask> current_;  // the worker's
  std::thread* thread_ = nullptr;
  bool stopping_ = false;
  bool pausing_ = false;  // a fork is waiting: no task starts
};

void BackgroundTask::finish() {
  BackgroundWorker::get().finish(*this);
}

void BackgroundTask::cancel() {
  BackgroundWorker::get().cancel(*this);
}

bool BackgroundTask::done() const {
  return BackgroundWorker::get().done(*this);
}

void run_in_background(std::shared_ptr<BackgroundTask> task) {
  BackgroundWorker::get().push(std::move(task));
}

void finish_background_tasks() {
  BackgroundWorker::get().finish_all();
}

}  // namespace tack::detail
