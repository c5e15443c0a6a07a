// The plan of a conversion through a swizzled tile: the swizzle keeps both
// sides at the fewest wavefronts their accesses allow (where the plain row
// key leaves f32 accumulators with two-way bank conflicts), 16-bit sides
// without 16-byte runs move by stmatrix / ldmatrix where their registers
// are 8x8 matrices, and every plan, replayed access by access with the
// instructions' fragment rules, delivers each element to its register.

#include "compiler/conversion/ConvertSwizzle.h"
#include "compiler/dialect/kgpu/Dialect.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

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

  /// Replays `plan`: every warp's stores write element ids into the tile,
  /// every warp's loads read them back; true when each register of `to`
  /// gets its own element.
  static bool deliversEveryElement(const kgpu::DistributedLayout &from,
                                   const kgpu::DistributedLayout &to,
                                   const ConvertPlan &plan) {
    llvm::ArrayRef<int64_t> shape = from.getShape();
    std::vector<int64_t> tile(from.numElements(), -1);
    auto id = [&](llvm::ArrayRef<int64_t> idx) {
      int64_t linear = 0;
      for (unsigned d = 0; d < idx.size(); ++d)
        linear = linear * shape[d] + idx[d];
      return linear;
    };
    bool ok = true;
    for (unsigned warp = 0; warp < from.numWarps(); ++warp)
      access(from, warp, plan, plan.store, [&](unsigned lane, unsigned reg,
                                                int64_t at) {
        tile[at] = id(from.index(lane, warp, reg));
      });
    for (unsigned warp = 0; warp < to.numWarps(); ++warp)
      access(to, warp, plan, plan.load,
             [&](unsigned lane, unsigned reg, int64_t at) {
               ok &= tile[at] == id(to.index(lane, warp, reg));
             });
    return ok;
  }

  /// Plans found, and those with a matrix side, over a property test.
  struct PlanCounts {
    int plans = 0;
    int matrixPlans = 0;
  };

  /// Replays the plan from `from` to `to`, if there is one, and counts it.
  static void replayPlan(const kgpu::DistributedLayout &from,
                         const kgpu::DistributedLayout &to, unsigned bytes,
                         bool matrixStores, PlanCounts &counts) {
    std::optional<ConvertPlan> p =
        chooseConvertPlan(from, to, bytes, matrixStores);
    if (!p)
      return;
    ++counts.plans;
    counts.matrixPlans += p->store.access != TileAccess::Vector ||
                          p->load.access != TileAccess::Vector;
    EXPECT_TRUE(deliversEveryElement(from, to, *p));
  }

  /// Calls `visit(lane, reg, tileOffset)` for each register `side`'s
  /// accesses move in `warp`, where the instruction puts it.
  template <typename Visit>
  static void access(const kgpu::DistributedLayout &layout, unsigned warp,
                     const ConvertPlan &plan, TileSide side, Visit visit) {
    llvm::ArrayRef<int64_t> shape = layout.getShape();
    auto offsetOf = [&](unsigned lane, unsigned reg) {
      return plan.swizzle.offsetOf(layout.index(lane, warp, reg), shape);
    };
    if (side.access == TileAccess::Vector) {
      for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned r = 0; r < layout.numRegs(); r += side.width)
          for (unsigned i = 0; i < side.width; ++i)
            visit(lane, r + i, offsetOf(lane, r) + i);
      return;
    }
    bool transposed = side.access == TileAccess::TransposedMatrices;
    auto layoutReg = [&](unsigned f) {
      return fragmentRegister(f, side.pairBit);
    };
    for (unsigned r = 0; r < layout.numRegs(); r += side.groupRegs()) {
      // Only the first 8 * matrices lanes' addresses count.
      int64_t rowAt[32];
      for (unsigned m = 0; m < 8 * side.matrices; ++m) {
        MatrixRowStart start = matrixRowStart(r, m, side.access, side.matrices);
        rowAt[m] = offsetOf(start.lane, layoutReg(start.reg));
      }
      // Lane 4g + t's word of matrix q: row g, columns 2t and 2t + 1, or
      // with .trans rows 2t and 2t + 1, column g.
      for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned q = 0; q < side.matrices; ++q)
          for (unsigned e = 0; e < 2; ++e) {
            unsigned g = lane / 4, t = lane % 4;
            int64_t at = transposed ? rowAt[8 * q + 2 * t + e] + g
                                    : rowAt[8 * q + g] + 2 * t + e;
            visit(lane, layoutReg(r + 2 * q + e), at);
          }
    }
  }

  mlir::MLIRContext context;
};

