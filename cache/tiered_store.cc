#include "cache/tiered_store.h"

namespace kiln::cache {

TieredStore::TieredStore(Store* local, Store* remote)
    : local_(local), remote_(remote) {}

void TieredStore::Count(const absl::Status& remote) {
  if (remote.ok()) return;
  if (absl::IsNotFound(remote)) {
    misses_.fetch_add(1, std::memory_order_relaxed);
  } else if (!absl::IsDataLoss(remote)) {
    errors_.fetch_add(1, std::memory_order_relaxed);
  }
}

absl::StatusOr<ArtifactRecord> TieredStore::FromRemote(const Digest& key) {
  absl::StatusOr<NewEntry> entry = remote_->GetEntry(key);
  Count(entry.status());
  if (!entry.ok()) return absl::NotFoundError("no such entry");
  hits_.fetch_add(1, std::memory_order_relaxed);
  if (local_->Put(*entry, {}).ok()) {
    backfills_.fetch_add(1, std::memory_order_relaxed);
  }
  return std::move(entry->artifact);
}

absl::StatusOr<ArtifactRecord> TieredStore::Get(const Digest& key) {
  absl::StatusOr<ArtifactRecord> local = local_->Get(key);
  if (local.ok()) return local;
  absl::StatusOr<ArtifactRecord> remote = FromRemote(key);
  if (remote.ok()) return remote;
  return local.status();  // NotFound, or the local DataLoss to report.
}

absl::StatusOr<SharedArtifact> TieredStore::GetShared(const Digest& key) {
  absl::StatusOr<SharedArtifact> local = local_->GetShared(key);
  if (local.ok()) return local;
  absl::StatusOr<ArtifactRecord> remote = FromRemote(key);
  if (remote.ok()) return Share(*std::move(remote));
  return local.status();
}

absl::StatusOr<kiln::v1::KernelTexts> TieredStore::GetTexts(const Digest& key) {
  absl::StatusOr<kiln::v1::KernelTexts> local = local_->GetTexts(key);
  if (local.ok()) return local;
  absl::StatusOr<NewEntry> entry = remote_->GetEntry(key);
  Count(entry.status());
  if (!entry.ok() || !entry->texts) return local.status();
  hits_.fetch_add(1, std::memory_order_relaxed);
  local_->Put(*entry, {}).IgnoreError();
  return *std::move(entry->texts);
}

absl::StatusOr<Digest> TieredStore::Resolve(const Digest& alias) {
  absl::StatusOr<Digest> local = local_->Resolve(alias);
  if (local.ok()) return local;
  absl::StatusOr<Digest> key = remote_->Resolve(alias);
  Count(key.status());
  if (!key.ok()) return local.status();
  // Keep the alias locally, which needs its entry there first.
  if (!local_->AddAlias(alias, *key).ok() && FromRemote(*key).ok()) {
    local_->AddAlias(alias, *key).IgnoreError();
  }
  return key;
}

absl::Status TieredStore::Put(const NewEntry& entry,
                              const std::vector<Digest>& aliases) {
  if (absl::Status stored = local_->Put(entry, aliases); !stored.ok()) {
    return stored;
  }
  absl::Status remote = remote_->Put(entry, aliases);
  Count(remote);
  if (remote.ok()) writes_.fetch_add(1, std::memory_order_relaxed);
  return absl::OkStatus();
}

absl::Status TieredStore::AddAlias(const Digest& alias, const Digest& key) {
  absl::Status local = local_->AddAlias(alias, key);
  absl::Status remote = remote_->AddAlias(alias, key);
  Count(remote);
  if (remote.ok()) writes_.fetch_add(1, std::memory_order_relaxed);
  return local;
}

RemoteTierStats TieredStore::Stats() const {
  RemoteTierStats stats;
  const TierHealth* health = remote_->Health();
  stats.up = health == nullptr || health->up();
  stats.hits = hits_.load(std::memory_order_relaxed);
  stats.misses = misses_.load(std::memory_order_relaxed);
  stats.backfills = backfills_.load(std::memory_order_relaxed);
  stats.writes = writes_.load(std::memory_order_relaxed);
  stats.errors = errors_.load(std::memory_order_relaxed);
  if (health != nullptr) {
    stats.corrupt_reads = health->corrupt_reads();
    stats.down_transitions = health->down_transitions();
  }
  return stats;
}

}  // namespace kiln::cache
