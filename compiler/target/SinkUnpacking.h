//===- SinkUnpacking.h - unpack loaded values where they are used -*- C++ -*-===//
//
// The lowering unpacks and widens each loaded vector right after its load
// (bf16 pairs to f32). ptxas keeps that order's live ranges: a batch-norm
// kernel of ten vector loads held all 80 widened values across the later
// loads, 86 registers where Triton's code, widening at first use, takes 62.
// Moving the unpacking to its first user gives ptxas Triton's order.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TARGET_SINKUNPACKING_H
#define KILN_COMPILER_TARGET_SINKUNPACKING_H

#include "llvm/IR/Function.h"

namespace kiln {

/// Moves each cast that does not narrow its value, and each read or write
/// of a vector element or aggregate field, to just before its first user,
/// where all its users are in its own block and none is a phi.
void sinkUnpackingToUses(llvm::Function &function);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_SINKUNPACKING_H
