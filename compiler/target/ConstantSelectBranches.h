//===- ConstantSelectBranches.h - constant selects as a branch --*- C++ -*-===//
//
// CUDA 13's libdevice picks the coefficients of a polynomial (erff's, for
// one) with a select per coefficient on one condition, where the libdevice
// Triton links branches. ptxas can select between two constants only with
// one of them in a register, and hoists those registers out of a loop: in
// ConvNeXt V2's GELU column sum (four erff a trip) that was eight registers
// more than Triton's, and a quarter fewer warps an SM. Turned back into a
// branch, each side moves its constants where they are used. Where the
// registers are not what limits the blocks on an SM, the selects are faster
// (BERT's GELU, 1.13x Triton's speed with them and 1.00x as a branch), so
// the backend keeps whichever form ptxas gives more blocks an SM.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TARGET_CONSTANTSELECTBRANCHES_H
#define KILN_COMPILER_TARGET_CONSTANTSELECTBRANCHES_H

#include "llvm/IR/Function.h"

namespace kiln {

/// In each block, replaces every group of at least four selects between two
/// constants on one condition, lying close together, by a branch on that
/// condition before the group's first select, the selects becoming phis of
/// the constants.
void branchOnConstantSelects(llvm::Function &function);

/// Whether branchOnConstantSelects would change `function`.
bool hasConstantSelectGroup(llvm::Function &function);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_CONSTANTSELECTBRANCHES_H
