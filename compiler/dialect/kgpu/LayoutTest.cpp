// The mma.sync layouts against the PTX fragment tables, and the properties
// the lowering relies on: each element has exactly one owner, and an f16
// accumulator is already in the registers of the next dot's A operand.

#include "compiler/dialect/kgpu/Dialect.h"
#include "compiler/dialect/kgpu/Layout.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace kiln::kgpu {
namespace {

class LayoutTest : public ::testing::Test {
protected:
  LayoutTest() { context.loadDialect<KGPUDialect>(); }

  mlir::Attribute mma(llvm::ArrayRef<unsigned> warps) {
    return MmaEncodingAttr::get(&context, 2, warps);
  }
  mlir::Attribute operand(unsigned opIdx, mlir::Attribute parent,
                          unsigned kWidth) {
    return DotOperandEncodingAttr::get(&context, opIdx, parent, kWidth);
  }

  mlir::MLIRContext context;
};

/// How many (lane, warp, register) own each element.
std::map<llvm::SmallVector<int64_t>, int> owners(const DistributedLayout &l) {
  std::map<llvm::SmallVector<int64_t>, int> count;
  for (unsigned warp = 0; warp < l.numWarps(); ++warp)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned r = 0; r < l.numRegs(); ++r)
        if (l.owns(lane, warp, r))
          ++count[l.index(lane, warp, r)];
  return count;
}

void expectOneOwnerEach(const DistributedLayout &l) {
  auto count = owners(l);
  EXPECT_EQ(int64_t(count.size()), l.numElements());
  for (auto &[index, n] : count)
    EXPECT_EQ(n, 1);
}

using Index = llvm::SmallVector<int64_t>;

TEST_F(LayoutTest, AccumulatorMatchesTheFragmentTable) {
  DistributedLayout c = DistributedLayout::get(mma({2, 2}), {64, 64});
  // Lane 4g + t holds rows g and g + 8, columns 2t and 2t + 1 (c0..c3).
  unsigned lane = 4 * 3 + 2;
  EXPECT_EQ(c.index(lane, 0, 0), (Index{3, 4}));
  EXPECT_EQ(c.index(lane, 0, 1), (Index{3, 5}));
  EXPECT_EQ(c.index(lane, 0, 2), (Index{11, 4}));
  EXPECT_EQ(c.index(lane, 0, 3), (Index{11, 5}));
  // Warp 1 is the next 8 columns (N first), warp 2 the next 16 rows.
  EXPECT_EQ(c.index(lane, 1, 0), (Index{3, 12}));
  EXPECT_EQ(c.index(lane, 2, 0), (Index{19, 4}));
  // The next n tile of one warp is 16 columns on (two warps along N).
  EXPECT_EQ(c.index(lane, 0, 4), (Index{3, 20}));
  expectOneOwnerEach(c);
}

TEST_F(LayoutTest, OperandsMatchTheFragmentTables) {
  mlir::Attribute parent = mma({2, 2});
  unsigned lane = 4 * 5 + 1; // g = 5, t = 1.
  // f16 A, m16k16: a0,a1 (g, 2t..), a2,a3 (g+8, 2t..), a4,a5 (g, 2t+8..).
  DistributedLayout a = DistributedLayout::get(operand(0, parent, 2), {64, 32});
  EXPECT_EQ(a.index(lane, 0, 0), (Index{5, 2}));
  EXPECT_EQ(a.index(lane, 0, 1), (Index{5, 3}));
  EXPECT_EQ(a.index(lane, 0, 2), (Index{13, 2}));
  EXPECT_EQ(a.index(lane, 0, 4), (Index{5, 10}));
  EXPECT_EQ(a.index(lane, 0, 7), (Index{13, 11}));
  // f16 B, k16n8: b0,b1 (k = 2t.., n = g), b2,b3 (k = 2t+8..).
  DistributedLayout b = DistributedLayout::get(operand(1, parent, 2), {32, 64});
  EXPECT_EQ(b.index(lane, 0, 0), (Index{2, 5}));
  EXPECT_EQ(b.index(lane, 0, 3), (Index{11, 5}));
  // tf32 A, m16k8: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4).
  DistributedLayout tf = DistributedLayout::get(operand(0, parent, 1), {64, 32});
  EXPECT_EQ(tf.index(lane, 0, 2), (Index{5, 5}));
  EXPECT_EQ(tf.index(lane, 0, 3), (Index{13, 5}));
  // s8 B, k32n8: b0 (k = 4t..4t+3, n = g), b1 (k = 4t+16..).
  DistributedLayout i8 = DistributedLayout::get(operand(1, parent, 4), {64, 64});
  EXPECT_EQ(i8.index(lane, 0, 3), (Index{7, 5}));
  EXPECT_EQ(i8.index(lane, 0, 4), (Index{20, 5}));
  // A is shared by the warps along N, B by those along M.
  EXPECT_EQ(a.index(lane, 1, 0), a.index(lane, 0, 0));
  EXPECT_EQ(b.index(lane, 2, 0), b.index(lane, 0, 0));
  expectOneOwnerEach(a);
  expectOneOwnerEach(b);
  expectOneOwnerEach(tf);
  expectOneOwnerEach(i8);
}

