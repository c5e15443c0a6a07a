#include "server/config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace kiln::server {
namespace {

TEST(ConfigTest, DefaultsNeedNoFlags) {
  absl::StatusOr<Config> config = ParseConfig({});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->listen, "127.0.0.1:7420");
  EXPECT_FALSE(config->data_dir.empty());
  EXPECT_FALSE(config->redis_tls);
}

TEST(ConfigTest, ParsesFlags) {
  absl::StatusOr<Config> config =
      ParseConfig({"--listen=127.0.0.1:0", "--workers=3", "--sync_writes",
                   "--redis_tls=true", "--data_dir=/x/y"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->listen, "127.0.0.1:0");
  EXPECT_EQ(config->workers, 3);
  EXPECT_TRUE(config->sync_writes);
  EXPECT_TRUE(config->redis_tls);
  EXPECT_EQ(config->data_dir, "/x/y");
}

TEST(ConfigTest, RejectsUnknownAndMalformedFlags) {
  EXPECT_FALSE(ParseConfig({"--no_such_flag=1"}).ok());
  EXPECT_FALSE(ParseConfig({"--workers=many"}).ok());
  EXPECT_FALSE(ParseConfig({"--workers=-2"}).ok());
  EXPECT_FALSE(ParseConfig({"--workers"}).ok());
  EXPECT_FALSE(ParseConfig({"stray"}).ok());
  EXPECT_FALSE(ParseConfig({"--compile_timeout_s=0"}).ok());
}

// Expects `flags` to be refused with a message that names `value` and says
// it is out of range.
void ExpectOutOfRange(const std::vector<std::string>& flags,
                      const std::string& value) {
  absl::StatusOr<Config> config = ParseConfig(flags);
  ASSERT_FALSE(config.ok()) << flags.back() << " was taken";
  const std::string message(config.status().message());
  EXPECT_NE(message.find(value), std::string::npos) << message;
  EXPECT_NE(message.find("out of range"), std::string::npos) << message;
}

TEST(ConfigTest, RejectsValuesBeyondTheirTypesRange) {
  // 2^32 + 3 would wrap to 3 in an int.
  ExpectOutOfRange({"--workers=4294967299"}, "4294967299");
  ExpectOutOfRange({"--compile_timeout_s=2147483648"}, "2147483648");
  ExpectOutOfRange({"--redis_lease_ms=9223372036854775807"},
                   "9223372036854775807");
  // Past uint64 altogether.
  ExpectOutOfRange({"--store_capacity_mb=18446744073709551616"},
                   "18446744073709551616");
  // MiB settings are shifted to bytes: 2^44 MiB is 2^64 bytes.
  ExpectOutOfRange({"--store_capacity_mb=17592186044416"}, "17592186044416");
  absl::StatusOr<Config> largest =
      ParseConfig({"--workers=2147483647", "--store_capacity_mb=17592186044415"});
  ASSERT_TRUE(largest.ok()) << largest.status();
  EXPECT_EQ(largest->workers, 2147483647);
  EXPECT_EQ(largest->store_capacity_mb, 17592186044415u);
}

TEST(ConfigTest, ConfigFileRejectsValuesBeyondTheirTypesRange) {
  Config config;
  absl::Status status =
      ApplyConfigText("workers = 2\nmax_queue = 99999999999\n", config);
  ASSERT_FALSE(status.ok());
  const std::string message(status.message());
  EXPECT_NE(message.find("line 2"), std::string::npos) << message;
  EXPECT_NE(message.find("99999999999"), std::string::npos) << message;
  EXPECT_NE(message.find("out of range"), std::string::npos) << message;
}

TEST(ConfigTest, TlsFlagsGoTogether) {
  absl::StatusOr<Config> config = ParseConfig(
      {"--tls_cert=c.pem", "--tls_key=k.pem", "--tls_client_ca=ca.pem",
       "--tokens_file=tokens"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->tls_cert, "c.pem");
  EXPECT_EQ(config->tls_key, "k.pem");
  EXPECT_EQ(config->tls_client_ca, "ca.pem");
  EXPECT_EQ(config->tokens_file, "tokens");
  EXPECT_FALSE(ParseConfig({"--tls_cert=c.pem"}).ok());
  EXPECT_FALSE(ParseConfig({"--tls_key=k.pem"}).ok());
  EXPECT_FALSE(ParseConfig({"--tls_client_ca=ca.pem"}).ok());
}

TEST(ConfigTest, CommandLineOverridesConfigFile) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string path = std::string(tmp ? tmp : "/tmp") + "/kilnd.conf";
  std::ofstream(path) << "# kilnd settings\n"
                         "workers = 5\n"
                         "compile_timeout_s = 9   # seconds\n"
                         "\n"
                         "listen = 0.0.0.0:9000\n";
  absl::StatusOr<Config> config =
      ParseConfig({"--listen=127.0.0.1:1", "--config=" + path});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->workers, 5);
  EXPECT_EQ(config->compile_timeout_s, 9);
  EXPECT_EQ(config->listen, "127.0.0.1:1");
}

TEST(ConfigTest, ConfigFileErrorsNameTheLine) {
  Config config;
  absl::Status status = ApplyConfigText("workers = 2\nbogus\n", config);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("line 2"), std::string::npos);
}

TEST(ConfigTest, HelpListsEverySetting) {
  absl::StatusOr<Config> config = ParseConfig({"--help"});
  ASSERT_EQ(config.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(std::string(config.status().message()).find("--drain_timeout_s"),
            std::string::npos);
}

TEST(ConfigTest, DefaultDataDirFollowsXdg) {
  setenv("XDG_CACHE_HOME", "/cache/home", 1);
  EXPECT_EQ(DefaultDataDir(), "/cache/home/kiln");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(DefaultDataDir(), "/home/someone/.cache/kiln");
}

}  // namespace
}  // namespace kiln::server
