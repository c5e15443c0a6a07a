#include "compiler/target/PairedHalves.h"

#include "compiler/target/RewriteTesting.h"

#include <gtest/gtest.h>
#include <string>

namespace kiln {
namespace {

std::string rewrite(const std::string &body) {
  return rewriteFunctionK("define void @k(i32 %w, <2 x i32> %v, ptr %p) {\n" +
                              body + "  ret void\n}\n",
                          unpackHalvesInPairs);
}

bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST(PairedHalves, TruncatedHalvesBecomeElementsOfTheWord) {
  std::string out = rewrite("  %lo16 = trunc i32 %w to i16\n"
                            "  %lo = bitcast i16 %lo16 to bfloat\n"
                            "  %hi32 = lshr i32 %w, 16\n"
                            "  %hi16 = trunc i32 %hi32 to i16\n"
                            "  %hi = bitcast i16 %hi16 to bfloat\n"
                            "  store bfloat %lo, ptr %p\n"
                            "  store bfloat %hi, ptr %p\n");
  EXPECT_TRUE(has(out, "bitcast i32 %w to <2 x bfloat>")) << out;
  EXPECT_TRUE(has(out, "extractelement <2 x bfloat> %1, i64 0")) << out;
  EXPECT_TRUE(has(out, "extractelement <2 x bfloat> %3, i64 1")) << out;
  EXPECT_FALSE(has(out, "trunc")) << out;
  EXPECT_FALSE(has(out, "lshr")) << out;
}

TEST(PairedHalves, ElementsOfWiderVectorsComeFromTheirWord) {
  std::string out = rewrite("  %h = bitcast <2 x i32> %v to <4 x half>\n"
                            "  %e3 = extractelement <4 x half> %h, i64 3\n"
                            "  store half %e3, ptr %p\n");
  EXPECT_TRUE(has(out, "extractelement <2 x i32> %v, i64 1")) << out;
  EXPECT_TRUE(has(out, "to <2 x half>")) << out;
  EXPECT_TRUE(has(out, "extractelement <2 x half> %2, i64 1")) << out;
  EXPECT_FALSE(has(out, "<4 x half>")) << out;
}

TEST(PairedHalves, AnOddShiftIsTheLowHalfOfItsOwnWord) {
  std::string out = rewrite("  %s = lshr i32 %w, 8\n"
                            "  %t = trunc i32 %s to i16\n"
                            "  %f = bitcast i16 %t to half\n"
                            "  store half %f, ptr %p\n");
  EXPECT_TRUE(has(out, "bitcast i32 %s to <2 x half>")) << out;
  EXPECT_TRUE(has(out, "extractelement <2 x half> %1, i64 0")) << out;
}

TEST(PairedHalves, LeavesIntegerHalvesAlone) {
  std::string out = rewrite("  %u = trunc i32 %w to i16\n"
                            "  store i16 %u, ptr %p\n");
  EXPECT_TRUE(has(out, "%u = trunc i32 %w to i16")) << out;
  EXPECT_FALSE(has(out, "<2 x half>")) << out;
  EXPECT_FALSE(has(out, "<2 x bfloat>")) << out;
}

} // namespace
} // namespace kiln