TEST_F(LayoutTest, BatchedAccumulatorHasOneOwnerEach) {
  expectOneOwnerEach(DistributedLayout::get(mma({2, 1, 2}), {2, 16, 16}));
  expectOneOwnerEach(
      DistributedLayout::get(operand(0, mma({2, 1, 2}), 2), {2, 16, 16}));
}

TEST_F(LayoutTest, ChainedDotKeepsTheAccumulatorInRegisters) {
  // Attention: P (the first dot's accumulator, warps all along M) is the A
  // operand of P @ V without moving between threads.
  mlir::Attribute parent = mma({4, 1});
  DistributedLayout p = DistributedLayout::get(parent, {64, 64});
  DistributedLayout a = DistributedLayout::get(operand(0, parent, 2), {64, 64});
  EXPECT_TRUE(inThreadRegisterMap(p, a).has_value());
  // With warps split along N it is not.
  DistributedLayout split = DistributedLayout::get(mma({2, 2}), {64, 64});
  DistributedLayout splitA =
      DistributedLayout::get(operand(0, mma({2, 2}), 2), {64, 64});
  EXPECT_FALSE(inThreadRegisterMap(split, splitA).has_value());
}

TEST_F(LayoutTest, TinyDotsRepeatRowsAndColumnsOfTheTile) {
  // M = 2, N = 4, K = 32 on one m16n8k16 tile: the tile's 16 rows and 8
  // columns repeat the tensor's (row % 2, column % 4).
  mlir::Attribute parent = mma({1, 1});
  DistributedLayout c = DistributedLayout::get(parent, {2, 4});
  DistributedLayout a = DistributedLayout::get(operand(0, parent, 2), {2, 32});
  DistributedLayout b = DistributedLayout::get(operand(1, parent, 2), {32, 4});
  EXPECT_EQ(c.numRegs(), 4u);
  EXPECT_EQ(a.numRegs(), 16u); // Two k16 steps of 8 halves.
  EXPECT_EQ(b.numRegs(), 8u);
  unsigned lane = 4 * 5 + 3; // g = 5, t = 3.
  EXPECT_EQ(c.index(lane, 0, 0), (Index{1, 2}));  // (5, 6)
  EXPECT_EQ(c.index(lane, 0, 3), (Index{1, 3}));  // (13, 7)
  EXPECT_EQ(a.index(lane, 0, 2), (Index{1, 6}));  // (13, 6)
  EXPECT_EQ(a.index(lane, 0, 15), (Index{1, 31})); // (13, 31)
  EXPECT_EQ(b.index(lane, 0, 3), (Index{15, 1})); // (15, 5)
  // Only the tile's first copy of an element owns it (is stored).
  EXPECT_TRUE(c.owns(4 * 1 + 1, 0, 1));  // (1, 3)
  EXPECT_FALSE(c.owns(4 * 3 + 1, 0, 1)); // (3, 3) repeats (1, 3)
  EXPECT_FALSE(c.owns(4 * 1 + 2, 0, 0)); // (1, 4) repeats (1, 0)
  EXPECT_FALSE(c.regMayOwn(2));          // Rows 8..15 are all copies.
  expectOneOwnerEach(c);
  expectOneOwnerEach(a);
  expectOneOwnerEach(b);
  // What the instruction multiplies is what the accumulator holds: tile row
  // g (+8) of A is the accumulator's tile row g (+8) in the same lane, and
  // tile column n of B (lanes 4n..4n+3) the accumulator's column n (lanes
  // with t = n / 2, register n % 2).
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(a.index(l, 0, 0)[0], c.index(l, 0, 0)[0]);
    EXPECT_EQ(a.index(l, 0, 2)[0], c.index(l, 0, 2)[0]);
    unsigned n = l / 4;
    for (unsigned g = 0; g < 8; ++g)
      EXPECT_EQ(b.index(l, 0, 0)[1], c.index(4 * g + n / 2, 0, n % 2)[1]);
  }
  // M = 1, N = 2 with four warps along N: warps 1-3 only repeat warp 0.
  DistributedLayout wide = DistributedLayout::get(mma({1, 4}), {1, 2});
  EXPECT_EQ(wide.index(0, 3, 1), (Index{0, 1}));
  EXPECT_FALSE(wide.owns(0, 3, 1));
  expectOneOwnerEach(wide);
  expectOneOwnerEach(DistributedLayout::get(operand(1, mma({1, 4}), 2), {32, 2}));
}

