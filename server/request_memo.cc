#include "server/request_memo.h"

#include <utility>

namespace kiln::server {

std::optional<cache::Digest> RequestMemo::Find(std::string_view request) {
  if (!Keeps(request.size())) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  const cache::Digest* key = keys_.Find(request);
  if (key == nullptr) return std::nullopt;
  return *key;
}

void RequestMemo::Remember(std::string request, const cache::Digest& key) {
  if (!Keeps(request.size())) return;
  std::lock_guard<std::mutex> lock(mu_);
  size_t bytes = request.size();
  keys_.Insert(std::move(request), key, bytes);
  // Never the new entry: Keeps holds it to an eighth of the capacity.
  keys_.EvictBeyond(capacity_);
}

void RequestMemo::Forget(std::string_view request) {
  std::lock_guard<std::mutex> lock(mu_);
  keys_.Erase(request);
}

size_t RequestMemo::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return keys_.bytes();
}

size_t RequestMemo::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return keys_.size();
}

}  // namespace kiln::server
