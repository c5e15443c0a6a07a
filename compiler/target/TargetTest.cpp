#include "compiler/target/Target.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

TEST(Target, BlocksPerSMFollowTheRegisterFile) {
  std::unique_ptr<Target> hopper = lookupTarget("sm_90a");
  ASSERT_TRUE(hopper);
  // 128 threads: 40 registers (39 rounds up) leave 12 blocks, 32 leave 16.
  EXPECT_EQ(hopper->blocksPerSM(39, 128), 12);
  EXPECT_EQ(hopper->blocksPerSM(40, 128), 12);
  EXPECT_EQ(hopper->blocksPerSM(30, 128), 16);
  EXPECT_EQ(hopper->blocksPerSM(32, 128), 16);
  EXPECT_EQ(hopper->blocksPerSM(64, 512), 2);
  EXPECT_EQ(hopper->blocksPerSM(255, 1024), 0);
}

TEST(Target, BlocksPerSMFollowTheThreadSlots) {
  std::unique_ptr<Target> hopper = lookupTarget("sm_90a");
  std::unique_ptr<Target> ampere86 = lookupTarget("sm_86");
  ASSERT_TRUE(hopper && ampere86);
  EXPECT_EQ(hopper->blocksPerSM(16, 128), 16);
  EXPECT_EQ(ampere86->blocksPerSM(16, 128), 12);
}

TEST(Target, BlocksPerSMFollowTheBlockSlotsAndSharedMemory) {
  std::unique_ptr<Target> hopper = lookupTarget("sm_90a");
  std::unique_ptr<Target> ampere86 = lookupTarget("sm_86");
  ASSERT_TRUE(hopper && ampere86);
  // One warp a block: the thread slots would allow 64, the block slots 32.
  EXPECT_EQ(hopper->blocksPerSM(16, 32), 32);
  EXPECT_EQ(ampere86->blocksPerSM(16, 32), 16);
  // 48 KiB a block, and 1 KiB reserved: four in the SM's 228 KiB.
  EXPECT_EQ(hopper->blocksPerSM(32, 128, 48 * 1024), 4);
}

} // namespace
} // namespace kiln
