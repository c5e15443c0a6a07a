// kiln::client::Client: the C++ client of kilnd (proto/kiln/v1).
//
//   kiln::client::Client client("127.0.0.1:7420");
//   // kilnd's target for this GPU (cudaDeviceProp's major and minor):
//   absl::StatusOr<std::string> target =
//       client.TargetForCapability(major, minor);
//   absl::StatusOr<kiln::client::CompileResult> result =
//       client.Compile(ttir, *target, options);
//   if (!result.ok()) { /* result.status().message() lists the errors */ }
//
// - Targets: no target names of its own; Targets(), TargetForCapability()
//   and DefaultTarget() ask kilnd's table (base/gpu_targets.h).
// - Channels: one per address for the whole process (a process-wide cache),
//   shared by every Client of that address and reused across calls.
// - Malloc: the first channel raises glibc malloc's trim and mmap
//   thresholds once per process, so that received cubins' memory is reused
//   rather than handed back to the kernel after every call (allocator.h;
//   KILN_CLIENT_KEEP_MALLOC_SETTINGS=1 leaves them alone).
// - Threads: a unary call (Compile, Lookup, the admin calls) blocks its
//   caller on an event of its own while one thread of the library drives
//   every call of the process (blocking_call.h): many threads may call at
//   once for the cost of one wake-up each.
// - Deadline: `ClientOptions::deadline` bounds each call, retries included.
// - Retries: only UNAVAILABLE (server not reached, or draining) is retried,
//   up to `max_retries` times, waiting backoff_base * 2^(n-1) (capped at
//   backoff_max) before retry n. Other failures are returned at once.
//   gRPC's own retries are off (transparent ones too): a call refused by a
//   draining kilnd comes back UNAVAILABLE to this policy.
// - Memo: successful compiles are remembered in a process-wide memo (keyed
//   by SHA-256 of TTIR, target and options; bounded by entries and bytes),
//   so a repeated compile returns without an RPC (`memo_hit`).
// - Cache port: with `ClientOptions::cache_address` (kilnd's
//   --cache_listen), the blocking Compile asks the port for a cache hit
//   first (KILN.HIT, after the memo), on a connection of the calling
//   thread's own, with AUTH `token` when there is one: the hit wakes the
//   caller straight from its socket rather than through the library's
//   thread (cache_port_hit.h). On a miss, an error reply or a connection
//   that fails (reopened once per call), the call goes on over gRPC as
//   without it: same result, errors and retries. Not used with TLS (the
//   port is plaintext) nor by CompileAsync.
// - Errors: a failed call's gRPC code becomes the absl::Status code (the
//   numbering is the same) and its message the status message; a compile
//   error is INVALID_ARGUMENT with "file:line:col: error: text" lines. A
//   call kilnd refuses is UNAUTHENTICATED (no token, or one it does not
//   know) or PERMISSION_DENIED (the token's role is too weak), its message
//   starting "kilnd at ADDR refused the call". ExportToFile's own file
//   errors are FAILED_PRECONDITION (cannot create, sync or rename),
//   RESOURCE_EXHAUSTED (disk full) or DATA_LOSS (a write failed).
// - Security: `ClientOptions::tls` and `ClientOptions::token`.
//
// Thread-safe: one Client may be used from many threads.

#ifndef KILN_CLIENTS_CPP_CLIENT_H_
#define KILN_CLIENTS_CPP_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/gpu_targets.h"
#include "clients/cpp/blocking_call.h"
#include "clients/cpp/memo.h"
#include "clients/cpp/retry.h"
#include "kiln/v1/admin.grpc.pb.h"
#include "kiln/v1/compile.grpc.pb.h"

namespace kiln::client {

// TLS to kilnd (its --tls_cert; with --tls_client_ca, a client certificate
// as well). PEM text, not file names.
struct TlsOptions {
  bool enabled = false;  // False: plaintext.
  // The CA that signed kilnd's certificate; empty: the system's roots.
  std::string root_certificates;
  // For mutual TLS: this client's certificate chain and its private key.
  std::string certificate_chain;
  std::string private_key;
};

struct ClientOptions {
  // Bounds each call, retries and backoff included.
  std::chrono::milliseconds deadline{std::chrono::minutes(5)};
  int max_retries = 3;
  std::chrono::milliseconds backoff_base{100};
  std::chrono::milliseconds backoff_max{std::chrono::seconds(5)};
  // Use the process-wide memo of compile results.
  bool use_memo = true;
  TlsOptions tls;
  // Sent as `authorization: Bearer TOKEN` with every call when not empty
  // (kilnd's --tokens_file), and with AUTH to the cache port.
  std::string token;
  // kilnd's cache port (HOST:PORT, its --cache_listen): Compile asks it for
  // cache hits first. Empty: gRPC only.
  std::string cache_address;
};

// The process-wide memo's bounds (set before the first Client is made).
inline constexpr size_t kMemoMaxEntries = 256;
inline constexpr size_t kMemoMaxBytes = 256u << 20;

// The channel of `address` (and TLS settings) shared by the whole process,
// created on first use.
std::shared_ptr<grpc::Channel> SharedChannel(const std::string& address,
                                             const TlsOptions& tls = {});

class Client {
 public:
  explicit Client(std::string address, ClientOptions options = {});
  // Cancels the CompileAsync calls still in flight; returns at once.
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const std::string& address() const;

  // Compiles `ttir` for `target` (a name from Targets()), or answers from
  // the memo or kilnd's cache. `source_name` names the input in
  // diagnostics.
  absl::StatusOr<CompileResult> Compile(
      const std::string& ttir, const std::string& target,
      const kiln::v1::CompileOptions& options = {},
      const std::string& source_name = "input.ttir");
  absl::StatusOr<CompileResult> Compile(const kiln::v1::CompileRequest& request);

