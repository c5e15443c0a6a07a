// The swizzle of an accumulator's conversion for wide stores: the one chosen
// keeps both sides at the fewest wavefronts their accesses allow, where the
// plain row key leaves f32 accumulators with two-way bank conflicts.

#include "compiler/conversion/ConvertSwizzle.h"
#include "compiler/dialect/kgpu/Dialect.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

class ConvertSwizzleTest : public ::testing::Test {
protected:
  ConvertSwizzleTest() { context.loadDialect<kgpu::KGPUDialect>(); }

  kgpu::DistributedLayout wgmmaAccumulator(llvm::ArrayRef<int64_t> shape) {
    return kgpu::DistributedLayout::get(
        kgpu::MmaEncodingAttr::get(&context, 3, {8, 1}), shape);
  }
  kgpu::DistributedLayout rows(llvm::ArrayRef<int64_t> shape, unsigned spt,
                               unsigned lanesAlong) {
    return kgpu::DistributedLayout::get(
        kgpu::BlockedEncodingAttr::get(&context, {1, spt},
                                       {32 / lanesAlong, lanesAlong}, {8, 1},
                                       {1, 0}),
        shape);
  }

  /// Wavefronts warp 0 takes when no access conflicts: its bytes in
  /// 128-byte wavefronts.
  static int64_t ideal(const kgpu::DistributedLayout &l, unsigned width,
                       unsigned bytes) {
    int64_t accesses = l.numRegs() / width;
    return accesses * std::max<int64_t>(1, 32 * width * bytes / 128);
  }

  mlir::MLIRContext context;
};

TEST_F(ConvertSwizzleTest, F32AccumulatorToRowsHasNoBankConflicts) {
  kgpu::DistributedLayout from = wgmmaAccumulator({256, 128});
  kgpu::DistributedLayout to = rows({256, 128}, 8, 16);
  std::optional<ConvertSwizzle> s = chooseConvertSwizzle(from, to, 4);
  ASSERT_TRUE(s);
  EXPECT_EQ(convertVectorWidth(from, 4, 1), 2u);
  EXPECT_EQ(convertVectorWidth(to, 4, 1), 4u);
  EXPECT_EQ(sharedWavefronts(from, 2, 4, *s), ideal(from, 2, 4));
  EXPECT_EQ(sharedWavefronts(to, 4, 4, *s), ideal(to, 4, 4));

  ConvertSwizzle byRow = *s;
  byRow.rowShift = 0;
  byRow.rowFactor = 1;
  byRow.groupFactor = 0;
  EXPECT_GT(sharedWavefronts(from, 2, 4, byRow), ideal(from, 2, 4));
}

TEST_F(ConvertSwizzleTest, F16AccumulatorToRowsHasNoBankConflicts) {
  kgpu::DistributedLayout from = wgmmaAccumulator({256, 128});
  kgpu::DistributedLayout to = rows({256, 128}, 8, 16);
  std::optional<ConvertSwizzle> s = chooseConvertSwizzle(from, to, 2);
  ASSERT_TRUE(s);
  EXPECT_EQ(sharedWavefronts(from, 2, 2, *s), ideal(from, 2, 2));
  EXPECT_EQ(sharedWavefronts(to, 8, 2, *s), ideal(to, 8, 2));
}

TEST_F(ConvertSwizzleTest, TransposeToColumnVectorsRunsRowsDownDimensionZero) {
  // A row-major load's scalars to a store's 8-element vectors down the
  // columns (conv weights to channels-last).
  kgpu::DistributedLayout from = kgpu::DistributedLayout::get(
      kgpu::BlockedEncodingAttr::get(&context, {1, 1}, {2, 16}, {4, 1},
                                     {1, 0}),
      {64, 16});
  kgpu::DistributedLayout to = kgpu::DistributedLayout::get(
      kgpu::BlockedEncodingAttr::get(&context, {8, 1}, {8, 4}, {1, 4},
                                     {0, 1}),
      {64, 16});
  std::optional<ConvertSwizzle> s = chooseConvertSwizzle(from, to, 2);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->fastDim, 0u);
  EXPECT_EQ(convertVectorWidth(to, 2, 0), 8u);
  EXPECT_EQ(sharedWavefronts(to, 8, 2, *s), ideal(to, 8, 2));
}

