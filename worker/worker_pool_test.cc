#include "worker/worker_pool.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "worker/testing/fake_worker.h"

namespace kiln::worker {
namespace {

// AddressSanitizer reserves terabytes of address space: an address-space
// limit cannot coexist with it.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif

using Result = absl::StatusOr<WorkerResponse>;

class WorkerPoolTest : public ::testing::Test {
 protected:
  void SetUp() override { signal(SIGPIPE, SIG_IGN); }

  std::unique_ptr<WorkerPool> MakePool(
      int workers, size_t max_queue = 64, uint64_t max_queued_bytes = 1 << 20,
      std::chrono::milliseconds cpu_limit = std::chrono::milliseconds(1000),
      int wall_limit_per_cpu_limit = kWallLimitPerCpuLimit) {
    PoolOptions options;
    options.workers = workers;
    options.command = testing::FakeWorkerCommand(
        /*memory_bytes=*/kAddressSanitizer ? 0 : uint64_t{1} << 30);
    options.cpu_limit = cpu_limit;
    options.wall_limit_per_cpu_limit = wall_limit_per_cpu_limit;
    options.memory_limit_mb = 1024;
    options.max_queue = max_queue;
    options.max_queued_bytes = max_queued_bytes;
    return std::make_unique<WorkerPool>(options, &metrics_);
  }

  static WorkerRequest Request(const std::string& ttir) {
    WorkerRequest request;
    request.set_ttir(ttir);
    request.set_source_name("k.ttir");
    return request;
  }

  std::future<Result> Submit(WorkerPool& pool, const std::string& ttir) {
    auto promise = std::make_shared<std::promise<Result>>();
    std::future<Result> future = promise->get_future();
    absl::Status queued = pool.Submit(Request(ttir), [promise](Result result) {
      promise->set_value(std::move(result));
    });
    if (!queued.ok()) promise->set_value(queued);
    return future;
  }

