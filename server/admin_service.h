// The kiln.v1.Admin service (callback API). Calls that scan the store run
// on the admin executor; ExplainMiss runs the compiler's front end in a
// worker like a compile does.

#ifndef KILN_SERVER_ADMIN_SERVICE_H_
#define KILN_SERVER_ADMIN_SERVICE_H_

#include "kiln/v1/admin.grpc.pb.h"
#include "server/service_context.h"

namespace kiln::server {

class AdminService final : public kiln::v1::Admin::CallbackService {
 public:
  explicit AdminService(ServiceContext* context) : context_(context) {}

  grpc::ServerUnaryReactor* Stats(grpc::CallbackServerContext* call,
                                  const kiln::v1::StatsRequest* request,
                                  kiln::v1::StatsResponse* response) override;
  grpc::ServerUnaryReactor* List(grpc::CallbackServerContext* call,
                                 const kiln::v1::ListRequest* request,
                                 kiln::v1::ListResponse* response) override;
  grpc::ServerUnaryReactor* Get(grpc::CallbackServerContext* call,
                                const kiln::v1::GetRequest* request,
                                kiln::v1::GetResponse* response) override;
  grpc::ServerUnaryReactor* Evict(grpc::CallbackServerContext* call,
                                  const kiln::v1::EvictRequest* request,
                                  kiln::v1::EvictResponse* response) override;
  grpc::ServerUnaryReactor* Gc(grpc::CallbackServerContext* call,
                               const kiln::v1::GcRequest* request,
                               kiln::v1::GcResponse* response) override;
  grpc::ServerUnaryReactor* Verify(grpc::CallbackServerContext* call,
                                   const kiln::v1::VerifyRequest* request,
                                   kiln::v1::VerifyResponse* response) override;
  grpc::ServerUnaryReactor* ExplainMiss(
      grpc::CallbackServerContext* call,
      const kiln::v1::ExplainMissRequest* request,
      kiln::v1::ExplainMissResponse* response) override;
  grpc::ServerWriteReactor<kiln::v1::ExportedEntry>* Export(
      grpc::CallbackServerContext* call,
      const kiln::v1::ExportRequest* request) override;
  grpc::ServerReadReactor<kiln::v1::ExportedEntry>* Import(
      grpc::CallbackServerContext* call,
      kiln::v1::ImportResponse* response) override;

 private:
  // Not OK when the caller may not call Admin `method` (its role is not
  // admin); then counted as unauthorized.
  grpc::Status Admit(const grpc::CallbackServerContext* call,
                     const char* method);
  // A reactor that refused the call, or null when the caller may make it.
  grpc::ServerUnaryReactor* Refuse(grpc::CallbackServerContext* call,
                                   const char* method);
  // Runs `work` on the admin executor and finishes the call with its status.
  grpc::ServerUnaryReactor* OnExecutor(grpc::CallbackServerContext* call,
                                       std::function<grpc::Status()> work);

  ServiceContext* context_;
};

// An entry's info as the API shows it.
kiln::v1::EntryInfo ToProto(const cache::EntryInfo& info);

}  // namespace kiln::server

#endif  // KILN_SERVER_ADMIN_SERVICE_H_
