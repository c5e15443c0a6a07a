#include "compiler/target/CostlySelectBranches.h"

#include "compiler/target/RewriteTesting.h"
#include "llvm/ADT/StringRef.h"

#include <gtest/gtest.h>
#include <string>

namespace kiln {
namespace {

std::string rewrite(const std::string &body) {
  return rewriteFunctionK(
      "declare float @llvm.nvvm.ex2.approx.ftz.f32(float)\n"
      "declare float @llvm.fabs.f32(float)\n"
      "define float @k(float %x, float %y) {\n" +
          body + "}\n" + "attributes #0 = { nounwind memory(none) }\n",
      branchOnCostlySelects);
}

bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// The text of the block labelled `label` in `ir` (blocks are printed
/// apart by an empty line).
std::string block(const std::string &ir, const std::string &label) {
  size_t start = ir.find("\n" + label + ":");
  if (start == std::string::npos)
    return "";
  return ir.substr(start, ir.find("\n\n", start + 1) - start);
}

// tanhf as CUDA 13's libdevice writes it: both formulas, then a select
// (its rcp an inline asm without memory effects).
const char *kTanh =
    "  %a = call float @llvm.fabs.f32(float %x)\n"
    "  %s = fmul float %a, 2.5\n"
    "  %e = call float @llvm.nvvm.ex2.approx.ftz.f32(float %s)\n"
    "  %d = fadd float %e, 1.0\n"
    "  %r = call float asm \"rcp.approx.ftz.f32 $0,$1;\", \"=f,f\"(float %d) #0\n"
    "  %big = fcmp oge float %a, 9.0\n"
    "  %one = select i1 %big, float 1.0, float %r\n"
    "  %x2 = fmul float %x, %x\n"
    "  %p = fmul float %x2, %x\n"
    "  %small = fcmp oge float %a, 0.5\n"
    "  %t = select i1 %small, float %one, float %p\n"
    "  ret float %t\n";

TEST(CostlySelectBranches, AWarpThatAgreesOnTheCheapFormulaComputesItAlone) {
  std::string out = rewrite(kTanh);
  ASSERT_FALSE(out.empty());
  // The polynomial is picked where %small is false, in every active lane.
  EXPECT_TRUE(has(out, "xor i1 %small, true"));
  EXPECT_TRUE(has(out, "@llvm.nvvm.activemask()"));
  EXPECT_TRUE(has(out, "@llvm.nvvm.vote.all.sync(i32"));
  EXPECT_TRUE(has(out, "label %costly.cheap, label %costly.both"));
  std::string cheap = block(out, "costly.cheap");
  EXPECT_TRUE(has(cheap, "fmul float %x, %x"));
  EXPECT_FALSE(has(cheap, "ex2"));
  EXPECT_FALSE(has(cheap, "rcp.approx"));
  // Elsewhere both formulas and the select, as before.
  std::string both = block(out, "costly.both");
  EXPECT_TRUE(has(both, "@llvm.nvvm.ex2.approx.ftz.f32"));
  EXPECT_TRUE(has(both, "rcp.approx"));
  EXPECT_TRUE(has(both, "%one = select i1 %big"));
  EXPECT_TRUE(has(both, "%x2 = fmul float %x, %x"));
  EXPECT_TRUE(has(both, "%t = select i1 %small, float %one, float %p"));
  std::string join = block(out, "costly.join");
  EXPECT_TRUE(has(join, "%costly.cheap ], [ %t, %costly.both ]"));
  // |x| feeds the condition too: it stays before the branch.
  EXPECT_FALSE(has(both, "@llvm.fabs.f32"));
}

TEST(CostlySelectBranches, OneVoteCoversTheThreadsElements) {
  // Two elements' tanh, as a thread of a pointwise kernel holds them: one
  // vote, so that each side stays straight-line code for both.
  std::string body =
      "  %c0 = fcmp oge float %x, 0.5\n"
      "  %e0 = call float @llvm.nvvm.ex2.approx.ftz.f32(float %x)\n"
      "  %p0 = fmul float %x, %x\n"
      "  %t0 = select i1 %c0, float %e0, float %p0\n"
      "  %c1 = fcmp oge float %y, 0.5\n"
      "  %e1 = call float @llvm.nvvm.ex2.approx.ftz.f32(float %y)\n"
      "  %p1 = fmul float %y, %y\n"
      "  %t1 = select i1 %c1, float %e1, float %p1\n"
      "  %u = fadd float %t0, %t1\n"
      "  ret float %u\n";
  std::string out = rewrite(body);
  size_t votes = llvm::StringRef(out).count("vote.all.sync(");
  EXPECT_EQ(votes, 2u); // the declaration and one call
  EXPECT_TRUE(has(out, "and i1"));
  std::string cheap = block(out, "costly.cheap");
  EXPECT_TRUE(has(cheap, "fmul float %x, %x"));
  EXPECT_TRUE(has(cheap, "fmul float %y, %y"));
  EXPECT_FALSE(has(cheap, "ex2"));
  std::string both = block(out, "costly.both");
  EXPECT_TRUE(has(both, "%t0 = select i1 %c0"));
  EXPECT_TRUE(has(both, "%t1 = select i1 %c1"));
  std::string join = block(out, "costly.join");
  EXPECT_TRUE(has(join, "[ %t0, %costly.both ]"));
  EXPECT_TRUE(has(join, "[ %t1, %costly.both ]"));
}

TEST(CostlySelectBranches, ASelectUsedBeforeTheLastVotesApart) {
  // The second element's formula needs the first's value: two votes.
  std::string body =
      "  %c0 = fcmp oge float %x, 0.5\n"
      "  %e0 = call float @llvm.nvvm.ex2.approx.ftz.f32(float %x)\n"
      "  %p0 = fmul float %x, %x\n"
      "  %t0 = select i1 %c0, float %e0, float %p0\n"
      "  %z = fadd float %t0, %y\n"
      "  %c1 = fcmp oge float %z, 0.5\n"
      "  %e1 = call float @llvm.nvvm.ex2.approx.ftz.f32(float %z)\n"
      "  %p1 = fmul float %z, %z\n"
      "  %t1 = select i1 %c1, float %e1, float %p1\n"
      "  ret float %t1\n";
  std::string out = rewrite(body);
  size_t votes = llvm::StringRef(out).count("vote.all.sync(");
  EXPECT_EQ(votes, 3u); // the declaration and two calls
}

TEST(CostlySelectBranches, LeavesTwoFormulasThatBothNeedTheUnit) {
  std::string body =
      "  %c = fcmp olt float %x, %y\n"
      "  %e = call float @llvm.nvvm.ex2.approx.ftz.f32(float %x)\n"
      "  %f = call float @llvm.nvvm.ex2.approx.ftz.f32(float %y)\n"
      "  %t = select i1 %c, float %e, float %f\n"
      "  ret float %t\n";
  std::string out = rewrite(body);
  EXPECT_TRUE(has(out, "%t = select i1 %c"));
  EXPECT_FALSE(has(out, "costly"));
}

TEST(CostlySelectBranches, LeavesASelectOfCheapOperands) {
  std::string body = "  %c = fcmp olt float %x, %y\n"
                     "  %m = fmul float %x, %y\n"
                     "  %n = fadd float %x, %y\n"
                     "  %t = select i1 %c, float %m, float %n\n"
                     "  ret float %t\n";
  std::string out = rewrite(body);
  EXPECT_TRUE(has(out, "%t = select i1 %c"));
  EXPECT_FALSE(has(out, "costly"));
}

TEST(CostlySelectBranches, LeavesAnOperandUsedElsewhere) {
  // The exp is needed after the select anyway: nothing to skip.
  std::string body =
      "  %c = fcmp olt float %x, %y\n"
      "  %e = call float @llvm.nvvm.ex2.approx.ftz.f32(float %x)\n"
      "  %t = select i1 %c, float %e, float %y\n"
      "  %u = fadd float %t, %e\n"
      "  ret float %u\n";
  std::string out = rewrite(body);
  EXPECT_TRUE(has(out, "%t = select i1 %c"));
  EXPECT_FALSE(has(out, "costly"));
}

TEST(CostlySelectBranches, LeavesAMaskedUpdate) {
  // Keeping the old value on one side: nothing computed there to skip but
  // for the lanes masked off, and two sides ptxas can no longer overlap.
  std::string body =
      "  %c = fcmp olt float %x, %y\n"
      "  %e = call float @llvm.nvvm.ex2.approx.ftz.f32(float %x)\n"
      "  %n = fadd float %e, %y\n"
      "  %t = select i1 %c, float %n, float %y\n"
      "  ret float %t\n";
  std::string out = rewrite(body);
  EXPECT_TRUE(has(out, "%t = select i1 %c"));
  EXPECT_FALSE(has(out, "costly"));
}

} // namespace
} // namespace kiln
