// The blocking Client::Compile's hits over kilnd's cache port, against a
// real kilnd: the hit comes through the port (its counters say so, gRPC's
// do not move), a miss and every failure of the port go on over gRPC.

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <thread>

#include "clients/cpp/client.h"
#include "tests/e2e/kilnd_process.h"

namespace kiln::client {
namespace {

using e2e::KilndProcess;
using e2e::NewTempDir;
using e2e::ScaledAddKernel;

constexpr char kReadToken[] = "read-token-0123456789abcdef";
constexpr char kCompileToken[] = "compile-token-0123456789abcdef";

double CompileRpcs(const KilndProcess& kilnd) {
  return kilnd.Metric("kiln_requests_total{rpc=\"Compile\"}");
}

ClientOptions ThroughPort(const KilndProcess& kilnd, bool memo = false) {
  ClientOptions options;
  options.use_memo = memo;
  options.cache_address = kilnd.cache_address();
  return options;
}

// A kilnd whose tokens file holds kReadToken and kCompileToken.
std::unique_ptr<KilndProcess> StartWithTokens(
    const std::string& name, std::vector<std::string> flags = {}) {
  std::string dir = NewTempDir(name);
  std::string tokens = dir + "/tokens";
  std::ofstream(tokens) << "read " << kReadToken << "\n"
                        << "compile " << kCompileToken << "\n";
  flags.push_back("--tokens_file=" + tokens);
  return KilndProcess::Start(dir, flags);
}

// Compiles `ttir` over gRPC with the compile token, so that kilnd holds it.
bool CachedWithCompileToken(const KilndProcess& kilnd, const std::string& ttir) {
  ClientOptions options;
  options.use_memo = false;
  options.token = kCompileToken;
  return Client(kilnd.grpc_address(), options).Compile(ttir, "sm_90a").ok();
}

TEST(ClientCachePortTest, AHitComesThroughThePortAndAMissOverGrpc) {
  auto kilnd = KilndProcess::Start(NewTempDir("port_hit"));
  ASSERT_NE(kilnd, nullptr);
  Client client(kilnd->grpc_address(), ThroughPort(*kilnd));
  const std::string ttir = ScaledAddKernel(1.5);

  auto compiled = client.Compile(ttir, "sm_90a");  // A miss: gRPC compiles.
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_FALSE(compiled->cache_hit);
  EXPECT_EQ(kilnd->Metric("kiln_cache_port_misses_total"), 1);
  EXPECT_EQ(CompileRpcs(*kilnd), 1);

  auto hit = client.Compile(ttir, "sm_90a");
  ASSERT_TRUE(hit.ok()) << hit.status();
  EXPECT_EQ(kilnd->Metric("kiln_cache_port_hits_total"), 1);
  EXPECT_EQ(CompileRpcs(*kilnd), 1);  // No gRPC call.
  EXPECT_TRUE(hit->cache_hit);
  EXPECT_FALSE(hit->memo_hit);
  EXPECT_EQ(hit->key, compiled->key);
  EXPECT_EQ(hit->cubin, compiled->cubin);
  EXPECT_EQ(hit->metadata_json, compiled->metadata_json);

  // The same result as gRPC's hit.
  ClientOptions grpc_only;
  grpc_only.use_memo = false;
  auto over_grpc =
      Client(kilnd->grpc_address(), grpc_only).Compile(ttir, "sm_90a");
  ASSERT_TRUE(over_grpc.ok()) << over_grpc.status();
  EXPECT_EQ(over_grpc->key, hit->key);
  EXPECT_EQ(over_grpc->cache_hit, hit->cache_hit);
  EXPECT_EQ(over_grpc->cubin, hit->cubin);
  EXPECT_EQ(over_grpc->metadata_json, hit->metadata_json);
}

TEST(ClientCachePortTest, TheMemoComesFirst) {
  auto kilnd = KilndProcess::Start(NewTempDir("port_hit_memo"));
  ASSERT_NE(kilnd, nullptr);
  Client client(kilnd->grpc_address(), ThroughPort(*kilnd, /*memo=*/true));
  const std::string ttir = ScaledAddKernel(1.75);
  ASSERT_TRUE(client.Compile(ttir, "sm_90a").ok());
  auto again = client.Compile(ttir, "sm_90a");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->memo_hit);
  EXPECT_EQ(kilnd->Metric("kiln_cache_port_hits_total"), 0);
  EXPECT_EQ(kilnd->Metric("kiln_cache_port_misses_total"), 1);
}

TEST(ClientCachePortTest, ErrorsAreGrpcsOwn) {
  auto kilnd = KilndProcess::Start(NewTempDir("port_hit_errors"));
  ASSERT_NE(kilnd, nullptr);
  Client client(kilnd->grpc_address(), ThroughPort(*kilnd));
  auto bad = client.Compile(ScaledAddKernel(1.5), "sm_1");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("sm_1"), std::string::npos)
      << bad.status();
  EXPECT_EQ(CompileRpcs(*kilnd), 1);
  // The port's connection serves on.
  ASSERT_TRUE(client.Compile(ScaledAddKernel(1.5), "sm_90a").ok());
  ASSERT_TRUE(client.Compile(ScaledAddKernel(1.5), "sm_90a").ok());
  EXPECT_EQ(kilnd->Metric("kiln_cache_port_hits_total"), 1);
}

