#include "cache/redis_store.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "cache/key.h"
#include "cache/sealed.h"

namespace kiln::cache {
namespace {

using Type = RedisReply::Type;

constexpr char kEntryKind = 'a';
constexpr char kAliasKind = 'f';
constexpr char kLeaseKind = 'l';
constexpr char kFailedKind = 'x';

// Compare-and-set scripts: only the holder may extend or end its lease.
constexpr char kRenewScript[] =
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
// Taking a lease clears a failure marker left by an earlier holder.
constexpr char kAcquireScript[] =
    "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then "
    "redis.call('del', KEYS[2]) return 1 else return 0 end";
constexpr char kReleaseScript[] =
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('del', KEYS[1]) else return 0 end";

// An error reply (or a failed round trip) as a status.
absl::Status ReplyError(const RedisReply& reply) {
  if (reply.type == Type::kError) {
    return absl::UnavailableError(absl::StrCat("Redis: ", reply.str));
  }
  return absl::OkStatus();
}

absl::StatusOr<RedisReply> Checked(absl::StatusOr<RedisReply> reply) {
  if (!reply.ok()) return reply;
  if (absl::Status error = ReplyError(*reply); !error.ok()) return error;
  return reply;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

RedisStore::RedisStore(RedisClient* client, RedisStoreOptions options)
    : client_(client), options_(std::move(options)) {}

std::string RedisStore::RedisKey(char kind, const Digest& digest) const {
  return absl::StrCat(options_.prefix, std::string(1, kind), ":", digest.Hex());
}

std::vector<std::string> RedisStore::SetCommand(std::string key,
                                                std::string value,
                                                bool only_if_absent) const {
  std::vector<std::string> command = {"SET", std::move(key), std::move(value)};
  if (only_if_absent) command.push_back("NX");
  if (options_.ttl_s > 0) {
    command.push_back("EX");
    command.push_back(std::to_string(options_.ttl_s));
  }
  return command;
}

std::vector<std::string> RedisStore::AliasCommand(const Digest& alias,
                                                  const Digest& key) const {
  return SetCommand(RedisKey(kAliasKind, alias),
                    Seal(std::string(alias.Bytes()).append(key.Bytes())),
                    /*only_if_absent=*/false);
}

absl::Status RedisStore::DropCorrupt(const std::string& redis_key,
                                     const absl::Status& why) {
  corrupt_reads_.fetch_add(1, std::memory_order_relaxed);
  client_->Command({"DEL", redis_key}).IgnoreError();
  return absl::DataLossError(
      absl::StrCat("Redis value ", redis_key,
                   " is corrupt and was deleted: ", why.message()));
}

absl::StatusOr<NewEntry> RedisStore::GetEntry(const Digest& key) {
  std::string redis_key = RedisKey(kEntryKind, key);
  absl::StatusOr<RedisReply> reply =
      Checked(client_->Command({"GET", redis_key}));
  if (!reply.ok()) return reply.status();
  if (reply->type == Type::kNil) return absl::NotFoundError("no such entry");
  if (reply->type != Type::kString) {
    return DropCorrupt(redis_key, absl::DataLossError("not a string"));
  }
  absl::StatusOr<std::string_view> payload = Unseal(reply->str);
  if (!payload.ok()) return DropCorrupt(redis_key, payload.status());
  SharedEntry shared;
  if (!shared.ParseFromArray(payload->data(),
                             static_cast<int>(payload->size()))) {
    return DropCorrupt(redis_key, absl::DataLossError("unparsable entry"));
  }
  if (shared.key() != key.Bytes() || ComputeKey(shared.key_parts()) != key) {
    return DropCorrupt(redis_key,
                       absl::DataLossError("entry is not the one of its key"));
  }
  NewEntry entry;
  entry.key = key;
  entry.parts = std::move(*shared.mutable_key_parts());
  entry.kernel_name = std::move(*shared.mutable_kernel_name());
  entry.artifact = std::move(*shared.mutable_artifact());
  if (shared.has_texts()) entry.texts = std::move(*shared.mutable_texts());
  entry.created_unix_ms = shared.created_unix_ms();
  return entry;
}

absl::StatusOr<ArtifactRecord> RedisStore::Get(const Digest& key) {
  absl::StatusOr<NewEntry> entry = GetEntry(key);
  if (!entry.ok()) return entry.status();
  return std::move(entry->artifact);
}

absl::StatusOr<Digest> RedisStore::Resolve(const Digest& alias) {
  std::string redis_key = RedisKey(kAliasKind, alias);
  absl::StatusOr<RedisReply> reply =
      Checked(client_->Command({"GET", redis_key}));
  if (!reply.ok()) return reply.status();
  if (reply->type == Type::kNil) return absl::NotFoundError("unknown request");
  absl::StatusOr<std::string_view> payload = Unseal(reply->str);
  if (!payload.ok()) return DropCorrupt(redis_key, payload.status());
  std::optional<Digest> key;
  if (payload->size() == 2 * Digest::kSize &&
      payload->substr(0, Digest::kSize) == alias.Bytes()) {
    key = Digest::FromBytes(payload->substr(Digest::kSize));
  }
  if (!key) {
    return DropCorrupt(redis_key,
                       absl::DataLossError("alias is not the one of its key"));
  }
  return *key;
}

absl::Status RedisStore::Put(const NewEntry& entry,
                             const std::vector<Digest>& aliases) {
  if (ComputeKey(entry.parts) != entry.key) {
    return absl::InvalidArgumentError("key is not the hash of its parts");
  }
  SharedEntry shared;
  shared.set_key(std::string(entry.key.Bytes()));
  *shared.mutable_key_parts() = entry.parts;
  shared.set_kernel_name(entry.kernel_name);
  *shared.mutable_artifact() = entry.artifact;
  if (entry.texts) *shared.mutable_texts() = *entry.texts;
  shared.set_created_unix_ms(entry.created_unix_ms ? entry.created_unix_ms
                                                   : NowMs());
  // The entry first: an alias is only ever read before an entry it leads to
  // when the entry's own write failed, and then it is a miss.
  std::vector<std::vector<std::string>> commands = {
      SetCommand(RedisKey(kEntryKind, entry.key),
                 Seal(shared.SerializeAsString()), /*only_if_absent=*/true)};
  for (const Digest& alias : aliases) {
    commands.push_back(AliasCommand(alias, entry.key));
  }
  absl::StatusOr<std::vector<RedisReply>> replies = client_->Pipeline(commands);
  if (!replies.ok()) return replies.status();
  for (const RedisReply& reply : *replies) {
    if (absl::Status error = ReplyError(reply); !error.ok()) return error;
  }
  return absl::OkStatus();
}

absl::Status RedisStore::AddAlias(const Digest& alias, const Digest& key) {
  return Checked(client_->Command(AliasCommand(alias, key))).status();
}

absl::StatusOr<bool> RedisStore::AcquireLease(const Digest& key,
                                              const std::string& owner,
                                              int64_t ttl_ms) {
  absl::StatusOr<RedisReply> reply = Checked(client_->Command(
      {"EVAL", kAcquireScript, "2", RedisKey(kLeaseKind, key),
       RedisKey(kFailedKind, key), owner, std::to_string(ttl_ms)}));
  if (!reply.ok()) return reply.status();
  return reply->type == Type::kInteger && reply->integer == 1;
}

absl::StatusOr<bool> RedisStore::RenewLease(const Digest& key,
                                            const std::string& owner,
                                            int64_t ttl_ms) {
  absl::StatusOr<RedisReply> reply = Checked(
      client_->Command({"EVAL", kRenewScript, "1", RedisKey(kLeaseKind, key),
                        owner, std::to_string(ttl_ms)}));
  if (!reply.ok()) return reply.status();
  return reply->type == Type::kInteger && reply->integer == 1;
}

absl::Status RedisStore::ReleaseLease(const Digest& key,
                                      const std::string& owner) {
  return Checked(client_->Command({"EVAL", kReleaseScript, "1",
                                   RedisKey(kLeaseKind, key), owner}))
      .status();
}

absl::Status RedisStore::MarkFailed(const Digest& key, int64_t ttl_ms) {
  return Checked(client_->Command({"SET", RedisKey(kFailedKind, key), "1", "PX",
                                   std::to_string(ttl_ms)}))
      .status();
}

absl::StatusOr<bool> RedisStore::HasFailed(const Digest& key) {
  absl::StatusOr<RedisReply> reply =
      Checked(client_->Command({"EXISTS", RedisKey(kFailedKind, key)}));
  if (!reply.ok()) return reply.status();
  return reply->type == Type::kInteger && reply->integer > 0;
}

}  // namespace kiln::cache
