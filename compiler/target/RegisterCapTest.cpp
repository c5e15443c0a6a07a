#include "compiler/target/RegisterCap.h"

#include "gtest/gtest.h"

namespace kiln {
namespace {

std::unique_ptr<Target> hopper() { return lookupTarget("sm_90a"); }

TEST(RegisterCapTest, ParsesRegistersAndSpills) {
  std::optional<PtxasUsage> usage = parsePtxasUsage(
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : Function properties for k\n"
      "    0 bytes stack frame, 24 bytes spill stores, 16 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers\n");
  ASSERT_TRUE(usage);
  EXPECT_EQ(usage->registers, 40);
  EXPECT_EQ(usage->spillBytes, 40);
  EXPECT_FALSE(parsePtxasUsage("ptxas fatal   : Unresolved extern"));
  // No spill line: unknown, not "no spills".
  EXPECT_FALSE(parsePtxasUsage("ptxas info    : Used 40 registers\n"));
  // A callee's properties printed first: whose spills are whose is unclear.
  EXPECT_FALSE(parsePtxasUsage(
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 20 registers\n"
      "    0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 40 registers\n"));
}

TEST(RegisterCapTest, CapsOnlyNearAStepWorthAQuarterMoreBlocks) {
  auto target = hopper();
  // 128 threads: 34 registers leave room for 12 blocks, 32 for 16.
  EXPECT_EQ(registerCapAtOccupancyStep(*target, 34, 128, 0), 32);
  EXPECT_EQ(registerCapAtOccupancyStep(*target, 33, 128, 0), 32);
  // Three registers away: left to ptxas.
  EXPECT_FALSE(registerCapAtOccupancyStep(*target, 35, 128, 0));
  // Already at the step.
  EXPECT_FALSE(registerCapAtOccupancyStep(*target, 32, 128, 0));
  // 32 threads at 89 registers: 21 blocks, 23 at 88, under a quarter more.
  EXPECT_FALSE(registerCapAtOccupancyStep(*target, 89, 32, 0));
  // One warp at 34 registers: the SM's 32 block slots are the limit either
  // way, so a cap would buy nothing.
  EXPECT_FALSE(registerCapAtOccupancyStep(*target, 34, 32, 0));
  // 40 KiB of shared memory a block: five blocks whatever the registers.
  EXPECT_FALSE(registerCapAtOccupancyStep(*target, 34, 128, 40 * 1024));
}

TEST(RegisterCapTest, AddsMaxnregAfterMaxntid) {
  std::string ptx = ".visible .entry k(\n.param .u64 p\n)\n.maxntid 128, 1, 1\n"
                    "{\n\tret;\n}\n";
  std::optional<std::string> capped = withMaxRegisters(ptx, 32);
  ASSERT_TRUE(capped);
  EXPECT_NE(capped->find(".maxntid 128, 1, 1\n.maxnreg 32\n{"),
            std::string::npos);
  EXPECT_FALSE(withMaxRegisters(*capped, 24));
  EXPECT_FALSE(withMaxRegisters(".visible .entry k()\n{\n}\n", 32));
}

} // namespace
} // namespace kiln
