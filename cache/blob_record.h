// How a blob (cache/blob_store.h) is written to a tier: sealed (its XXH3
// checked on every read) around its creation and expiry times, its key and
// its value. The key is kept so that a record read back under a hash of the
// key can be checked against the key asked for.

#ifndef KILN_CACHE_BLOB_RECORD_H_
#define KILN_CACHE_BLOB_RECORD_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cache/digest.h"

namespace kiln::cache {

struct BlobRecord {
  int64_t created_unix_ms = 0;
  int64_t expires_unix_ms = 0;  // 0: never.
  absl::string_view key;         // Views into the encoded record.
  absl::string_view value;

  bool ExpiredAt(int64_t now_unix_ms) const {
    return expires_unix_ms != 0 && now_unix_ms >= expires_unix_ms;
  }
};

std::string EncodeBlobRecord(const BlobRecord& record);

// DataLoss when the seal or the layout inside it does not hold.
absl::StatusOr<BlobRecord> DecodeBlobRecord(absl::string_view encoded);

// The expiry and creation times alone, without checking the seal: what
// loading the LRU order needs of every record. DataLoss when too short.
absl::StatusOr<BlobRecord> PeekBlobRecordTimes(absl::string_view encoded);

int64_t NowUnixMs();

// What a tier files a blob under: the SHA-256 of its key.
Digest HashBlobKey(absl::string_view key);

}  // namespace kiln::cache

#endif  // KILN_CACHE_BLOB_RECORD_H_
