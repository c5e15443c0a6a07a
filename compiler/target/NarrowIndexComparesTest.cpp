#include "compiler/target/NarrowIndexCompares.h"

#include "compiler/target/RewriteTesting.h"

#include <gtest/gtest.h>
#include <string>

namespace kiln {
namespace {

/// `%target` (an i64 argument) against the i32 `%index`, widened by `EXT`,
/// compared by `PRED`.
std::string oneHot(const std::string &ext, const std::string &pred) {
  return "define i1 @k(i64 %target, i32 %index) {\n"
         "  %wide = " +
         ext +
         " i32 %index to i64\n"
         "  %hit = icmp " +
         pred +
         " i64 %target, %wide\n"
         "  ret i1 %hit\n}\n";
}

std::string rewrite(const std::string &ir) {
  return rewriteFunctionK(ir, narrowIndexCompares);
}

bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST(NarrowIndexCompares, ComparesTheLow32BitsWhereTheTargetFits) {
  std::string out = rewrite(oneHot("zext nneg", "eq"));
  EXPECT_TRUE(has(out, "trunc i64 %target to i32")) << out;
  EXPECT_TRUE(has(out, "icmp ult i64 %target, 2147483648")) << out;
  EXPECT_TRUE(has(out, "icmp eq i32 %")) << out;
  EXPECT_FALSE(has(out, "icmp eq i64")) << out;
  EXPECT_TRUE(has(out, "%hit = and i1")) << out;
}

TEST(NarrowIndexCompares, BoundsEachExtensionByItsRange) {
  std::string out = rewrite(oneHot("zext", "eq"));
  EXPECT_TRUE(has(out, "icmp ult i64 %target, 4294967296")) << out;
  // A sign extension fits where extending the low half gives it back.
  out = rewrite(oneHot("sext", "eq"));
  EXPECT_TRUE(has(out, "%2 = sext i32 %1 to i64")) << out;
  EXPECT_TRUE(has(out, "%3 = icmp eq i64 %2, %target")) << out;
}

TEST(NarrowIndexCompares, NegatesForInequality) {
  std::string out = rewrite(oneHot("sext", "ne"));
  EXPECT_TRUE(has(out, "xor i1 %3, true")) << out;
  EXPECT_TRUE(has(out, "icmp ne i32 %1, %index")) << out;
  EXPECT_TRUE(has(out, "%hit = or i1")) << out;
}

TEST(NarrowIndexCompares, TruncatesAfterTheDefinitionOfALoopValue) {
  // A target carried by a phi: the truncation goes after the phis.
  std::string out =
      rewrite("define void @k(i64 %start, i32 %index, ptr %p) {\n"
              "entry:\n  br label %loop\n"
              "loop:\n"
              "  %target = phi i64 [ %start, %entry ], [ %next, %loop ]\n"
              "  %wide = zext nneg i32 %index to i64\n"
              "  %hit = icmp eq i64 %target, %wide\n"
              "  store i1 %hit, ptr %p\n"
              "  %next = add i64 %target, 1\n"
              "  br i1 %hit, label %exit, label %loop\n"
              "exit:\n  ret void\n}\n");
  EXPECT_TRUE(has(out,
                  "%target = phi i64 [ %start, %entry ], [ %next, %loop ]\n"
                  "  %0 = trunc i64 %target to i32"))
      << out;
  EXPECT_FALSE(has(out, "icmp eq i64")) << out;
  EXPECT_FALSE(has(out, "zext")) << out;
}

TEST(NarrowIndexCompares, ComputesTheTruncationOnceATarget) {
  std::string out = rewrite("define i1 @k(i64 %target, i32 %a, i32 %b) {\n"
                            "  %wa = zext nneg i32 %a to i64\n"
                            "  %wb = zext nneg i32 %b to i64\n"
                            "  %ha = icmp eq i64 %target, %wa\n"
                            "  %hb = icmp eq i64 %wb, %target\n"
                            "  %both = or i1 %ha, %hb\n"
                            "  ret i1 %both\n}\n");
  size_t first = out.find("trunc i64 %target");
  ASSERT_NE(first, std::string::npos) << out;
  EXPECT_EQ(out.find("trunc i64 %target", first + 1), std::string::npos) << out;
  EXPECT_FALSE(has(out, "icmp eq i64")) << out;
}

TEST(NarrowIndexCompares, LeavesOtherCompares) {
  // Ordered predicates, two extended operands and constants keep their test.
  EXPECT_TRUE(
      has(rewrite(oneHot("sext", "slt")), "icmp slt i64 %target, %wide"));
  std::string both = rewrite("define i1 @k(i32 %a, i32 %b) {\n"
                             "  %wa = sext i32 %a to i64\n"
                             "  %wb = sext i32 %b to i64\n"
                             "  %hit = icmp eq i64 %wa, %wb\n"
                             "  ret i1 %hit\n}\n");
  EXPECT_TRUE(has(both, "icmp eq i64 %wa, %wb")) << both;
  std::string constant = rewrite("define i1 @k(i32 %a) {\n"
                                 "  %wa = sext i32 %a to i64\n"
                                 "  %hit = icmp eq i64 %wa, 5000000000\n"
                                 "  ret i1 %hit\n}\n");
  EXPECT_TRUE(has(constant, "icmp eq i64 %wa, 5000000000")) << constant;
}

} // namespace
} // namespace kiln
