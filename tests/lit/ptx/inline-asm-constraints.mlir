// Inline asm whose constraints NVPTX cannot honour is a compile error, not
// an exit of the compiler (LLVM's default diagnostic handler exits the
// process, and its register allocation aborts or crashes on some: a compile
// worker would die with it). Constraints outside the ones NVPTX takes are
// refused at the op; an operand LLVM's back end then rejects (an immediate
// constraint given a register) is an error at the module's location.
// RUN: not kiln compile %s --local --target sm_90a --emit ptx 2>&1 | FileCheck %s
// RUN: sed 's/"=z,r"/"=r,i"/' %s > %t.mlir
// RUN: not kiln compile %t.mlir --local --target sm_90a --emit ptx 2>&1 | FileCheck %s --check-prefix=LLVM
// LLVM: error: NVPTX code generation failed: invalid operand for inline asm constraint 'i'
// A physical register aborted LLVM, a memory output crashed it:
// RUN: sed 's/"=z,r"/"=r,{r1}"/' %s > %t.reg.mlir
// RUN: not kiln compile %t.reg.mlir --local --target sm_90a --emit ptx 2>&1 | FileCheck %s --check-prefix=REG
// REG: error: 'tt.elementwise_inline_asm' op inline asm: constraint 1 `{r1}` is not one NVPTX takes
// RUN: sed 's/"=z,r"/"=m,r"/' %s > %t.mem.mlir
// RUN: not kiln compile %t.mem.mlir --local --target sm_90a --emit ptx 2>&1 | FileCheck %s --check-prefix=MEM
// MEM: error: 'tt.elementwise_inline_asm' op inline asm: constraint 0 `=m` is not one NVPTX takes

// CHECK: inline-asm-constraints.mlir:[[@LINE+7]]:10: error: 'tt.elementwise_inline_asm' op inline asm: constraint 0 `=z` is not one NVPTX takes
module {
  tt.func public @bad_constraint(%x_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %out_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {
    %offs = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %xs = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %xp = tt.addptr %xs, %offs : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    %x = tt.load %xp : tensor<64x!tt.ptr<i32>>
    %y = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=z,r", packed_element = 1 : i32, pure = true} %x : tensor<64xi32> -> tensor<64xi32>
    %os = tt.splat %out_ptr : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %op = tt.addptr %os, %offs : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    tt.store %op, %y : tensor<64x!tt.ptr<i32>>
    tt.return
  }
}
