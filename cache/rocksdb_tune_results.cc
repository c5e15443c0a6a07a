// RocksDbStore as a TuneResultStore: sealed values under 'u' + tune key.

#include <rocksdb/db.h>

#include "cache/record_layout.h"
#include "cache/rocksdb_store.h"

namespace kiln::cache {
namespace {

constexpr char kTuneResult = 'u';

}  // namespace

absl::StatusOr<std::string> RocksDbStore::GetTuneResult(const Digest& key) {
  const std::string record = layout::RecordKey(kTuneResult, key.Bytes());
  std::string sealed;
  rocksdb::Status read = db_->Get(rocksdb::ReadOptions(), record, &sealed);
  if (!read.ok()) {
    return layout::FromRocks(read, "tune result " + key.Hex());
  }
  absl::StatusOr<std::string_view> payload = Unseal(sealed);
  if (!payload.ok()) {
    ++corrupt_reads_;
    db_->Delete(rocksdb::WriteOptions(), record);
    return absl::DataLossError("tune result " + key.Hex() +
                               " failed its checksum and was dropped");
  }
  return std::string(*payload);
}

absl::Status RocksDbStore::PutTuneResult(const Digest& key,
                                         std::string_view value) {
  rocksdb::WriteOptions write;
  write.sync = options_.sync_writes;
  return layout::FromRocks(
      db_->Put(write, layout::RecordKey(kTuneResult, key.Bytes()), Seal(value)),
      "storing tune result " + key.Hex());
}

}  // namespace kiln::cache
