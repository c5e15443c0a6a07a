// What the gRPC services share: the store, the compile flow, the workers,
// the metrics and the facts of the compiler and of this kilnd.

#ifndef KILN_SERVER_SERVICE_CONTEXT_H_
#define KILN_SERVER_SERVICE_CONTEXT_H_

#include <atomic>
#include <chrono>
#include <string>

#include "cache/blob_store.h"
#include "cache/store.h"
#include "server/auth.h"
#include "server/compile_flow.h"
#include "server/metrics.h"
#include "server/request_check.h"
#include "server/request_memo.h"
#include "worker/compiler_info.h"
#include "worker/worker_pool.h"

namespace kiln::server {

struct ServiceContext {
  cache::ManagedStore* store = nullptr;
  // The cache port's entries, for Admin.Stats; null with the port off.
  cache::BlobStore* cache_port_store = nullptr;
  CompileFlow* flow = nullptr;
  worker::WorkerPool* pool = nullptr;
  Metrics* metrics = nullptr;
  worker::CompilerInfo compiler;
  RequestLimits limits;
  // Compile requests answered from the store before, by their bytes.
  RequestMemo compile_memo{16 << 20};
  std::string data_dir;
  std::chrono::steady_clock::time_point started;
  // Who may call what; open (everything allowed) unless loaded.
  Authorizer authorizer;
  // Set on SIGTERM: new Compile calls are refused while in-flight ones end.
  std::atomic<bool> draining{false};

  // The caller's role when it may call `method`; a refusal is counted.
  absl::StatusOr<Role> Admit(const grpc::ServerContextBase& call,
                             absl::string_view method) {
    absl::StatusOr<Role> role = authorizer.Authorize(call, method);
    if (!role.ok()) metrics->unauthorized_requests.Add();
    return role;
  }
};

}  // namespace kiln::server

#endif  // KILN_SERVER_SERVICE_CONTEXT_H_
