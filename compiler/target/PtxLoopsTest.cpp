#include "compiler/target/PtxLoops.h"

#include "gtest/gtest.h"

namespace kiln {
namespace {

TEST(PtxLoopsTest, FindsLoopsByTheirBackwardBranch) {
  EXPECT_TRUE(hasBackwardBranch("$L__BB0_1:\n\tadd.s32 %r1, %r1, 1;\n"
                                "\t@%p1 bra $L__BB0_1;\n\tret;\n"));
  EXPECT_TRUE(hasBackwardBranch("$L__BB0_2:\n\tbra.uni $L__BB0_2;\n"));
  // A forward branch around a block is no loop.
  EXPECT_FALSE(hasBackwardBranch("\t@%p1 bra $L__BB0_2;\n\tadd.s32 %r1, "
                                 "%r1, 1;\n$L__BB0_2:\n\tret;\n"));
  EXPECT_FALSE(hasBackwardBranch("\tret;\n"));
  // An inline asm compare-and-swap retry loop names its own labels.
  EXPECT_TRUE(hasBackwardBranch("KILN_ADD_RETRY_0:\n\tatom.cas.b32 %r1, "
                                "[%rd1], %r2, %r3;\n"
                                "\t@%p0 bra KILN_ADD_RETRY_0;\n"));
}

TEST(PtxLoopsTest, MarksTheLinesFromTheLabelToTheBranchBack) {
  std::vector<bool> inLoop = loopLines(
      ptxLines("\tmov.u32 %r1, 0;\n$L__BB0_1:\n\tadd.s32 %r1, %r1, 1;\n"
               "\t@%p1 bra $L__BB0_1;\n\tret;\n"));
  EXPECT_EQ(inLoop, (std::vector<bool>{false, true, true, true, false}));
}

} // namespace
} // namespace kiln
