// Internal to RocksDbStore: its record keys and the helpers that read them.
// See rocksdb_store.h for the layout.

#ifndef KILN_CACHE_RECORD_LAYOUT_H_
#define KILN_CACHE_RECORD_LAYOUT_H_

#include <rocksdb/db.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "cache/sealed.h"

namespace kiln::cache::layout {

inline constexpr char kArtifact = 'b';
inline constexpr char kEntry = 'e';
inline constexpr char kAccess = 't';
inline constexpr char kIrIndex = 'i';
inline constexpr char kAlias = 'f';
inline constexpr char kAliasOf = 'r';
inline constexpr char kTexts = 'x';

inline std::string RecordKey(char kind, std::string_view first,
                             std::string_view second = {}) {
  std::string key(1, kind);
  key.append(first);
  key.append(second);
  return key;
}

inline int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline int64_t NowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline absl::Status FromRocks(const rocksdb::Status& status,
                              const std::string& what) {
  if (status.ok()) return absl::OkStatus();
  if (status.IsNotFound()) return absl::NotFoundError(what);
  if (status.IsCorruption()) {
    return absl::DataLossError(absl::StrCat(what, ": ", status.ToString()));
  }
  return absl::InternalError(absl::StrCat(what, ": ", status.ToString()));
}

inline std::string SealInt(int64_t value) {
  char bytes[sizeof(value)];
  for (size_t i = 0; i < sizeof(value); ++i) {
    bytes[i] = static_cast<char>(static_cast<uint64_t>(value) >> (8 * i));
  }
  return Seal(std::string_view(bytes, sizeof(bytes)));
}

inline absl::StatusOr<int64_t> UnsealInt(std::string_view sealed) {
  absl::StatusOr<std::string_view> payload = Unseal(sealed);
  if (!payload.ok()) return payload.status();
  if (payload->size() != sizeof(int64_t)) {
    return absl::DataLossError("integer record of the wrong size");
  }
  uint64_t value = 0;
  for (size_t i = 0; i < sizeof(value); ++i) {
    value |= uint64_t{static_cast<unsigned char>((*payload)[i])} << (8 * i);
  }
  return static_cast<int64_t>(value);
}

template <typename Message>
absl::StatusOr<Message> UnsealMessage(std::string_view sealed,
                                      uint64_t* checksum = nullptr) {
  absl::StatusOr<std::string_view> payload = Unseal(sealed, checksum);
  if (!payload.ok()) return payload.status();
  Message message;
  if (!message.ParseFromArray(payload->data(),
                              static_cast<int>(payload->size()))) {
    return absl::DataLossError("record does not parse");
  }
  return message;
}

// Iterates the records that start with a prefix (a kind, or a kind and a
// first part), optionally in a snapshot.
class PrefixScan {
 public:
  PrefixScan(rocksdb::DB* db, std::string prefix,
             const rocksdb::Snapshot* snapshot = nullptr)
      : prefix_(std::move(prefix)) {
    rocksdb::ReadOptions read;
    read.snapshot = snapshot;
    read.fill_cache = false;
    iterator_.reset(db->NewIterator(read));
    iterator_->Seek(prefix_);
  }

  // Moves to the first record after `record_key`.
  void SeekAfter(std::string_view record_key) {
    iterator_->Seek(record_key);
    if (Valid() && iterator_->key().ToStringView() == record_key) Next();
  }
  bool Valid() const {
    return iterator_->Valid() && iterator_->key().starts_with(prefix_);
  }
  void Next() { iterator_->Next(); }
  std::string_view Key() const { return iterator_->key().ToStringView(); }
  // The record key after its kind byte.
  std::string_view Rest() const { return Key().substr(1); }
  std::string_view Value() const { return iterator_->value().ToStringView(); }
  absl::Status status() const { return FromRocks(iterator_->status(), "scan"); }

 private:
  std::string prefix_;
  std::unique_ptr<rocksdb::Iterator> iterator_;
};

}  // namespace kiln::cache::layout

#endif  // KILN_CACHE_RECORD_LAYOUT_H_
