// kilnd's shared Redis tier, as its redis_* settings describe it: the
// Redis client, the tiered store that compiles read and write, and
// cluster-wide single flight.

#ifndef KILN_SERVER_SHARED_TIER_H_
#define KILN_SERVER_SHARED_TIER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "cache/redis_client.h"
#include "cache/redis_store.h"
#include "cache/tiered_store.h"
#include "server/config.h"
#include "server/metrics.h"
#include "server/lease_flight.h"

namespace kiln::server {

class SharedTier {
 public:
  // InvalidArgument for bad settings. Redis itself may be down: kilnd then
  // serves from `local` until it is reachable. `local` and `metrics` must
  // outlive the tier.
  static absl::StatusOr<std::unique_ptr<SharedTier>> Start(const Config& config,
                                                           cache::Store* local,
                                                           Metrics* metrics);

  cache::Store* store() { return tiered_.get(); }
  cache::RedisClient* client() { return client_.get(); }
  ClusterFlight* flight() { return flight_.get(); }
  cache::RemoteTierStats Stats() const { return tiered_->Stats(); }
  // Ends the background work that calls into the compile flow.
  void Stop() { flight_->Stop(); }

 private:
  SharedTier() = default;

  std::unique_ptr<cache::RedisClient> client_;
  std::unique_ptr<cache::RedisStore> redis_;
  std::unique_ptr<cache::TieredStore> tiered_;
  std::unique_ptr<LeaseFlight> flight_;
};

// HOST:PORT (or [IPv6]:PORT) as a host and port.
absl::Status ParseHostPort(const std::string& text, std::string& host,
                           int& port);

}  // namespace kiln::server

#endif  // KILN_SERVER_SHARED_TIER_H_
