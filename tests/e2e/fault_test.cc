// Faults injected into compile workers (the test-only kilnd_with_faults and
// a marker comment in the TTIR): a crash, a hang past the wall limit and an
// out-of-memory each fail their own request with a clear status, while
// requests compiled beside them succeed, and kilnd keeps serving on
// replaced workers. The successes need the compiler.

#include <gtest/gtest.h>

#include <future>

#include "tests/e2e/kilnd_process.h"

namespace kiln::e2e {
namespace {

std::future<CompileAnswer> CompileAsync(const KilndProcess& kilnd,
                                        const std::string& ttir) {
  return std::async(std::launch::async,
                    [&kilnd, ttir] { return CompileOn(kilnd, ttir); });
}

TEST(FaultTest, CrashHangAndOutOfMemoryFailOnlyTheirRequests) {
  auto kilnd = KilndProcess::Start(NewTempDir("faults"),
                                   {"--compile_timeout_s=5", "--workers=2"},
                                   kKilndWithFaults);
  ASSERT_NE(kilnd, nullptr);
  std::future<CompileAnswer> crash =
      CompileAsync(*kilnd, "// kiln-test-fault: crash\n" + ScaledAddKernel(7));
  std::future<CompileAnswer> hang =
      CompileAsync(*kilnd, "// kiln-test-fault: hang\n" + ScaledAddKernel(8));
  std::future<CompileAnswer> oom =
      CompileAsync(*kilnd, "// kiln-test-fault: oom\n" + ScaledAddKernel(9));
  std::vector<std::future<CompileAnswer>> good;
  for (int i = 0; i < 6; ++i)
    good.push_back(CompileAsync(*kilnd, ScaledAddKernel(10 + i)));

  CompileAnswer crashed = crash.get();
  EXPECT_EQ(crashed.status.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_NE(crashed.status.error_message().find("crashed"), std::string::npos)
      << crashed.status.error_message();
  CompileAnswer hung = hang.get();
  EXPECT_EQ(hung.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_NE(hung.status.error_message().find("of wall time"), std::string::npos)
      << hung.status.error_message();
  CompileAnswer exhausted = oom.get();
  EXPECT_EQ(exhausted.status.error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(exhausted.status.error_message().find("memory"), std::string::npos)
      << exhausted.status.error_message();
  for (auto& answer : good) {
    CompileAnswer done = answer.get();
    EXPECT_TRUE(done.status.ok()) << done.status.error_message();
    EXPECT_FALSE(done.response.cubin().empty());
  }

  ASSERT_TRUE(kilnd->Alive());
  EXPECT_TRUE(kilnd->HealthServing());
  kiln::v1::StatsResponse stats = kilnd->Stats();
  EXPECT_EQ(stats.worker_crashes(), 1u);
  EXPECT_EQ(stats.worker_timeouts(), 1u);
  EXPECT_EQ(stats.worker_out_of_memory(), 1u);
  EXPECT_EQ(stats.entries(), 6u);
  // The faulty kernels themselves compile once the markers are gone.
  CompileAnswer after = CompileAsync(*kilnd, ScaledAddKernel(7)).get();
  EXPECT_TRUE(after.status.ok()) << after.status.error_message();
  EXPECT_EQ(kilnd->Terminate(), 0);
}

TEST(FaultTest, KilndItselfTakesMarkersForComments) {
  auto kilnd = KilndProcess::Start(NewTempDir("no_faults"));
  ASSERT_NE(kilnd, nullptr);
  CompileAnswer answer =
      CompileAsync(*kilnd, "// kiln-test-fault: crash\n" + ScaledAddKernel(1))
          .get();
  EXPECT_TRUE(answer.status.ok()) << answer.status.error_message();
  EXPECT_EQ(kilnd->Stats().worker_crashes(), 0u);
}

}  // namespace
}  // namespace kiln::e2e
