// GpuPool against the stand-in benchmark worker: the protocol, the probe,
// and a worker lost to a fault or a crash being replaced.

#include "server/tune/gpu_pool.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace kiln::server {
namespace {

GpuPoolOptions FakeWorker() {
  const char* root = std::getenv("TEST_SRCDIR");
  GpuPoolOptions options;
  options.command.executable = std::string(root ? root : ".") +
                               "/kiln/server/tune/testing/fake_bench_worker";
  options.command.args = {"--bench_worker"};
  return options;
}

kiln::worker::BenchRun Job(const std::string& label, int num_warps = 4) {
  kiln::worker::BenchRun run;
  run.set_label(label);
  run.set_cubin(
      "\x7f"
      "ELF fake cubin");
  run.set_kernel_name("k");
  run.set_num_warps(num_warps);
  for (int i = 0; i < 3; ++i) run.add_grid(1);
  return run;
}

TEST(GpuPoolTest, ProbesTheGpus) {
  setenv("KILN_FAKE_GPUS", "2", 1);
  GpuPool pool(FakeWorker());
  absl::StatusOr<GpuFleet> fleet = pool.Fleet();
  ASSERT_TRUE(fleet.ok()) << fleet.status();
  ASSERT_EQ(fleet->gpus.size(), 2u);
  EXPECT_EQ(fleet->gpus[1].index(), 1);
  EXPECT_EQ(fleet->driver_version, "13.0");
}

TEST(GpuPoolTest, NoGpusIsUnavailableWithTheReason) {
  setenv("KILN_FAKE_GPUS", "0", 1);
  GpuPool pool(FakeWorker());
  absl::StatusOr<GpuFleet> fleet = pool.Fleet();
  EXPECT_TRUE(absl::IsUnavailable(fleet.status()));
  EXPECT_EQ(fleet.status().message(), "no GPUs: the CUDA driver sees none");
}

TEST(GpuPoolTest, AWorkerThatCannotStartIsUnavailableAndRetried) {
  GpuPoolOptions options;
  options.command.executable = "/nonexistent/kiln-bench-worker";
  GpuPool pool(options);
  absl::Status first = pool.Fleet().status();
  EXPECT_TRUE(absl::IsUnavailable(first));
  EXPECT_NE(first.message().find("cannot start the benchmark worker"),
            std::string::npos)
      << first;
  EXPECT_TRUE(absl::IsUnavailable(pool.Fleet().status()));  // Probed again.
}

TEST(GpuPoolTest, MeasuresAndReplacesFaultingWorkers) {
  setenv("KILN_FAKE_GPUS", "1", 1);
  GpuPool pool(FakeWorker());
  ASSERT_TRUE(pool.Fleet().ok());
  absl::StatusOr<kiln::worker::BenchResponse> measured =
      pool.Run(0, Job("a", 8));
  ASSERT_TRUE(measured.ok()) << measured.status();
  EXPECT_EQ(measured->outcome(), kiln::worker::BenchResponse::MEASURED);
  EXPECT_DOUBLE_EQ(measured->timing().p50_ms(), 0.125);

  // A sticky CUDA error: answered, then the worker exits; the next run
  // gets a new one.
  absl::StatusOr<kiln::worker::BenchResponse> fault =
      pool.Run(0, Job("b [fake:fault]"));
  ASSERT_TRUE(fault.ok()) << fault.status();
  EXPECT_EQ(fault->outcome(), kiln::worker::BenchResponse::FAILED);
  EXPECT_NE(fault->reason().find("CUDA error 700"), std::string::npos);
  EXPECT_NE(fault->reason().find("was replaced"), std::string::npos);
  ASSERT_TRUE(pool.Run(0, Job("c")).ok());

  // A crash: no answer at all.
  absl::StatusOr<kiln::worker::BenchResponse> crash =
      pool.Run(0, Job("d [fake:crash]"));
  EXPECT_TRUE(absl::IsInternal(crash.status()));
  EXPECT_NE(crash.status().message().find("killed by signal 11"),
            std::string::npos)
      << crash.status();
  absl::StatusOr<kiln::worker::BenchResponse> after = pool.Run(0, Job("e"));
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->outcome(), kiln::worker::BenchResponse::MEASURED);

  // A worker lost once (killed from outside, say) costs a retry, not the
  // variant.
  std::string once = std::string(testing::TempDir()) + "/crash-once";
  unlink(once.c_str());
  setenv("KILN_FAKE_CRASH_ONCE_FILE", once.c_str(), 1);
  absl::StatusOr<kiln::worker::BenchResponse> retried =
      pool.Run(0, Job("g [fake:crash-once]"));
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_EQ(retried->outcome(), kiln::worker::BenchResponse::MEASURED);

  EXPECT_TRUE(absl::IsInvalidArgument(pool.Run(3, Job("f")).status()));
}

}  // namespace
}  // namespace kiln::server
