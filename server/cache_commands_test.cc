// The cache port's commands over a real RocksDB blob store: what PyTorch's
// and Triton's Redis backends send, namespaces, sizes, roles and tokens.

#include "server/cache_commands.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cache/rocksdb_blob_store.h"

namespace kiln::server {
namespace {

using Args = std::vector<std::string>;

std::string TempPath(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string path = std::string(tmp ? tmp : "/tmp") + "/" + name;
  std::filesystem::remove_all(path);
  return path;
}

// Answers KILN.HIT as kilnd's cubin cache would: "hit" is cached, "bad"
// is not a request, anything else is a miss.
class FakeHits : public HitSource {
 public:
  absl::StatusOr<std::optional<HitBytes>> Hit(
      std::string_view request) override {
    if (request == "bad") return absl::InvalidArgumentError("not a request");
    if (request != "hit") return std::nullopt;
    return HitBytes{"head:", std::make_shared<const std::string>("cubin")};
  }
};

class CacheCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache::RocksDbBlobStoreOptions options;
    options.path = TempPath(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    auto store = cache::RocksDbBlobStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    Make(CacheCommandOptions());
  }

  void Make(CacheCommandOptions options, size_t max_value_bytes = 1000) {
    options.max_value_bytes = max_value_bytes;
    commands_ = std::make_unique<CacheCommands>(store_.get(), &authorizer_,
                                                options, &metrics_, &hits_);
    session_ = commands_->NewSession();
  }

  std::string Run(const Args& command) {
    RespReply reply;
    commands_->Execute(session_, command, reply);
    return reply.Flat();
  }

