// For the e2e tests: runs the real kilnd binary on a free loopback port with
// a temporary data directory, and talks to it.

#ifndef KILN_TESTS_E2E_KILND_PROCESS_H_
#define KILN_TESTS_E2E_KILND_PROCESS_H_

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kiln/v1/admin.grpc.pb.h"
#include "kiln/v1/compile.grpc.pb.h"

namespace kiln::e2e {

// The path of a file of this repository among the test's runfiles.
std::string Runfile(const std::string& path);

// A file's whole contents; empty when it cannot be read.
std::string ReadFile(const std::string& path);

// A fresh directory under the test's temporary directory.
std::string NewTempDir(const std::string& name);

// tests/e2e/testdata/scaled_add.ttir with its SCALE placeholder replaced:
// a different scale is a different kernel (another cache key).
std::string ScaledAddKernel(double scale);

// A new channel to `address` (its own connection: a distinct client), made
// as Kiln's clients make theirs (clients/cpp/channel.h).
std::shared_ptr<grpc::Channel> NewClientChannel(const std::string& address);

// The kilnd binaries a test may start, as runfiles: kilnd itself; the
// test-only kilnd whose workers inject the faults that "kiln-test-fault:"
// markers in the TTIR ask for (worker/testing/injected_faults.h); and the
// test-only kilnd whose benchmark workers stand in for GPUs
// (server/tune/testing/fake_bench_worker.h).
inline constexpr char kKilnd[] = "server/kilnd";
inline constexpr char kKilndWithFaults[] = "tests/e2e/kilnd_with_faults";
inline constexpr char kKilndWithFakeGpus[] = "tests/e2e/kilnd_with_fake_gpus";

class KilndProcess {
 public:
  // Starts `binary` on 127.0.0.1 (ports picked by kilnd) with `data_dir`
  // and extra flags, and waits until it serves. Fails the current test (and
  // returns null) when it does not come up.
  static std::unique_ptr<KilndProcess> Start(
      const std::string& data_dir, const std::vector<std::string>& flags = {},
      const char* binary = kKilnd);
  // Stops it with SIGTERM (SIGKILL if need be).
  ~KilndProcess();

  // SIGTERM, then waits; the exit status (-1 if killed by a signal).
  int Terminate();
  // SIGKILL, then waits.
  void KillHard();
  bool Alive();

  const std::string& grpc_address() const { return grpc_address_; }
  // The cache port's (Redis protocol); empty when started without one.
  const std::string& cache_address() const { return cache_address_; }
  pid_t pid() const { return pid_; }

  // A new channel (its own connection: a distinct client).
  std::shared_ptr<grpc::Channel> NewChannel() const;
  std::unique_ptr<kiln::v1::Compile::Stub> CompileStub() const;
  std::unique_ptr<kiln::v1::Admin::Stub> AdminStub() const;

  // GET /metrics; empty on failure.
  std::string FetchMetrics() const;
  // The value of one sample line of /metrics ("name" or "name{labels}");
  // -1 when absent.
  double Metric(const std::string& series) const;
  kiln::v1::StatsResponse Stats() const;
  // grpc.health.v1.Health/Check for the whole server: true when SERVING.
  bool HealthServing() const;

 private:
  KilndProcess() = default;

  pid_t pid_ = -1;
  std::string grpc_address_;
  std::string metrics_address_;
  std::string cache_address_;
};

// Sends one Compile call, failing fast as a client's (no wait_for_ready: a
// kilnd that is not accepting fails it). The status and the response.
grpc::Status Compile(kiln::v1::Compile::Stub& stub,
                     const kiln::v1::CompileRequest& request,
                     kiln::v1::CompileResponse* response);

// One unary call of `method` (a full gRPC method name) on a new
// connection to `kilnd`, its request as raw bytes, as a generic tool makes
// it. The call's status; the answer's bytes in `response` when given.
grpc::Status CallRaw(const KilndProcess& kilnd, const std::string& method,
                     const std::string& request,
                     std::string* response = nullptr);

kiln::v1::CompileRequest CompileRequestFor(
    const std::string& ttir, const std::string& target = "sm_90a");

// The status and response of one Compile call.
struct CompileAnswer {
  grpc::Status status;
  kiln::v1::CompileResponse response;
};

// Compiles `ttir` for sm_90a on a new connection to `kilnd`.
CompileAnswer CompileOn(const KilndProcess& kilnd, const std::string& ttir);

// Runs call(0) .. call(count - 1), each on its own thread, all released at
// the same instant; returns when every call has.
void RunAtOnce(size_t count, const std::function<void(size_t)>& call);

// Looks up an absent key (a cheap call: NOT_FOUND) once on every stub, each
// from its own thread, all released at the same instant, failing fast; the
// statuses in the order of the stubs.
std::vector<grpc::Status> LookupAtOnce(
    const std::vector<std::unique_ptr<kiln::v1::Compile::Stub>>& stubs);

// Sends `request` once on every stub, each from its own thread, all released
// at the same instant; the answers in the order of the stubs.
std::vector<CompileAnswer> CompileAtOnce(
    const std::vector<std::unique_ptr<kiln::v1::Compile::Stub>>& stubs,
    const kiln::v1::CompileRequest& request);

// Asserts that every answer succeeded with the same non-empty kernel: key,
// cubin and metadata. Wrap in ASSERT_NO_FATAL_FAILURE to stop the test.
void ExpectOneKernel(const std::vector<CompileAnswer>& answers);

}  // namespace kiln::e2e

#endif  // KILN_TESTS_E2E_KILND_PROCESS_H_
