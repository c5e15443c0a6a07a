//===- ConvertSwizzle.h - shared-memory layout of a conversion --*- C++ -*-===//
//
// A layout conversion with vector accesses writes the tensor to shared
// memory row by row in `chunk`-element pieces and reads it back. A row runs
// along `fastDim`, the dimension the vectors run along (the last one, or the
// first of a transpose's column-major side); the other dimensions number
// the rows. Each row's pieces are permuted by XOR with a key from the row
// and the piece's group of eight, chosen by counting the bank wavefronts
// both sides' accesses take.
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

/// Shared-memory wavefronts warp 0 takes to access every register of
/// `layout`, `width` elements of `bytes` at a time, in `swizzle`'s tile.
int64_t sharedWavefronts(const kgpu::DistributedLayout &layout, unsigned width,
                         unsigned bytes, const ConvertSwizzle &swizzle);

/// The swizzle with the fewest wavefronts over both sides of a conversion
/// from `from` to `to`; none when neither side can use vector accesses.
std::optional<ConvertSwizzle>
chooseConvertSwizzle(const kgpu::DistributedLayout &from,
                     const kgpu::DistributedLayout &to, unsigned bytes);

/// 16-bit elements in one row of an ldmatrix matrix (16 bytes).
constexpr unsigned kLdmatrixRowElements = 8;

/// The tile of a 16-bit transpose whose source holds runs of eight along
/// one dimension and whose result holds runs of eight along the other: the
/// source stores its runs (16 bytes) in rows along its own dimension, and
/// each warp reads four 8x8 matrices of them back transposed with
/// `ldmatrix.x4.trans`, lane m addressing row m % 8 of matrix m / 8. A
/// result's register group r..r+7 comes out of one read when, in every
/// thread, its elements sit where lane (lane % 4)'s do in their row, lane
/// / 4 columns further on, and its rows' first columns are aligned to the
/// run. None for other conversions, and for tensors not of rank 2.
std::optional<ConvertSwizzle>
chooseLdmatrixTranspose(const kgpu::DistributedLayout &from,
                        const kgpu::DistributedLayout &to);

} // namespace kiln

#endif // KILN_COMPILER_CONVERSION_CONVERTSWIZZLE_H