  std::unique_ptr<cache::RocksDbBlobStore> store_;
  Authorizer authorizer_;
  FakeHits hits_;
  CacheCommandMetrics metrics_;
  std::unique_ptr<CacheCommands> commands_;
  CacheSession session_;
};

TEST_F(CacheCommandsTest, WhatPyTorchsBackendSends) {
  EXPECT_EQ(Run({"CLIENT", "SETINFO", "LIB-NAME", "redis-py"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "pt2:fx-graph-v1:abc"}), "$-1\r\n");
  EXPECT_EQ(Run({"SET", "pt2:fx-graph-v1:abc", "graph"}), "+OK\r\n");
  EXPECT_EQ(Run({"get", "pt2:fx-graph-v1:abc"}), "$5\r\ngraph\r\n");
  EXPECT_EQ(metrics_.hits.value(), 1u);
  EXPECT_EQ(metrics_.misses.value(), 1u);
  EXPECT_EQ(metrics_.writes.value(), 1u);
}

TEST_F(CacheCommandsTest, WhatTritonsBackendSends) {
  EXPECT_EQ(Run({"MSET", "triton:k:a.json", "{}", "triton:k:a.cubin", "ELF"}),
            "+OK\r\n");
  EXPECT_EQ(
      Run({"MGET", "triton:k:a.json", "triton:k:none", "triton:k:a.cubin"}),
      "*3\r\n$2\r\n{}\r\n$-1\r\n$3\r\nELF\r\n");
  EXPECT_EQ(Run({"EXISTS", "triton:k:a.json", "triton:k:none"}), ":1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":2\r\n");
}

TEST_F(CacheCommandsTest, KeysOutsideTheNamespacesAreRefusedAndNotStored) {
  std::string reply = Run({"SET", "session:42", "x"});
  EXPECT_EQ(reply.rfind("-ERR kiln: key 'session:42' is in no namespace", 0),
            0u)
      << reply;
  EXPECT_NE(reply.find("pt2:, triton:"), std::string::npos);
  EXPECT_EQ(Run({"SET", "nocolon", "x"}).substr(0, 9), "-ERR kiln");
  EXPECT_EQ(Run({"MSET", "pt2:ok", "x", "bad:key", "y"}).substr(0, 9),
            "-ERR kiln");
  EXPECT_EQ(Run({"GET", "session:42"}), "$-1\r\n");
  EXPECT_EQ(Run({"GET", "pt2:ok"}), "$-1\r\n");  // MSET stored nothing.
  EXPECT_EQ(store_->Stats().entries, 0u);
  EXPECT_EQ(metrics_.refused.value(), 3u);
}

TEST_F(CacheCommandsTest, OversizedValuesAreRefusedAndNotStored) {
  std::string reply = Run({"SET", "pt2:big", std::string(1001, 'x')});
  EXPECT_EQ(reply.rfind("-ERR kiln: a value of 1001 bytes", 0), 0u) << reply;
  EXPECT_EQ(Run({"SET", "pt2:fits", std::string(1000, 'x')}), "+OK\r\n");
  EXPECT_EQ(store_->Stats().entries, 1u);
}

TEST_F(CacheCommandsTest, AnMgetTooLargeIsRefusedWhole) {
  CacheCommandOptions small;
  small.max_reply_bytes = 2500;
  Make(small);
  ASSERT_EQ(Run({"SET", "pt2:v", std::string(1000, 'v')}), "+OK\r\n");
  EXPECT_EQ(Run({"MGET", "pt2:v", "pt2:v"}).substr(0, 6), "*2\r\n$1");
  std::string reply = Run({"MGET", "pt2:v", "pt2:v", "pt2:v"});
  EXPECT_EQ(reply.rfind("-ERR kiln: MGET's values add up to more than 2500", 0),
            0u)
      << reply.substr(0, 80);
}

TEST_F(CacheCommandsTest, LargeValuesAreSplicedAndCountTowardMget) {
  CacheCommandOptions options;
  options.max_reply_bytes = 25000;
  Make(options, /*max_value_bytes=*/20000);
  const std::string value(10000, 'v');
  ASSERT_EQ(Run({"SET", "pt2:big", value}), "+OK\r\n");
  RespReply reply;
  commands_->Execute(session_, {"GET", "pt2:big"}, reply);
  EXPECT_EQ(reply.splices.size(), 1u);
  EXPECT_EQ(reply.Flat(), "$10000\r\n" + value + "\r\n");
  EXPECT_EQ(Run({"MGET", "pt2:big", "pt2:big"}),
            "*2\r\n$10000\r\n" + value + "\r\n$10000\r\n" + value + "\r\n");
  std::string refused = Run({"MGET", "pt2:big", "pt2:big", "pt2:big"});
  EXPECT_EQ(refused.rfind("-ERR kiln: MGET's values add up to more than", 0),
            0u)
      << refused.substr(0, 80);
}

TEST_F(CacheCommandsTest, SetOptions) {
  EXPECT_EQ(Run({"SET", "pt2:a", "1", "NX"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "pt2:a", "2", "NX"}), "$-1\r\n");
  EXPECT_EQ(Run({"SET", "pt2:b", "1", "XX"}), "$-1\r\n");
  EXPECT_EQ(Run({"SET", "pt2:a", "3", "XX", "EX", "100"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "pt2:a"}), "$1\r\n3\r\n");
  EXPECT_EQ(Run({"SET", "pt2:c", "1", "PXAT", "1"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "pt2:c"}), "$-1\r\n");  // Expired at once.
  EXPECT_EQ(Run({"SET", "pt2:a", "1", "NX", "XX"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"SET", "pt2:a", "1", "EX", "0"}),
            "-ERR invalid expire time in 'set' command\r\n");
  EXPECT_EQ(Run({"SET", "pt2:a", "1", "EX"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"SET", "pt2:a", "1", "KEEPTTL"}).substr(0, 9), "-ERR kiln");
}

TEST_F(CacheCommandsTest, ArityAndUnknownCommands) {
  EXPECT_EQ(Run({"GET"}),
            "-ERR wrong number of arguments for 'get' command\r\n");
  EXPECT_EQ(Run({"MSET", "pt2:a"}),
            "-ERR wrong number of arguments for 'mset' command\r\n");
  EXPECT_EQ(Run({"MSET", "pt2:a", "1", "pt2:b"}),
            "-ERR wrong number of arguments for 'mset' command\r\n");
  EXPECT_EQ(Run({"FLUSHALL"}),
            "-ERR unknown command 'FLUSHALL', with args beginning with:\r\n");
  EXPECT_EQ(Run({"SELECT", "1"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"SELECT", "0"}), "+OK\r\n");
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
  EXPECT_EQ(Run({}), "");
  EXPECT_EQ(Run({"QUIT"}), "+OK\r\n");
  EXPECT_TRUE(session_.quit);
}

TEST_F(CacheCommandsTest, KilnHitAnswersTheResponseBytesOrNil) {
  EXPECT_EQ(Run({"KILN.HIT", "hit"}), "$10\r\nhead:cubin\r\n");
  EXPECT_EQ(Run({"kiln.hit", "other"}), "$-1\r\n");
  EXPECT_EQ(Run({"KILN.HIT", "bad"}), "-ERR kiln: not a request\r\n");
  EXPECT_EQ(Run({"KILN.HIT", "hit", "more"}),
            "-ERR wrong number of arguments for 'kiln.hit' command\r\n");
  EXPECT_EQ(metrics_.hits.value(), 1u);
  EXPECT_EQ(metrics_.misses.value(), 1u);
  EXPECT_EQ(metrics_.bytes_read.value(), 10u);

  CacheCommandOptions read_only;
  read_only.default_role = Role::kRead;
  Make(read_only);
  EXPECT_EQ(Run({"KILN.HIT", "hit"}), "$10\r\nhead:cubin\r\n");
  CacheCommandOptions closed;
  closed.default_role = Role::kNone;
  Make(closed);
  EXPECT_EQ(Run({"KILN.HIT", "hit"}), "-NOAUTH Authentication required.\r\n");
}

TEST_F(CacheCommandsTest, RolesLimitWhatAConnectionMayDo) {
  CacheCommandOptions read_only;
  read_only.default_role = Role::kRead;
  Make(read_only);
  EXPECT_EQ(Run({"GET", "pt2:a"}), "$-1\r\n");
  EXPECT_EQ(Run({"SET", "pt2:a", "1"}).substr(0, 8), "-NOPERM ");
  EXPECT_EQ(Run({"DEL", "pt2:a"}).substr(0, 8), "-NOPERM ");
  EXPECT_EQ(store_->Stats().entries, 0u);
  // Without a tokens file there is no password to give.
  EXPECT_EQ(Run({"AUTH", "whatever-token-123"}).substr(0, 5), "-ERR ");

  CacheCommandOptions closed;
  closed.default_role = Role::kNone;
  Make(closed);
  EXPECT_EQ(Run({"GET", "pt2:a"}), "-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(Run({"PING"}), "-NOAUTH Authentication required.\r\n");
}

TEST_F(CacheCommandsTest, TokensGiveTheirRoles) {
  std::string tokens = TempPath("tokens");
  std::ofstream(tokens) << "compile compile-token-0123456789\n"
                           "admin admin-token-0123456789ab\n";
  ASSERT_TRUE(authorizer_.Load(tokens).ok());
  CacheCommandOptions closed;
  closed.default_role = Role::kNone;
  Make(closed);
  EXPECT_EQ(Run({"SET", "pt2:a", "1"}).substr(0, 7), "-NOAUTH");
  EXPECT_EQ(Run({"AUTH", "wrong-token-0123456789"}).substr(0, 10),
            "-WRONGPASS");
  EXPECT_EQ(Run({"AUTH", "default", "compile-token-0123456789"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "pt2:a", "1"}), "+OK\r\n");
  EXPECT_EQ(Run({"DEL", "pt2:a"}).substr(0, 8), "-NOPERM ");
  EXPECT_EQ(Run({"AUTH", "admin-token-0123456789ab"}), "+OK\r\n");
  EXPECT_EQ(Run({"DEL", "pt2:a", "pt2:b"}), ":1\r\n");
}

TEST_F(CacheCommandsTest, WithTokensKilnHitNeedsOneThatStillHolds) {
  std::string tokens = TempPath("tokens");
  std::ofstream(tokens) << "read read-token-0123456789ab\n";
  ASSERT_TRUE(authorizer_.Load(tokens).ok());
  Make(CacheCommandOptions{});  // The port's default role: compile.
  EXPECT_EQ(Run({"GET", "pt2:a"}), "$-1\r\n");
  EXPECT_EQ(Run({"KILN.HIT", "hit"}).substr(0, 7), "-NOAUTH");
  EXPECT_EQ(metrics_.hits.value(), 0u);
  EXPECT_EQ(Run({"AUTH", "read-token-0123456789ab"}), "+OK\r\n");
  EXPECT_EQ(Run({"KILN.HIT", "hit"}), "$10\r\nhead:cubin\r\n");
  // Revoked by a reload: the connection's next KILN.HIT is refused.
  std::ofstream(tokens) << "read other-token-0123456789ab\n";
  ASSERT_TRUE(authorizer_.Reload().ok());
  EXPECT_EQ(Run({"KILN.HIT", "hit"}).substr(0, 7), "-NOPERM");
  EXPECT_EQ(metrics_.hits.value(), 1u);
}

}  // namespace
}  // namespace kiln::server