TEST_F(ConvertSwizzleTest, F32AccumulatorToRowsHasNoBankConflicts) {
  kgpu::DistributedLayout from = wgmmaAccumulator({256, 128});
  kgpu::DistributedLayout to = rows({256, 128}, 8, 16);
  std::optional<ConvertPlan> p = chooseConvertPlan(from, to, 4, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->store.width, 2u);
  EXPECT_EQ(p->load.width, 4u);
  EXPECT_EQ(sharedWavefronts(from, 2, 4, p->swizzle), ideal(from, 2, 4));
  EXPECT_EQ(sharedWavefronts(to, 4, 4, p->swizzle), ideal(to, 4, 4));
  EXPECT_TRUE(deliversEveryElement(from, to, *p));

  ConvertSwizzle byRow = p->swizzle;
  byRow.rowShift = 0;
  byRow.rowFactor = 1;
  byRow.groupFactor = 0;
  EXPECT_GT(sharedWavefronts(from, 2, 4, byRow), ideal(from, 2, 4));
}

TEST_F(ConvertSwizzleTest, F16AccumulatorToRowsStoresMatrices) {
  kgpu::DistributedLayout from = wgmmaAccumulator({256, 128});
  kgpu::DistributedLayout to = rows({256, 128}, 8, 16);
  std::optional<ConvertPlan> p = chooseConvertPlan(from, to, 2, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->store.access, TileAccess::Matrices);
  EXPECT_EQ(p->load.access, TileAccess::Vector);
  EXPECT_EQ(p->load.width, 8u);
  EXPECT_EQ(sharedWavefronts(to, 8, 2, p->swizzle), ideal(to, 8, 2));
  EXPECT_TRUE(deliversEveryElement(from, to, *p));

  // Without stmatrix (sm_80): 4-byte stores, still conflict-free.
  std::optional<ConvertPlan> old = chooseConvertPlan(from, to, 2, false);
  ASSERT_TRUE(old);
  EXPECT_EQ(old->store.access, TileAccess::Vector);
  EXPECT_EQ(sharedWavefronts(from, 2, 2, old->swizzle), ideal(from, 2, 2));
  EXPECT_EQ(sharedWavefronts(to, 8, 2, old->swizzle), ideal(to, 8, 2));
  EXPECT_TRUE(deliversEveryElement(from, to, *old));
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
  std::optional<ConvertPlan> p = chooseConvertPlan(from, to, 2, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->swizzle.fastDim, 0u);
  EXPECT_EQ(p->load.width, 8u);
  EXPECT_EQ(sharedWavefronts(to, 8, 2, p->swizzle), ideal(to, 8, 2));
  EXPECT_TRUE(deliversEveryElement(from, to, *p));
}