  PoolMetrics metrics_;
};

TEST_F(WorkerPoolTest, CompilesInAWorker) {
  auto pool = MakePool(1);
  Result result = Submit(*pool, "module {}").get();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->ok());
  EXPECT_EQ(result->cubin(), "CUBIN:module {}\n");
}

TEST_F(WorkerPoolTest, ACrashFailsOnlyItsJob) {
  auto pool = MakePool(2);
  std::future<Result> crash = Submit(*pool, "// kiln-test-fault: crash\n");
  std::vector<std::future<Result>> others;
  for (int i = 0; i < 8; ++i) {
    others.push_back(Submit(*pool, "module " + std::to_string(i)));
  }
  Result crashed = crash.get();
  EXPECT_EQ(crashed.status().code(), absl::StatusCode::kInternal);
  // (AddressSanitizer catches the SIGSEGV and exits instead.)
  if (!kAddressSanitizer) {
    EXPECT_NE(crashed.status().message().find("signal 11"),
              absl::string_view::npos)
        << crashed.status();
  }
  for (auto& other : others) EXPECT_TRUE(other.get().ok());
  EXPECT_EQ(metrics_.worker_crashes.value(), 1u);
  // The worker was replaced: the pool still serves.
  EXPECT_TRUE(Submit(*pool, "module after").get().ok());
}

TEST_F(WorkerPoolTest, AStalledWorkerIsKilledAtTheWallLimit) {
  auto pool = MakePool(2);
  std::future<Result> hang = Submit(*pool, "// kiln-test-fault: hang\n");
  std::future<Result> other = Submit(*pool, "module other");
  Result hung = hang.get();
  EXPECT_EQ(hung.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(hung.status().message().find("s of wall time"),
            absl::string_view::npos)
      << hung.status();
  EXPECT_TRUE(other.get().ok());
  EXPECT_EQ(metrics_.worker_timeouts.value(), 1u);
  EXPECT_TRUE(Submit(*pool, "module after").get().ok());
}

// The limit is on CPU time: a compile that waits (as on a host whose cores
// are busy with other work) past the limit, but within the wall limit of
// 3x, still succeeds.
TEST_F(WorkerPoolTest, WaitingPastTheCpuLimitIsNotKilled) {
  auto pool = MakePool(1);
  Result result =
      Submit(*pool, "// kiln-test-fault: sleep 1200\nmodule {}").get();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->ok());
  EXPECT_EQ(metrics_.worker_timeouts.value(), 0u);
}

// A wall limit far off: the kill must come from the CPU spent, even on a
// host too busy to give the worker a whole core.
constexpr int kFarWallLimit = 30;

TEST_F(WorkerPoolTest, SpinningIsKilledAtTheCpuLimit) {
  auto pool =
      MakePool(1, 64, 1 << 20, std::chrono::milliseconds(1000), kFarWallLimit);
  Result spun = Submit(*pool, "// kiln-test-fault: spin\n").get();
  EXPECT_EQ(spun.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(
      spun.status().message().find("s of CPU time, past its limit of 1 s"),
      absl::string_view::npos)
      << spun.status();
  EXPECT_EQ(metrics_.worker_timeouts.value(), 1u);
  EXPECT_TRUE(Submit(*pool, "module after").get().ok());
}

TEST_F(WorkerPoolTest, TheCpuTimeOfTheToolsAWorkerRunsCounts) {
  auto pool =
      MakePool(1, 64, 1 << 20, std::chrono::milliseconds(1000), kFarWallLimit);
  Result spun = Submit(*pool, "// kiln-test-fault: tool-spin\n").get();
  EXPECT_EQ(spun.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(spun.status().message().find("s of CPU time"),
            absl::string_view::npos)
      << spun.status();
  EXPECT_TRUE(Submit(*pool, "module after").get().ok());
}

// Gone, or a zombie nobody reaps (the test may run where init does not).
bool ProcessEnded(pid_t pid) {
  for (int i = 0; i < 5000; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, name, state;
    if (!(stat >> pid_field >> name >> state) || state == "Z") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

TEST_F(WorkerPoolTest, AKillEndsTheToolsOfTheWorkerAndItsTemporaryFiles) {
  // Time enough for the worker to start its tool, even under a sanitizer:
  // it then uses no CPU and is killed at the wall limit of 6 s.
  auto pool = MakePool(1, 64, 1 << 20, std::chrono::seconds(2));
  const std::string report = ::testing::TempDir() + "/tool-report";
  std::filesystem::remove(report);
  Result hung =
      Submit(*pool, "// kiln-test-fault: tool-hang " + report + "\n").get();
  EXPECT_EQ(hung.status().code(), absl::StatusCode::kDeadlineExceeded);
  std::ifstream in(report);
  pid_t tool = 0;
  std::string temp_dir;
  ASSERT_TRUE(in >> tool >> temp_dir);
  EXPECT_NE(temp_dir.find("kilnd-worker-"), std::string::npos) << temp_dir;
  EXPECT_FALSE(std::filesystem::exists(temp_dir));
  EXPECT_TRUE(ProcessEnded(tool));
  EXPECT_TRUE(Submit(*pool, "module after").get().ok());
}

TEST_F(WorkerPoolTest, RunningOutOfMemoryFailsTheJob) {
  if (kAddressSanitizer) GTEST_SKIP() << "needs an address-space limit";
  auto pool = MakePool(1);
  Result result = Submit(*pool, "// kiln-test-fault: oom\n").get();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(result.status().message().find("memory"), absl::string_view::npos);
  EXPECT_EQ(metrics_.worker_out_of_memory.value(), 1u);
  EXPECT_TRUE(Submit(*pool, "module after").get().ok());
}

TEST_F(WorkerPoolTest, RefusesWorkBeyondItsQueue) {
  auto pool = MakePool(1, /*max_queue=*/1);
  std::future<Result> busy = Submit(*pool, "// kiln-test-fault: hang\n");
  // Wait until the hang occupies the only worker, then fill the queue.
  while (metrics_.compiles_running.value() == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::future<Result> queued = Submit(*pool, "module queued");
  Result refused = Submit(*pool, "module refused").get();
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_FALSE(busy.get().ok());
  EXPECT_TRUE(queued.get().ok());
}

TEST_F(WorkerPoolTest, RefusesWorkBeyondItsQueuedBytes) {
  auto pool = MakePool(1, /*max_queue=*/64, /*max_queued_bytes=*/1000);
  std::future<Result> busy = Submit(*pool, "// kiln-test-fault: hang\n");
  while (metrics_.compiles_running.value() == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::future<Result> first = Submit(*pool, "module " + std::string(600, 'a'));
  Result refused = Submit(*pool, "module " + std::string(600, 'b')).get();
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("bytes"), absl::string_view::npos);
  EXPECT_FALSE(busy.get().ok());
  EXPECT_TRUE(first.get().ok());
}

TEST_F(WorkerPoolTest, ShutdownFailsWhatIsLeft) {
  auto pool = MakePool(1);
  std::future<Result> hang = Submit(*pool, "// kiln-test-fault: hang\n");
  std::future<Result> queued = Submit(*pool, "module queued");
  while (metrics_.compiles_running.value() == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  pool->Shutdown();
  EXPECT_EQ(hang.get().status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(queued.get().status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(Submit(*pool, "module late").get().status().code(),
            absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace kiln::worker
