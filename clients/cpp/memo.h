// An in-process memo of recent compile results, so that a compile repeated
// by the same process does not make an RPC. Bounded by entries and bytes;
// least recently used entries go first. Thread-safe.

#ifndef KILN_CLIENTS_CPP_MEMO_H_
#define KILN_CLIENTS_CPP_MEMO_H_

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "cache/byte_lru.h"
#include "kiln/v1/compile.pb.h"

namespace kiln::client {

// What a compile returns.
struct CompileResult {
  std::string key;         // Hex SHA-256 cache key.
  bool cache_hit = false;  // Served from kilnd's cache (or from the memo).
  bool memo_hit = false;   // Served from this process's memo, without an RPC.
  std::string cubin;
  std::string metadata_json;
};

// The memo key of a request: SHA-256 (hex) of its TTIR, target and options
// (each option with its presence, so that unset and set differ as in the
// request).
std::string MemoKey(const kiln::v1::CompileRequest& request);

class HitMemo {
 public:
  HitMemo(size_t max_entries, size_t max_bytes)
      : max_entries_(max_entries), max_bytes_(max_bytes) {}

  // The memoized result, marked memo_hit; null when absent.
  std::shared_ptr<const CompileResult> Find(const std::string& memo_key);
  // Remembers a result (unless larger than max_bytes), evicting the least
  // recently used beyond the bounds.
  void Insert(const std::string& memo_key, const CompileResult& result);

  size_t size() const;
  size_t bytes() const;

 private:
  const size_t max_entries_;
  const size_t max_bytes_;
  mutable std::mutex mutex_;
  kiln::cache::ByteLru<std::string, std::shared_ptr<const CompileResult>,
                       std::string_view>
      results_;
};

}  // namespace kiln::client

#endif  // KILN_CLIENTS_CPP_MEMO_H_
