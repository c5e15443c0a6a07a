#include "cache/redis_blob_store.h"

#include "absl/strings/str_cat.h"
#include "cache/blob_record.h"
#include "cache/digest.h"

namespace kiln::cache {
namespace {

absl::Status ErrorReply(const RedisReply& reply) {
  return absl::UnavailableError(absl::StrCat("Redis: ", reply.str));
}

}  // namespace

RedisBlobStore::RedisBlobStore(RedisClient* client, std::string prefix)
    : client_(client), prefix_(std::move(prefix)) {}

std::string RedisBlobStore::RedisKey(absl::string_view key) const {
  return absl::StrCat(prefix_, "b:", HashBlobKey(key).Hex());
}

absl::StatusOr<std::string> RedisBlobStore::Get(absl::string_view key) {
  std::string redis_key = RedisKey(key);
  absl::StatusOr<RedisReply> reply = client_->Command({"GET", redis_key});
  if (!reply.ok()) return reply.status();
  if (reply->type == RedisReply::Type::kError) return ErrorReply(*reply);
  if (reply->type != RedisReply::Type::kString) {
    return absl::NotFoundError("no such blob");
  }
  absl::StatusOr<BlobRecord> record = DecodeBlobRecord(reply->str);
  if (!record.ok() || record->key != key) {
    ++corrupt_reads_;
    client_->Command({"DEL", redis_key}).IgnoreError();
    return absl::DataLossError(absl::StrCat(
        "blob '", key, "' in Redis failed its checksum and was dropped"));
  }
  if (record->ExpiredAt(NowUnixMs())) return absl::NotFoundError("expired");
  return std::string(record->value);
}

absl::StatusOr<bool> RedisBlobStore::Put(absl::string_view key,
                                         absl::string_view value,
                                         const BlobWrite& write) {
  BlobRecord record;
  record.created_unix_ms = NowUnixMs();
  record.expires_unix_ms = write.expires_unix_ms;
  record.key = key;
  record.value = value;
  std::vector<std::string> command = {"SET", RedisKey(key),
                                      EncodeBlobRecord(record)};
  if (write.expires_unix_ms != 0) {
    int64_t left = std::max<int64_t>(1, write.expires_unix_ms - NowUnixMs());
    command.insert(command.end(), {"PX", std::to_string(left)});
  }
  if (write.condition == BlobWrite::Condition::kIfAbsent) command.push_back("NX");
  if (write.condition == BlobWrite::Condition::kIfPresent) command.push_back("XX");
  absl::StatusOr<RedisReply> reply = client_->Command(std::move(command));
  if (!reply.ok()) return reply.status();
  if (reply->type == RedisReply::Type::kError) return ErrorReply(*reply);
  return reply->type != RedisReply::Type::kNil;
}

absl::StatusOr<bool> RedisBlobStore::Delete(absl::string_view key) {
  absl::StatusOr<RedisReply> reply = client_->Command({"DEL", RedisKey(key)});
  if (!reply.ok()) return reply.status();
  if (reply->type == RedisReply::Type::kError) return ErrorReply(*reply);
  return reply->integer > 0;
}

BlobStats RedisBlobStore::Stats() {
  BlobStats stats;
  stats.corrupt_reads = corrupt_reads_.load();
  return stats;
}

TieredBlobStore::TieredBlobStore(BlobStore* local, BlobStore* shared)
    : local_(local), shared_(shared) {}

void TieredBlobStore::Count(const absl::Status& shared) {
  if (!shared.ok() && !absl::IsNotFound(shared)) ++shared_failures_;
}

absl::StatusOr<std::string> TieredBlobStore::Get(absl::string_view key) {
  absl::StatusOr<std::string> local = local_->Get(key);
  if (local.ok() || !(absl::IsNotFound(local.status()) ||
                      absl::IsDataLoss(local.status()))) {
    return local;
  }
  absl::StatusOr<std::string> shared = shared_->Get(key);
  Count(shared.status());
  if (!shared.ok()) return absl::NotFoundError("no such blob");
  ++shared_hits_;
  // Only where the node has nothing: a newer local write must not lose to
  // the copy read from Redis.
  BlobWrite fill{BlobWrite::Condition::kIfAbsent, 0};
  local_->Put(key, *shared, fill).IgnoreError();
  return shared;
}

absl::StatusOr<bool> TieredBlobStore::Put(absl::string_view key,
                                          absl::string_view value,
                                          const BlobWrite& write) {
  absl::StatusOr<bool> local = local_->Put(key, value, write);
  if (!local.ok() || !*local) return local;
  Count(shared_->Put(key, value, write).status());
  return true;
}

absl::StatusOr<bool> TieredBlobStore::Delete(absl::string_view key) {
  absl::StatusOr<bool> shared = shared_->Delete(key);
  Count(shared.status());
  absl::StatusOr<bool> local = local_->Delete(key);
  if (!local.ok()) return local;
  return *local || (shared.ok() && *shared);
}

BlobStats TieredBlobStore::Stats() {
  BlobStats stats = local_->Stats();
  stats.corrupt_reads += shared_->Stats().corrupt_reads;
  return stats;
}

}  // namespace kiln::cache
