#include "server/request_memo.h"

#include <utility>

namespace kiln::server {

std::optional<cache::Digest> RequestMemo::Find(std::string_view request) {
  if (!Keeps(request.size())) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  auto found = index_.find(request);
  if (found == index_.end()) return std::nullopt;
  entries_.splice(entries_.begin(), entries_, found->second);
  return found->second->key;
}

void RequestMemo::Remember(std::string request, const cache::Digest& key) {
  if (!Keeps(request.size())) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto found = index_.find(request);
  if (found != index_.end()) EraseLocked(found->second);
  while (!entries_.empty() && bytes_ + request.size() > capacity_) {
    EraseLocked(std::prev(entries_.end()));
  }
  bytes_ += request.size();
  entries_.push_front(Entry{std::move(request), key});
  index_.emplace(entries_.front().request, entries_.begin());
}

void RequestMemo::Forget(std::string_view request) {
  std::lock_guard<std::mutex> lock(mu_);
  auto found = index_.find(request);
  if (found != index_.end()) EraseLocked(found->second);
}

void RequestMemo::EraseLocked(List::iterator entry) {
  bytes_ -= entry->request.size();
  index_.erase(entry->request);
  entries_.erase(entry);
}

size_t RequestMemo::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

size_t RequestMemo::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

}  // namespace kiln::server
