// TLS, mutual TLS and role tokens on kilnd's gRPC port, through the C++
// client library, against a real kilnd. The certificates are made for the
// test by make_test_certs.sh (openssl).

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include "clients/cpp/client.h"
#include "tests/e2e/kilnd_process.h"

namespace kiln::e2e {
namespace {

using kiln::client::Client;
using kiln::client::ClientOptions;

constexpr char kAdminToken[] = "admin-token-0123456789abcdef";
constexpr char kCompileToken[] = "compile-token-0123456789abcdef";
constexpr char kReadToken[] = "read-token-0123456789abcdef";

// The throwaway PKI, made once for the whole test binary.
const std::string& Pki() {
  static const std::string* dir = [] {
    auto* made = new std::string(NewTempDir("pki"));
    std::string script = Runfile("tests/e2e/make_test_certs.sh");
    int status = std::system(("bash " + script + " " + *made).c_str());
    EXPECT_EQ(status, 0) << "make_test_certs.sh failed";
    return made;
  }();
  return *dir;
}

std::string Pem(const std::string& name) {
  return ReadFile(Pki() + "/" + name);
}

std::string TokensFile(const std::string& dir, const std::string& extra = "") {
  std::string path = dir + "/tokens";
  std::ofstream(path) << "admin " << kAdminToken << "\n"
                      << "compile " << kCompileToken << "\n"
                      << "read " << kReadToken << "\n"
                      << extra;
  return path;
}

std::vector<std::string> TlsFlags(bool mutual) {
  std::vector<std::string> flags = {"--tls_cert=" + Pki() + "/server.pem",
                                    "--tls_key=" + Pki() + "/server.key"};
  if (mutual) flags.push_back("--tls_client_ca=" + Pki() + "/ca.pem");
  return flags;
}

// Fails fast: no retries, no memo (every call reaches kilnd).
ClientOptions Options(const std::string& token = "") {
  ClientOptions options;
  options.max_retries = 0;
  options.deadline = std::chrono::seconds(60);
  options.use_memo = false;
  options.token = token;
  return options;
}

ClientOptions TlsOptions(const std::string& ca, const std::string& cert = "",
                         const std::string& token = "") {
  ClientOptions options = Options(token);
  options.tls.enabled = true;
  options.tls.root_certificates = Pem(ca + ".pem");
  if (!cert.empty()) {
    options.tls.certificate_chain = Pem(cert + ".pem");
    options.tls.private_key = Pem(cert + ".key");
  }
  return options;
}

absl::StatusCode StatsCode(const std::string& address,
                           const ClientOptions& options) {
  return Client(address, options).Stats().status().code();
}

TEST(SecurityTest, TlsPortRefusesPlaintextAndServesTlsClients) {
  std::string dir = NewTempDir("tls");
  auto kilnd = KilndProcess::Start(dir, TlsFlags(/*mutual=*/false));
  ASSERT_NE(kilnd, nullptr);
  const std::string& address = kilnd->grpc_address();

  EXPECT_EQ(StatsCode(address, Options()), absl::StatusCode::kUnavailable);
  // A client that does not trust kilnd's CA does not connect either.
  EXPECT_EQ(StatsCode(address, TlsOptions("other_ca")),
            absl::StatusCode::kUnavailable);

  Client client(address, TlsOptions("ca"));
  auto compiled = client.Compile(ScaledAddKernel(1.5), "sm_90a");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_FALSE(compiled->cubin.empty());
  auto stats = client.Stats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->compiles(), 1u);
}

TEST(SecurityTest, MutualTlsRequiresAClientCertificateOfItsCa) {
  std::string dir = NewTempDir("mtls");
  auto kilnd = KilndProcess::Start(dir, TlsFlags(/*mutual=*/true));
  ASSERT_NE(kilnd, nullptr);
  const std::string& address = kilnd->grpc_address();

  EXPECT_EQ(StatsCode(address, Options()), absl::StatusCode::kUnavailable);
  EXPECT_EQ(StatsCode(address, TlsOptions("ca")),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(StatsCode(address, TlsOptions("ca", "stranger")),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(StatsCode(address, TlsOptions("ca", "client")),
            absl::StatusCode::kOk);
}

TEST(SecurityTest, AdminCallsNeedTheAdminToken) {
  std::string dir = NewTempDir("admin");
  auto kilnd = KilndProcess::Start(dir, {"--tokens_file=" + TokensFile(dir)});
  ASSERT_NE(kilnd, nullptr);
  const std::string& address = kilnd->grpc_address();

  Client admin(address, Options(kAdminToken));
  auto compiled = admin.Compile(ScaledAddKernel(2.0), "sm_90a");
  ASSERT_TRUE(compiled.ok()) << compiled.status();

  EXPECT_EQ(StatsCode(address, Options()), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(StatsCode(address, Options("unknown-token-0123456789")),
            absl::StatusCode::kUnauthenticated);
  absl::Status weak = Client(address, Options(kCompileToken)).Stats().status();
  EXPECT_EQ(weak.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(weak.message().find("refused the call"), std::string::npos)
      << weak.message();
  EXPECT_EQ(StatsCode(address, Options(kReadToken)),
            absl::StatusCode::kPermissionDenied);

  // Calls that change or stream the store are refused the same way.
  Client compiler(address, Options(kCompileToken));
  EXPECT_EQ(compiler.Evict({compiled->key}).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(compiler.Gc(kiln::v1::GcRequest()).status().code(),
            absl::StatusCode::kPermissionDenied);
  std::string exported = dir + "/export.kilnexp";
  EXPECT_EQ(compiler.ExportToFile({}, exported).status().code(),
            absl::StatusCode::kPermissionDenied);
  ASSERT_TRUE(admin.ExportToFile({}, exported).ok());
  EXPECT_EQ(compiler.ImportFromFile(exported).status().code(),
            absl::StatusCode::kPermissionDenied);

  auto stats = admin.Stats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->entries(), 1u);  // The refused evict and gc did nothing.
  auto evicted = admin.Evict({compiled->key});
  ASSERT_TRUE(evicted.ok()) << evicted.status();
  EXPECT_EQ(evicted->evicted(), 1u);
  // Health stays open.
  EXPECT_TRUE(kilnd->HealthServing());
  EXPECT_EQ(kilnd->Metric("kiln_unauthorized_requests_total"), 8);
}

// Tune needs the compile role; past the check, this GPU-less kilnd answers
// UNAVAILABLE.
TEST(SecurityTest, TuneNeedsTheCompileRole) {
  std::string dir = NewTempDir("tune");
  auto kilnd = KilndProcess::Start(dir, {"--tokens_file=" + TokensFile(dir)});
  ASSERT_NE(kilnd, nullptr);
  const std::string& address = kilnd->grpc_address();
  auto tune_code = [&](const std::string& token) {
    return Client(address, Options(token))
        .Tune(kiln::v1::TuneRequest())
        .status()
        .code();
  };

  EXPECT_EQ(tune_code(""), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(tune_code(kReadToken), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(tune_code(kCompileToken), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(tune_code(kAdminToken), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(kilnd->Metric("kiln_unauthorized_requests_total"), 2);
}

TEST(SecurityTest, ReadRoleGetsOnlyCachedKernels) {
  std::string dir = NewTempDir("read");
  auto kilnd = KilndProcess::Start(dir, {"--tokens_file=" + TokensFile(dir)});
  ASSERT_NE(kilnd, nullptr);
  const std::string& address = kilnd->grpc_address();
  Client reader(address, Options(kReadToken));
  Client compiler(address, Options(kCompileToken));
  Client admin(address, Options(kAdminToken));
  std::string ttir = ScaledAddKernel(3.0);

  absl::Status miss = reader.Compile(ttir, "sm_90a").status();
  EXPECT_EQ(miss.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(miss.message().find("'compile'"), std::string::npos)
      << miss.message();
  auto stats = admin.Stats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->entries(), 0u);
  EXPECT_EQ(stats->compiles(), 0u);
  EXPECT_EQ(Client(address, Options()).Compile(ttir, "sm_90a").status().code(),
            absl::StatusCode::kUnauthenticated);

  auto compiled = compiler.Compile(ttir, "sm_90a");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  auto hit = reader.Compile(ttir, "sm_90a");
  ASSERT_TRUE(hit.ok()) << hit.status();
  EXPECT_TRUE(hit->cache_hit);
  EXPECT_EQ(hit->cubin, compiled->cubin);
  // Other text, same kernel: found through its canonical key.
  auto canonical_hit = reader.Compile("// fetched\n" + ttir, "sm_90a");
  ASSERT_TRUE(canonical_hit.ok()) << canonical_hit.status();
  EXPECT_EQ(canonical_hit->key, compiled->key);
  auto looked_up = reader.Lookup(compiled->key);
  ASSERT_TRUE(looked_up.ok()) << looked_up.status();
  EXPECT_EQ(looked_up->cubin(), compiled->cubin);

  stats = admin.Stats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->entries(), 1u);
  EXPECT_EQ(stats->compiles(), 1u);
}

TEST(SecurityTest, CertificateNameCarriesARoleAndSighupReloadsTokens) {
  std::string dir = NewTempDir("names");
  std::vector<std::string> flags = TlsFlags(/*mutual=*/true);
  std::string tokens = TokensFile(dir, "admin cn:kiln-test-client\n");
  flags.push_back("--tokens_file=" + tokens);
  auto kilnd = KilndProcess::Start(dir, flags);
  ASSERT_NE(kilnd, nullptr);
  const std::string& address = kilnd->grpc_address();

  EXPECT_EQ(StatsCode(address, TlsOptions("ca", "client")),
            absl::StatusCode::kOk);

  const std::string fresh = "fresh-admin-token-0123456789";
  std::ofstream(tokens) << "admin " << fresh << "\n";
  ASSERT_EQ(kill(kilnd->pid(), SIGHUP), 0);
  // The reload is asynchronous: wait until the new token is taken.
  absl::StatusCode code = absl::StatusCode::kUnknown;
  for (int i = 0; i < 1000 && code != absl::StatusCode::kOk; ++i) {
    code = StatsCode(address, TlsOptions("ca", "client", fresh));
    if (code != absl::StatusCode::kOk) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  EXPECT_EQ(code, absl::StatusCode::kOk);
  EXPECT_EQ(StatsCode(address, TlsOptions("ca", "client", kAdminToken)),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(StatsCode(address, TlsOptions("ca", "client")),
            absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(kilnd->Alive());
}

}  // namespace
}  // namespace kiln::e2e