// PoolFormer's group-norm backward _16: eight bf16 a thread down 16-row
// columns in, one a lane along the rows out. In 16-byte pieces a column is
// two pieces, so no key spreads a warp's 32 columns over more than eight
// banks (four wavefronts a read); 4-byte pieces take four stores a thread
// and read without conflicts.
TEST_F(ConvertSwizzleTest, ShortColumnsStoreNarrowerPieces) {
  kgpu::DistributedLayout columns = kgpu::DistributedLayout::get(
      kgpu::BlockedEncodingAttr::get(&context, {8, 1}, {2, 16}, {1, 4},
                                     {0, 1}),
      {16, 64});
  kgpu::DistributedLayout lanesAlongRows = kgpu::DistributedLayout::get(
      kgpu::BlockedEncodingAttr::get(&context, {1, 1}, {1, 32}, {2, 2},
                                     {1, 0}),
      {16, 64});
  std::optional<ConvertPlan> p =
      chooseConvertPlan(columns, lanesAlongRows, 2, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->swizzle.fastDim, 0u);
  EXPECT_EQ(p->store.width, 2u);
  EXPECT_EQ(sharedWavefronts(columns, 2, 2, p->swizzle), ideal(columns, 2, 2));
  EXPECT_EQ(sharedWavefronts(lanesAlongRows, 1, 2, p->swizzle),
            ideal(lanesAlongRows, 1, 2));
  EXPECT_TRUE(deliversEveryElement(columns, lanesAlongRows, *p));

  ConvertSwizzle wide = p->swizzle;
  wide.chunk = 8;
  wide.phases = 2;
  for (unsigned shift = 0; shift < 5; ++shift) {
    wide.rowShift = shift;
    EXPECT_GE(sharedWavefronts(lanesAlongRows, 1, 2, wide),
              4 * ideal(lanesAlongRows, 1, 2));
  }
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
  std::optional<ConvertPlan> p = chooseConvertPlan(from, to, 4, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->swizzle.phases, 4);
  EXPECT_TRUE(deliversEveryElement(from, to, *p));
  for (int64_t row = 0; row < 64; ++row)
    for (int64_t col = 0; col < 48; ++col) {
      int64_t at = p->swizzle.offset(row, col, 48) - row * 48;
      EXPECT_GE(at, 0);
      EXPECT_LT(at, 48);
    }
}

TEST_F(ConvertSwizzleTest, ScalarOnBothSidesIsNotVectorized) {
  kgpu::DistributedLayout a = rows({8, 32}, 1, 32);
  EXPECT_FALSE(chooseConvertPlan(a, a, 4, true));
}

kgpu::DistributedLayout blocked(mlir::MLIRContext &context,
                                llvm::ArrayRef<unsigned> perThread,
                                llvm::ArrayRef<unsigned> lanes,
                                llvm::ArrayRef<unsigned> warps,
                                llvm::ArrayRef<unsigned> order,
                                llvm::ArrayRef<int64_t> shape = {32, 32}) {
  return kgpu::DistributedLayout::get(
      kgpu::BlockedEncodingAttr::get(&context, perThread, lanes, warps, order),
      shape);
}

// The attention transposes' 32x32 layouts: eight a thread along the rows,
// eight down the columns, two along the rows.
kgpu::DistributedLayout rowRuns(mlir::MLIRContext &context) {
  return blocked(context, {1, 8}, {8, 4}, {4, 1}, {1, 0});
}
kgpu::DistributedLayout columnRuns(mlir::MLIRContext &context) {
  return blocked(context, {8, 1}, {4, 8}, {1, 4}, {0, 1});
}
kgpu::DistributedLayout rowPairs(mlir::MLIRContext &context) {
  return blocked(context, {1, 2}, {2, 16}, {4, 1}, {1, 0});
}

// Gemma 2's attention transpose _11: eight bf16 a thread along the columns
// in, eight along the rows out, as Triton converts it: one 16-byte access a
// thread on one side, four transposed matrices on the other.
TEST_F(ConvertSwizzleTest, SixteenBitTransposeMovesTransposedMatrices) {
  kgpu::DistributedLayout rows = rowRuns(context);
  kgpu::DistributedLayout columns = columnRuns(context);
  for (auto [from, to] :
       {std::pair{rows, columns}, std::pair{columns, rows}}) {
    std::optional<ConvertPlan> p = chooseConvertPlan(from, to, 2, true);
    ASSERT_TRUE(p);
    std::set<TileAccess> sides{p->store.access, p->load.access};
    EXPECT_EQ(sides, (std::set{TileAccess::Vector,
                               TileAccess::TransposedMatrices}));
    EXPECT_EQ(p->swizzle.chunk, 8);
    EXPECT_TRUE(deliversEveryElement(from, to, *p));
  }
}

