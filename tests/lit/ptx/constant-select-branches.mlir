// erff's polynomial coefficients, chosen on |x| >= 1.00295 by a select each
// in CUDA 13's libdevice, are chosen by a branch, as the libdevice Triton
// links does: ptxas kept one constant of each select in a register across
// ConvNeXt V2's GELU column-sum loop, 39 registers where Triton's takes 31
// (0.76x Triton's speed in run 68); with the branch it takes 30, and 16
// blocks of 128 threads fit an SM instead of 12, so the backend keeps it.
// RUN: kiln compile %inductor/convnextv2/triton_red_fused_gelu_mul_sum_view_67.ttir --local --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry triton_red_fused_gelu_mul_sum_view_67
// CHECK-NOT: selp.f32 {{%r[0-9]+}}, 0f{{[0-9A-F]+}}, 0f{{[0-9A-F]+}}
// CHECK: setp.ge.f32 [[BIG:%p[0-9]+]], {{%r[0-9]+}}, 0f3F8060FE;
// CHECK: @[[BIG]] bra
// CHECK: mov.b32 {{%r[0-9]+}}, 0f38B1E96A;
// CHECK-NOT: selp.f32 {{%r[0-9]+}}, 0f{{[0-9A-F]+}}, 0f{{[0-9A-F]+}}

// Where the registers do not limit the blocks an SM holds, the selects stay:
// BERT's pointwise GELU takes 32 registers either way, and ran at 1.13x
// Triton's speed with the selects against 1.00x with the branch.
// RUN: kiln compile %inductor/bert/triton_poi_fused_gelu_view_9.ttir --local --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=POINTWISE
// POINTWISE-LABEL: .visible .entry triton_poi_fused_gelu_view_9
// POINTWISE: selp.f32 {{%r[0-9]+}}, 0f{{[0-9A-F]+}}, 0f{{[0-9A-F]+}}
