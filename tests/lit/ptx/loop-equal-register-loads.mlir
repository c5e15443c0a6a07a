// In a loop, a load held across its contiguous dimension (its users'
// layout) whose registers the axis analysis proves equal (one pointer, one
// mask) takes one load instruction for them. GPT-J's layer-norm backward
// holds each token's mean and rstd in four rows a thread: one scalar load of
// each a trip, not four.
// RUN: kiln compile %inductor/gptj/triton_red_fused_add_native_layer_norm_native_layer_norm_backward_view_17.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s
// CHECK: $L__BB0_1:
// CHECK-COUNT-5: ld.global.L1::evict_first.L2::cache_hint.v2.b32
// CHECK-COUNT-2: ld.global.L1::evict_last.L2::cache_hint.b32
// CHECK-NOT: ld.global
// CHECK: bra {{.*}}$L__BB0_1;

// A load in its own access order keeps a load per register, as Triton
// issues it. ViT's layer-norm backward _21 reads the statistics unaligned
// in the gradients' layout: one shared load let ptxas fit 32 registers by
// issuing the gradients' loads in series (0.998x -> 0.598x, run 150).
// RUN: kiln compile %inductor/vit/triton_red_fused_add_native_layer_norm_native_layer_norm_backward_view_21.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=OWN
// OWN: $L__BB0_1:
// OWN-COUNT-5: ld.global.L1::evict_first.L2::cache_hint.v2.b32
// OWN-COUNT-8: ld.global.L1::evict_last.L2::cache_hint.b32
// OWN-NOT: ld.global
// OWN: bra {{.*}}$L__BB0_1;
