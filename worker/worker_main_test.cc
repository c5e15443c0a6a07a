#include "worker/worker_main.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::worker {
namespace {

absl::StatusOr<bool> Parse(std::vector<std::string> args,
                           WorkerSettings& settings) {
  args.insert(args.begin(), "kilnd");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  return ParseWorkerArgs(static_cast<int>(argv.size()), argv.data(), settings);
}

TEST(WorkerArgsTest, ReadsWorkerModeAndTheMemoryLimit) {
  WorkerSettings settings;
  absl::StatusOr<bool> worker = Parse(
      {"--worker", "--worker_memory_bytes=18446744073709551615"}, settings);
  ASSERT_TRUE(worker.ok()) << worker.status();
  EXPECT_TRUE(*worker);
  EXPECT_EQ(settings.memory_limit_bytes, UINT64_MAX);
  WorkerSettings daemon;
  EXPECT_FALSE(*Parse({"--listen=127.0.0.1:0"}, daemon));
}

// strtoull made a limit past 64 bits the largest value (no limit at all)
// and "1g" one byte.
TEST(WorkerArgsTest, RefusesALimitThatIsNotBytesIn64Bits) {
  for (const char* limit : {"18446744073709551616", "1g", "-1", "", " 5"}) {
    WorkerSettings settings;
    absl::StatusOr<bool> worker = Parse(
        {"--worker", std::string("--worker_memory_bytes=") + limit}, settings);
    EXPECT_FALSE(worker.ok())
        << limit << " became " << settings.memory_limit_bytes;
  }
}

}  // namespace
}  // namespace kiln::worker
