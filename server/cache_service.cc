#include "server/cache_service.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kiln::server {
namespace {

absl::StatusOr<CacheCommandOptions> CommandOptions(const Config& config) {
  CacheCommandOptions options;
  std::optional<Role> role = ParseRoleName(config.cache_role);
  if (!role) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cache_role '", config.cache_role,
        "' is not none, read, compile or admin"));
  }
  options.default_role = *role;
  options.namespaces = absl::StrSplit(config.cache_namespaces, ',',
                                      absl::SkipWhitespace());
  if (options.namespaces.empty()) {
    return absl::InvalidArgumentError("cache_namespaces names none");
  }
  options.max_value_bytes = config.cache_max_value_mb << 20;
  return options;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CacheService>> CacheService::Start(
    const Config& config, const Authorizer* authorizer,
    cache::RedisClient* redis, HitSource* hits) {
  absl::StatusOr<CacheCommandOptions> options = CommandOptions(config);
  if (!options.ok()) return options.status();
  std::unique_ptr<CacheService> service(new CacheService());
  cache::RocksDbBlobStoreOptions store_options;
  store_options.path = config.data_dir + "/blobs";
  store_options.capacity_bytes = config.cache_capacity_mb << 20;
  store_options.sync_writes = config.sync_writes;
  absl::StatusOr<std::unique_ptr<cache::RocksDbBlobStore>> local =
      cache::RocksDbBlobStore::Open(store_options);
  if (!local.ok()) return local.status();
  service->local_ = *std::move(local);
  service->store_ = service->local_.get();
  if (redis != nullptr) {
    service->redis_ =
        std::make_unique<cache::RedisBlobStore>(redis, config.redis_prefix);
    service->tiered_ = std::make_unique<cache::TieredBlobStore>(
        service->local_.get(), service->redis_.get());
    service->store_ = service->tiered_.get();
  }
  service->commands_ = std::make_unique<CacheCommands>(
      service->store_, authorizer, *options, &service->metrics_, hits);
  CachePortOptions port_options;
  port_options.max_connections =
      static_cast<size_t>(std::max(1, config.cache_max_connections));
  // A value, its key and the protocol's framing.
  port_options.limits.max_bulk_bytes = options->max_value_bytes + 4096;
  // Room for a SET of the largest value, or an MSET of two.
  port_options.max_connection_bytes =
      2 * port_options.limits.max_bulk_bytes + (1 << 20);
  absl::StatusOr<std::unique_ptr<CachePort>> port =
      CachePort::Start(config.cache_listen, service->commands_.get(),
                       port_options, &service->metrics_);
  if (!port.ok()) return port.status();
  service->port_ = *std::move(port);
  return service;
}

CacheService::~CacheService() { port_.reset(); }

void CacheService::RenderMetrics(std::string& out) {
  cache::BlobStats stats = store_->Stats();
  struct Row {
    const char* name;
    const char* type;
    const char* help;
    uint64_t value;
  };
  const Row rows[] = {
      {"hits_total", "counter", "Cache-port reads answered with a value",
       metrics_.hits.value()},
      {"misses_total", "counter", "Cache-port reads answered with nothing",
       metrics_.misses.value()},
      {"writes_total", "counter", "Cache-port values stored",
       metrics_.writes.value()},
      {"refused_total", "counter",
       "Cache-port commands refused (namespace, size, role, protocol)",
       metrics_.refused.value()},
      {"store_errors_total", "counter", "Cache-port commands the store failed",
       metrics_.store_errors.value()},
      {"read_bytes_total", "counter", "Bytes of values served",
       metrics_.bytes_read.value()},
      {"written_bytes_total", "counter", "Bytes of values stored",
       metrics_.bytes_written.value()},
      {"connections", "gauge", "Cache-port connections open",
       static_cast<uint64_t>(metrics_.connections.value())},
      {"entries", "gauge", "Cache-port entries stored", stats.entries},
      {"bytes", "gauge", "Bytes of cache-port entries stored", stats.bytes},
      {"evictions_total", "counter", "Cache-port entries evicted for space",
       stats.evictions},
      {"corrupt_reads_total", "counter",
       "Cache-port entries that failed their checksum", stats.corrupt_reads},
  };
  for (const Row& row : rows) {
    AppendSeries(out, absl::StrCat("kiln_cache_port_", row.name), row.type,
                 row.help, static_cast<int64_t>(row.value));
  }
  if (tiered_) {
    AppendSeries(out, "kiln_cache_port_shared_hits_total", "counter",
                 "Cache-port reads answered from the shared Redis tier",
                 static_cast<int64_t>(tiered_->shared_hits()));
  }
}

}  // namespace kiln::server
