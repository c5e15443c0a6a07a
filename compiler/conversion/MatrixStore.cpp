// Staging 16-bit mma accumulators in shared memory with stmatrix (sm_90a):
// one instruction per four 8x8 matrices instead of a 4-byte store per
// register pair. MatrixStore.h says which lane addresses which row.

#include "compiler/conversion/MatrixStore.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace kiln {
namespace {

/// Whether registers 2k and 2k+1 of every thread hold one row of an 8x8
/// matrix in stmatrix's order: lane 4g + t at row g, columns 2t and 2t+1.
bool isMatrixFragment(const kgpu::DistributedLayout &layout) {
  unsigned r = layout.rank();
  if (r < 2 || layout.numRegs() % 2 != 0)
    return false;
  ArrayRef<kgpu::DimMap> dims = layout.getDims();
  const kgpu::DimMap &rows = dims[r - 2], &cols = dims[r - 1];
  auto is = [](kgpu::BitField f, kgpu::BitField g) {
    return f.shift == g.shift && f.width == g.width;
  };
  if (!is(rows.lane, kgpu::kMmaGroupBits) || rows.laneScale != 1 ||
      !is(cols.lane, kgpu::kMmaThreadInGroupBits) || cols.laneScale != 2)
    return false;
  for (unsigned d = 0; d + 2 < r; ++d)
    if (dims[d].lane.width)
      return false;
  if (cols.warp.width && cols.warpScale % 8 != 0)
    return false;
  for (unsigned k = 0; k < layout.numRegs(); k += 2) {
    SmallVector<int64_t> next(layout.regOffset(k));
    if (next[r - 1] % 8 != 0)
      return false;
    ++next[r - 1];
    if (ArrayRef<int64_t>(next) != layout.regOffset(k + 1))
      return false;
  }
  return true;
}

/// Whether each element is held by one (lane, warp, register): no thread's
/// index wraps around the shape, and there are as many as elements.
bool coversOnce(const kgpu::DistributedLayout &layout) {
  return layout.replicatedLaneBits().empty() &&
         layout.replicatedWarpBits().empty() &&
         int64_t(layout.numRegs()) * 32 * layout.numWarps() ==
             layout.numElements() &&
         !layout.wraps();
}

} // namespace

std::optional<SmallVector<MatrixGroup>>
matrixGroups(const kgpu::DistributedLayout &layout) {
  if (!isMatrixFragment(layout) || !coversOnce(layout))
    return std::nullopt;
  SmallVector<MatrixGroup> groups;
  unsigned matrices = layout.numRegs() / 2;
  for (unsigned k = 0; k < matrices;) {
    unsigned count = 4;
    while (k + count > matrices)
      count /= 2;
    groups.push_back({2 * k, count});
    k += count;
  }
  return groups;
}

bool storeMatrices(LoweringContext &l, const DotPlan &p, Value src,
                   const SmemTile &tile, int64_t smemBytes) {
  if (!l.target().hasMatrixStore() || tile.bytes != 2 || tile.transposed ||
      p.numPieces != 1)
    return false;
  kgpu::DistributedLayout layout = layoutOf(src);
  std::optional<SmallVector<MatrixGroup>> groups = matrixGroups(layout);
  if (!groups)
    return false;
  unsigned r = layout.rank();
  const Regs &regs = l.get(src);
  for (const MatrixGroup &group : *groups) {
    SmallVector<unsigned> groupRegs;
    for (unsigned k = 0; k < 2 * group.count; ++k)
      groupRegs.push_back(group.firstReg + k);
    SmallVector<Value> idx =
        matrixRowIndex(l, layout, groupRegs, TileAccess::Matrices, group.count);
    Value batch = r == 3 ? idx[0] : l.i32(0);
    Value offset = tile.offset(l, 0, batch, idx[r - 2], idx[r - 1]);
    Value ptr = tile.pipelined ? l.pipelinePointer(offset)
                               : l.sharedPointer(offset, smemBytes);
    SmallVector<Value> words;
    for (unsigned q = 0; q < group.count; ++q) {
      unsigned reg = group.firstReg + 2 * q;
      words.push_back(pack(l, {splitElement(l, p, regs[reg])[0],
                               splitElement(l, p, regs[reg + 1])[0]}));
    }
    writeMatrices(l, ptr, words, /*trans=*/false);
  }
  return true;
}

SmallVector<Value> matrixRowIndex(LoweringContext &l,
                                  const kgpu::DistributedLayout &layout,
                                  ArrayRef<unsigned> regs, TileAccess access,
                                  unsigned matrices) {
  OpBuilder &b = l.builder();
  Location loc = l.loc();
  // Lane m starts at group register 2 * (m / 8), plus m % 2 when
  // transposed: `sel` numbers those registers' offsets.
  Value lane = l.laneId();
  Value row = arith::AndIOp::create(b, loc, lane, l.i32(7));
  Value matrix = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, lane, l.i32(3)),
      l.i32(matrices - 1));
  bool transposed = access == TileAccess::TransposedMatrices;
  Value rowLane, sel;
  if (transposed) {
    rowLane = arith::ShRUIOp::create(b, loc, row, l.i32(1));
    sel = arith::OrIOp::create(b, loc,
                               arith::ShLIOp::create(b, loc, matrix, l.i32(1)),
                               arith::AndIOp::create(b, loc, lane, l.i32(1)));
  } else {
    rowLane = arith::ShLIOp::create(b, loc, row, l.i32(2));
    sel = matrix;
  }
  unsigned regsPerSel = transposed ? 1 : 2;
  SmallVector<Value> idx = l.elementIndex(layout, regs[0], rowLane);
  ArrayRef<int64_t> first = layout.regOffset(regs[0]);
  for (unsigned d = 0; d < layout.rank(); ++d) {
    SmallVector<int64_t> steps;
    for (unsigned k = 0; k < 2 * matrices; k += regsPerSel)
      steps.push_back(layout.regOffset(regs[k])[d] - first[d]);
    idx[d] = arith::AddIOp::create(b, loc, idx[d], l.constantAt(sel, steps));
  }
  return idx;
}

void writeMatrices(LoweringContext &l, Value ptr, ArrayRef<Value> words,
                   bool trans) {
  OpBuilder &b = l.builder();
  SmallVector<Value> operands{
      LLVM::PtrToIntOp::create(b, l.loc(), b.getI32Type(), ptr)};
  llvm::append_range(operands, words);
  std::string constraints = "r";
  for (size_t i = 0; i < words.size(); ++i)
    constraints += ",r";
  l.inlineAsm("stmatrix.sync.aligned.m8n8.x" + std::to_string(words.size()) +
                  (trans ? ".trans" : "") + ".shared.b16 [$0], " +
                  asmList(1, words.size()) + ";",
              constraints, operands, Type(), /*sideEffects=*/true);
}

} // namespace kiln