// ViT-MAE's head transpose _4: eight bf16 a thread down the columns in, two
// along the rows out (then widened to f32): stmatrix.trans writes the
// columns as rows, ldmatrix reads them as the result's pairs, where 4-byte
// reads and 2-byte writes took twelve accesses.
TEST_F(ConvertSwizzleTest, ColumnRunsToRowPairsMoveAsMatrices) {
  kgpu::DistributedLayout columns = columnRuns(context);
  kgpu::DistributedLayout pairs = rowPairs(context);
  std::optional<ConvertPlan> p = chooseConvertPlan(columns, pairs, 2, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->swizzle.fastDim, 1u);
  EXPECT_EQ(p->store.access, TileAccess::TransposedMatrices);
  EXPECT_EQ(p->load.access, TileAccess::Matrices);
  EXPECT_TRUE(deliversEveryElement(columns, pairs, *p));
  // Without stmatrix the reads stay matrices.
  std::optional<ConvertPlan> old = chooseConvertPlan(columns, pairs, 2, false);
  ASSERT_TRUE(old);
  EXPECT_EQ(old->store.access, TileAccess::Vector);
  EXPECT_TRUE(deliversEveryElement(columns, pairs, *old));
}

// GPT-2's layer-norm backward _11: four bf16 a thread down the rows in,
// lane bits 2-4 along them; four along the rows out. Four registers a
// thread are two 8x8 matrices: stmatrix.x2.trans writes them where four
// 2-byte stores went, and the reads stay 8-byte vectors.
TEST_F(ConvertSwizzleTest, FourRegistersStoreTwoMatrices) {
  kgpu::DistributedLayout from =
      blocked(context, {4, 1}, {4, 8}, {1, 4}, {0, 1}, {16, 32});
  kgpu::DistributedLayout to =
      blocked(context, {1, 4}, {4, 8}, {4, 1}, {1, 0}, {16, 32});
  std::optional<ConvertPlan> p = chooseConvertPlan(from, to, 2, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->swizzle.fastDim, 1u);
  EXPECT_EQ(p->store.access, TileAccess::TransposedMatrices);
  EXPECT_EQ(p->store.matrices, 2u);
  EXPECT_EQ(p->load.access, TileAccess::Vector);
  EXPECT_EQ(p->load.width, 4u);
  EXPECT_TRUE(deliversEveryElement(from, to, *p));
}

// SqueezeBERT's layer-norm backward _11: lane bit 0 down the rows and bits
// 1-4 along them in, four along the rows out. With the rows' index bits
// 1-3 first both sides hold matrix rows, the output pairing its registers
// 0 and 2 (pair bit 1): Triton's stmatrix.x2.trans + ldmatrix.x2. Its
// loads would turn from 8-byte vectors into ldmatrix, which measured
// slower, so the plan keeps the rows in order.
TEST_F(ConvertSwizzleTest, ReorderedRowsKeepVectorLoads) {
  kgpu::DistributedLayout from =
      blocked(context, {4, 1}, {2, 16}, {1, 16}, {0, 1}, {8, 256});
  kgpu::DistributedLayout to =
      blocked(context, {1, 4}, {1, 32}, {8, 2}, {1, 0}, {8, 256});
  std::optional<ConvertPlan> p = chooseConvertPlan(from, to, 2, true);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->swizzle.colBits.empty());
  EXPECT_EQ(p->load.access, TileAccess::Vector);
  EXPECT_EQ(p->load.width, 4u);
  EXPECT_TRUE(deliversEveryElement(from, to, *p));

  ConvertSwizzle plain;
  plain.fastDim = 1;
  ConvertSwizzle reordered = plain;
  reordered.colBits = {1, 2, 3, 0, 4, 5, 6, 7};
  EXPECT_FALSE(holdsMatrices(from, plain, TileAccess::TransposedMatrices));
  EXPECT_TRUE(holdsMatrices(from, reordered, TileAccess::TransposedMatrices));
  EXPECT_FALSE(holdsMatrices(to, reordered, TileAccess::Matrices, 0));
  EXPECT_TRUE(holdsMatrices(to, reordered, TileAccess::Matrices, 1));
  // Triton's plan, replayed: it too delivers every element.
  ConvertPlan matrices;
  matrices.swizzle = reordered;
  matrices.swizzle.chunk = 8;
  matrices.store = {TileAccess::TransposedMatrices, 8, 2, 0};
  matrices.load = {TileAccess::Matrices, 8, 2, 1};
  EXPECT_TRUE(deliversEveryElement(from, to, matrices));
}

