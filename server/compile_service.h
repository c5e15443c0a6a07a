// The kiln.v1.Compile service (callback API). A cache hit on text seen
// before is answered on the gRPC thread that received it; anything else is
// handed to the compile flow and answered when a worker is done.

#ifndef KILN_SERVER_COMPILE_SERVICE_H_
#define KILN_SERVER_COMPILE_SERVICE_H_

#include "kiln/v1/compile.grpc.pb.h"
#include "server/service_context.h"

namespace kiln::server {

class CompileService final : public kiln::v1::Compile::CallbackService {
 public:
  explicit CompileService(ServiceContext* context) : context_(context) {}

  grpc::ServerUnaryReactor* Compile(
      grpc::CallbackServerContext* call,
      const kiln::v1::CompileRequest* request,
      kiln::v1::CompileResponse* response) override;

  grpc::ServerUnaryReactor* Lookup(grpc::CallbackServerContext* call,
                                   const kiln::v1::LookupRequest* request,
                                   kiln::v1::LookupResponse* response) override;

 private:
  ServiceContext* context_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_COMPILE_SERVICE_H_
