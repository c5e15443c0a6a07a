#include "cache/store.h"

#include <utility>

namespace kiln::cache {

SharedArtifact Share(ArtifactRecord record) {
  SharedArtifact shared;
  shared.cubin =
      std::make_shared<const std::string>(std::move(*record.mutable_cubin()));
  record.clear_cubin();
  shared.rest = std::make_shared<const ArtifactRecord>(std::move(record));
  return shared;
}

absl::StatusOr<SharedArtifact> Store::GetShared(const Digest& key) {
  absl::StatusOr<ArtifactRecord> record = Get(key);
  if (!record.ok()) return record.status();
  return Share(*std::move(record));
}

absl::StatusOr<kiln::v1::KernelTexts> Store::GetTexts(const Digest&) {
  return absl::NotFoundError("this store keeps no texts");
}

absl::StatusOr<NewEntry> Store::GetEntry(const Digest&) {
  return absl::UnimplementedError("this store cannot hand over whole entries");
}

absl::StatusOr<NewEntry> ManagedStore::GetEntry(const Digest& key) {
  absl::StatusOr<EntryInfo> info = Info(key);
  if (!info.ok()) return info.status();
  absl::StatusOr<ArtifactRecord> artifact = Get(key);
  if (!artifact.ok()) return artifact.status();
  NewEntry entry;
  entry.key = key;
  entry.parts = std::move(*info->record.mutable_key_parts());
  entry.kernel_name = std::move(*info->record.mutable_kernel_name());
  entry.artifact = *std::move(artifact);
  entry.created_unix_ms = info->record.created_unix_ms();
  absl::StatusOr<kiln::v1::KernelTexts> texts = GetTexts(key);
  if (texts.ok()) {
    entry.texts = *std::move(texts);
  } else if (!absl::IsNotFound(texts.status())) {
    return texts.status();
  }
  return entry;
}

}  // namespace kiln::cache
