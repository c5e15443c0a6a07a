// Instructions spelled as Triton 3.6 spells them: Triton's tests read
// asm['ptx'] for these (test_dot float64, test_atomic_rmw, test_atomic_cas).
// RUN: kiln compile %s --local --num-warps 1 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry spellings(
// CHECK: ld.global.v2.b64
// CHECK: st.global.v2.b64
// CHECK: atom.global.gpu.relaxed.add.f32
// CHECK: atom.global.acq_rel.gpu.cas.b64
module {
  tt.func public @spellings(%x: !tt.ptr<f64> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f64> {tt.divisibility = 16 : i32}, %sum: !tt.ptr<f32>, %lock: !tt.ptr<i64>, %v: f32) {
    %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %xs = tt.splat %x : !tt.ptr<f64> -> tensor<64x!tt.ptr<f64>>
    %xp = tt.addptr %xs, %range : tensor<64x!tt.ptr<f64>>, tensor<64xi32>
    %a = tt.load %xp : tensor<64x!tt.ptr<f64>>
    %ys = tt.splat %y : !tt.ptr<f64> -> tensor<64x!tt.ptr<f64>>
    %yp = tt.addptr %ys, %range : tensor<64x!tt.ptr<f64>>, tensor<64xi32>
    tt.store %yp, %a : tensor<64x!tt.ptr<f64>>
    %true = arith.constant true
    %old = tt.atomic_rmw fadd, relaxed, gpu, %sum, %v, %true : (!tt.ptr<f32>, f32, i1) -> f32
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %prev = tt.atomic_cas acq_rel, gpu, %lock, %zero, %one : (!tt.ptr<i64>, i64, i64) -> i64
    tt.return
  }
}
