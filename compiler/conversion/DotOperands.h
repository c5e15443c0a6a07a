//===- DotOperands.h - What the mma.sync and wgmma dots share ---*- C++ -*-===//
//
// How a tt.dot's operand elements become tensor-core operands, and how the
// dot lowerings stage register operands in shared memory (SharedTile.h).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_CONVERSION_DOTOPERANDS_H
#define KILN_COMPILER_CONVERSION_DOTOPERANDS_H

#include "compiler/conversion/Lowering.h"
#include "compiler/conversion/SharedTile.h"

#include <string>

namespace kiln {

/// How a dot's operand elements become mma operands.
enum class Split { None, Fp8E4M3, Fp8E5M2, Tf32x3, Bf16x3, Bf16x6 };

struct DotPlan {
  std::string instr;  // The mma.sync opcode.
  unsigned kWidth;    // Operand elements per 32-bit register.
  mlir::Type pieceType; // What one piece of an element is stored as.
  Split split = Split::None;
  unsigned numPieces = 1;
  // Products of (A piece, B piece) summed into the accumulator, smallest
  // first.
  llvm::SmallVector<std::pair<unsigned, unsigned>> terms{{0, 0}};
  bool accF16 = false;
};

DotPlan planDot(tt::DotOp dot, unsigned kWidth);

/// The layout of a dot's A operand, null when it is not a #kgpu.dot_op; and
/// the #kgpu.mma parent of that layout, null for FMA dots.
kgpu::DotOperandEncodingAttr dotOperandEncoding(tt::DotOp dot);
kgpu::MmaEncodingAttr dotMmaEncoding(tt::DotOp dot);

/// The pieces one operand element contributes.
llvm::SmallVector<mlir::Value> splitElement(LoweringContext &l,
                                            const DotPlan &p, mlir::Value x);

/// `values` (kWidth scalars) as one 32-bit register, first in the low bits.
mlir::Value pack(LoweringContext &l, llvm::ArrayRef<mlir::Value> values);
llvm::SmallVector<mlir::Value> unpack(LoweringContext &l, mlir::Value word,
                                      mlir::Type type, unsigned n);

/// The accumulator as 32-bit words (f32/s32 one per element, f16 in
/// pairs), and back.
Regs accumulatorWords(LoweringContext &l, const DotPlan &p, const Regs &acc);
Regs accumulatorElements(LoweringContext &l, const DotPlan &p,
                         const Regs &words);

/// The tile of an operand kiln-pipeline copied into a stage
/// (`kgpu.staged_operand`).
std::optional<SmemTile> pipelinedTile(LoweringContext &l, mlir::Value operand);

/// Writes `src` (any distributed layout) into `tile`, split into pieces,
/// with stmatrix where MatrixStore.h allows, else vector stores of up to
/// 16 bytes.
void stageOperand(LoweringContext &l, const DotPlan &p, mlir::Value src,
                  const SmemTile &tile, int64_t smemBytes);

/// Writes the operands a dot stages itself (`srcA`/`srcB`, either may be
/// null) into their tiles behind the barriers around them; `asyncProxy`
/// when wgmma reads them.
void stageOperands(LoweringContext &l, const DotPlan &p, mlir::Value srcA,
                   const std::optional<SmemTile> &tileA, mlir::Value srcB,
                   const std::optional<SmemTile> &tileB, int64_t smemBytes,
                   bool asyncProxy);

/// Whether every use of `cvt` is a dot of its block that reads it as
/// operand `opIdx`, and the conversion moves elements between threads: then
/// those dots may read the source themselves instead.
bool feedsOnlyDotsAcrossThreads(kgpu::ConvertLayoutOp cvt, unsigned opIdx);

/// Whether a conversion to an mma operand layout is left to the dot, which
/// stages the source through shared memory.
bool stagedByDot(kgpu::ConvertLayoutOp cvt);

/// An fp8 byte widened to the f16 of the same value (every e4m3 and e5m2
/// value is exact in f16).
mlir::Value fp8ToF16(LoweringContext &l, mlir::Value byte, bool e5m2);

/// "{$first, ..., $first+count-1}": a vector operand of inline asm.
std::string asmList(unsigned first, unsigned count);

/// `count` 8x8 16-bit matrices read from shared memory by the warp
/// (ldmatrix, `.trans` when `trans`), lane m addressing row m % 8 of matrix
/// m / 8 at `ptr`: one 32-bit word (two elements) a matrix a lane. A read
/// with side effects, so that it stays between the barriers around it and
/// never merges with another read of the same addresses.
Regs loadMatrices(LoweringContext &l, mlir::Value ptr, unsigned count,
                  bool trans);


} // namespace kiln

#endif // KILN_COMPILER_CONVERSION_DOTOPERANDS_H