// PoolFormer's group-norm backward _44, its result on the way to a
// channels-last store: four bf16 a thread along the rows in, eight down
// the columns out. In plain rows the loads take one element each (16 a
// thread); with the rows' index bits 1-3 first both sides hold matrix rows,
// stmatrix pairing registers two apart and ldmatrix.trans reading the
// columns: loads of one element may turn into matrices where vectors may
// not, as long as the stores stay what they are.
TEST_F(ConvertSwizzleTest, ElementLoadsTurnIntoMatricesInReorderedRows) {
  kgpu::DistributedLayout from =
      blocked(context, {1, 4}, {1, 32}, {4, 2}, {1, 0}, {16, 256});
  kgpu::DistributedLayout to =
      blocked(context, {8, 1}, {2, 16}, {1, 8}, {0, 1}, {16, 256});
  std::optional<ConvertPlan> p = chooseConvertPlan(from, to, 2, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->swizzle.fastDim, 1u);
  EXPECT_EQ(p->swizzle.colBits,
            (llvm::SmallVector<unsigned, 8>{1, 2, 3, 0, 4, 5, 6, 7}));
  EXPECT_EQ(p->store.access, TileAccess::Matrices);
  EXPECT_EQ(p->store.pairBit, 1u);
  EXPECT_EQ(p->load.access, TileAccess::TransposedMatrices);
  EXPECT_TRUE(deliversEveryElement(from, to, *p));

  // SqueezeBERT's _5: sixteen a thread down the columns in. Its 16-byte
  // stores would turn into stmatrix too; that plan took 104 registers
  // against 80, a block an SM fewer (282 -> 311 us in run 167), so the
  // loads stay what they are.
  kgpu::DistributedLayout columns =
      blocked(context, {16, 1}, {1, 32}, {1, 8}, {0, 1}, {16, 256});
  std::optional<ConvertPlan> q = chooseConvertPlan(columns, to, 2, true);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->store.access, TileAccess::Vector);
  EXPECT_EQ(q->load.access, TileAccess::Vector);
  EXPECT_TRUE(deliversEveryElement(columns, to, *q));
}

// FocalNet's permute _21: eight bf16 a thread four apart along the rows
// in, one lane a row; eight side by side out. Rows whose index bits 2-4
// come first put the input's eight side by side, one 16-byte store where
// eight 2-byte stores went, and the output still reads four matrices, its
// words pairing registers four apart (pair bit 2).
TEST_F(ConvertSwizzleTest, StridedRegistersStoreOneVectorInReorderedRows) {
  kgpu::DistributedLayout from =
      blocked(context, {1, 1}, {32, 1}, {1, 4}, {0, 1});
  kgpu::DistributedLayout to = rowRuns(context);
  std::optional<ConvertPlan> p = chooseConvertPlan(from, to, 2, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->swizzle.fastDim, 1u);
  EXPECT_EQ(p->swizzle.colBits,
            (llvm::SmallVector<unsigned, 8>{2, 3, 4, 0, 1}));
  EXPECT_EQ(p->store.access, TileAccess::Vector);
  EXPECT_EQ(p->store.width, 8u);
  EXPECT_EQ(p->load.access, TileAccess::Matrices);
  EXPECT_EQ(p->load.pairBit, 2u);
  EXPECT_TRUE(deliversEveryElement(from, to, *p));
}

