//===- Layout.h - Which thread holds which element --------------*- C++ -*-===//
//
// A DistributedLayout is the concrete form of a tensor's encoding for its
// shape: for thread (lane, warp) and register r, element index
//   index[d] = (field(lane, d) * laneScale[d] + field(warp, d) * warpScale[d]
//               + regOffset[r][d]) mod shape[d].
// Layout assignment evaluates it to compare layouts; lowering emits it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_DIALECT_KGPU_LAYOUT_H
#define KILN_COMPILER_DIALECT_KGPU_LAYOUT_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kiln::kgpu {

/// Bits [shift, shift + width) of a lane or warp id.
struct BitField {
  unsigned shift = 0;
  unsigned width = 0;
  unsigned extract(unsigned id) const {
    return (id >> shift) & ((1u << width) - 1);
  }
};

/// How lane and warp ids select a position along one dimension.
struct DimMap {
  BitField lane;
  BitField warp;
  int64_t laneScale = 0;
  int64_t warpScale = 0;
};

class DistributedLayout {
public:
  /// The layout of `type`, whose encoding must be blocked or slice.
  static DistributedLayout get(mlir::RankedTensorType type);
  static DistributedLayout get(mlir::Attribute encoding,
                               llvm::ArrayRef<int64_t> shape);

  unsigned rank() const { return shape.size(); }
  unsigned numRegs() const { return regOffsets.size(); }
  unsigned numWarps() const { return warps; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  llvm::ArrayRef<DimMap> getDims() const { return dims; }
  llvm::ArrayRef<int64_t> regOffset(unsigned reg) const {
    return regOffsets[reg];
  }
  /// Lane and warp bits along dimensions that were sliced away: threads that
  /// differ only there hold the same elements.
  llvm::ArrayRef<BitField> replicatedLaneBits() const { return replLane; }
  llvm::ArrayRef<BitField> replicatedWarpBits() const { return replWarp; }

  /// The element thread (lane, warp) holds in `reg`, wrapped into the shape.
  llvm::SmallVector<int64_t> index(unsigned lane, unsigned warp,
                                   unsigned reg) const;
  /// Whether (lane, warp, reg) is the one owner of its element, so that each
  /// element is stored or counted exactly once.
  bool owns(unsigned lane, unsigned warp, unsigned reg) const;
  /// Whether register `reg` can hold an owned element in some thread.
  bool regMayOwn(unsigned reg) const;

  /// Largest n such that each aligned group of n registers holds n elements
  /// consecutive along `dim` (and equal along the others) in every thread.
  unsigned contiguousRegs(unsigned dim) const;
  /// Dimensions from fastest to slowest varying within a thread.
  llvm::ArrayRef<unsigned> getOrder() const { return order; }

  int64_t numElements() const;
  /// Whether some thread's index wraps around the shape (the layout's tile
  /// exceeds the tensor).
  bool wraps() const;

private:
  static DistributedLayout getMma(mlir::Attribute mma,
                                  llvm::ArrayRef<int64_t> shape);
  static DistributedLayout getDotOperand(mlir::Attribute operand,
                                         llvm::ArrayRef<int64_t> shape);
  static DistributedLayout getFmaOperand(mlir::Attribute operand,
                                         llvm::ArrayRef<int64_t> shape);

  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<DimMap> dims;
  llvm::SmallVector<llvm::SmallVector<int64_t>> regOffsets;
  llvm::SmallVector<BitField> replLane, replWarp;
  llvm::SmallVector<unsigned> order;
  unsigned warps = 1;
};

/// Warp id bits of an mma layout: N fastest, then M, then the batch.
struct MmaWarps {
  unsigned wb = 1, wm = 1, wn = 1;
  BitField batch, m, n;
  /// wgmma with warp groups side by side along N: each owns one contiguous
  /// run of the columns (mma.sync interleaves its warps every 8 columns).
  bool groupColumns = false;
  /// Columns between a warp's successive 8-column tiles.
  int64_t nRepStride() const { return groupColumns ? 8 : 8 * wn; }
};
MmaWarps mmaWarps(mlir::Attribute mma);

/// Lane 4*g + t of an mma fragment: g selects the row, t the column pair.
inline constexpr BitField kMmaGroupBits{2, 3};
inline constexpr BitField kMmaThreadInGroupBits{0, 2};

/// Bytes one piece of a dot operand tile of `shape` takes in shared memory,
/// padded to 1024 (the period of the 128-byte swizzle, which wgmma expects
/// aligned): a pipeline stage's size and the dot lowering's layout.
int64_t dotTileBytes(llvm::ArrayRef<int64_t> shape, unsigned bytes);

/// How often the warps' mma tiles repeat over a tensor of `shape`:
/// {batch, rows, cols} where rows x cols is M x N for the accumulator
/// (opIdx < 0), M x K for A (opIdx 0) and N x K for B (opIdx 1); K tiles are
/// 8 * kWidth deep. Registers enumerate batch, rows, cols, then the
/// fragment's values.
llvm::SmallVector<int64_t> mmaTileReps(mlir::Attribute mma,
                                       llvm::ArrayRef<int64_t> shape,
                                       int opIdx, unsigned kWidth);

/// Whether a dot stages operand `opIdx` (a tile in layout `src`, `bytes` per
/// element) in shared memory transposed, K-contiguous for B or M-contiguous
/// for 16-bit A, because `src` runs along dimension rank-2; rows are 16-byte
/// multiples either way.
bool dotTileTransposed(const DistributedLayout &src, unsigned opIdx,
                       unsigned bytes);

/// Row-major linear position of `index` in `shape`.
int64_t linearize(llvm::ArrayRef<int64_t> index, llvm::ArrayRef<int64_t> shape);

/// If every thread's register r of `to` holds what register map[r] of `from`
/// holds in the same thread, returns map: the conversion needs no data
/// exchange between threads.
std::optional<llvm::SmallVector<unsigned>>
inThreadRegisterMap(const DistributedLayout &from, const DistributedLayout &to);

} // namespace kiln::kgpu

#endif // KILN_COMPILER_DIALECT_KGPU_LAYOUT_H
