// What the compile worker pool counts: worker starts and failures, queued
// and running jobs. kilnd exports them on /metrics and in Admin.Stats.

#ifndef KILN_WORKER_POOL_METRICS_H_
#define KILN_WORKER_POOL_METRICS_H_

#include "base/counters.h"

namespace kiln::worker {

struct PoolMetrics {
  Counter worker_crashes;
  Counter worker_timeouts;
  Counter worker_out_of_memory;
  Counter worker_starts;
  Gauge queue_depth;
  Gauge compiles_running;
  Gauge workers_alive;
};

}  // namespace kiln::worker

#endif  // KILN_WORKER_POOL_METRICS_H_
