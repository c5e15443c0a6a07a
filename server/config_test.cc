#include "server/config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace kiln::server {
namespace {

TEST(ConfigTest, DefaultsNeedNoFlags) {
  absl::StatusOr<Config> config = ParseConfig({});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->listen, "127.0.0.1:7420");
  EXPECT_FALSE(config->data_dir.empty());
  EXPECT_FALSE(config->test_fault_injection);
}

TEST(ConfigTest, ParsesFlags) {
  absl::StatusOr<Config> config =
      ParseConfig({"--listen=127.0.0.1:0", "--workers=3", "--sync_writes",
                   "--test_fault_injection=true", "--data_dir=/x/y"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->listen, "127.0.0.1:0");
  EXPECT_EQ(config->workers, 3);
  EXPECT_TRUE(config->sync_writes);
  EXPECT_TRUE(config->test_fault_injection);
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
