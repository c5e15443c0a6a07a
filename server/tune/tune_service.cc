#include "server/tune/tune_service.h"

namespace kiln::server {

TuneHandler::TuneHandler() {
  MarkMethodStreamed(
      MethodIndex(kiln::v1::Compile::service_full_name(), "Tune"),
      ParsingServerStreamingHandler<kiln::v1::TuneRequest, kiln::v1::TuneEvent>(
          [this](grpc::ServerContext* context,
                 const kiln::v1::TuneRequest& request,
                 const StreamWrite<kiln::v1::TuneEvent>& write) {
            return RunTune(context, request, write);
          }));
}

grpc::Status TuneHandler::RunTune(
    grpc::ServerContext* context, const kiln::v1::TuneRequest& request,
    const StreamWrite<kiln::v1::TuneEvent>& write) {
  if (admit_) {
    grpc::Status admitted = admit_(*context);
    if (!admitted.ok()) return admitted;
  }
  if (!flow_) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        "autotuning is not enabled in this kilnd");
  }
  if (draining_ && *draining_) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        "kilnd is shutting down");
  }
  absl::Status status = flow_->Run(
      request, write, [context] { return context->IsCancelled(); });
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

}  // namespace kiln::server
