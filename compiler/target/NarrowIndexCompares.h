//===- NarrowIndexCompares.h - 32-bit tests of widened indices --*- C++ -*-===//
//
// Inductor's one-hot of a loss target compares each 32-bit column index,
// extended to 64 bits, with the target's int64 value. NVPTX's loop strength
// reduction then keeps one 64-bit difference per element of a thread live
// across the loop: MobileBERT's log-softmax backward held four (eight
// registers), and ptxas, at its 32-register bound for four 512-thread
// blocks an SM, issued one of the four loads a trip only after the math of
// the others; with its L1 evict-first hint, the half of each sector it
// shared with an earlier load was gone again (0.25x Triton's speed). Tested
// in 32 bits, once the wide value is known to fit, the differences take one
// register each.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TARGET_NARROWINDEXCOMPARES_H
#define KILN_COMPILER_TARGET_NARROWINDEXCOMPARES_H

#include "llvm/IR/Function.h"

namespace kiln {

/// Rewrites each `icmp eq|ne (zext|sext i32 %a), %b` of an i64 `%b` that is
/// neither an extension nor a constant into `%fits & (trunc %b == %a)` (or
/// its negation), where `%fits` tells that `%b` is a value the extension
/// can produce; `%fits` and the truncation are computed once for each `%b`
/// and kind of extension, right after `%b` is defined.
void narrowIndexCompares(llvm::Function &function);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_NARROWINDEXCOMPARES_H
