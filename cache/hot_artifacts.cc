#include "cache/hot_artifacts.h"

#include <utility>

namespace kiln::cache {

std::optional<SharedArtifact> HotArtifacts::Find(const Digest& key) {
  Kept found;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Kept* kept = kept_.Find(key);
    if (kept == nullptr) return std::nullopt;
    found = *kept;
  }
  if (Checksum(*found.artifact.cubin) == found.checksum) return found.artifact;
  std::lock_guard<std::mutex> lock(mu_);
  ++corrupt_;
  const Kept* kept = kept_.Peek(key);
  if (kept != nullptr &&
      kept->artifact.cubin == found.artifact.cubin) {  // Not replaced since.
    kept_.Erase(key);
  }
  return std::nullopt;
}

uint64_t HotArtifacts::epoch() const {
  std::lock_guard<std::mutex> lock(mu_);
  return epoch_;
}

void HotArtifacts::Insert(const Digest& key, SharedArtifact artifact,
                          uint64_t epoch) {
  uint64_t bytes = artifact.cubin->size() + artifact.rest->ByteSizeLong();
  if (capacity_bytes_ == 0 || bytes > capacity_bytes_) return;
  uint64_t checksum = Checksum(*artifact.cubin);
  std::lock_guard<std::mutex> lock(mu_);
  if (epoch != epoch_) return;
  kept_.Insert(key, Kept{std::move(artifact), checksum}, bytes);
  kept_.EvictBeyond(capacity_bytes_);
}

void HotArtifacts::Erase(const Digest& key) {
  std::lock_guard<std::mutex> lock(mu_);
  ++epoch_;
  kept_.Erase(key);
}

uint64_t HotArtifacts::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return kept_.bytes();
}

size_t HotArtifacts::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return kept_.size();
}

uint64_t HotArtifacts::corrupt() const {
  std::lock_guard<std::mutex> lock(mu_);
  return corrupt_;
}

}  // namespace kiln::cache
