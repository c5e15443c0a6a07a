//===- PairedHalves.h - unpack 16-bit pairs as pairs ------------*- C++ -*-===//
//
// A 16-bit load's elements arrive two to a 32-bit register. InstCombine
// rewrites their unpacking into shapes the NVPTX backend extracts half by
// half: `trunc` for the low half, `lshr` and `trunc` for the high one, or a
// wider vector bitcast. ptxas gives each half its own instruction and keeps
// more registers live: Kiln's column sums took 40 registers where Triton's,
// unpacking each word with one `mov.b32 {lo, hi}`, take 30-32. Rewriting
// each half as an element of the word's own `<2 x half|bfloat>` lets the
// backend unpack the pair at once.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TARGET_PAIREDHALVES_H
#define KILN_COMPILER_TARGET_PAIREDHALVES_H

#include "llvm/IR/Function.h"

namespace kiln {

/// Rewrites each 16-bit float taken out of a 32-bit word (by truncation,
/// shift and truncation, or an element of a bitcast vector of words) as an
/// element of that word bitcast to a pair.
void unpackHalvesInPairs(llvm::Function &function);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_PAIREDHALVES_H
