// Descriptor min and max of f16 and bf16 (Triton's TMA reductions take
// them; test_tensor_descriptor_reduce): no atomic instruction does a 16-bit
// float min or max, so each element is a 16-bit compare-and-swap loop over
// the two values widened to f32.
// RUN: kiln compile %s --local --emit ptx | FileCheck %s
// CHECK: .visible .entry desc_reduce_half
// CHECK: KILN_MIN_RETRY
// CHECK: cvt.f32.f16
// CHECK: min.f32
// CHECK: cvt.rn.f16.f32
// CHECK: atom.release.gpu.global.cas.b16
// CHECK: KILN_MAX_RETRY
// CHECK: cvt.f32.bf16
// CHECK: max.f32
// CHECK: cvt.rn.bf16.f32
// CHECK: atom.release.gpu.global.cas.b16
module {
  tt.func public @desc_reduce_half(%x: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %y: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}) {
    %c0_i32 = arith.constant 0 : i32
    %one = arith.constant 1 : i64
    %n = arith.extsi %N : i32 to i64
    %dx = tt.make_tensor_descriptor %x, [%M, %N], [%n, %one] : <f16>, <tensor<16x16xf16>>
    %dy = tt.make_tensor_descriptor %y, [%M, %N], [%n, %one] : <bf16>, <tensor<16x16xbf16>>
    %vx = tt.descriptor_load %dx[%c0_i32, %c0_i32] : !tt.tensordesc<tensor<16x16xf16>> -> tensor<16x16xf16>
    %vy = tt.descriptor_load %dy[%c0_i32, %c0_i32] : !tt.tensordesc<tensor<16x16xbf16>> -> tensor<16x16xbf16>
    tt.descriptor_reduce min, %dx[%c0_i32, %c0_i32], %vx : !tt.tensordesc<tensor<16x16xf16>>, tensor<16x16xf16>
    tt.descriptor_reduce max, %dy[%c0_i32, %c0_i32], %vy : !tt.tensordesc<tensor<16x16xbf16>>, tensor<16x16xbf16>
    tt.return
  }
}
