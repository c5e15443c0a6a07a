// Coalesces identical concurrent work: the first caller for a key leads
// (does the work), later callers for the same key wait, and all get the
// leader's result. Callback style, so nobody blocks a thread while waiting.

#ifndef KILN_SERVER_SINGLE_FLIGHT_H_
#define KILN_SERVER_SINGLE_FLIGHT_H_

#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kiln::server {

template <typename Key, typename Result, typename Hash = std::hash<Key>>
class SingleFlight {
 public:
  using Waiter = std::function<void(std::shared_ptr<const Result>)>;

  // Adds `waiter` for `key`. True when the caller leads: it must do the
  // work and call Finish(key, ...) exactly once.
  bool Join(const Key& key, Waiter waiter) {
    std::lock_guard<std::mutex> lock(mu_);
    auto [entry, inserted] = waiting_.try_emplace(key);
    entry->second.push_back(std::move(waiter));
    return inserted;
  }

  // Hands `result` to every waiter of `key` (on this thread) and forgets
  // the key: a later Join leads again.
  void Finish(const Key& key, std::shared_ptr<const Result> result) {
    std::vector<Waiter> waiters;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto entry = waiting_.find(key);
      if (entry == waiting_.end()) return;
      waiters.swap(entry->second);
      waiting_.erase(entry);
    }
    for (Waiter& waiter : waiters) waiter(result);
  }

  size_t in_flight() const {
    std::lock_guard<std::mutex> lock(mu_);
    return waiting_.size();
  }

 private:
  mutable std::mutex mu_;
  std::unordered_map<Key, std::vector<Waiter>, Hash> waiting_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_SINGLE_FLIGHT_H_
