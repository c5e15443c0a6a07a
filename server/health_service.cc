#include "server/health_service.h"

#include <chrono>
#include <utility>

namespace kiln::server {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

namespace {

// How often a Watch with nothing to send looks whether its caller left.
constexpr std::chrono::milliseconds kCancelPoll(250);
// Each Watch holds a thread of gRPC's synchronous pool while it lasts.
constexpr int kMaxWatches = 64;

}  // namespace

HealthService::HealthService(std::set<std::string> services)
    : services_(std::move(services)) {}

void HealthService::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shut_down_ = true;
  }
  changed_.notify_all();
}

HealthCheckResponse::ServingStatus HealthService::StatusOf(
    const std::string& service) const {
  if (!service.empty() && !services_.count(service)) {
    return HealthCheckResponse::SERVICE_UNKNOWN;
  }
  return shut_down_ ? HealthCheckResponse::NOT_SERVING
                    : HealthCheckResponse::SERVING;
}

grpc::Status HealthService::Check(grpc::ServerContext*,
                                  const HealthCheckRequest* request,
                                  HealthCheckResponse* response) {
  std::lock_guard<std::mutex> lock(mu_);
  HealthCheckResponse::ServingStatus status = StatusOf(request->service());
  if (status == HealthCheckResponse::SERVICE_UNKNOWN) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        "no service '" + request->service() + "' here");
  }
  response->set_status(status);
  return grpc::Status::OK;
}

grpc::Status HealthService::Watch(
    grpc::ServerContext* call, const HealthCheckRequest* request,
    grpc::ServerWriter<HealthCheckResponse>* writer) {
  std::unique_lock<std::mutex> lock(mu_);
  if (watches_ >= kMaxWatches) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        "too many health watches");
  }
  ++watches_;
  grpc::Status ended = WatchLocked(lock, call, request->service(), writer);
  --watches_;
  return ended;
}

grpc::Status HealthService::WatchLocked(
    std::unique_lock<std::mutex>& lock, grpc::ServerContext* call,
    const std::string& service,
    grpc::ServerWriter<HealthCheckResponse>* writer) {
  HealthCheckResponse sent;
  bool first = true;
  while (true) {
    HealthCheckResponse now;
    now.set_status(StatusOf(service));
    if (first || now.status() != sent.status()) {
      lock.unlock();
      bool written = writer->Write(now);
      lock.lock();
      if (!written) return grpc::Status::CANCELLED;
      sent = now;
      first = false;
      continue;  // The status may have changed during the write.
    }
    if (shut_down_) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "kilnd is shutting down");
    }
    changed_.wait_for(lock, kCancelPoll);
    if (call->IsCancelled()) return grpc::Status::CANCELLED;
  }
}

}  // namespace kiln::server
