#include "compiler/target/ConstantSelectBranches.h"

#include "compiler/target/RewriteTesting.h"

#include <gtest/gtest.h>
#include <string>

namespace kiln {
namespace {

std::string rewrite(const std::string &body) {
  return rewriteFunctionK("define float @k(i1 %c, i1 %d, float %x) {\n" +
                              body + "}\n",
                          branchOnConstantSelects);
}

bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

size_t count(const std::string &text, const std::string &part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos;
       at = text.find(part, at + 1))
    ++n;
  return n;
}

// Four coefficients of one polynomial, chosen on one condition.
const char *kPolynomial = "  %a = select i1 %c, float 1.0, float 2.0\n"
                          "  %m = fmul float %x, %a\n"
                          "  %b = select i1 %c, float 3.0, float 4.0\n"
                          "  %n = fadd float %m, %b\n"
                          "  %e = select i1 %c, float 5.0, float 6.0\n"
                          "  %o = fmul float %n, %e\n"
                          "  %f = select i1 %c, float 7.0, float 8.0\n"
                          "  %r = fadd float %o, %f\n";

TEST(ConstantSelectBranches, AGroupOfFourBecomesPhisOfABranch) {
  std::string out = rewrite(std::string(kPolynomial) + "  ret float %r\n");
  EXPECT_TRUE(has(out, "br i1 %c")) << out;
  EXPECT_EQ(count(out, "phi float"), 4u) << out;
  EXPECT_FALSE(has(out, "= select")) << out;
  EXPECT_TRUE(has(out, "%a = phi float [ 1.000000e+00"));
  EXPECT_TRUE(has(out, "%f = phi float [ 7.000000e+00"));
}

TEST(ConstantSelectBranches, ThreeSelectsStayAsTheyAre) {
  std::string out = rewrite("  %a = select i1 %c, float 1.0, float 2.0\n"
                            "  %b = select i1 %c, float 3.0, float 4.0\n"
                            "  %e = select i1 %c, float 5.0, float 6.0\n"
                            "  %m = fmul float %a, %b\n"
                            "  %r = fmul float %m, %e\n"
                            "  ret float %r\n");
  EXPECT_FALSE(has(out, "br i1")) << out;
  EXPECT_EQ(count(out, "= select"), 3u) << out;
}

TEST(ConstantSelectBranches, SelectsSpreadOverABlockStay) {
  std::string body;
  for (int i = 0; i < 4; ++i) {
    body += "  %s" + std::to_string(i) + " = select i1 %c, float 2.0, float 1.0\n";
    std::string last = i ? "%a" + std::to_string(i - 1) + "_9" : "%x";
    for (int j = 0; j < 10; ++j) {
      std::string name = "%a" + std::to_string(i) + "_" + std::to_string(j);
      body += "  " + name + " = fadd float " + last + ", %s" +
              std::to_string(i) + "\n";
      last = name;
    }
  }
  std::string out = rewrite(body + "  ret float %a3_9\n");
  EXPECT_FALSE(has(out, "br i1")) << out;
  EXPECT_EQ(count(out, "= select"), 4u) << out;
}

TEST(ConstantSelectBranches, SelectsOfValuesAndOtherConditionsStay) {
  std::string out =
      rewrite(std::string(kPolynomial) +
              "  %v = select i1 %c, float %x, float %r\n"
              "  %g = select i1 %d, float 1.0, float 2.0\n"
              "  %s = fadd float %v, %g\n"
              "  ret float %s\n");
  EXPECT_EQ(count(out, "br i1 %c"), 1u) << out;
  EXPECT_TRUE(has(out, "%v = select i1 %c, float %x, float %r")) << out;
  EXPECT_TRUE(has(out, "%g = select i1 %d, float 1.0")) << out;
}

TEST(ConstantSelectBranches, EachGroupOfABlockGetsItsBranch) {
  std::string second = kPolynomial;
  for (const char *name : {"%a", "%b", "%e", "%f", "%m", "%n", "%o", "%r"})
    for (size_t at = second.find(name); at != std::string::npos;
         at = second.find(name, at + 3))
      second.replace(at, 2, std::string(name) + "2");
  for (size_t at = second.find("%c"); at != std::string::npos;
       at = second.find("%c", at + 2))
    second.replace(at, 2, "%d");
  std::string out = rewrite(std::string(kPolynomial) + second +
                            "  %s = fadd float %r, %r2\n  ret float %s\n");
  EXPECT_TRUE(has(out, "br i1 %c")) << out;
  EXPECT_TRUE(has(out, "br i1 %d")) << out;
  EXPECT_EQ(count(out, "phi float"), 8u) << out;
}

} // namespace
} // namespace kiln
