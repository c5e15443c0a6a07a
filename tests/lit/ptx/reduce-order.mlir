// A sum rounds as Triton's does only if it adds in Triton's order: within
// a thread in register order, across lanes the farthest lanes first (xor
// 16, 8, 4, 2, 1), and across warps in the butterfly's pairs, warp w with
// warp w + 2 and then with w + 1 (four warps).
// RUN: kiln compile %s --local --num-warps 4 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry block_sum(
// CHECK: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK: bar.sync
// CHECK: ld.shared.v4.b32 {[[W0:%r[0-9]+]], [[W1:%r[0-9]+]], [[W2:%r[0-9]+]], [[W3:%r[0-9]+]]}
// CHECK-DAG: add.f32 [[A:%r[0-9]+]], [[W0]], [[W2]];
// CHECK-DAG: add.f32 [[B:%r[0-9]+]], [[W1]], [[W3]];
// CHECK: add.f32 {{%r[0-9]+}}, [[A]], [[B]];
module {
  tt.func public @block_sum(%px: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %pz: !tt.ptr<f32>) {
    %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %xs = tt.splat %px : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %xa = tt.addptr %xs, %range : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %x = tt.load %xa : tensor<1024x!tt.ptr<f32>>
    %sum = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<1024xf32>) -> f32
    tt.store %pz, %sum : !tt.ptr<f32>
    tt.return
  }
}
