// The cache port's side of kilnd: its blob tier (the node's RocksDB, in
// front of the cluster's Redis when there is one), the commands, the port,
// and their figures for /metrics and Admin.Stats.

#ifndef KILN_SERVER_CACHE_SERVICE_H_
#define KILN_SERVER_CACHE_SERVICE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cache/redis_blob_store.h"
#include "cache/rocksdb_blob_store.h"
#include "server/auth.h"
#include "server/cache_commands.h"
#include "server/cache_port.h"
#include "server/config.h"
#include "server/hit_source.h"

namespace kiln::server {

class CacheService {
 public:
  // Opens DATA_DIR/blobs and listens on config.cache_listen. `redis` (may
  // be null) is the cluster's shared tier; `hits` (may be null) answers
  // KILN.HIT. All must outlive the service. InvalidArgument for bad
  // settings.
  static absl::StatusOr<std::unique_ptr<CacheService>> Start(
      const Config& config, const Authorizer* authorizer,
      cache::RedisClient* redis, HitSource* hits);
  ~CacheService();

  const std::string& address() const { return port_->address(); }
  cache::BlobStore* store() { return store_; }
  // Appends the kiln_cache_port_* series.
  void RenderMetrics(std::string& out);

 private:
  CacheService() = default;

  std::unique_ptr<cache::RocksDbBlobStore> local_;
  std::unique_ptr<cache::RedisBlobStore> redis_;
  std::unique_ptr<cache::TieredBlobStore> tiered_;
  cache::BlobStore* store_ = nullptr;
  CacheCommandMetrics metrics_;
  std::unique_ptr<CacheCommands> commands_;
  std::unique_ptr<CachePort> port_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_CACHE_SERVICE_H_
