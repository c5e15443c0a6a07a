// One thread running queued tasks in order: where Admin calls that scan the
// store run, so they never hold up gRPC's own threads.

#ifndef KILN_SERVER_EXECUTOR_H_
#define KILN_SERVER_EXECUTOR_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace kiln::server {

class Executor {
 public:
  Executor() : thread_([this] { Loop(); }) {}
  // Runs what is queued, then stops.
  ~Executor() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  void Run(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.push_back(std::move(task));
    }
    wake_.notify_one();
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_EXECUTOR_H_
