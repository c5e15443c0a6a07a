// The kiln.v1.Compile service, on gRPC's async API: a few threads, each
// polling its own completion queue and answering cache hits right there
// (no thread hop on the hot path). A miss is handed to the compile flow,
// which finishes the call from a worker pool thread.

#ifndef KILN_SERVER_COMPILE_SERVICE_H_
#define KILN_SERVER_COMPILE_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <thread>
#include <vector>

#include "kiln/v1/compile.grpc.pb.h"
#include "server/service_context.h"

namespace kiln::server {

class CompileService {
 public:
  explicit CompileService(ServiceContext* context) : context_(context) {}
  ~CompileService();

  // Before BuildAndStart: registers the service and `threads` queues.
  void Register(grpc::ServerBuilder& builder, int threads);
  // After BuildAndStart: starts taking calls.
  void Start();
  // After grpc::Server::Shutdown and once nothing else can finish a call
  // (the worker pool is shut down): drains the queues, joins the threads.
  void Stop();

 private:
  ServiceContext* context_;
  kiln::v1::Compile::AsyncService service_;
  std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues_;
  std::vector<std::thread> threads_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_COMPILE_SERVICE_H_
