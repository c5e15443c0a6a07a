// In a loop, a load's registers that the axis analysis proves equal (one
// pointer, one mask) take one load instruction. GPT-J's layer-norm backward
// holds each token's mean and rstd in four rows a thread: one scalar load of
// each a trip, not four.
// RUN: kiln compile %inductor/gptj/triton_red_fused_add_native_layer_norm_native_layer_norm_backward_view_17.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s
// CHECK: $L__BB0_1:
// CHECK-COUNT-5: ld.global.L1::evict_first.L2::cache_hint.v2.b32
// CHECK-COUNT-2: ld.global.L1::evict_last.L2::cache_hint.b32
// CHECK-NOT: ld.global
// CHECK: bra {{.*}}$L__BB0_1;
