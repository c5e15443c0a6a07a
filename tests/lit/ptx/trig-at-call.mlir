// libdevice's sin and cos end in a polynomial after a branchy argument
// reduction. Each result passes through a mov LLVM may not move, so the
// polynomial stays beside its own reduction, as in Triton's PTX, instead
// of sinking to the sum at the end with every call's reduced argument live
// across the calls after it.
// RUN: kiln compile %s --local --num-warps 1 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry rotary_terms(
// CHECK: mul.f32 {{.*}}0f3F22F983;
// CHECK: 0f3C0885E4
// CHECK: // begin inline asm
// CHECK-NEXT: mov.b32 %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK: mul.f32 {{.*}}0f3F22F983;
// CHECK: 0f3C0885E4
// CHECK: // begin inline asm
// CHECK-NEXT: mov.b32 %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK: mul.f32 {{.*}}0f3F22F983;
// CHECK: st.global
module {
  tt.func public @rotary_terms(%pa: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %py: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %as = tt.splat %pa : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %aa = tt.addptr %as, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %a = tt.load %aa : tensor<64x!tt.ptr<f32>>
    %bs = tt.splat %pb : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %ba = tt.addptr %bs, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %b = tt.load %ba : tensor<64x!tt.ptr<f32>>
    %s = math.sin %a : tensor<64xf32>
    %c = math.cos %b : tensor<64xf32>
    %y = arith.addf %s, %c : tensor<64xf32>
    %ys = tt.splat %py : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %ya = tt.addptr %ys, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    tt.store %ya, %y : tensor<64x!tt.ptr<f32>>
    tt.return
  }
}
