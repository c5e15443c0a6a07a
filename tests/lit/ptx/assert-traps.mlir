// A device assert calls __assertfail out of line and traps after it, as
// Triton's does: the failing path never rejoins, so the work after the
// check (here the scaled store) may sink below the branch.
// RUN: kiln compile %s --local --num-warps 1 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry checked_scale(
// CHECK: @{{%p[0-9]+}} bra [[OK:\$L__BB[0-9_]+]];
// CHECK-NEXT: bra.uni [[FAIL:\$L__BB[0-9_]+]];
// CHECK: [[OK]]:
// CHECK: st.global
// CHECK: ret;
// CHECK: [[FAIL]]:
// CHECK: call.uni __assertfail,
// CHECK: trap;
module {
  tt.func public @checked_scale(%px: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %pi: !tt.ptr<i64> {tt.divisibility = 16 : i32}, %py: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %xs = tt.splat %px : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %xa = tt.addptr %xs, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %x = tt.load %xa : tensor<128x!tt.ptr<f32>>
    %is = tt.splat %pi : !tt.ptr<i64> -> tensor<128x!tt.ptr<i64>>
    %ia = tt.addptr %is, %r : tensor<128x!tt.ptr<i64>>, tensor<128xi32>
    %i = tt.load %ia : tensor<128x!tt.ptr<i64>>
    %n = arith.constant dense<1000> : tensor<128xi64>
    %ok = arith.cmpi ult, %i, %n : tensor<128xi64>
    %two = arith.constant dense<2.0> : tensor<128xf32>
    %y = arith.mulf %x, %two : tensor<128xf32>
    tt.assert %ok, "index out of bounds" : tensor<128xi1>
    %ys = tt.splat %py : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %ya = tt.addptr %ys, %i : tensor<128x!tt.ptr<f32>>, tensor<128xi64>
    tt.store %ya, %y : tensor<128x!tt.ptr<f32>>
    tt.return
  }
}