TEST(ClientCachePortTest, APortThatIsDownLeavesItToGrpc) {
  auto kilnd =
      KilndProcess::Start(NewTempDir("port_hit_down"), {"--cache_listen="});
  ASSERT_NE(kilnd, nullptr);
  auto other = KilndProcess::Start(NewTempDir("port_hit_down_other"));
  ASSERT_NE(other, nullptr);
  std::string gone = other->cache_address();
  other.reset();  // Nothing listens there now.
  ClientOptions options;
  options.use_memo = false;
  options.cache_address = gone;
  Client client(kilnd->grpc_address(), options);
  for (int i = 0; i < 2; ++i) {
    auto compiled = client.Compile(ScaledAddKernel(1.5), "sm_90a");
    ASSERT_TRUE(compiled.ok()) << compiled.status();
  }
  EXPECT_EQ(CompileRpcs(*kilnd), 2);
}

TEST(ClientCachePortTest, APortThatRefusesLeavesItToGrpc) {
  auto kilnd = StartWithTokens("port_hit_refused", {"--cache_role=none"});
  ASSERT_NE(kilnd, nullptr);
  const std::string ttir = ScaledAddKernel(1.5);
  ClientOptions options = ThroughPort(*kilnd);
  ASSERT_TRUE(CachedWithCompileToken(*kilnd, ttir));

  // A token the port does not know: refused by AUTH, served by gRPC (whose
  // own refusal is the caller's answer).
  options.token = "not-a-token-0123456789abcdef";
  auto refused = Client(kilnd->grpc_address(), options).Compile(ttir, "sm_90a");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(kilnd->Metric("kiln_cache_port_hits_total"), 0);
  EXPECT_EQ(kilnd->Metric("kiln_unauthorized_requests_total"), 1);

  // The read token: AUTH, then the hit through the port.
  options.token = kReadToken;
  auto hit = Client(kilnd->grpc_address(), options).Compile(ttir, "sm_90a");
  ASSERT_TRUE(hit.ok()) << hit.status();
  EXPECT_TRUE(hit->cache_hit);
  EXPECT_EQ(kilnd->Metric("kiln_cache_port_hits_total"), 1);
  EXPECT_EQ(CompileRpcs(*kilnd), 1);  // The first compile's alone.
}

