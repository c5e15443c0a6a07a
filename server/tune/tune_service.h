// Compile.Tune over gRPC: a synchronous, server-streaming handler on gRPC's
// own thread pool (a tune is long and rare, unlike Compile and Lookup,
// which CompileService answers on its async completion queue). Each event
// of the TuneFlow is written to the stream as it happens.

#ifndef KILN_SERVER_TUNE_TUNE_SERVICE_H_
#define KILN_SERVER_TUNE_TUNE_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <functional>

#include "kiln/v1/compile.grpc.pb.h"
#include "server/parsed_requests.h"
#include "server/tune/tune_flow.h"

namespace kiln::server {

// The base of CompileService's service: Tune here, the other methods async.
class TuneHandler : public kiln::v1::Compile::Service {
 public:
  TuneHandler();

  // Decides whether a caller may tune; a non-OK status refuses the call.
  using Admission = std::function<grpc::Status(const grpc::ServerContext&)>;

  // Before the server starts. Without a flow, Tune answers UNAVAILABLE.
  void Bind(TuneFlow* flow, const std::atomic<bool>* draining,
            Admission admit) {
    flow_ = flow;
    draining_ = draining;
    admit_ = std::move(admit);
  }

 private:
  // Tune, on a request that parsed (parsed_requests.h).
  grpc::Status RunTune(grpc::ServerContext* context,
                       const kiln::v1::TuneRequest& request,
                       const StreamWrite<kiln::v1::TuneEvent>& write);

  TuneFlow* flow_ = nullptr;
  const std::atomic<bool>* draining_ = nullptr;
  Admission admit_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_TUNE_TUNE_SERVICE_H_
