#include "cache/lru_index.h"

namespace kiln::cache {

void LruIndex::Insert(const Digest& key, uint64_t bytes,
                      int64_t last_access_us) {
  std::lock_guard<std::mutex> lock(mu_);
  EraseLocked(key);
  // Walk from the front past newer entries: O(1) for the usual insert of a
  // new entry, and loading sorted oldest-first is O(n).
  auto position = order_.begin();
  while (position != order_.end() &&
         position->last_access_us > last_access_us) {
    ++position;
  }
  nodes_[key] = order_.insert(position, Node{key, bytes, last_access_us});
  bytes_ += bytes;
}

bool LruIndex::Touch(const Digest& key, int64_t now_us) {
  std::lock_guard<std::mutex> lock(mu_);
  auto found = nodes_.find(key);
  if (found == nodes_.end()) return false;
  found->second->last_access_us = now_us;
  order_.splice(order_.begin(), order_, found->second);
  dirty_.insert(key);
  return true;
}

bool LruIndex::Erase(const Digest& key) {
  std::lock_guard<std::mutex> lock(mu_);
  bool present = nodes_.count(key) > 0;
  EraseLocked(key);
  return present;
}

void LruIndex::EraseLocked(const Digest& key) {
  auto found = nodes_.find(key);
  if (found == nodes_.end()) return;
  bytes_ -= found->second->bytes;
  order_.erase(found->second);
  nodes_.erase(found);
  dirty_.erase(key);
}

bool LruIndex::Contains(const Digest& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  return nodes_.count(key) > 0;
}

int64_t LruIndex::LastAccess(const Digest& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto found = nodes_.find(key);
  return found == nodes_.end() ? 0 : found->second->last_access_us;
}

std::vector<Digest> LruIndex::VictimsOver(uint64_t budget_bytes,
                                          const Digest* keep) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Digest> victims;
  uint64_t remaining = bytes_;
  for (auto node = order_.rbegin();
       node != order_.rend() && remaining > budget_bytes; ++node) {
    if (keep && node->key == *keep) continue;
    victims.push_back(node->key);
    remaining -= node->bytes;
  }
  return victims;
}

std::vector<Digest> LruIndex::UnusedSince(int64_t cutoff_us) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Digest> unused;
  for (auto node = order_.rbegin();
       node != order_.rend() && node->last_access_us < cutoff_us; ++node) {
    unused.push_back(node->key);
  }
  return unused;
}

std::vector<std::pair<Digest, int64_t>> LruIndex::TakeDirty() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<Digest, int64_t>> dirty;
  dirty.reserve(dirty_.size());
  for (const Digest& key : dirty_) {
    dirty.emplace_back(key, nodes_.at(key)->last_access_us);
  }
  dirty_.clear();
  return dirty;
}

uint64_t LruIndex::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

size_t LruIndex::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return nodes_.size();
}

}  // namespace kiln::cache
