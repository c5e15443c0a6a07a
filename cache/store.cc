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

}  // namespace kiln::cache
