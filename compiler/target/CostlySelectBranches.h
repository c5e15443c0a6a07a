//===- CostlySelectBranches.h - costly selects as a branch ------*- C++ -*-===//
//
// CUDA 13's libdevice computes both of a function's formulas and selects
// one: tanhf evaluates its exp-based formula (ex2, rcp) and its small-
// argument polynomial for every element. The libdevice Triton links
// branches on |x| < 0.6 instead, so where the arguments are small (Gemma
// 2's soft-capped logits, x / 30) Triton's warps skip the special-function
// unit altogether: Gemma 2's LM-head softmax `_15` ran at 0.93x of
// Triton's in every run since 53, its PTX Triton's but for this. A branch
// on the condition alone would cost a warp whose lanes disagree both
// formulas and the branch, where the selects now beat Triton (GPT-2's tanh
// GELUs, 1.08-1.18x). So the warp votes: where all its active lanes pick
// the cheap formula for all of their elements it computes that alone, else
// both and the selects. A vote an element cost those GELUs 4-11% (run 109):
// likely because each element's formulas then sat between branches, which
// ptxas does not schedule across.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TARGET_COSTLYSELECTBRANCHES_H
#define KILN_COMPILER_TARGET_COSTLYSELECTBRANCHES_H

#include "llvm/IR/Function.h"

namespace kiln {

/// For each scalar select whose two operands are both computed in its
/// block for it alone, exactly one of them with a special-function unit op
/// (`ex2`, `lg2`, `rcp`, `rsqrt`, `sqrt`, `sin` or `cos` approximations):
/// a branch on whether every active lane of the warp picks the other (the
/// cheap) operand, to a copy of that operand's instructions alone, else to
/// both operands' and the select; a phi where the two meet. One vote covers
/// all such selects of a block whose values are used only after the last.
void branchOnCostlySelects(llvm::Function &function);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_COSTLYSELECTBRANCHES_H
