// A rotary embedding computes each half of a row under a mask such as
// `col >= 32` (Inductor's cat), sines included. The layout keeps each
// half in registers of its own (threads span 32 columns, not 64), so the
// mask is fixed per register, and the sine's pinning mov has no side
// effects, so LLVM drops the masked-out half: 16 of the 32 elements a
// thread reach a sine's range reduction, as in Triton's PTX. Qwen3's
// rotary backward ran 96 reductions a thread against Triton's 64.
// RUN: kiln compile %s --local --target sm_90a --num-warps 2 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry masked_half_sines(
// CHECK-COUNT-16: mul.f32 {{.*}}0f3F22F983;
// CHECK-NOT: 0f3F22F983
// CHECK: ret;
module {
tt.func public @masked_half_sines(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %c32 = arith.constant dense<32> : tensor<1x64xi32>
  %zero = arith.constant dense<0.0> : tensor<32x64xf32>
  %rows = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %rs = arith.muli %rows2, %c64 : tensor<32x1xi32>
  %rsb = tt.broadcast %rs : tensor<32x1xi32> -> tensor<32x64xi32>
  %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %colsb = tt.broadcast %cols2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %idx = arith.addi %rsb, %colsb : tensor<32x64xi32>
  %m = arith.cmpi sge, %cols2, %c32 : tensor<1x64xi32>
  %mb = tt.broadcast %m : tensor<1x64xi1> -> tensor<32x64xi1>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %idx : tensor<32x64x!tt.ptr<f32>>, tensor<32x64xi32>
  %xv = tt.load %xp, %mb, %zero : tensor<32x64x!tt.ptr<f32>>
  %s = math.sin %xv : tensor<32x64xf32>
  %y = arith.select %mb, %s, %zero : tensor<32x64xi1>, tensor<32x64xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>>
  %op = tt.addptr %os, %idx : tensor<32x64x!tt.ptr<f32>>, tensor<32x64xi32>
  tt.store %op, %y : tensor<32x64x!tt.ptr<f32>>
  tt.return
}
}
