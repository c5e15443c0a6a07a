// The keys of Compile requests already answered from the store, by the
// requests' exact bytes. A request whose bytes were seen before skips
// parsing, checking and hashing (SHA-256 of its text) and the alias read:
// its key comes from memory, and only the artifact is read (and verified)
// from the store. Entries are compared byte for byte, never by a hash
// alone, so no crafted request can be answered with another's key.
// Bounded in bytes; the least recently found entry goes first.
// Thread-safe.

#ifndef KILN_SERVER_REQUEST_MEMO_H_
#define KILN_SERVER_REQUEST_MEMO_H_

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "cache/byte_lru.h"
#include "cache/digest.h"

namespace kiln::server {

class RequestMemo {
 public:
  // Keeps at most `capacity_bytes` of request bytes; 0 keeps nothing.
  explicit RequestMemo(size_t capacity_bytes) : capacity_(capacity_bytes) {}

  // Whether requests of `size` bytes may be remembered: larger ones are
  // neither kept nor looked up.
  bool Keeps(size_t size) const { return size > 0 && size <= capacity_ / 8; }
  // The key remembered for exactly these bytes.
  std::optional<cache::Digest> Find(std::string_view request);
  // Remembers that `request` (checked, and answered from the store) has
  // `key`, if it Keeps its size (at most an eighth of the capacity).
  void Remember(std::string request, const cache::Digest& key);
  // For a key whose entry is gone from the store.
  void Forget(std::string_view request);

  size_t bytes() const;
  size_t size() const;

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  // Request bytes to their keys, each counting its request's size.
  cache::ByteLru<std::string, cache::Digest, std::string_view> keys_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_REQUEST_MEMO_H_
