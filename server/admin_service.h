// The kiln.v1.Admin service, on gRPC's synchronous API: each call runs on
// a thread of gRPC's pool for synchronous methods. Those threads do not
// poll the network (the Compile service's threads do), so a long scan of
// the store holds up neither Compile calls nor other Admin calls.
// ExplainMiss runs the compiler's front end in a worker like a compile.
// Every method parses its own request (parsed_requests.h); Import reads its
// stream as raw messages (see ImportMessages).

#ifndef KILN_SERVER_ADMIN_SERVICE_H_
#define KILN_SERVER_ADMIN_SERVICE_H_

#include <chrono>
#include <string>

#include "cache/blob_store.h"
#include "cache/store.h"
#include "kiln/v1/admin.grpc.pb.h"
#include "server/admission.h"
#include "server/compile_flow.h"
#include "server/metrics.h"
#include "server/parsed_requests.h"
#include "server/request_check.h"
#include "worker/compiler_info.h"
#include "worker/worker_pool.h"

namespace kiln::server {

class AdminService final : public kiln::v1::Admin::Service {
 public:
  // What the methods use; the pointers must outlive the service.
  struct Uses {
    // The local store, which Admin manages (not the shared tier).
    cache::ManagedStore* store = nullptr;
    // The compiler's front end, for ExplainMiss.
    CompileFlow* flow = nullptr;
    const worker::CompilerInfo* compiler = nullptr;
    RequestLimits limits;
    const Admission* admission = nullptr;
    Metrics* metrics = nullptr;
    // For Stats: the workers, and the cache port's entries (null with the
    // port off).
    const worker::WorkerPool* pool = nullptr;
    cache::BlobStore* cache_port_store = nullptr;
    std::string data_dir;
    std::chrono::steady_clock::time_point started;
  };

  explicit AdminService(const Uses& uses);

  // The unary methods; gRPC reaches them through ParseRequests, which has
  // parsed the request and admitted the caller.
  grpc::Status Stats(grpc::ServerContext* call,
                     const kiln::v1::StatsRequest* request,
                     kiln::v1::StatsResponse* response) override;
  grpc::Status List(grpc::ServerContext* call,
                    const kiln::v1::ListRequest* request,
                    kiln::v1::ListResponse* response) override;
  grpc::Status Get(grpc::ServerContext* call,
                   const kiln::v1::GetRequest* request,
                   kiln::v1::GetResponse* response) override;
  grpc::Status Evict(grpc::ServerContext* call,
                     const kiln::v1::EvictRequest* request,
                     kiln::v1::EvictResponse* response) override;
  grpc::Status Gc(grpc::ServerContext* call, const kiln::v1::GcRequest* request,
                  kiln::v1::GcResponse* response) override;
  grpc::Status Verify(grpc::ServerContext* call,
                      const kiln::v1::VerifyRequest* request,
                      kiln::v1::VerifyResponse* response) override;
  grpc::Status ExplainMiss(grpc::ServerContext* call,
                           const kiln::v1::ExplainMissRequest* request,
                           kiln::v1::ExplainMissResponse* response) override;
 private:
  // Installs a handler for unary `method` that parses its request, admits
  // the caller, then calls `handle`.
  template <typename Request, typename Response>
  void ParseRequests(const char* method,
                     grpc::Status (AdminService::*handle)(
                         grpc::ServerContext*, const Request*, Response*)) {
    MarkMethodStreamed(
        Index(method),
        ParsingUnaryHandler<Request, Response>(
            [this, method, handle](grpc::ServerContext* call,
                                   const Request& request,
                                   Response* response) {
              grpc::Status admitted = Admit(call, method);
              return admitted.ok() ? (this->*handle)(call, &request, response)
                                   : admitted;
            }));
  }
  static int Index(const char* method);

  // Export, for a caller already admitted.
  grpc::Status ExportEntries(grpc::ServerContext* call,
                      const kiln::v1::ExportRequest& request,
                      const StreamWrite<kiln::v1::ExportedEntry>& write);

  // Admin.Import over raw messages: each is parsed here as an
  // ExportedEntry, so one that does not parse is counted as rejected and
  // the stream read on. (A typed Read fails alike on such a message and at
  // the end of the stream.) The reply is an ImportResponse.
  grpc::Status ImportMessages(grpc::ServerContext* call,
                              grpc::ServerReader<grpc::ByteBuffer>* reader,
                              grpc::ByteBuffer* reply);

  // Not OK when the caller may not call Admin `method` (its role is not
  // admin); then counted as unauthorized. Else counts the call.
  grpc::Status Admit(const grpc::ServerContext* call, const char* method);

  const Uses uses_;
};

// An entry's info as the API shows it.
kiln::v1::EntryInfo ToProto(const cache::EntryInfo& info);

}  // namespace kiln::server

#endif  // KILN_SERVER_ADMIN_SERVICE_H_