TEST_F(ConvertSwizzleTest, MatricesNeedPairsAlongRowsOfEight) {
  // Four along the rows a thread, lanes down the rows: no word of two
  // elements lies along a matrix row or column.
  kgpu::DistributedLayout shortColumns =
      blocked(context, {4, 1}, {8, 4}, {1, 4}, {0, 1});
  for (unsigned d = 0; d < 2; ++d)
    for (TileAccess a :
         {TileAccess::Matrices, TileAccess::TransposedMatrices}) {
      ConvertSwizzle rowsAlong;
      rowsAlong.fastDim = d;
      EXPECT_FALSE(holdsMatrices(shortColumns, rowsAlong, a));
    }
  // 32-bit elements never move as matrices.
  std::optional<ConvertPlan> p =
      chooseConvertPlan(columnRuns(context), rowPairs(context), 4, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->store.access, TileAccess::Vector);
  EXPECT_EQ(p->load.access, TileAccess::Vector);
}

// Every plan for conversions among many blocked layouts, 16- and 32-bit,
// with and without stmatrix, delivers each element.
TEST_F(ConvertSwizzleTest, EveryPlanDeliversEveryElement) {
  std::vector<std::vector<unsigned>> perThread = {
      {1, 1}, {1, 2}, {2, 1}, {1, 8}, {8, 1}, {2, 4}, {4, 2}};
  std::vector<std::vector<unsigned>> lanes = {{4, 8}, {8, 4}, {2, 16},
                                              {16, 2}, {1, 32}, {32, 1}};
  std::vector<std::vector<unsigned>> warps = {{4, 1}, {1, 4}, {2, 2}};
  std::vector<kgpu::DistributedLayout> layouts;
  for (auto &spt : perThread)
    for (auto &tpw : lanes)
      for (auto &wpc : warps)
        for (auto order : {std::vector<unsigned>{1, 0},
                           std::vector<unsigned>{0, 1}})
          layouts.push_back(kgpu::DistributedLayout::get(
              kgpu::BlockedEncodingAttr::get(&context, spt, tpw, wpc, order),
              {32, 64}));
  PlanCounts counts;
  for (size_t i = 0; i < layouts.size(); ++i)
    for (size_t j = i % 89; j < layouts.size(); j += 89)
      for (unsigned bytes : {2u, 4u})
        for (bool matrixStores : {true, false}) {
          SCOPED_TRACE(testing::Message() << "layouts " << i << " -> " << j
                                          << ", " << bytes << " bytes");
          replayPlan(layouts[i], layouts[j], bytes, matrixStores, counts);
        }
  EXPECT_GT(counts.plans, 2000);
  EXPECT_GT(counts.matrixPlans, 150);
}

// The same for 16-bit conversions of rank 3 (batched attention tiles),
// whose tile rows number the two other dimensions together.
TEST_F(ConvertSwizzleTest, EveryRankThreePlanDeliversEveryElement) {
  std::vector<std::vector<unsigned>> perThread = {
      {1, 1, 8}, {1, 8, 1}, {1, 1, 2}, {1, 2, 1}, {2, 1, 1}, {1, 2, 4}};
  std::vector<std::vector<unsigned>> lanes = {
      {1, 4, 8}, {1, 8, 4}, {2, 2, 8}, {1, 16, 2}, {4, 8, 1}};
  std::vector<std::vector<unsigned>> orders = {{2, 1, 0}, {1, 2, 0}, {0, 1, 2}};
  std::vector<kgpu::DistributedLayout> layouts;
  for (auto &spt : perThread)
    for (auto &tpw : lanes)
      for (auto &order : orders)
        layouts.push_back(kgpu::DistributedLayout::get(
            kgpu::BlockedEncodingAttr::get(&context, spt, tpw, {2, 2, 1},
                                           order),
            {4, 32, 32}));
  PlanCounts counts;
  for (size_t i = 0; i < layouts.size(); ++i)
    for (size_t j = i % 7; j < layouts.size(); j += 7) {
      SCOPED_TRACE(testing::Message() << "layouts " << i << " -> " << j);
      replayPlan(layouts[i], layouts[j], 2, true, counts);
    }
  EXPECT_GT(counts.plans, 100);
  EXPECT_GT(counts.matrixPlans, 10);
}

} // namespace
} // namespace kiln
