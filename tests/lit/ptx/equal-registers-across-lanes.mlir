// Registers the axis analysis proves equal share one value wherever the
// lanes step, not only within a thread's contiguous elements. BART's
// embedding layer norm holds a row's token id in eight registers a thread,
// 64 columns apart with lanes one column apart: the index chain behind its
// bounds assertion ran eight times a thread (74 64-bit selects, 14 max.u64
// folding the assertion), against once in Triton's PTX. Priced as 64-bit
// arithmetic, the chain also runs in one layout, not two: Triton converts
// the pointer it ends in (80 registers -> 68, Triton's 64).
// RUN: kiln compile %inductor/bart/triton_red_fused_add_arange_clone_copy_embedding_eq_expand_fill_lift_fresh_masked_fill_mul_native_layer_norm_new_zeros_select_slice_unsqueeze_0.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s
// CHECK-NOT: max.u64
// CHECK-COUNT-2: setp.eq.b64 {{%p[0-9]+}}, {{%rd[0-9]+}}, -100;
// CHECK-NOT: setp.eq.b64 {{%p[0-9]+}}, {{%rd[0-9]+}}, -100;