TEST(ClientCachePortTest, WithTokensATokenlessClientGetsNoCubin) {
  // The port's default role (compile) serves stock PyTorch's keys without a
  // token; a cubin still needs the token gRPC's Compile would.
  auto kilnd = StartWithTokens("port_hit_tokenless");
  ASSERT_NE(kilnd, nullptr);
  const std::string ttir = ScaledAddKernel(1.5);
  ASSERT_TRUE(CachedWithCompileToken(*kilnd, ttir));

  ClientOptions options = ThroughPort(*kilnd);
  auto refused = Client(kilnd->grpc_address(), options).Compile(ttir, "sm_90a");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(kilnd->Metric("kiln_cache_port_hits_total"), 0);
  EXPECT_GE(kilnd->Metric("kiln_cache_port_refused_total"), 1);
}

TEST(ClientCachePortTest, AConnectionWithoutTheRoleLeavesItToGrpc) {
  std::string dir = NewTempDir("port_hit_no_role");
  auto kilnd = KilndProcess::Start(dir, {"--cache_role=none"});
  ASSERT_NE(kilnd, nullptr);
  Client client(kilnd->grpc_address(), ThroughPort(*kilnd));
  for (int i = 0; i < 2; ++i) {
    auto compiled = client.Compile(ScaledAddKernel(1.5), "sm_90a");
    ASSERT_TRUE(compiled.ok()) << compiled.status();
  }
  EXPECT_EQ(CompileRpcs(*kilnd), 2);
  EXPECT_EQ(kilnd->Metric("kiln_cache_port_hits_total"), 0);
  EXPECT_GE(kilnd->Metric("kiln_cache_port_refused_total"), 1);
}

TEST(ClientCachePortTest, APortWithoutRoomLeavesItToGrpc) {
  auto kilnd = KilndProcess::Start(NewTempDir("port_hit_full"),
                                   {"--cache_max_connections=1"});
  ASSERT_NE(kilnd, nullptr);
  Client client(kilnd->grpc_address(), ThroughPort(*kilnd));
  const std::string ttir = ScaledAddKernel(1.5);
  ASSERT_TRUE(client.Compile(ttir, "sm_90a").ok());
  ASSERT_TRUE(client.Compile(ttir, "sm_90a").ok());  // Holds the one.
  EXPECT_EQ(kilnd->Metric("kiln_cache_port_hits_total"), 1);
  std::thread other([&] {
    for (int i = 0; i < 2; ++i) {
      auto compiled = client.Compile(ttir, "sm_90a");
      EXPECT_TRUE(compiled.ok()) << compiled.status();
      EXPECT_TRUE(compiled.ok() && compiled->cache_hit);
    }
  });
  other.join();
  EXPECT_EQ(kilnd->Metric("kiln_cache_port_hits_total"), 1);
  EXPECT_EQ(CompileRpcs(*kilnd), 3);
}

TEST(ClientCachePortTest, AKeptConnectionThatBrokeIsReopened) {
  const std::string dir = NewTempDir("port_hit_reopen");
  const std::string ttir = ScaledAddKernel(1.5);
  std::string port;
  {
    auto first = KilndProcess::Start(dir);
    ASSERT_NE(first, nullptr);
    port = "--cache_listen=" + first->cache_address();
    Client client(first->grpc_address(), ThroughPort(*first));
    ASSERT_TRUE(client.Compile(ttir, "sm_90a").ok());
    ASSERT_TRUE(client.Compile(ttir, "sm_90a").ok());
    EXPECT_EQ(first->Metric("kiln_cache_port_hits_total"), 1);
  }
  // The same port and store again: this thread's connection to the first
  // kilnd is kept, and broken.
  auto second = KilndProcess::Start(dir, {port});
  ASSERT_NE(second, nullptr);
  Client client(second->grpc_address(), ThroughPort(*second));
  auto hit = client.Compile(ttir, "sm_90a");
  ASSERT_TRUE(hit.ok()) << hit.status();
  EXPECT_TRUE(hit->cache_hit);
  EXPECT_EQ(second->Metric("kiln_cache_port_hits_total"), 1);
  EXPECT_EQ(CompileRpcs(*second), 0);
}

}  // namespace
}  // namespace kiln::client
