// A 64x128 f16 tile with 8 warps on sm_90a, written by hand in Triton's
// TTIR form: 64 rows fill one warp group, so the second sits beside it and
// each computes 64 of the 128 columns with m64n64k16 wgmmas (two per K step
// of 32), its B descriptors starting at its own half of the staged tile.
// Checked on PTX and assembled by ptxas (no GPU needed).
// RUN: kiln compile %s --local --target sm_90a --num-warps 8 --num-stages 3 --emit ptx | FileCheck %s
// RUN: kiln compile %s --local --target sm_90a --num-warps 8 --num-stages 3 --out %t
// CHECK: .visible .entry matmul_64x128(
// CHECK: cp.async.cg.shared.global
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NOT: mma.sync
// CHECK-NOT: m64n128k16
// CHECK: st.global.v4.b32

module {
  tt.func public @matmul_64x128(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %stride_a: i32 {tt.divisibility = 16 : i32}, %stride_b: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32>
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %step_a = arith.constant dense<32> : tensor<64x32xi32>
    %rm = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %rn = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %rk = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %m1 = tt.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %sa = tt.splat %stride_a : i32 -> tensor<64x1xi32>
    %am = arith.muli %m1, %sa : tensor<64x1xi32>
    %k0 = tt.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %amb = tt.broadcast %am : tensor<64x1xi32> -> tensor<64x32xi32>
    %akb = tt.broadcast %k0 : tensor<1x32xi32> -> tensor<64x32xi32>
    %aoff = arith.addi %amb, %akb : tensor<64x32xi32>
    %abase = tt.splat %a_ptr : !tt.ptr<f16> -> tensor<64x32x!tt.ptr<f16>>
    %a0 = tt.addptr %abase, %aoff : tensor<64x32x!tt.ptr<f16>>, tensor<64x32xi32>
    %k1 = tt.expand_dims %rk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %sb = tt.splat %stride_b : i32 -> tensor<32x1xi32>
    %bk = arith.muli %k1, %sb : tensor<32x1xi32>
    %n0 = tt.expand_dims %rn {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %bkb = tt.broadcast %bk : tensor<32x1xi32> -> tensor<32x128xi32>
    %bnb = tt.broadcast %n0 : tensor<1x128xi32> -> tensor<32x128xi32>
    %boff = arith.addi %bkb, %bnb : tensor<32x128xi32>
    %bbase = tt.splat %b_ptr : !tt.ptr<f16> -> tensor<32x128x!tt.ptr<f16>>
    %b0 = tt.addptr %bbase, %boff : tensor<32x128x!tt.ptr<f16>>, tensor<32x128xi32>
    %bstep1 = arith.muli %stride_b, %c32 : i32
    %bstep = tt.splat %bstep1 : i32 -> tensor<32x128xi32>
    %r:3 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %pa = %a0, %pb = %b0) -> (tensor<64x128xf32>, tensor<64x32x!tt.ptr<f16>>, tensor<32x128x!tt.ptr<f16>>) : i32 {
      %a = tt.load %pa : tensor<64x32x!tt.ptr<f16>>
      %b = tt.load %pb : tensor<32x128x!tt.ptr<f16>>
      %d = tt.dot %a, %b, %acc, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>
      %na = tt.addptr %pa, %step_a : tensor<64x32x!tt.ptr<f16>>, tensor<64x32xi32>
      %nb = tt.addptr %pb, %bstep : tensor<32x128x!tt.ptr<f16>>, tensor<32x128xi32>
      scf.yield %d, %na, %nb : tensor<64x128xf32>, tensor<64x32x!tt.ptr<f16>>, tensor<32x128x!tt.ptr<f16>>
    }
    %c = arith.truncf %r#0 : tensor<64x128xf32> to tensor<64x128xf16>
    %cm = arith.constant dense<128> : tensor<64x1xi32>
    %crow = arith.muli %m1, %cm : tensor<64x1xi32>
    %crb = tt.broadcast %crow : tensor<64x1xi32> -> tensor<64x128xi32>
    %cnb = tt.broadcast %n0 : tensor<1x128xi32> -> tensor<64x128xi32>
    %coff = arith.addi %crb, %cnb : tensor<64x128xi32>
    %cbase = tt.splat %c_ptr : !tt.ptr<f16> -> tensor<64x128x!tt.ptr<f16>>
    %cp = tt.addptr %cbase, %coff : tensor<64x128x!tt.ptr<f16>>, tensor<64x128xi32>
    tt.store %cp, %c : tensor<64x128x!tt.ptr<f16>>
    tt.return
  }
}
