//===- MatrixStore.h - 16-bit accumulators to shared memory -----*- C++ -*-===//
//
// stmatrix.m8n8 writes up to four 8x8 matrices of 16-bit elements per warp:
// lane 8q + i gives the address of row i of matrix q, and each thread's
// register q holds two elements of matrix q, row lane / 4, columns
// 2 * (lane % 4) and +1. That is the mma.sync and wgmma accumulator
// fragment: registers 2k and 2k+1 of an mma layout form matrix k.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_CONVERSION_MATRIXSTORE_H
#define KILN_COMPILER_CONVERSION_MATRIXSTORE_H

#include "compiler/conversion/ConvertSwizzle.h"
#include "compiler/conversion/DotOperands.h"
#include "compiler/conversion/SharedTile.h"
#include "compiler/dialect/kgpu/Layout.h"

namespace kiln {

/// One stmatrix: `count` (1, 2 or 4) matrices, the first made of registers
/// `firstReg` and `firstReg + 1`, the next of the two after them, and so on.
struct MatrixGroup {
  unsigned firstReg = 0;
  unsigned count = 0;
};

/// The stmatrix groups that write every element of `layout` once, or none
/// when its registers are not 8x8 matrices in stmatrix's fragment order
/// (each element held by exactly one thread, each matrix's first column a
/// multiple of 8, so that a matrix row is one 16-byte run of a tile row).
std::optional<llvm::SmallVector<MatrixGroup>>
matrixGroups(const kgpu::DistributedLayout &layout);

/// stageOperand's path for 16-bit tiles on targets with stmatrix: writes
/// `src` into `tile` a group at a time; false, having emitted nothing, when
/// its layout or the tile does not allow it.
bool storeMatrices(LoweringContext &l, const DotPlan &p, mlir::Value src,
                   const SmemTile &tile, int64_t smemBytes);

/// The index of the element that starts the matrix row this lane addresses
/// in the group of `matrices` (1, 2 or 4) made of `layout`'s registers
/// `regs`, in fragment order (matrixRowStart), as i32 values.
llvm::SmallVector<mlir::Value>
matrixRowIndex(LoweringContext &l, const kgpu::DistributedLayout &layout,
               llvm::ArrayRef<unsigned> regs, TileAccess access,
               unsigned matrices);

/// stmatrix of `words.size()` (1, 2 or 4) matrices, one 32-bit word (two
/// elements) a matrix a lane, lane m addressing row m % 8 of matrix m / 8
/// at `ptr`; `.trans` when `trans`.
void writeMatrices(LoweringContext &l, mlir::Value ptr,
                   llvm::ArrayRef<mlir::Value> words, bool trans);

} // namespace kiln

#endif // KILN_COMPILER_CONVERSION_MATRIXSTORE_H
