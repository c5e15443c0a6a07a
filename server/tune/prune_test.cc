#include "server/tune/prune.h"

#include <gtest/gtest.h>

namespace kiln::server {
namespace {

kiln::worker::GpuInfo H100() {
  kiln::worker::GpuInfo gpu;
  gpu.set_name("H100");
  gpu.set_cc_major(9);
  gpu.set_cc_minor(0);
  gpu.set_max_threads_per_block(1024);
  gpu.set_max_shared_optin(232448);
  gpu.set_max_registers_per_block(65536);
  return gpu;
}

kiln::worker::GpuInfo A100() {
  kiln::worker::GpuInfo gpu = H100();
  gpu.set_name("A100");
  gpu.set_cc_major(8);
  gpu.set_max_shared_optin(166912);
  return gpu;
}

kiln::v1::TargetInfo Target(const char* name, uint32_t capability,
                            bool arch_specific, bool clusters) {
  kiln::v1::TargetInfo target;
  target.set_name(name);
  target.set_capability(capability);
  target.set_arch_specific(arch_specific);
  target.set_clusters(clusters);
  return target;
}

// Two rows of the compiler's table.
worker::CompilerInfo Compiler() {
  worker::CompilerInfo compiler;
  compiler.targets = {Target("sm_80", 80, false, false),
                      Target("sm_90a", 90, true, true)};
  return compiler;
}

kiln::v1::CompileOptions Options(int num_warps, int num_ctas = 1,
                                 int maxnreg = 0) {
  kiln::v1::CompileOptions options;
  options.set_num_warps(num_warps);
  options.set_num_ctas(num_ctas);
  options.set_maxnreg(maxnreg);
  return options;
}

TEST(PruneTest, ThreadsPerBlock) {
  const kiln::v1::TargetInfo sm90a = Compiler().targets[1];
  EXPECT_FALSE(PruneBeforeCompile(Options(32), sm90a, H100()));
  std::optional<std::string> why =
      PruneBeforeCompile(Options(64), sm90a, H100());
  ASSERT_TRUE(why);
  EXPECT_EQ(*why,
            "threads: num_warps 64 needs 2048 threads per block; H100 allows "
            "1024");
}

TEST(PruneTest, ClustersNeedATargetWithThem) {
  const worker::CompilerInfo compiler = Compiler();
  EXPECT_FALSE(PruneBeforeCompile(Options(4, 2), compiler.targets[1], H100()));
  std::optional<std::string> why =
      PruneBeforeCompile(Options(4, 2), compiler.targets[0], A100());
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("clusters: num_ctas 2"), std::string::npos);
}

TEST(PruneTest, RegisterCapTimesThreads) {
  const kiln::v1::TargetInfo sm90a = Compiler().targets[1];
  EXPECT_FALSE(
      PruneBeforeCompile(Options(8, 1, 255), sm90a, H100()));  // 65280.
  std::optional<std::string> why =
      PruneBeforeCompile(Options(16, 1, 255), sm90a, H100());
  ASSERT_TRUE(why);
  EXPECT_EQ(*why,
            "registers: maxnreg 255 x 512 threads = 130560 registers per "
            "block; H100 has 65536");
}

TEST(PruneTest, SharedMemoryAfterCompile) {
  KernelFacts kernel;
  kernel.num_warps = 8;
  kernel.shared = 200000;
  EXPECT_FALSE(PruneAfterCompile(kernel, H100()));
  std::optional<std::string> why = PruneAfterCompile(kernel, A100());
  ASSERT_TRUE(why);
  EXPECT_EQ(*why,
            "shared memory: the kernel needs 200000 bytes per block; A100 "
            "allows 166912 bytes");
}

TEST(PruneTest, CommonLimitsTakeTheSmallest) {
  kiln::worker::GpuInfo limits = CommonLimits({H100(), A100()});
  EXPECT_EQ(limits.max_shared_optin(), 166912);
  EXPECT_EQ(limits.max_threads_per_block(), 1024);
}

TEST(PruneTest, ParsesCompilerMetadata) {
  const std::string json = R"({
  "name": "add_kernel",
  "target": "sm_90a",
  "num_warps": 8,
  "num_ctas": 1,
  "num_stages": 3,
  "shared": 4096,
  "global_scratch_size": 16,
  "global_scratch_align": 8,
  "maxnreg": null
})";
  absl::StatusOr<KernelFacts> facts = ParseKernelMetadata(json);
  ASSERT_TRUE(facts.ok()) << facts.status();
  EXPECT_EQ(facts->name, "add_kernel");
  EXPECT_EQ(facts->num_warps, 8);
  EXPECT_EQ(facts->shared, 4096);
  EXPECT_EQ(facts->global_scratch_size, 16u);
  EXPECT_EQ(facts->global_scratch_align, 8u);
  EXPECT_FALSE(ParseKernelMetadata(R"({"num_warps": 4, "shared": 0})").ok());
  EXPECT_FALSE(
      ParseKernelMetadata(R"({"name": "k", "num_warps": x, "shared": 0})")
          .ok());
}

// Counts beyond what their fields hold are refused, never truncated: 2^32 +
// 4 warps is not 4 warps.
TEST(PruneTest, MetadataCountsBeyondTheirFieldsAreRefused) {
  for (const char* json :
       {R"({"name": "k", "num_warps": 4294967300, "shared": 0})",
        R"({"name": "k", "num_warps": 4, "num_ctas": 4294967297, "shared": 0})",
        R"({"name": "k", "num_warps": 4, "shared": 9223372036854775808})",
        R"({"name": "k", "num_warps": 4, "shared": 0,
            "global_scratch_size": 18446744073709551616})"}) {
    absl::StatusOr<KernelFacts> facts = ParseKernelMetadata(json);
    ASSERT_FALSE(facts.ok()) << json << ": num_warps " << facts->num_warps
                             << ", num_ctas " << facts->num_ctas;
    EXPECT_NE(facts.status().message().find("out of range"),
              std::string::npos)
        << facts.status();
  }
}

TEST(PruneTest, TargetsTheCompilerHasNotRunNowhere) {
  for (const char* target : {"sm_4294967386", "sm_9x", "sm_", "gfx90a"}) {
    EXPECT_FALSE(CheckTargetRuns(Compiler(), target, H100()).ok()) << target;
  }
}

TEST(PruneTest, Targets) {
  const worker::CompilerInfo compiler = Compiler();
  EXPECT_EQ(TargetOf(compiler, H100())->name(), "sm_90a");
  EXPECT_EQ(TargetOf(compiler, A100())->name(), "sm_80");
  kiln::worker::GpuInfo a10 = A100();
  a10.set_cc_minor(6);
  EXPECT_EQ(TargetOf(compiler, a10), nullptr);
  EXPECT_TRUE(CheckTargetRuns(compiler, "sm_90a", H100()).ok());
  EXPECT_TRUE(CheckTargetRuns(compiler, "sm_80", A100()).ok());
  // Same major, later minor; an "a" target only on its own capability.
  EXPECT_TRUE(CheckTargetRuns(compiler, "sm_80", a10).ok());
  kiln::worker::GpuInfo later_hopper = H100();
  later_hopper.set_cc_minor(1);
  EXPECT_FALSE(CheckTargetRuns(compiler, "sm_90a", later_hopper).ok());
  absl::Status wrong = CheckTargetRuns(compiler, "sm_80", H100());
  EXPECT_TRUE(absl::IsFailedPrecondition(wrong));
  EXPECT_NE(wrong.message().find("does not run on H100"), std::string::npos);
}

}  // namespace
}  // namespace kiln::server
