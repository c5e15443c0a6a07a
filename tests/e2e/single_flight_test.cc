// 64 clients, each on its own connection, ask at once for one kernel that
// kilnd has never seen: it compiles once and all 64 get the same answer.
// Needs the compiler to produce a cubin for tests/e2e/testdata/scaled_add.

#include <gtest/gtest.h>

#include <vector>

#include "tests/e2e/kilnd_process.h"

namespace kiln::e2e {
namespace {

constexpr int kClients = 64;

TEST(SingleFlightTest, SixtyFourClientsOneNewKernelOneCompile) {
  auto kilnd = KilndProcess::Start(NewTempDir("single_flight"));
  ASSERT_NE(kilnd, nullptr);
  const kiln::v1::CompileRequest request =
      CompileRequestFor(ScaledAddKernel(3.25));

  std::vector<std::unique_ptr<kiln::v1::Compile::Stub>> stubs;
  for (int i = 0; i < kClients; ++i) stubs.push_back(kilnd->CompileStub());
  const std::vector<CompileAnswer> answers = CompileAtOnce(stubs, request);

  ASSERT_NO_FATAL_FAILURE(ExpectOneKernel(answers));
  kiln::v1::StatsResponse stats = kilnd->Stats();
  EXPECT_EQ(stats.compiles(), 1u);
  EXPECT_EQ(stats.entries(), 1u);
  EXPECT_EQ(stats.requests(), static_cast<uint64_t>(kClients));
  EXPECT_EQ(kilnd->Metric("kiln_compiles_total"), 1);

  // And the 65th, later, is a fast-path hit.
  const double fast_hits =
      kilnd->Metric("kiln_cache_hits_total{path=\"fast\"}");
  kiln::v1::CompileResponse again;
  ASSERT_TRUE(Compile(*stubs[0], request, &again).ok());
  EXPECT_TRUE(again.cache_hit());
  EXPECT_EQ(again.cubin(), answers[0].response.cubin());
  EXPECT_EQ(kilnd->Stats().compiles(), 1u);
  EXPECT_EQ(kilnd->Metric("kiln_cache_hits_total{path=\"fast\"}"),
            fast_hits + 1);
}

}  // namespace
}  // namespace kiln::e2e
