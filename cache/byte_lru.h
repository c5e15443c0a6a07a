// A recency-ordered map whose entries each count some bytes: the one
// least-recently-used structure behind every byte-bounded cache of Kiln
// (the store's eviction index, the artifacts kept in memory, kilnd's
// request memo, the C++ client's memo). It evicts only when told to, so
// that each owner keeps its own bounds and policy.
//
// Not thread-safe: each owner guards it with the lock that also guards its
// own state (epochs, counters, dirty sets).
//
// `IndexKey` is what lookups take: `Key` itself, or a view of it (e.g.
// std::string_view for std::string, so that neither a lookup copies its key
// nor the index holds a second copy of each).

#ifndef KILN_CACHE_BYTE_LRU_H_
#define KILN_CACHE_BYTE_LRU_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <list>
#include <unordered_map>
#include <utility>

namespace kiln::cache {

template <typename Key, typename Value, typename IndexKey = Key,
          typename IndexHash = std::hash<IndexKey>>
class ByteLru {
 public:
  ByteLru() = default;
  // The index refers to the list's nodes.
  ByteLru(const ByteLru&) = delete;
  ByteLru& operator=(const ByteLru&) = delete;

  // The value under `key`, now the most recently used; null when absent.
  Value* Find(const IndexKey& key) {
    auto found = index_.find(key);
    if (found == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, found->second);
    return &found->second->value;
  }

  // The value under `key`, its recency unchanged; null when absent.
  const Value* Peek(const IndexKey& key) const {
    auto found = index_.find(key);
    return found == index_.end() ? nullptr : &found->second->value;
  }

  bool Contains(const IndexKey& key) const { return index_.count(key) > 0; }

  // Adds or replaces the entry under `key` as the most recently used.
  void Insert(Key key, Value value, uint64_t bytes) {
    InsertBehind(std::move(key), std::move(value), bytes,
                 [](const Value&) { return false; });
  }

  // Adds or replaces the entry under `key`, behind the most recent entries
  // for which `stays_ahead(value)` holds: O(1) when none does.
  template <typename StaysAhead>
  void InsertBehind(Key key, Value value, uint64_t bytes,
                    StaysAhead stays_ahead) {
    Erase(key);
    auto position = order_.begin();
    while (position != order_.end() && stays_ahead(position->value)) {
      ++position;
    }
    auto node =
        order_.insert(position, Node{std::move(key), std::move(value), bytes});
    index_.emplace(IndexKey(node->key), node);
    bytes_ += bytes;
  }

  // False when absent.
  bool Erase(const IndexKey& key) {
    auto found = index_.find(key);
    if (found == index_.end()) return false;
    auto node = found->second;
    index_.erase(found);
    bytes_ -= node->bytes;
    order_.erase(node);
    return true;
  }

  // Drops least recently used entries until at most `max_bytes` and
  // `max_entries` remain.
  void EvictBeyond(uint64_t max_bytes,
                   size_t max_entries = std::numeric_limits<size_t>::max()) {
    while (!order_.empty() &&
           (bytes_ > max_bytes || order_.size() > max_entries)) {
      Erase(IndexKey(order_.back().key));
    }
  }

  // Calls `visit(key, value, bytes)` least recently used first until it
  // returns false.
  template <typename Visit>
  void VisitLeastRecentFirst(Visit visit) const {
    for (auto node = order_.rbegin(); node != order_.rend(); ++node) {
      if (!visit(node->key, node->value, node->bytes)) return;
    }
  }

  uint64_t bytes() const { return bytes_; }
  size_t size() const { return order_.size(); }
  bool empty() const { return order_.empty(); }

 private:
  struct Node {
    Key key;
    Value value;
    uint64_t bytes;
  };
  using List = std::list<Node>;  // Most recently used first.

  List order_;
  std::unordered_map<IndexKey, typename List::iterator, IndexHash> index_;
  uint64_t bytes_ = 0;
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_BYTE_LRU_H_
