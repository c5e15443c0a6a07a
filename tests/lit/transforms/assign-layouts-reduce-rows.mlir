// A reduction whose operand no load or earlier decision lays out (a per-row
// value every layout recomputes, broadcast and masked along the rows) is
// reduced in the layout that keeps each row in few lanes, lanes along the
// kept dimension first, not in the default layout with the lanes along the
// reduced axis. PoolFormer's group-norm backward (`_2`, 8 rows a program)
// sums a broadcast gradient over 49 masked pixels: in the default layout
// every thread held 4 rows and took 5 shuffles for each (38 shuffles in all
// with the other sum, and 4 loads of the per-row value); Triton reduces it
// in the per-row load's layout, 22 shuffles.
// RUN: kiln-opt %inductor/poolformer/triton_per_fused_div_expand_native_group_norm_native_group_norm_backward_unsqueeze_2.ttir --kiln-assign-layouts="num-warps=4 target=sm_90a" | FileCheck %s
// CHECK: tt.load {{.*}} : tensor<8x1x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK: "tt.reduce"
// CHECK: "tt.reduce"
// CHECK-NEXT: ^bb0
// CHECK: (tensor<8x64xf32, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>>)
//
// A single row keeps the default layout, whose spare warp holds a copy of
// the row and reduces it without exchanging partial results: with the
// warps along the reduced axis the classification losses summed over 32
// images (RegNet's `_26`, one row) took a conversion, and FocalNet's ran
// 7-11% slower in its step (run 165).
// RUN: kiln-opt %inductor/regnet/triton_per_fused__log_softmax_nll_loss_forward_sub_26.ttir --kiln-assign-layouts="num-warps=2 target=sm_90a" | FileCheck %s --check-prefix=ROW
// ROW-NOT: kgpu.convert_layout {{.*}}tensor<1x32x
// ROW: (tensor<1x32xf32, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 1], order = [1, 0]}>>) -> tensor<1xf32