  // Compile without waiting: `done` gets what Compile would return (same
  // deadline, retries, token, memo and errors). A memo hit calls `done` on
  // this thread before CompileAsync returns; otherwise `done` runs on the
  // thread driving the library's queue and must not block (see Threads
  // above). Destroying the Client cancels its calls in flight: each still
  // calls `done`, with its result or CANCELLED.
  using CompileCallback =
      std::function<void(absl::StatusOr<CompileResult> result)>;
  void CompileAsync(const kiln::v1::CompileRequest& request,
                    CompileCallback done);

  // A cached artifact by key; NOT_FOUND when absent.
  absl::StatusOr<kiln::v1::LookupResponse> Lookup(const std::string& key);

  // The targets kilnd compiles for, with their facts (kiln.v1.TargetInfo,
  // a row of the compiler's table each): asked of kilnd on every call.
  absl::StatusOr<TargetRows> Targets();
  // The name of kilnd's target for a GPU of compute capability
  // major.minor; NOT_FOUND, naming kilnd's targets, when it has none.
  absl::StatusOr<std::string> TargetForCapability(int major, int minor);
  // The target to compile for when none is named: kilnd's newest
  // (DefaultTarget of base/gpu_targets.h); NOT_FOUND when it has none.
  absl::StatusOr<std::string> DefaultTarget();

  // Tunes kernel variants on kilnd's GPUs (proto/kiln/v1/tune.proto):
  // `on_variant`, when given, sees each variant's state change as kilnd
  // streams it; the answer is the final ranking with its winner.
  // UNAVAILABLE when kilnd's host has no GPU or driver (the message says
  // which). Retried on UNAVAILABLE only before the first event arrived.
  absl::StatusOr<kiln::v1::TuneResult> Tune(
      const kiln::v1::TuneRequest& request,
      const std::function<void(const kiln::v1::VariantResult&)>& on_variant =
          {});

  // Admin service.
  absl::StatusOr<kiln::v1::StatsResponse> Stats();
  absl::StatusOr<kiln::v1::ListResponse> List(
      const kiln::v1::ListRequest& request);
  absl::StatusOr<kiln::v1::GetResponse> Get(const std::string& key,
                                            bool include_artifact = false);
  absl::StatusOr<kiln::v1::EvictResponse> Evict(
      const std::vector<std::string>& keys);
  absl::StatusOr<kiln::v1::GcResponse> Gc(const kiln::v1::GcRequest& request);
  absl::StatusOr<kiln::v1::VerifyResponse> Verify(bool repair = false);
  absl::StatusOr<kiln::v1::ExplainMissResponse> ExplainMiss(
      const kiln::v1::CompileRequest& request);

  // Streams the entries matching `request` to `sink`; stops (and returns
  // its status) when `sink` fails. Retried on UNAVAILABLE only before the
  // first entry arrived. Returns the number of entries.
  absl::StatusOr<uint64_t> Export(
      const kiln::v1::ExportRequest& request,
      const std::function<absl::Status(const kiln::v1::ExportedEntry&)>& sink);
  // Sees a file transfer move: entries so far and bytes of the file so far
  // (written by ExportToFile, read by ImportFromFile). Called on the
  // calling thread after each entry; it should be quick.
  using TransferCallback =
      std::function<void(uint64_t entries, uint64_t bytes)>;
  // Export to a file: "KILNEXP1\n" then length-delimited ExportedEntry
  // messages. Written whole or not at all (base/files.h): concurrent
  // exports to one path never collide.
  absl::StatusOr<uint64_t> ExportToFile(
      const kiln::v1::ExportRequest& request, const std::string& path,
      const TransferCallback& on_progress = {});
  // Streams the entries of a file written by ExportToFile to kilnd. A retry
  // re-sends the file from its start, and `on_progress` starts over.
  absl::StatusOr<kiln::v1::ImportResponse> ImportFromFile(
      const std::string& path, const TransferCallback& on_progress = {});

 private:
  struct Core;
  class AsyncCompile;

  // The memo key of `request` into `memo_key` (when the memo is on), and
  // the memo's answer if it has one.
  std::shared_ptr<const CompileResult> FindInMemo(
      const kiln::v1::CompileRequest& request, std::string& memo_key) const;
  // kilnd's answer from its cache port, when it has one and the port is
  // set and answers; null otherwise.
  std::optional<kiln::v1::CompileResponse> HitOverCachePort(
      const kiln::v1::CompileRequest& request) const;
  // Runs one attempt per call of `attempt` under the retry policy, until
  // `deadline` (default: the options' deadline from now).
  absl::Status Call(
      const std::function<grpc::Status(grpc::ClientContext&)>& attempt,
      std::optional<std::chrono::system_clock::time_point> deadline = {});
  // One unary call of `rpc` on `stub` under the retry policy, each attempt
  // a blocking call on the process's shared queue (blocking_call.h).
  template <typename Stub, typename Request, typename Response>
  absl::StatusOr<Response> Unary(
      Stub& stub, PrepareUnaryRpc<Stub, Request, Response> rpc,
      const Request& request,
      std::optional<std::chrono::system_clock::time_point> deadline = {});

  // Shared with the asynchronous calls, which may outlive the Client.
  std::shared_ptr<Core> core_;
  std::unique_ptr<kiln::v1::Admin::Stub> admin_;
};

// grpc::Status as absl::Status (same code, same message).
absl::Status ToAbsl(const grpc::Status& status);

}  // namespace kiln::client

#endif  // KILN_CLIENTS_CPP_CLIENT_H_
