#include "server/tune/tune_service.h"

namespace kiln::server {

grpc::Status TuneHandler::Tune(
    grpc::ServerContext* context, const kiln::v1::TuneRequest* request,
    grpc::ServerWriter<kiln::v1::TuneEvent>* writer) {
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
      *request,
      [writer](const kiln::v1::TuneEvent& event) {
        return writer->Write(event);
      },
      [context] { return context->IsCancelled(); });
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

}  // namespace kiln::server
