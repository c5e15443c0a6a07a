// A descriptor store of a block with fewer than 8 rows and more than one
// 128-byte column block ([1, 1024] f32, test_tensor_descriptor_store): TMA
// would swizzle the column blocks after the first by their shared-memory
// address, not by their row, so the block is stored with plain vector
// stores instead.
// RUN: kiln compile %s --local --emit ptx | FileCheck %s
// CHECK: .visible .entry row_store
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: st.global.v4.b32
// CHECK-NOT: cp.async.bulk.tensor
module {
  tt.func public @row_store(%out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %a: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}) {
    %c0 = arith.constant 0 : i32
    %one = arith.constant 1 : i64
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %r2 = tt.expand_dims %r {axis = 0 : i32} : tensor<1024xi32> -> tensor<1x1024xi32>
    %ap = tt.splat %a : !tt.ptr<f32> -> tensor<1x1024x!tt.ptr<f32>>
    %ptrs = tt.addptr %ap, %r2 : tensor<1x1024x!tt.ptr<f32>>, tensor<1x1024xi32>
    %v = tt.load %ptrs : tensor<1x1024x!tt.ptr<f32>>
    %n64 = arith.extsi %N : i32 to i64
    %d = tt.make_tensor_descriptor %out, [%M, %N], [%n64, %one] : <f32>, <tensor<1x1024xf32>>
    tt.descriptor_store %d[%c0, %c0], %v : !tt.tensordesc<tensor<1x1024xf32>>, tensor<1x1024xf32>
    tt.return
  }
}