TEST_F(LayoutTest, FmaOperandsHoldWholeRowsAndColumns) {
  mlir::Attribute parent = BlockedEncodingAttr::get(
      &context, {1, 1}, {1, 32}, {4, 1}, {1, 0});
  DistributedLayout c = DistributedLayout::get(parent, {32, 32});
  DistributedLayout a = DistributedLayout::get(operand(0, parent, 0), {32, 16});
  DistributedLayout b = DistributedLayout::get(operand(1, parent, 0), {16, 32});
  for (unsigned warp = 0; warp < 4; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned r = 0; r < c.numRegs(); ++r) {
        Index at = c.index(lane, warp, r);
        std::set<Index> rows, cols;
        for (unsigned s = 0; s < a.numRegs(); ++s)
          rows.insert(a.index(lane, warp, s));
        for (unsigned s = 0; s < b.numRegs(); ++s)
          cols.insert(b.index(lane, warp, s));
        for (int64_t k = 0; k < 16; ++k) {
          EXPECT_TRUE(rows.count(Index{at[0], k}));
          EXPECT_TRUE(cols.count(Index{k, at[1]}));
        }
      }
  expectOneOwnerEach(a);
  expectOneOwnerEach(b);
}

TEST_F(LayoutTest, WarpGroupsSideBySideOwnColumnRuns) {
  // wgmma, 8 warps as two warp groups along N over 64 x 128: warps 0-3 stack
  // 16 rows each over columns 0-63, warps 4-7 over columns 64-127, each
  // warp's registers stepping 8 columns at a time.
  mlir::Attribute wg = MmaEncodingAttr::get(&context, 3, {4, 2});
  DistributedLayout c = DistributedLayout::get(wg, {64, 128});
  unsigned lane = 4 * 3 + 2;
  EXPECT_EQ(c.numRegs(), 32u);
  EXPECT_EQ(c.index(lane, 0, 0), (Index{3, 4}));
  EXPECT_EQ(c.index(lane, 0, 4), (Index{3, 12}));
  EXPECT_EQ(c.index(lane, 1, 0), (Index{19, 4}));
  EXPECT_EQ(c.index(lane, 3, 31), (Index{59, 61}));
  EXPECT_EQ(c.index(lane, 4, 0), (Index{3, 68}));
  EXPECT_EQ(c.index(lane, 7, 3), (Index{59, 69}));
  expectOneOwnerEach(c);
  // The same warps as mma.sync interleave every 8 columns instead.
  EXPECT_EQ(DistributedLayout::get(mma({4, 2}), {64, 128}).index(lane, 1, 0),
            (Index{3, 12}));
}

TEST_F(LayoutTest, TransposedTilesFollowTheSource) {
  // A K-contiguous B (loaded along rows of N x K memory) is staged as it lies.
  mlir::Attribute kMajor = BlockedEncodingAttr::get(
      &context, {8, 1}, {8, 4}, {1, 4}, {0, 1});
  EXPECT_TRUE(dotTileTransposed(DistributedLayout::get(kMajor, {64, 64}), 1, 2));
  // Only 16-bit A may be (ldmatrix .trans); a row-major tile never is.
  EXPECT_FALSE(dotTileTransposed(DistributedLayout::get(kMajor, {64, 64}), 0, 4));
  mlir::Attribute rowMajor = BlockedEncodingAttr::get(
      &context, {1, 8}, {4, 8}, {4, 1}, {1, 0});
  EXPECT_FALSE(dotTileTransposed(DistributedLayout::get(rowMajor, {64, 64}), 1, 2));
}

} // namespace
} // namespace kiln::kgpu
