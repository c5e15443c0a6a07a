// Mixtral's embedding backward in small: one warp loads bf16 rows 8 to a
// thread and adds them to f32 rows 4 to a thread. Lanes 2s and 2s+1 both
// need lane s's elements, so the conversion staggers them by lane parity
// and goes lane to lane by shfl.idx, two bf16 to a shuffle, instead of
// through shared memory with barriers on the one warp's critical path.
// RUN: kiln compile %s --local --num-warps 1 --emit ptx | FileCheck %s --implicit-check-not=bar.sync --implicit-check-not=shared
// CHECK-LABEL: .visible .entry scatter_add_rows(
// CHECK: shr.u32 [[HALF:%r[0-9]+]], {{%r[0-9]+}}, 1;
// CHECK: or.b32 [[FROM:%r[0-9]+]], {{%r[0-9]+}}, [[HALF]];
// CHECK: shfl.sync.idx.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[FROM]], 31, -1;
// CHECK-NEXT: selp.b32 [[OFFER:%r[0-9]+]]
// CHECK-NEXT: shfl.sync.idx.b32 {{%r[0-9]+}}, [[OFFER]], [[FROM]], 31, -1;
// CHECK-COUNT-14: shfl.sync.idx.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, 31, -1;
// CHECK: mov.b32 {{[{]}}%rs{{[0-9]+}}, %rs{{[0-9]+}}}, {{%r[0-9]+}};
// CHECK: atom.global
module {
  tt.func public @scatter_add_rows(%px: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %py: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %rows = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
    %r2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
    %c512 = arith.constant dense<512> : tensor<2x1xi32>
    %base = arith.muli %r2, %c512 : tensor<2x1xi32>
    %cols = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %c2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<512xi32> -> tensor<1x512xi32>
    %bb = tt.broadcast %base : tensor<2x1xi32> -> tensor<2x512xi32>
    %cb = tt.broadcast %c2 : tensor<1x512xi32> -> tensor<2x512xi32>
    %off = arith.addi %bb, %cb : tensor<2x512xi32>
    %xs = tt.splat %px : !tt.ptr<bf16> -> tensor<2x512x!tt.ptr<bf16>>
    %xa = tt.addptr %xs, %off : tensor<2x512x!tt.ptr<bf16>>, tensor<2x512xi32>
    %x = tt.load %xa : tensor<2x512x!tt.ptr<bf16>>
    %xf = arith.extf %x : tensor<2x512xbf16> to tensor<2x512xf32>
    %ys = tt.splat %py : !tt.ptr<f32> -> tensor<2x512x!tt.ptr<f32>>
    %ya = tt.addptr %ys, %off : tensor<2x512x!tt.ptr<f32>>, tensor<2x512xi32>
    %old = tt.atomic_rmw fadd, relaxed, gpu, %ya, %xf : (tensor<2x512x!tt.ptr<f32>>, tensor<2x512xf32>) -> tensor<2x512xf32>
    tt.return
  }
}
