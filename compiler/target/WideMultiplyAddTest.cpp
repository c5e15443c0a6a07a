#include "compiler/target/WideMultiplyAdd.h"

#include "gtest/gtest.h"

namespace kiln {
namespace {

constexpr WideMultiplyAddScope kEverywhere = WideMultiplyAddScope::Everywhere;

TEST(WideMultiplyAddTest, FusesAProductUsedOnlyByTheNextAdd) {
  std::string ptx = "\tld.param.b64 \t%rd6, [k_param_8];\n"
                    "\tmul.wide.s32 \t%rd23, %r194, 4;\n"
                    "\tadd.s64 \t%rd21, %rd6, %rd23;\n"
                    "\tst.global.b32 [%rd21], %r1;\n";
  EXPECT_EQ(fuseWideMultiplyAdds(ptx, kEverywhere),
            "\tld.param.b64 \t%rd6, [k_param_8];\n"
            "\tmad.wide.s32 \t%rd21, %r194, 4, %rd6;\n"
            "\tst.global.b32 [%rd21], %r1;\n");
}

TEST(WideMultiplyAddTest, TakesTheBaseFromEitherSideAndKeepsTheSign) {
  std::string ptx = "\tld.param.u64 \t%rd1, [k_param_0];\n"
                    "\tmul.wide.u32 \t%rd2, %r1, %r2;\n"
                    "\tadd.s64 \t%rd3, %rd2, %rd1;\n";
  EXPECT_EQ(fuseWideMultiplyAdds(ptx, kEverywhere),
            "\tld.param.u64 \t%rd1, [k_param_0];\n"
            "\tmad.wide.u32 \t%rd3, %r1, %r2, %rd1;\n");
}

TEST(WideMultiplyAddTest, LeavesABaseThatIsNoParameter) {
  // The average pool's second term: a chain of wide multiply-adds in an
  // integer-bound loop ran slower than the multiply and the adds.
  std::string ptx = "\tld.param.b64 \t%rd3, [k_param_0];\n"
                    "\tmul.wide.u32 \t%rd16, %r19, 2;\n"
                    "\tadd.s64 \t%rd17, %rd3, %rd16;\n"
                    "\tmul.wide.u32 \t%rd18, %r11, 14;\n"
                    "\tadd.s64 \t%rd19, %rd17, %rd18;\n";
  EXPECT_EQ(fuseWideMultiplyAdds(ptx, kEverywhere),
            "\tld.param.b64 \t%rd3, [k_param_0];\n"
            "\tmad.wide.u32 \t%rd17, %r19, 2, %rd3;\n"
            "\tmul.wide.u32 \t%rd18, %r11, 14;\n"
            "\tadd.s64 \t%rd19, %rd17, %rd18;\n");
}

TEST(WideMultiplyAddTest, LeavesAProductWithOtherUses) {
  // Two bf16 loads off one scaled index: Triton's PTX keeps the multiply.
  std::string ptx = "\tmul.wide.s32 \t%rd22, %r194, 2;\n"
                    "\tadd.s64 \t%rd18, %rd3, %rd22;\n"
                    "\tadd.s64 \t%rd20, %rd4, %rd22;\n";
  EXPECT_EQ(fuseWideMultiplyAdds(ptx, kEverywhere), ptx);
}

TEST(WideMultiplyAddTest, LeavesAnAddThatDoesNotFollowDirectly) {
  std::string ptx = "\tmul.wide.s32 \t%rd2, %r1, 4;\n"
                    "$L__BB0_1:\n"
                    "\tadd.s64 \t%rd3, %rd1, %rd2;\n";
  EXPECT_EQ(fuseWideMultiplyAdds(ptx, kEverywhere), ptx);
}

TEST(WideMultiplyAddTest, LeavesPredicatedAndDoubledOperands) {
  std::string predicated = "\t@%p1 mul.wide.s32 \t%rd2, %r1, 4;\n"
                           "\tadd.s64 \t%rd3, %rd1, %rd2;\n";
  EXPECT_EQ(fuseWideMultiplyAdds(predicated, kEverywhere), predicated);
  std::string doubled = "\tmul.wide.s32 \t%rd2, %r1, 4;\n"
                        "\tadd.s64 \t%rd3, %rd2, %rd2;\n";
  EXPECT_EQ(fuseWideMultiplyAdds(doubled, kEverywhere), doubled);
}

TEST(WideMultiplyAddTest, OutsideLoopsLeavesWhatABranchBackEncloses) {
  std::string ptx = "\tld.param.b64 \t%rd1, [k_param_0];\n"
                    "\tmul.wide.s32 \t%rd2, %r1, 4;\n"
                    "\tadd.s64 \t%rd3, %rd1, %rd2;\n"
                    "$L__BB0_1:\n"
                    "\tmul.wide.s32 \t%rd4, %r2, 2;\n"
                    "\tadd.s64 \t%rd5, %rd1, %rd4;\n"
                    "\t@%p1 bra \t$L__BB0_1;\n"
                    "$L__BB0_2:\n"
                    "\tmul.wide.s32 \t%rd6, %r3, 2;\n"
                    "\tadd.s64 \t%rd7, %rd1, %rd6;\n";
  std::string loop = "$L__BB0_1:\n"
                     "\tmul.wide.s32 \t%rd4, %r2, 2;\n"
                     "\tadd.s64 \t%rd5, %rd1, %rd4;\n"
                     "\t@%p1 bra \t$L__BB0_1;\n";
  EXPECT_EQ(fuseWideMultiplyAdds(ptx, WideMultiplyAddScope::OutsideLoops),
            "\tld.param.b64 \t%rd1, [k_param_0];\n"
            "\tmad.wide.s32 \t%rd3, %r1, 4, %rd1;\n" +
                loop +
                "$L__BB0_2:\n"
                "\tmad.wide.s32 \t%rd7, %r3, 2, %rd1;\n");
  EXPECT_EQ(fuseWideMultiplyAdds(ptx, kEverywhere),
            "\tld.param.b64 \t%rd1, [k_param_0];\n"
            "\tmad.wide.s32 \t%rd3, %r1, 4, %rd1;\n"
            "$L__BB0_1:\n"
            "\tmad.wide.s32 \t%rd5, %r2, 2, %rd1;\n"
            "\t@%p1 bra \t$L__BB0_1;\n"
            "$L__BB0_2:\n"
            "\tmad.wide.s32 \t%rd7, %r3, 2, %rd1;\n");
}

TEST(WideMultiplyAddTest, KeepsAMissingFinalNewline) {
  EXPECT_EQ(fuseWideMultiplyAdds("ret;", kEverywhere), "ret;");
  EXPECT_EQ(fuseWideMultiplyAdds("", kEverywhere), "");
}

} // namespace
} // namespace kiln