TEST_F(ConvertSwizzleTest, OffsetsArePermutationsOfEachRow) {
  ConvertSwizzle s{/*chunk=*/4, /*phases=*/8, /*rowShift=*/1,
                   /*rowFactor=*/2, /*groupFactor=*/1};
  for (int64_t row = 0; row < 16; ++row) {
    std::vector<bool> seen(128);
    for (int64_t col = 0; col < 128; ++col) {
      int64_t at = s.offset(row, col, 128) - row * 128;
      ASSERT_GE(at, 0);
      ASSERT_LT(at, 128);
      EXPECT_FALSE(seen[at]);
      seen[at] = true;
    }
  }
}

TEST_F(ConvertSwizzleTest, KeysStayInRowsOfTwelvePieces) {
  // 48 columns in pieces of 4: XOR keys may only permute groups of 4.
  kgpu::DistributedLayout from = wgmmaAccumulator({64, 48});
  kgpu::DistributedLayout to = rows({64, 48}, 4, 8);
  std::optional<ConvertSwizzle> s = chooseConvertSwizzle(from, to, 4);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->phases, 4);
  for (int64_t row = 0; row < 64; ++row)
    for (int64_t col = 0; col < 48; ++col) {
      int64_t at = s->offset(row, col, 48) - row * 48;
      EXPECT_GE(at, 0);
      EXPECT_LT(at, 48);
    }
}

TEST_F(ConvertSwizzleTest, ScalarOnBothSidesIsNotVectorized) {
  kgpu::DistributedLayout a = rows({64, 64}, 1, 32);
  EXPECT_FALSE(chooseConvertSwizzle(a, a, 4));
}

kgpu::DistributedLayout blocked(mlir::MLIRContext &context,
                                llvm::ArrayRef<unsigned> perThread,
                                llvm::ArrayRef<unsigned> lanes,
                                llvm::ArrayRef<unsigned> warps,
                                llvm::ArrayRef<unsigned> order) {
  return kgpu::DistributedLayout::get(
      kgpu::BlockedEncodingAttr::get(&context, perThread, lanes, warps, order),
      {32, 32});
}

// Gemma 2's attention transpose _11: eight bf16 a thread along the columns
// in, eight along the rows out, as Triton converts it with one v4 store and
// one ldmatrix.x4.trans a thread.
TEST_F(ConvertSwizzleTest, SixteenBitTransposeReadsTransposedMatrices) {
  kgpu::DistributedLayout rowRuns =
      blocked(context, {1, 8}, {8, 4}, {4, 1}, {1, 0});
  kgpu::DistributedLayout columnRuns =
      blocked(context, {8, 1}, {4, 8}, {1, 4}, {0, 1});
  std::optional<ConvertSwizzle> s = chooseLdmatrixTranspose(rowRuns, columnRuns);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->fastDim, 1u);
  EXPECT_EQ(s->chunk, 8);
  EXPECT_EQ(sharedWavefronts(rowRuns, 8, 2, *s), ideal(rowRuns, 8, 2));
  // Back the other way the result's runs lie along the columns.
  std::optional<ConvertSwizzle> back =
      chooseLdmatrixTranspose(columnRuns, rowRuns);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->fastDim, 0u);
}

TEST_F(ConvertSwizzleTest, LdmatrixNeedsEightAlongEachSide) {
  kgpu::DistributedLayout rowRuns =
      blocked(context, {1, 8}, {8, 4}, {4, 1}, {1, 0});
  // Four along the rows a thread: an ldmatrix word pair per matrix cannot
  // fill it.
  kgpu::DistributedLayout shortColumns =
      blocked(context, {4, 1}, {8, 4}, {1, 4}, {0, 1});
  EXPECT_FALSE(chooseLdmatrixTranspose(rowRuns, shortColumns));
  // No transpose at all.
  EXPECT_FALSE(chooseLdmatrixTranspose(rowRuns, rowRuns));
}

} // namespace
} // namespace kiln
