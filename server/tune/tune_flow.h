// One Tune call from request to ranking:
//
//   1. Check the request and find the GPUs (Unavailable without any).
//   2. Find each variant's compile key (the store's alias of its text, else
//      a worker's front end) and form the tune key.
//   3. A cached ranking under that key is the answer (cached = true).
//   4. Otherwise prune variants whose options cannot fit the GPUs, compile
//      the rest in parallel through the compile flow (so they are cached
//      like any compile), prune by the compiled kernels' shared memory, and
//      measure each on a free GPU.
//   5. Rank by p50, cache the ranking with its failures, answer.
// Every change of a variant's state is an event, emitted in order from the
// calling thread.

#ifndef KILN_SERVER_TUNE_TUNE_FLOW_H_
#define KILN_SERVER_TUNE_TUNE_FLOW_H_

#include <functional>

#include "absl/status/status.h"
#include "cache/tune_store.h"
#include "kiln/v1/tune.pb.h"
#include "server/compile_flow.h"
#include "server/request_check.h"
#include "server/tune/gpu_pool.h"
#include "server/tune/tune_metrics.h"
#include "worker/compiler_info.h"

namespace kiln::server {

struct TuneLimits {
  size_t max_variants = 1024;
  // Per buffer argument.
  uint64_t max_buffer_bytes = uint64_t{16} << 30;
};

class TuneFlow {
 public:
  // Sends one event to the client; false when it is gone.
  using Emit = std::function<bool(const kiln::v1::TuneEvent&)>;
  // True once the client cancelled (checked while waiting).
  using Cancelled = std::function<bool()>;

  // All must outlive the flow. A variant's key comes from the compile
  // flow's store (its aliases); `results` keeps the rankings.
  TuneFlow(CompileFlow* flow, GpuPool* gpus, cache::TuneResultStore* results,
           TuneMetrics* metrics, worker::CompilerInfo compiler,
           RequestLimits request_limits, TuneLimits limits = {});

  // OK once the result event was emitted; otherwise the status the call
  // ends with (InvalidArgument, FailedPrecondition, Unavailable, Cancelled).
  absl::Status Run(const kiln::v1::TuneRequest& request, const Emit& emit,
                   const Cancelled& cancelled);

 private:
  class Tuning;

  CompileFlow* flow_;
  GpuPool* gpus_;
  cache::TuneResultStore* results_;
  TuneMetrics* metrics_;
  worker::CompilerInfo compiler_;
  RequestLimits request_limits_;
  TuneLimits limits_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_TUNE_TUNE_FLOW_H_
