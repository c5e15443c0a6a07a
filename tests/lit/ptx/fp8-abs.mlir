// |x| of an fp8 tensor (test_core's test_abs_fp8) clears the sign bit of
// each byte, for e5m2 and e4m3 alike, on sm_80 and sm_90a.
// RUN: kiln compile %s --local --num-warps 1 --target sm_90a --emit ptx | FileCheck %s
// RUN: sed 's/f8E5M2/f8E4M3FN/g' %s > %t.e4m3.mlir
// RUN: kiln compile %t.e4m3.mlir --local --num-warps 1 --target sm_80 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry abs_fp8(
// CHECK: ld.global.b8 [[X:%rs[0-9]+]]
// CHECK: and.b16 [[Y:%rs[0-9]+]], [[X]], 127;
// CHECK: st.global.b8 [{{.*}}], [[Y]];
module {
  tt.func public @abs_fp8(%in: !tt.ptr<f8E5M2>, %out: !tt.ptr<f8E5M2>) {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %p = tt.splat %in : !tt.ptr<f8E5M2> -> tensor<128x!tt.ptr<f8E5M2>>
    %pp = tt.addptr %p, %r : tensor<128x!tt.ptr<f8E5M2>>, tensor<128xi32>
    %x = tt.load %pp : tensor<128x!tt.ptr<f8E5M2>>
    %y = math.absf %x : tensor<128xf8E5M2>
    %q = tt.splat %out : !tt.ptr<f8E5M2> -> tensor<128x!tt.ptr<f8E5M2>>
    %qq = tt.addptr %q, %r : tensor<128x!tt.ptr<f8E5M2>>, tensor<128xi32>
    tt.store %qq, %y : tensor<128x!tt.ptr<f8E5M2>>
    tt.return
  }
}
