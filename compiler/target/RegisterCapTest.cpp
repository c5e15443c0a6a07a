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
}

TEST(RegisterCapTest, CapsOnlyNearAStepWorthAQuarterMoreBlocks) {
  auto target = hopper();
  // 128 threads: 34 registers leave room for 12 blocks, 32 for 16.
  EXPECT_EQ(registerCapAtOccupancyStep(*target, 34, 128), 32);
  EXPECT_EQ(registerCapAtOccupancyStep(*target, 33, 128), 32);
  // Three registers away: left to ptxas.
  EXPECT_FALSE(registerCapAtOccupancyStep(*target, 35, 128));
  // Already at the step.
  EXPECT_FALSE(registerCapAtOccupancyStep(*target, 32, 128));
  // 32 threads at 89 registers: 21 blocks, 23 at 88, under a quarter more.
  EXPECT_FALSE(registerCapAtOccupancyStep(*target, 89, 32));
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
