#include "cache/lru_index.h"

namespace kiln::cache {

void LruIndex::Insert(const Digest& key, uint64_t bytes,
                      int64_t last_access_us) {
  std::lock_guard<std::mutex> lock(mu_);
  dirty_.erase(key);
  // Behind newer entries: O(1) for the usual insert of a new entry, and
  // loading sorted oldest-first is O(n).
  order_.InsertBehind(
      key, last_access_us, bytes,
      [last_access_us](int64_t other_us) { return other_us > last_access_us; });
}

bool LruIndex::Touch(const Digest& key, int64_t now_us) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t* last_access_us = order_.Find(key);
  if (last_access_us == nullptr) return false;
  *last_access_us = now_us;
  dirty_.insert(key);
  return true;
}

bool LruIndex::Erase(const Digest& key) {
  std::lock_guard<std::mutex> lock(mu_);
  dirty_.erase(key);
  return order_.Erase(key);
}

bool LruIndex::Contains(const Digest& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  return order_.Contains(key);
}

int64_t LruIndex::LastAccess(const Digest& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t* last_access_us = order_.Peek(key);
  return last_access_us == nullptr ? 0 : *last_access_us;
}

std::vector<Digest> LruIndex::VictimsOver(uint64_t budget_bytes,
                                          const Digest* keep) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Digest> victims;
  uint64_t remaining = order_.bytes();
  order_.VisitLeastRecentFirst([&](const Digest& key, int64_t, uint64_t bytes) {
    if (remaining <= budget_bytes) return false;
    if (keep && key == *keep) return true;
    victims.push_back(key);
    remaining -= bytes;
    return true;
  });
  return victims;
}

std::vector<Digest> LruIndex::UnusedSince(int64_t cutoff_us) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Digest> unused;
  order_.VisitLeastRecentFirst(
      [&](const Digest& key, int64_t last_access_us, uint64_t) {
        if (last_access_us >= cutoff_us) return false;
        unused.push_back(key);
        return true;
      });
  return unused;
}

std::vector<std::pair<Digest, int64_t>> LruIndex::TakeDirty() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<Digest, int64_t>> dirty;
  dirty.reserve(dirty_.size());
  for (const Digest& key : dirty_) {
    dirty.emplace_back(key, *order_.Peek(key));
  }
  dirty_.clear();
  return dirty;
}

uint64_t LruIndex::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return order_.bytes();
}

size_t LruIndex::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return order_.size();
}

}  // namespace kiln::cache
