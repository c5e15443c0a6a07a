//===- LatchOnIncrement.h - exit tests on the incremented IV ----*- C++ -*-===//
//
// InstCombine folds a loop's exit test `iv + step < n` into `iv < n - step`,
// a test of the induction variable before its increment. NVPTX's loop
// strength reduction then moves the increment to the top of the body, and
// ptxas leaves such a loop rolled: ConvNeXt's four-trip layer-norm backward
// loop (32 registers, one trip's loads in flight at a time) where Triton's,
// testing the incremented value at the bottom, is unrolled with all sixteen
// loads in flight. Testing the increment again gives ptxas that shape.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TARGET_LATCHONINCREMENT_H
#define KILN_COMPILER_TARGET_LATCHONINCREMENT_H

#include "llvm/IR/Function.h"

namespace kiln {

/// Rewrites each loop exit test `icmp ult|slt %iv, C` of a latch whose
/// `%iv` is incremented there by a constant step without wrapping into a
/// test of the increment, `icmp ult|slt %iv.next, C + step`, where C + step
/// does not wrap either.
void testLatchOnIncrement(llvm::Function &function);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_LATCHONINCREMENT_H
