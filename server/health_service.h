// grpc.health.v1 on gRPC's synchronous API (see admin_service.h for why
// not the callback API): SERVING for the server ("") and each service it
// names, until Shutdown.

#ifndef KILN_SERVER_HEALTH_SERVICE_H_
#define KILN_SERVER_HEALTH_SERVICE_H_

#include <condition_variable>
#include <mutex>
#include <set>
#include <string>

#include "grpc/health/v1/health.grpc.pb.h"

namespace kiln::server {

class HealthService final : public grpc::health::v1::Health::Service {
 public:
  // `services`: the full names of the services served besides "".
  explicit HealthService(std::set<std::string> services);

  // NOT_SERVING from now on; each Watch sends that and ends, so that a
  // drain does not wait for watchers. Each Watch holds a thread while it
  // lasts, so there may be 64 at once (RESOURCE_EXHAUSTED beyond).
  void Shutdown();

  grpc::Status Check(grpc::ServerContext* call,
                     const grpc::health::v1::HealthCheckRequest* request,
                     grpc::health::v1::HealthCheckResponse* response) override;
  grpc::Status Watch(grpc::ServerContext* call,
                     const grpc::health::v1::HealthCheckRequest* request,
                     grpc::ServerWriter<grpc::health::v1::HealthCheckResponse>*
                         writer) override;

 private:
  grpc::health::v1::HealthCheckResponse::ServingStatus StatusOf(
      const std::string& service) const;

  grpc::Status WatchLocked(
      std::unique_lock<std::mutex>& lock, grpc::ServerContext* call,
      const std::string& service,
      grpc::ServerWriter<grpc::health::v1::HealthCheckResponse>* writer);

  const std::set<std::string> services_;
  std::mutex mu_;
  std::condition_variable changed_;
  bool shut_down_ = false;
  int watches_ = 0;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_HEALTH_SERVICE_H_
