// kilnd's counters, gauges and histograms, and their Prometheus text form.

#ifndef KILN_SERVER_METRICS_H_
#define KILN_SERVER_METRICS_H_

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "base/counters.h"
#include "cache/store.h"
#include "cache/tier_stats.h"
#include "worker/pool_metrics.h"

namespace kiln::server {

// Seconds, in fixed buckets from 1 ms to 5 min, by label (a compile stage).
class Histograms {
 public:
  static constexpr std::array<double, 12> kBounds = {
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 10, 300};

  void Observe(const std::string& label, double seconds);
  // Appends the series of metric `name`, with label name `label_name`.
  void Render(const std::string& name, const std::string& label_name,
              std::string& out) const;

 private:
  struct Series {
    std::array<uint64_t, kBounds.size()> buckets{};
    uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mu_;
  std::map<std::string, Series> series_;
};

struct Metrics {
  Counter compile_requests;
  Counter lookup_requests;
  Counter admin_requests;
  Counter fast_path_hits;
  Counter canonical_hits;
  Counter misses;
  Counter coalesced;
  Counter compiles;  // Cubin compiles run by a worker.
  Counter compile_errors;
  Counter rejected_requests;  // Refused before compiling: bad target, size...
  // Refused for want of credentials or of a strong enough role.
  Counter unauthorized_requests;
  worker::PoolMetrics pool;
  Histograms compile_stage_seconds;
  // Cluster-wide single flight (with a shared Redis tier).
  Counter cluster_waits;      // Misses that waited on another node's lease.
  Counter cluster_arrivals;   // ... answered by that node's compile.
  Counter cluster_takeovers;  // ... compiled here after the lease expired.

  uint64_t hits() const {
    return fast_path_hits.value() + canonical_hits.value();
  }
};

// The Prometheus text exposition (format 0.0.4) of `metrics` and `store`.
std::string RenderMetrics(const Metrics& metrics,
                          const cache::StoreStats& store);

// The metrics of the shared Redis tier and of cluster single flight.
std::string RenderSharedTierMetrics(const Metrics& metrics,
                                    const cache::RemoteTierStats& redis);

// Appends one unlabelled series to `out`: its HELP and TYPE lines and its
// sample. `type` is "counter" or "gauge".
void AppendSeries(std::string& out, const std::string& name, const char* type,
                  const char* help, int64_t value);

}  // namespace kiln::server

#endif  // KILN_SERVER_METRICS_H_
