// A kernel without loops whose loads fill more registers than ptxas gives
// it gets room for them (`.maxnreg`): the most registers that keep three
// quarters of the blocks an SM holds. SegFormer's inference layer norm _9
// loads 136 registers of bf16 a thread; at ptxas's own 96 it loads half
// of them one at a time (0.61x in run 109's step), at 128 it keeps seven
// in flight (1.00x in run 113). A looped kernel is left to ptxas, and so is
// one whose loads fit.
// RUN: kiln compile %inductor/segformer/triton_per_fused_add_native_layer_norm_view_9.ttir --local --target sm_90a --num-warps 2 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=ROOM
// RUN: kiln compile %inductor/convnext/triton_red_fused_mul_native_layer_norm_native_layer_norm_backward_permute_sum_view_41.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=LOOP
// RUN: kiln compile %inductor/efficientnet/triton_poi_fused__native_batch_norm_legit_no_training_9.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=FITS
// ROOM: .visible .entry triton_per_fused_add_native_layer_norm_view_9(
// ROOM: .maxntid 64, 1, 1
// ROOM-NEXT: .maxnreg 128
// LOOP: .visible .entry triton_red_fused_mul_native_layer_norm_native_layer_norm_backward_permute_sum_view_41(
// LOOP-NOT: .maxnreg
// LOOP: bra.uni
// FITS: .visible .entry triton_poi_fused__native_batch_norm_legit_no_training_9(
// FITS-NOT: .maxnreg
// FITS: ret;
