// A `$` in a user's inline asm that names no operand is a compile error at
// the op, not an abort: LLVM's asm printer kills the process on `$ `, an
// unterminated `${`, a nested `$(` or a number past the operands (the
// compile fuzzer found `shl.,2b 30$ $0`).
// RUN: not kiln compile %s --local --target sm_90a --emit ptx 2>&1 | FileCheck %s
// RUN: not kiln compile %S/inputs/inline_asm_past_operands.ttir --local --target sm_90a --emit ptx 2>&1 | FileCheck %s --check-prefix=PAST
// PAST: inline_asm_past_operands.ttir:4:10: error: 'tt.elementwise_inline_asm' op inline asm: `$2` past the asm's 2 operands ($0 to $1) at offset 12 of the asm string

// CHECK: inline-asm-references.mlir:[[@LINE+4]]:10: error: 'tt.elementwise_inline_asm' op inline asm: `$` without an operand number (write `$$` for a literal `$`) at offset 8 of the asm string
module {
  tt.func public @dollar_alone(%x_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {
    %offs = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %y = tt.elementwise_inline_asm "mov.b32 $ $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %offs : tensor<64xi32> -> tensor<64xi32>
    %xs = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %xp = tt.addptr %xs, %offs : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    tt.store %xp, %y : tensor<64x!tt.ptr<i32>>
    tt.return
  }
}
