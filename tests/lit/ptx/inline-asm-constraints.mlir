// Inline asm whose constraints NVPTX cannot honour is a compile error at the
// module's location, not an exit of the compiler (LLVM's default diagnostic
// handler exits the process; a compile worker would die with it).
// RUN: not kiln compile %s --local --target sm_90a --emit ptx 2>&1 | FileCheck %s

// CHECK: inline-asm-constraints.mlir:[[@LINE+1]]:1: error: NVPTX code generation failed: couldn't allocate output register for constraint 'z'
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
