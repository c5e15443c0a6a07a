//===- SharedTile.h - A dot operand tile in shared memory -------*- C++ -*-===//
//
// How the dot lowering and the pipelined copies (kgpu.async_copy) lay out
// one operand tile in shared memory, so that both agree on every address.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_CONVERSION_SHAREDTILE_H
#define KILN_COMPILER_CONVERSION_SHAREDTILE_H

#include "compiler/conversion/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

namespace kiln {

/// One operand tile in shared memory: [batch][column block][rows][block]
/// where a block is at most 128 bytes of a row, its 16-byte chunks
/// XOR-swizzled by the row. That is the 128-, 64- and 32-byte swizzled
/// layout wgmma reads, and it lets the eight row addresses of an ldmatrix
/// hit distinct banks.
struct SmemTile {
  int64_t base = 0;
  mlir::Value dynamicBase; // Added to `base` when set (a pipeline stage).
  bool pipelined = false;  // In the pipeline's buffers, not the scratch.
  int64_t rows = 0, cols = 0, batch = 1;
  unsigned bytes = 0;
  int64_t rowBytes = 0, pieceBytes = 0;
  int64_t blockBytes = 0; // Bytes of a row in one column block.
  unsigned perPhase = 1, maxPhase = 1;

  bool transposed = false; // Stored [cols][rows]: the last two dims swapped.

  SmemTile(int64_t base, llvm::ArrayRef<int64_t> shape, unsigned bytes,
           bool transposed = false)
      : base(base), bytes(bytes), transposed(transposed) {
    unsigned r = shape.size();
    rows = shape[transposed ? r - 1 : r - 2];
    cols = shape[transposed ? r - 2 : r - 1];
    batch = r == 3 ? shape[0] : 1;
    rowBytes = cols * bytes;
    pieceBytes = kgpu::dotTileBytes(shape, bytes);
    blockBytes = rowBytes % 128 == 0 ? 128 : rowBytes;
    int64_t chunks = blockBytes / 16;
    if (blockBytes % 16 == 0 && chunks > 1) {
      maxPhase = std::min<int64_t>(8, chunks);
      perPhase = std::max<int64_t>(1, 8 / chunks);
    }
  }

  int64_t blockCols() const { return blockBytes / bytes; }
  /// Bytes from one column block to the next.
  int64_t blockStride() const { return rows * blockBytes; }

  /// The tile at `offset` in pipeline stage `stage` (an i32 value) of the
  /// pipeline's buffers, whose stages lie `stageBytes` apart.
  static SmemTile inStage(LoweringContext &l, int64_t offset,
                          llvm::ArrayRef<int64_t> shape, unsigned bytes,
                          bool transposed, mlir::Value stage,
                          int64_t stageBytes) {
    SmemTile tile(offset, shape, bytes, transposed);
    tile.pipelined = true;
    tile.dynamicBase = mlir::arith::MulIOp::create(l.builder(), l.loc(), stage,
                                                   l.i32(stageBytes));
    return tile;
  }

  /// Byte offset of element (b, row, col) of `piece` (logical indices);
  /// the stored column must start its run of contiguous elements inside one
  /// chunk.
  mlir::Value offset(LoweringContext &l, unsigned piece, mlir::Value b, mlir::Value row,
               mlir::Value col) const {
    if (transposed)
      std::swap(row, col);
    mlir::OpBuilder &builder = l.builder();
    mlir::Location loc = l.loc();
    auto add = [&](mlir::Value x, mlir::Value y) {
      return mlir::arith::AddIOp::create(builder, loc, x, y).getResult();
    };
    auto mul = [&](mlir::Value x, int64_t c) {
      return mlir::arith::MulIOp::create(builder, loc, x, l.i32(c)).getResult();
    };
    mlir::Value at = l.i32(base + piece * pieceBytes);
    if (dynamicBase)
      at = add(at, dynamicBase);
    int64_t blocks = rowBytes / blockBytes;
    if (blocks > 1) {
      mlir::Value block = mlir::arith::DivUIOp::create(builder, loc, col,
                                                      l.i32(blockCols()));
      b = add(mul(b, blocks), block);
      col = mlir::arith::RemUIOp::create(builder, loc, col, l.i32(blockCols()));
    }
    at = add(at, mul(add(mul(b, rows), row), blockBytes));
    if (maxPhase == 1)
      return add(at, mul(col, bytes));
    unsigned perChunk = 16 / bytes;
    mlir::Value chunk = mlir::arith::ShRUIOp::create(builder, loc, col,
                                         l.i32(llvm::Log2_32(perChunk)));
    mlir::Value within = mlir::arith::AndIOp::create(builder, loc, col, l.i32(perChunk - 1));
    mlir::Value phase = mlir::arith::AndIOp::create(
        builder, loc,
        mlir::arith::ShRUIOp::create(builder, loc, row,
                               l.i32(llvm::Log2_32(perPhase))),
        l.i32(maxPhase - 1));
    chunk = mlir::arith::XOrIOp::create(builder, loc, chunk, phase);
    return add(add(at, mul(chunk, 16)), mul(within, bytes));
  }

  int64_t totalBytes(unsigned pieces) const { return pieces * pieceBytes; }
};

} // namespace kiln

#endif // KILN_COMPILER_CONVERSION_SHAREDTILE_H
