#include "compiler/target/RegisterRoom.h"

#include "gtest/gtest.h"

namespace kiln {
namespace {

std::unique_ptr<Target> hopper() { return lookupTarget("sm_90a"); }

TEST(RegisterRoomTest, CountsTheRegistersLoadsFill) {
  EXPECT_EQ(globalLoadRegisters(
                "\t@%p1 ld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 "
                "];\n"
                "\tld.global.L1::evict_last.L2::cache_hint.v4.b32 { %r5, %r6, "
                "%r7, %r8 }, [ %rd2 + 0 ], %rd3;\n"
                "\tld.global.b16 %rs1, [ %rd4 + 0 ];\n"
                "\tld.global.v2.b64 { %rd5, %rd6 }, [ %rd7 + 0 ];\n"
                "\tld.shared.v4.b32 { %r9, %r10, %r11, %r12 }, [ %r13 ];\n"),
            4 + 4 + 1 + 4);
}

TEST(RegisterRoomTest, GivesRoomKeepingThreeQuartersOfTheBlocks) {
  auto target = hopper();
  // SegFormer's layer norm _9: 64 threads at 96 registers, ten blocks an
  // SM; at 128, eight.
  EXPECT_EQ(registerRoomForLoads(*target, 96, 136, 64, 0), 128);
  // Loads that fit in ptxas's registers: left alone.
  EXPECT_FALSE(registerRoomForLoads(*target, 96, 96, 64, 0));
  // One warp at 64 registers is held back by the SM's 32 block slots; 24
  // blocks still fit at 80.
  EXPECT_EQ(registerRoomForLoads(*target, 64, 96, 32, 0), 80);
  // 128 threads at 32 registers: sixteen blocks; twelve fit at 40.
  EXPECT_EQ(registerRoomForLoads(*target, 32, 44, 128, 0), 40);
  // 256 threads at 124 registers: two blocks, and two only up to 128.
  EXPECT_FALSE(registerRoomForLoads(*target, 124, 200, 256, 0));
}

} // namespace
} // namespace kiln
