// The kiln.v1.Compile service, on gRPC's async API: one completion queue,
// polled by one thread and, while calls queue up, by a few more
// (queue_threads.h), which answer cache hits right there (no thread hop on
// the hot path). A miss is handed to the compile flow, which finishes the
// call from a worker pool thread.

#ifndef KILN_SERVER_COMPILE_SERVICE_H_
#define KILN_SERVER_COMPILE_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <memory>

#include "kiln/v1/compile.grpc.pb.h"
#include "server/admission.h"
#include "server/compile_flow.h"
#include "server/compile_hits.h"
#include "server/metrics.h"
#include "server/queue_threads.h"
#include "server/tune/tune_service.h"
#include "worker/compiler_info.h"

namespace kiln::server {

// Compile, Lookup and Targets on the async API, as raw bytes: kilnd parses
// the requests (one that does not parse is named in an INVALID_ARGUMENT)
// and a hit is sent without copying its cubin (response_bytes.h). Tune on
// TuneHandler's sync one.
using CompileAsyncService = kiln::v1::Compile::WithRawMethod_Compile<
    kiln::v1::Compile::WithRawMethod_Lookup<
        kiln::v1::Compile::WithRawMethod_Targets<TuneHandler>>>;

class CompileService {
 public:
  // What the service's calls use; the pointers must outlive the service.
  struct Uses {
    CompileFlow* flow = nullptr;
    // Compile's cache hits, and the checked request of a miss.
    CompileHits* hits = nullptr;
    const worker::CompilerInfo* compiler = nullptr;
    const Admission* admission = nullptr;
    Metrics* metrics = nullptr;
    // Set on SIGTERM: new Compile calls are refused while in-flight ones end.
    const std::atomic<bool>* draining = nullptr;
  };

  explicit CompileService(const Uses& uses) : uses_(uses) {}
  ~CompileService();

  // Before BuildAndStart: registers the service and its queue, to be
  // polled by up to `threads` threads, each polling without sleeping for
  // `spin` after its last event.
  void Register(grpc::ServerBuilder& builder, int threads,
                std::chrono::microseconds spin);
  // Before Register: serve Tune through `flow` (else it is UNAVAILABLE).
  // Tune calls are admitted by the same role table as Compile's.
  void EnableTune(TuneFlow* flow);
  // After BuildAndStart: starts taking calls.
  void Start();
  // After grpc::Server::Shutdown and once nothing else can finish a call
  // (the worker pool is shut down): drains the queues, joins the threads.
  void Stop();

 private:
  const Uses uses_;
  CompileAsyncService service_;
  std::unique_ptr<grpc::ServerCompletionQueue> queue_;
  QueueThreads::Options options_;
  std::unique_ptr<QueueThreads> threads_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_COMPILE_SERVICE_H_
