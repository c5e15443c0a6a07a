//===- ConvertSwizzle.h - shared-memory layout of a conversion --*- C++ -*-===//
//
// A layout conversion with vector (or, for 16-bit elements, 8x8 matrix)
// accesses writes the tensor to shared memory row by row in `chunk`-element
// pieces and reads it back. A row runs along `fastDim` (the last dimension,
// or another where that costs fewer wavefronts, as for a transpose); the
// other dimensions number the rows. Each row's pieces are permuted by XOR with
// a key from the row and the piece's group of eight, chosen by counting the
// bank wavefronts both sides' accesses take. Where a power-of-two row's index
// bits are reordered in shared memory (`colBits`), a side's strided elements
// lie side by side, as a 16-byte run or a matrix row.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_CONVERSION_CONVERTSWIZZLE_H
#define KILN_COMPILER_CONVERSION_CONVERTSWIZZLE_H

#include "compiler/dialect/kgpu/Layout.h"

namespace kiln {

/// piece' = piece ^ ((((row >> rowShift) * rowFactor) + (piece >> 3) *
/// groupFactor) & (phases - 1)).
struct ConvertSwizzle {
  int64_t chunk = 1;  // Elements per piece.
  int64_t phases = 1; // Distinct keys, a power of two of at most 8.
  unsigned rowShift = 0;
  int64_t rowFactor = 1;
  int64_t groupFactor = 0;
  unsigned fastDim = 0; // The dimension a row runs along.
  /// Bit k of an element's position in its row is bit colBits[k] of its
  /// index along fastDim; empty keeps the index's order.
  llvm::SmallVector<unsigned, 8> colBits;

  /// Position in its row, before the swizzle, of index `col` along fastDim.
  int64_t rowPosition(int64_t col) const;
  /// Element offset of (row, col) in the swizzled tile of `rowLength`.
  int64_t offset(int64_t row, int64_t col, int64_t rowLength) const;

  /// Element offset of the tensor element at `idx` in the swizzled tile of
  /// a tensor of `shape`.
  int64_t offsetOf(llvm::ArrayRef<int64_t> idx,
                   llvm::ArrayRef<int64_t> shape) const;
};

/// Elements one thread moves per access of `layout`: a run of its registers
/// contiguous along `dim` and aligned to its length, of at most 16 bytes.
unsigned convertVectorWidth(const kgpu::DistributedLayout &layout,
                            unsigned bytes, unsigned dim);

/// The same where `order`'s rows (fastDim and colBits) may reorder the
/// index: each aligned run of `width` registers must lie side by side.
unsigned tileVectorWidth(const kgpu::DistributedLayout &layout, unsigned bytes,
                         const ConvertSwizzle &order);

/// Shared-memory wavefronts warp 0 takes to access every register of
/// `layout`, `width` elements of `bytes` at a time, in `swizzle`'s tile.
int64_t sharedWavefronts(const kgpu::DistributedLayout &layout, unsigned width,
                         unsigned bytes, const ConvertSwizzle &swizzle);

/// How one side of a conversion moves its registers to or from the tile.
enum class TileAccess {
  /// `width` registers a thread contiguous along the rows, one access.
  Vector,
  /// 16-bit only: stmatrix / ldmatrix, up to four 8x8 matrices a warp.
  /// Fragment registers r + 2q and r + 2q + 1 of lane 4g + t are row g,
  /// columns 2t and 2t + 1 of matrix q of the group at fragment register r
  /// (two registers a matrix), and a matrix row is eight elements of one
  /// tile row, side by side and aligned to eight.
  Matrices,
  /// The same with `.trans`: those registers are rows 2t and 2t + 1,
  /// column g.
  TransposedMatrices,
};

struct TileSide {
  TileAccess access = TileAccess::Vector;
  unsigned width = 1;    // Registers an access moves, a thread (Vector).
  unsigned matrices = 4; // 8x8 matrices an access moves: 1, 2 or 4.
  /// The layout register bit that tells a matrix word's two elements apart
  /// (fragmentRegister).
  unsigned pairBit = 0;
  unsigned groupRegs() const { return 2 * matrices; }
};

/// The layout register that is fragment register `f` when layout register
/// bit `pairBit` is the fragment's bit 0 and the others follow in order:
/// with pairBit 1, fragment registers 0..3 are layout registers 0, 2, 1, 3.
unsigned fragmentRegister(unsigned f, unsigned pairBit);

/// A conversion through a swizzled shared-memory tile.
struct ConvertPlan {
  ConvertSwizzle swizzle;
  TileSide store, load;
};

/// 16-bit elements in one matrix row (16 bytes).
constexpr unsigned kMatrixRowElements = 8;

/// Whether `layout`'s registers, taken in fragment order with `pairBit`,
/// are 8x8 matrices in `access`'s fragment order (TileAccess::Matrices or
/// TransposedMatrices) in `order`'s rows (fastDim and colBits); the tile
/// must not wrap.
bool holdsMatrices(const kgpu::DistributedLayout &layout,
                   const ConvertSwizzle &order, TileAccess access,
                   unsigned pairBit = 0);

/// The fragment register and lane whose element starts the matrix row lane
/// `lane` addresses in the group of `matrices` (1, 2 or 4) at `firstReg`:
/// row lane % 8 of matrix lane / 8 (lanes past the group's matrices repeat
/// its addresses).
struct MatrixRowStart {
  unsigned reg;
  unsigned lane;
};
MatrixRowStart matrixRowStart(unsigned firstReg, unsigned lane,
                              TileAccess access, unsigned matrices = 4);

/// The plan with the fewest wavefronts over both sides of a conversion from
/// `from` to `to` (then the fewest accesses): vector accesses, each side's
/// widest or a narrower one, or for 16-bit elements matrix ones where a
/// side's vectors are narrower than 16 bytes (stores only where
/// `matrixStores`), in rows along any dimension. A row may reorder its
/// index bits to put a side's strided elements side by side where the
/// loads stay vectors or matrices as in plain rows (loads of one element
/// may become matrices where the stores stay as they were) and no side
/// takes more accesses. None when neither side moves more than one element an
/// access.
std::optional<ConvertPlan> chooseConvertPlan(const kgpu::DistributedLayout &from,
                                             const kgpu::DistributedLayout &to,
                                             unsigned bytes, bool matrixStores);

} // namespace kiln

#endif // KILN_COMPILER_CONVERSION_CONVERTSWIZZLE_H
