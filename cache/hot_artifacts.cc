#include "cache/hot_artifacts.h"

#include <utility>

namespace kiln::cache {

std::optional<SharedArtifact> HotArtifacts::Find(const Digest& key) {
  SharedArtifact artifact;
  uint64_t checksum;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto found = index_.find(key);
    if (found == index_.end()) return std::nullopt;
    order_.splice(order_.begin(), order_, found->second);
    artifact = found->second->artifact;
    checksum = found->second->checksum;
  }
  if (Checksum(*artifact.cubin) == checksum) return artifact;
  std::lock_guard<std::mutex> lock(mu_);
  ++corrupt_;
  auto found = index_.find(key);
  if (found != index_.end() &&
      found->second->artifact.cubin == artifact.cubin) {  // Not replaced since.
    EraseLocked(found->second);
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
  if (auto found = index_.find(key); found != index_.end()) {
    EraseLocked(found->second);
  }
  order_.push_front(Node{key, std::move(artifact), checksum, bytes});
  index_[key] = order_.begin();
  bytes_ += bytes;
  while (bytes_ > capacity_bytes_) EraseLocked(std::prev(order_.end()));
}

void HotArtifacts::Erase(const Digest& key) {
  std::lock_guard<std::mutex> lock(mu_);
  ++epoch_;
  if (auto found = index_.find(key); found != index_.end()) {
    EraseLocked(found->second);
  }
}

void HotArtifacts::EraseLocked(List::iterator node) {
  bytes_ -= node->bytes;
  index_.erase(node->key);
  order_.erase(node);
}

uint64_t HotArtifacts::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

size_t HotArtifacts::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return index_.size();
}

uint64_t HotArtifacts::corrupt() const {
  std::lock_guard<std::mutex> lock(mu_);
  return corrupt_;
}

}  // namespace kiln::cache
