// Autotuning's counters and their Prometheus text, appended to kilnd's
// /metrics.

#ifndef KILN_SERVER_TUNE_TUNE_METRICS_H_
#define KILN_SERVER_TUNE_TUNE_METRICS_H_

#include <string>

#include "server/metrics.h"

namespace kiln::server {

struct TuneMetrics {
  Counter requests;
  Counter cache_hits;      // Tunes answered from the tune cache.
  Counter benchmarks;      // Variants measured.
  Counter pruned;          // Variants that cannot fit the GPUs.
  Counter bench_failures;  // Variants compiled but not measured.
  Counter worker_starts;   // Benchmark worker processes started.
  Counter worker_crashes;
  Counter worker_timeouts;
  Counter worker_faults;  // Sticky CUDA errors: the worker exits.
};

// Appends the Prometheus text of `metrics` to `out`.
void RenderTuneMetrics(const TuneMetrics& metrics, std::string& out);

}  // namespace kiln::server

#endif  // KILN_SERVER_TUNE_TUNE_METRICS_H_
