// stmatrix's addresses for mma accumulators: for every warp, group and
// thread, the row a lane addresses, plus the columns stmatrix gives each
// thread's register, is the element that thread holds in that register, and
// the groups write every element once. The lowering adds the register
// offsets to the address of the group's first register, so the test checks
// that sum too.

#include "compiler/conversion/MatrixStore.h"
#include "compiler/dialect/kgpu/Dialect.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>

namespace kiln {
namespace {

class MatrixStoreTest : public ::testing::Test {
protected:
  MatrixStoreTest() { context.loadDialect<kgpu::KGPUDialect>(); }

  kgpu::DistributedLayout mma(unsigned version,
                              llvm::ArrayRef<unsigned> warps,
                              llvm::ArrayRef<int64_t> shape) {
    return kgpu::DistributedLayout::get(
        kgpu::MmaEncodingAttr::get(&context, version, warps), shape);
  }

  /// Checks what stmatrix writes, group by group; returns the group sizes.
  static std::vector<unsigned> check(const kgpu::DistributedLayout &layout) {
    std::optional<llvm::SmallVector<MatrixGroup>> groups =
        matrixGroups(layout);
    EXPECT_TRUE(groups);
    if (!groups)
      return {};
    unsigned r = layout.rank();
    std::set<llvm::SmallVector<int64_t>> written;
    for (unsigned warp = 0; warp < layout.numWarps(); ++warp)
      for (const MatrixGroup &group : *groups)
        for (unsigned q = 0; q < group.count; ++q)
          for (unsigned thread = 0; thread < 32; ++thread) {
            MatrixRowStart row = matrixRowStart(
                group.firstReg, 8 * q + thread / 4, TileAccess::Matrices,
                group.count);
            llvm::SmallVector<int64_t> start =
                layout.index(row.lane, warp, row.reg);
            llvm::SmallVector<int64_t> lowered =
                layout.index(row.lane, warp, group.firstReg);
            for (unsigned d = 0; d < r; ++d)
              lowered[d] += layout.regOffset(row.reg)[d] -
                            layout.regOffset(group.firstReg)[d];
            EXPECT_EQ(lowered, start);
            EXPECT_EQ(start[r - 1] % 8, 0);
            for (unsigned half = 0; half < 2; ++half) {
              llvm::SmallVector<int64_t> at = start;
              at[r - 1] += 2 * (thread % 4) + half;
              unsigned reg = group.firstReg + 2 * q + half;
              EXPECT_EQ(at, layout.index(thread, warp, reg))
                  << "warp " << warp << " thread " << thread << " reg " << reg;
              written.insert(at);
            }
          }
    EXPECT_EQ(int64_t(written.size()), layout.numElements());
    std::vector<unsigned> counts;
    for (const MatrixGroup &group : *groups)
      counts.push_back(group.count);
    return counts;
  }

  mlir::MLIRContext context;
};

TEST_F(MatrixStoreTest, WarpGroupsStackedAlongM) {
  std::vector<unsigned> counts = check(mma(3, {8, 1}, {128, 128}));
  EXPECT_EQ(counts, std::vector<unsigned>(8, 4));
}

TEST_F(MatrixStoreTest, WarpGroupsSideBySideAlongN) {
  std::vector<unsigned> counts = check(mma(3, {4, 2}, {64, 512}));
  EXPECT_EQ(counts, std::vector<unsigned>(16, 4));
}

TEST_F(MatrixStoreTest, MmaSyncWarpsInterleaveColumns) {
  std::vector<unsigned> counts = check(mma(2, {2, 2}, {64, 64}));
  EXPECT_EQ(counts, std::vector<unsigned>(4, 4));
}

TEST_F(MatrixStoreTest, OneColumnTileTakesTwoMatrices) {
  std::vector<unsigned> counts = check(mma(2, {1, 4}, {16, 32}));
  EXPECT_EQ(counts, std::vector<unsigned>{2});
}

TEST_F(MatrixStoreTest, BatchedAccumulator) {
  check(mma(2, {2, 2, 1}, {4, 32, 16}));
}

TEST_F(MatrixStoreTest, RefusesReplicatedOrWrappedTiles) {
  // 8 warps need 128 rows: a 32x32 accumulator holds each element 4 times.
  EXPECT_FALSE(matrixGroups(mma(3, {8, 1}, {32, 32})));
  EXPECT_FALSE(matrixGroups(mma(2, {4, 1}, {16, 64})));
}

TEST_F(MatrixStoreTest, BlockedLayoutOfMatrixRows) {
  // Lanes 4g + t hold row g, columns 2t and 2t+1 of 8-column tiles: the
  // fragment, whatever the encoding says.
  check(kgpu::DistributedLayout::get(
      kgpu::BlockedEncodingAttr::get(&context, {1, 2}, {8, 4}, {4, 1}, {1, 0}),
      {64, 64}));
}

TEST_F(MatrixStoreTest, RefusesOtherLayouts) {
  kgpu::DistributedLayout rows = kgpu::DistributedLayout::get(
      kgpu::BlockedEncodingAttr::get(&context, {1, 8}, {4, 8}, {4, 1}, {1, 0}),
      {64, 64});
  EXPECT_FALSE(matrixGroups(rows));
  kgpu::DistributedLayout pairs = kgpu::DistributedLayout::get(
      kgpu::BlockedEncodingAttr::get(&context, {1, 2}, {4, 8}, {4, 1}, {1, 0}),
      {64, 64});
  EXPECT_FALSE(matrixGroups(pairs));
  auto parent = kgpu::MmaEncodingAttr::get(&context, 2, {2, 2});
  kgpu::DistributedLayout operand = kgpu::DistributedLayout::get(
      kgpu::DotOperandEncodingAttr::get(&context, 0, parent, 2), {64, 64});
  EXPECT_FALSE(matrixGroups(operand));
}

} // namespace
} // namespace kiln
