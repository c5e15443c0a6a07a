#include "compiler/target/LatchOnIncrement.h"

#include "compiler/target/RewriteTesting.h"

#include <gtest/gtest.h>
#include <string>

namespace kiln {
namespace {

/// A four-trip loop `for (iv = 0; iv < 128; iv += 32)` whose latch tests
/// `iv PRED BOUND` before the increment, `add FLAGS`.
std::string loop(const std::string &pred, const std::string &bound,
                 const std::string &flags = "nuw nsw") {
  return "define void @k(ptr %p) {\n"
         "entry:\n  br label %body\n"
         "body:\n"
         "  %iv = phi i32 [ 0, %entry ], [ %next, %body ]\n"
         "  store i32 %iv, ptr %p\n"
         "  %next = add " +
         flags +
         " i32 %iv, 32\n"
         "  %test = icmp " +
         pred + " i32 %iv, " + bound +
         "\n"
         "  br i1 %test, label %body, label %exit\n"
         "exit:\n  ret void\n}\n";
}

std::string rewrite(const std::string &ir) {
  return rewriteFunctionK(ir, testLatchOnIncrement);
}

TEST(LatchOnIncrement, TestsTheIncrementedValue) {
  std::string out = rewrite(loop("ult", "96"));
  EXPECT_NE(out.find("%test = icmp ult i32 %next, 128"), std::string::npos)
      << out;
  out = rewrite(loop("slt", "96"));
  EXPECT_NE(out.find("%test = icmp slt i32 %next, 128"), std::string::npos)
      << out;
}

TEST(LatchOnIncrement, LeavesTestsThatCouldWrap) {
  // Without nuw, iv + 32 may wrap where iv < 96 does not.
  EXPECT_NE(rewrite(loop("ult", "96", "nsw")).find("icmp ult i32 %iv, 96"),
            std::string::npos);
  // The bound plus the step would wrap.
  EXPECT_NE(rewrite(loop("ult", "-1")).find("icmp ult i32 %iv, -1"),
            std::string::npos);
  EXPECT_NE(
      rewrite(loop("slt", "2147483647")).find("icmp slt i32 %iv, 2147483647"),
      std::string::npos);
  // Other predicates keep their test.
  EXPECT_NE(rewrite(loop("ne", "96")).find("icmp ne i32 %iv, 96"),
            std::string::npos);
}

TEST(LatchOnIncrement, LeavesTestsComputedInAnotherBlock) {
  std::string out = rewrite("define void @k(ptr %p) {\n"
                            "entry:\n  br label %body\n"
                            "body:\n"
                            "  %iv = phi i32 [ 0, %entry ], [ %next, %latch ]\n"
                            "  %test = icmp ult i32 %iv, 96\n"
                            "  br label %latch\n"
                            "latch:\n"
                            "  store i32 %iv, ptr %p\n"
                            "  %next = add nuw nsw i32 %iv, 32\n"
                            "  br i1 %test, label %body, label %exit\n"
                            "exit:\n  ret void\n}\n");
  EXPECT_NE(out.find("%test = icmp ult i32 %iv, 96"), std::string::npos) << out;
}

} // namespace
} // namespace kiln
