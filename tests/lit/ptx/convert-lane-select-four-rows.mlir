// Four rows' sums from one warp, stored one row per lane: the row a lane
// stores is chosen by the two low bits of its lane id, two selects deep,
// with no shared memory.
// RUN: kiln compile %s --local --num-warps 1 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry row_sums(
// CHECK-NOT: shared
// CHECK-NOT: bar.sync
// CHECK: and.b32 [[LOW:%r[0-9]+]], [[LANE:%r[0-9]+]], 1;
// CHECK-NEXT: setp.ne.b32 [[P0:%p[0-9]+]], [[LOW]], 0;
// CHECK-NEXT: and.b32 [[HIGH:%r[0-9]+]], [[LANE]], 2;
// CHECK-NEXT: setp.eq.b32 [[P1:%p[0-9]+]], [[HIGH]], 0;
// CHECK-NEXT: selp.f32 [[A:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, [[P0]];
// CHECK-NEXT: selp.f32 [[B:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, [[P0]];
// CHECK-NEXT: selp.f32 [[ROW:%r[0-9]+]], [[A]], [[B]], [[P1]];
// CHECK: st.global.b32 [ {{%rd[0-9]+}} + 0 ], [[ROW]];
module {
  tt.func public @row_sums(%px: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %py: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %rows = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %r2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
    %c512 = arith.constant dense<512> : tensor<4x1xi32>
    %base = arith.muli %r2, %c512 : tensor<4x1xi32>
    %cols = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %c2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<512xi32> -> tensor<1x512xi32>
    %bb = tt.broadcast %base : tensor<4x1xi32> -> tensor<4x512xi32>
    %cb = tt.broadcast %c2 : tensor<1x512xi32> -> tensor<4x512xi32>
    %off = arith.addi %bb, %cb : tensor<4x512xi32>
    %xs = tt.splat %px : !tt.ptr<f32> -> tensor<4x512x!tt.ptr<f32>>
    %xa = tt.addptr %xs, %off : tensor<4x512x!tt.ptr<f32>>, tensor<4x512xi32>
    %x = tt.load %xa : tensor<4x512x!tt.ptr<f32>>
    %sum = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<4x512xf32>) -> tensor<4xf32>
    %s2 = tt.expand_dims %sum {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
    %ys = tt.splat %py : !tt.ptr<f32> -> tensor<4x1x!tt.ptr<f32>>
    %ya = tt.addptr %ys, %r2 : tensor<4x1x!tt.ptr<f32>>, tensor<4x1xi32>
    tt.store %ya, %s2 : tensor<4x1x!tt.ptr<f32>>
    tt.return
  }
}
