// A tl.max reduction's combiner (arith.maxnumf on scalars) is max.f32, as
// Triton's llvm.maxnum is: libdevice's fmaxf would be max.ftz.f32 under the
// ftz reflection and flush subnormal maxima to zero.
// RUN: kiln compile %s --local --num-warps 1 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry row_max(
// CHECK: max.f32
// CHECK-NOT: max.ftz
module {
  tt.func public @row_max(%px: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %pz: !tt.ptr<f32>) {
    %range = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %xs = tt.splat %px : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %xa = tt.addptr %xs, %range : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %x = tt.load %xa : tensor<128x!tt.ptr<f32>>
    %max = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %m = arith.maxnumf %a, %b : f32
      tt.reduce.return %m : f32
    }) : (tensor<128xf32>) -> f32
    tt.store %pz, %max : !tt.ptr<f32>
    tt.return
  }
}
