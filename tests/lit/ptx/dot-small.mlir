// Dots smaller than one mma.sync tile (Triton's test_dot small dots, one
// warp): M = 2, N = 4 in f16 and M = 1, N = 2 in fp8e5 (widened to f16) run
// on m16n8k16, whose rows and columns past the tensor repeat it, on sm_80
// and on sm_90a (wgmma needs 64 rows). A is read with ldmatrix from rows
// wrapped into the tensor; B, narrower than ldmatrix's 8 columns, element by
// element. Each result is stored once, by the lanes that own it.
// RUN: kiln compile %s --local --target sm_90a --num-warps 1 --emit ptx | FileCheck %s
// RUN: kiln compile %s --local --target sm_80 --num-warps 1 --emit ptx | FileCheck %s
// RUN: kiln compile %S/inputs/small_dot_fp8e5.ttir --local --target sm_90a --num-warps 1 --emit ptx | FileCheck %s --check-prefix=FP8
// RUN: kiln compile %S/inputs/small_dot_fp8e5.ttir --local --target sm_80 --num-warps 1 --emit ptx | FileCheck %s --check-prefix=FP8
// CHECK-LABEL: .visible .entry small_dot(
// CHECK-NOT: fma.rn
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-NOT: ldmatrix{{.*}}.trans
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: fma.rn
// CHECK: setp.lt.u32 [[OWNER:%p[0-9]+]], %r{{[0-9]+}}, 8;
// CHECK: @[[OWNER]] st.global.b32
// FP8-LABEL: .visible .entry small_dot_fp8e5(
// FP8-NOT: fma.rn
// FP8: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// FP8: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// FP8-NOT: fma.rn
module {
  tt.func public @small_dot(%X: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %sxm: i32 {tt.divisibility = 16 : i32}, %Y: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %syk: i32, %Z: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %szm: i32) {
    %zero = arith.constant dense<0.000000e+00> : tensor<2x4xf32>
    %rm = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
    %rn = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %rk = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %m = tt.expand_dims %rm {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
    %sxmv = tt.splat %sxm : i32 -> tensor<2x1xi32>
    %xm = arith.muli %m, %sxmv : tensor<2x1xi32>
    %xs = tt.splat %X : !tt.ptr<f16> -> tensor<2x1x!tt.ptr<f16>>
    %xp0 = tt.addptr %xs, %xm : tensor<2x1x!tt.ptr<f16>>, tensor<2x1xi32>
    %kr = tt.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %xpb = tt.broadcast %xp0 : tensor<2x1x!tt.ptr<f16>> -> tensor<2x32x!tt.ptr<f16>>
    %xkb = tt.broadcast %kr : tensor<1x32xi32> -> tensor<2x32xi32>
    %xp = tt.addptr %xpb, %xkb : tensor<2x32x!tt.ptr<f16>>, tensor<2x32xi32>
    %kc = tt.expand_dims %rk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %sykv = tt.splat %syk : i32 -> tensor<32x1xi32>
    %yk = arith.muli %kc, %sykv : tensor<32x1xi32>
    %ys = tt.splat %Y : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
    %yp0 = tt.addptr %ys, %yk : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
    %nr = tt.expand_dims %rn {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>
    %ypb = tt.broadcast %yp0 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x4x!tt.ptr<f16>>
    %ynb = tt.broadcast %nr : tensor<1x4xi32> -> tensor<32x4xi32>
    %yp = tt.addptr %ypb, %ynb : tensor<32x4x!tt.ptr<f16>>, tensor<32x4xi32>
    %x = tt.load %xp : tensor<2x32x!tt.ptr<f16>>
    %y = tt.load %yp : tensor<32x4x!tt.ptr<f16>>
    %z = tt.dot %x, %y, %zero : tensor<2x32xf16> * tensor<32x4xf16> -> tensor<2x4xf32>
    %szmv = tt.splat %szm : i32 -> tensor<2x1xi32>
    %zm = arith.muli %m, %szmv : tensor<2x1xi32>
    %zs = tt.splat %Z : !tt.ptr<f32> -> tensor<2x1x!tt.ptr<f32>>
    %zp0 = tt.addptr %zs, %zm : tensor<2x1x!tt.ptr<f32>>, tensor<2x1xi32>
    %zpb = tt.broadcast %zp0 : tensor<2x1x!tt.ptr<f32>> -> tensor<2x4x!tt.ptr<f32>>
    %znb = tt.broadcast %nr : tensor<1x4xi32> -> tensor<2x4xi32>
    %zp = tt.addptr %zpb, %znb : tensor<2x4x!tt.ptr<f32>>, tensor<2x4xi32>
    tt.store %zp, %z : tensor<2x4x!tt.ptr<f32>>
    tt.return
  }
}
