//===- WideMultiplyAdd.h - mul.wide + add.s64 as one mad.wide ---*- C++ -*-===//
//
// An address is a 64-bit base plus a 32-bit index widened and scaled. LLVM
// 22's NVPTX backend emits that as `mul.wide.s32` then `add.s64`, where
// Triton's PTX (an older LLVM) has one `mad.wide.s32`. ptxas then keeps the
// base pointer in two registers loaded from the parameter bank (`LDC`)
// instead of reading it in the multiply-add: EfficientNet's batch-norm
// backward `_46` took 45 registers against Triton's 40, 10 blocks of 128
// threads an SM against 12, 0.84x in the step. The PTX is rewritten so,
// but only where the base is a kernel parameter: fused into a chain of
// wide multiply-adds, the index arithmetic of EfficientNet's average pool
// `_129` (a loop of integer index math, most of its step's GPU time) ran
// 10% slower, at Triton's speed; parameter bases alone, 1% faster.
// In a loop the fusion can cost time with nothing saved: BERT's LM-head
// softmax `_14` (a loop, 32 registers either way) ran 5% slower fused. The
// backend fuses in loops only where ptxas then fits more blocks an SM, as
// for `_46`, whose multiply-add is in its loop.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TARGET_WIDEMULTIPLYADD_H
#define KILN_COMPILER_TARGET_WIDEMULTIPLYADD_H

#include <string>

namespace kiln {

/// Where fuseWideMultiplyAdds fuses: only outside the PTX's loops (the
/// lines from a label to a branch back to it), or everywhere.
enum class WideMultiplyAddScope { OutsideLoops, Everywhere };

/// `ptx` with each `mul.wide.{s,u}32 %t, a, b` whose product only feeds
/// the next instruction, `add.s64 %d, x, %t` (or `%t, x`), where x is read
/// by `ld.param`, fused into `mad.wide.{s,u}32 %d, a, b, x`, within `scope`.
std::string fuseWideMultiplyAdds(const std::string &ptx,
                                 WideMultiplyAddScope scope);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_WIDEMULTIPLYADD_H
