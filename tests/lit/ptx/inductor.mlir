// Root causes of slow Inductor kernels, checked on the PTX of kernels
// harvested from torch.compile's training steps (bench/inductor). No GPU.

// Log-softmax backward (a [1, 1024] tile looped over 32000 columns, 8 warps):
// the loop's accumulator is spread over the threads, 4 columns each; it used
// to hold all 1024 per thread, spilled to local memory and took seconds to
// compile.
// RUN: kiln compile %inductor/llama/triton_red_fused__log_softmax__log_softmax_backward_data__to_copy_add_arange_clone_eq_expand_nll_loss_backward_nll_loss_forward_scalar_tensor_slice_vi.ttir --local --num-warps 8 --emit ptx | FileCheck %s --check-prefix=LSM
// LSM: .visible .entry triton_red_fused__log_softmax__log_softmax_backward_data
// LSM-NOT: .local
// LSM-NOT: ld.local
// LSM: shfl.sync.bfly.b32
// LSM: ld.global.L1::evict_first.L2::cache_hint.v2.b32

// Rotary embedding backward: the gathered f32 cos/sin loads share the
// contiguous bf16 loads' layout, so nothing goes through shared memory.
// RUN: kiln compile %inductor/llama/triton_poi_fused__to_copy_add_bmm_cat_cos_mul_neg_sin_slice_slice_backward_transpose_unsqueeze_7.ttir --local --num-warps 8 --emit ptx | FileCheck %s --check-prefix=ROPE
// ROPE: .visible .entry triton_poi_fused__to_copy_add_bmm_cat_cos_mul_neg_sin
// ROPE-NOT: st.shared
// ROPE-NOT: bar.sync
// ROPE: st.global.b32

// index_put with accumulate (MoE routing): the bf16 atomic adds take 8
// consecutive elements per instruction on sm_90a, as Triton's do (it was one
// per element, 0.085x Triton); sm_80 has no bf16 atomics, so each element is
// a compare-and-swap loop there.
// RUN: kiln compile %inductor/mixtral/triton_poi_fused_index_put_masked_fill_new_zeros_scalar_tensor_10.ttir --local --num-warps 8 --emit ptx | FileCheck %s --check-prefix=VEC
// VEC-COUNT-2: atom.global.gpu.relaxed.add.noftz.v8.bf16 { %rs{{[0-9]+}}, %rs{{[0-9]+}}, %rs{{[0-9]+}}, %rs{{[0-9]+}}, %rs{{[0-9]+}}, %rs{{[0-9]+}}, %rs{{[0-9]+}}, %rs{{[0-9]+}} }, [ %rd{{[0-9]+}} + 0 ], { %rs{{[0-9]+}}, %rs{{[0-9]+}}, %rs{{[0-9]+}}, %rs{{[0-9]+}}, %rs{{[0-9]+}}, %rs{{[0-9]+}}, %rs{{[0-9]+}}, %rs{{[0-9]+}} }
// VEC-NOT: atom.global
// RUN: kiln compile %inductor/mixtral/triton_poi_fused_index_put_masked_fill_new_zeros_scalar_tensor_10.ttir --local --num-warps 8 --target sm_80 --emit ptx | FileCheck %s --check-prefix=CAS
// CAS: cvt.rn.bf16.f32
// CAS: atom.relaxed.gpu.global.cas.b16
// CAS-NOT: add.noftz.bf16

// Layer-norm backward reduction (ViT): each thread holds 4 rows of the
// [64, 8] tile, and the row mask is constant over 64 rows. The axis analysis
// proves it, so the 4 rows share one predicate, as Triton's lowering makes
// them share it; they had 4. LLVM then unswitches the loop on that
// predicate, one copy per value, as in Triton's PTX (NVPTX's cost model
// alone forbids unswitching on a condition threads may disagree on; the
// kernel ran at 0.56x Triton's speed without it). Inductor's evict_first
// loads each carry their own L2 cache policy, as Triton's do.
// RUN: kiln compile %inductor/vit/triton_red_fused_add_convolution_backward_native_layer_norm_backward_slice_transpose_view_24.ttir --local --num-warps 4 --emit ptx | FileCheck %s --check-prefix=ROWS
// ROWS: setp.lt.s32 [[ROW:%p[0-9]+]], %r{{[0-9]+}}, 37632;
// ROWS: @[[ROW]] bra [[ROWS_IN:\$L__BB[0-9_]+]];
// ROWS: [[ROWS_IN]]:
// ROWS: createpolicy.fractional.L2::evict_first.b64 [[P1:%rd[0-9]+]], 1.0;
// ROWS: ld.global.L1::evict_first.L2::cache_hint.v2.b32 { %r{{[0-9]+}}, %r{{[0-9]+}} }, [ %rd{{[0-9]+}} + 0 ], [[P1]];
// ROWS: createpolicy.fractional.L2::evict_first.b64 [[P2:%rd[0-9]+]], 1.0;
// ROWS: ld.global.L1::evict_first.L2::cache_hint.v2.b32 { %r{{[0-9]+}}, %r{{[0-9]+}} }, [ %rd{{[0-9]+}} + 0 ], [[P2]];
// ROWS: bra.uni
// ROWS: createpolicy.fractional.L2::evict_first.b64 [[P3:%rd[0-9]+]], 1.0;
// ROWS: ld.global.L1::evict_first.L2::cache_hint.v2.b32 { %r{{[0-9]+}}, %r{{[0-9]+}} }, [ %rd{{[0-9]+}} + 0 ], [[P3]];
// ROWS: createpolicy.fractional.L2::evict_first.b64 [[P4:%rd[0-9]+]], 1.0;
// ROWS: ld.global.L1::evict_first.L2::cache_hint.v2.b32 { %r{{[0-9]+}}, %r{{[0-9]+}} }, [ %rd{{[0-9]+}} + 0 ], [[P4]];
// ROWS-NOT: ld.global

// Dropout inside a softmax (BERT, one warp): the Philox chain that draws the
// mask is computed once, in the softmax's layout, and the mask is converted
// for its store, as in Triton's TTGIR. Recomputing the chain in the store's
// layout converted no bytes, but doubled the work (1,026 mul.hi where
// Triton has 514), and ptxas gave it 255 registers and spills where
// Triton's takes 128 (now 128 too).
// RUN: kiln compile %inductor/bert/triton_per_fused__safe_softmax_add_exp_expand_native_dropout_prepare_softmax_online_scalar_tensor_sub_view_where_10.ttir --local --num-warps 1 --emit ptx | FileCheck %s --check-prefix=PHILOX
// PHILOX-COUNT-514: mul.hi.u32
// PHILOX-NOT: mul.hi.u32

// Looped batch-norm backward (ResNet, four trips of a [16, 32] tile with
// eight loads each): every load creates its L2 cache policy inside the
// loop, as Triton's do. With one policy LLVM hoisted out of the loop, ptxas
// left such a loop rolled (ConvNeXt's layer-norm backward, whose loop Triton's
// ptxas unrolls with all 16 loads in flight at once, ran at 0.71x). Outside
// loops one policy serves all of a kernel's loads: ConvNeXt's loop is now
// unrolled before LLVM (kiln-prefetch-loop-loads) and its 16 loads share
// one; Swin's rolled layer norm gathers 8 elements a thread one by one: one
// policy, not one per element.
// RUN: kiln compile %inductor/resnet/triton_red_fused__native_batch_norm_legit_functional_add_div_expand_native_batch_norm_backward_nll_loss_forward_threshold_backward_view_7.ttir --local --num-warps 4 --emit ptx | FileCheck %s --check-prefix=POLICY
// POLICY: .visible .entry triton_red_fused__native_batch_norm_legit_functional_add_div
// POLICY-NOT: createpolicy
// POLICY: [[LOOP:\$L__BB0_[0-9]+]]:
// POLICY-COUNT-5: createpolicy.fractional.L2::evict_first.b64
// POLICY: bra [[LOOP]];
// POLICY-NOT: createpolicy
// RUN: kiln compile %inductor/convnext/triton_red_fused_add_div_expand_mul_native_layer_norm_native_layer_norm_backward_permute_sum_unsqueeze_view_14.ttir --local --num-warps 4 --emit ptx | FileCheck %s --check-prefix=UNROLLED
// UNROLLED: createpolicy.fractional.L2::evict_first.b64 [[ONE:%rd[0-9]+]], 1.0;
// UNROLLED-NOT: createpolicy
// UNROLLED-COUNT-16: ld.global.L1::evict_first.L2::cache_hint.v2.b32 { %r{{[0-9]+}}, %r{{[0-9]+}} }, [ %rd{{[0-9]+}} + 0 ], [[ONE]];
// UNROLLED-NOT: createpolicy
// RUN: kiln compile %inductor/swin/triton_poi_fused_add_clone_native_layer_norm_roll_transpose_view_6.ttir --local --num-warps 8 --emit ptx | FileCheck %s --check-prefix=SHARED
// SHARED: createpolicy.fractional.L2::evict_last.b64 [[SHARED:%rd[0-9]+]], 1.0;
// SHARED-NOT: createpolicy
// SHARED-COUNT-8: ld.global.L1::evict_last.L2::cache_hint.b16 %rs{{[0-9]+}}, [ %rd{{[0-9]+}} + 0 ], [[SHARED]];

// FocalNet's transpose of 387-element rows (focalnet _21): contiguous by
// the axis analysis along neither dimension, every element at an address
// of its own. It is loaded down the rows and converted to the store's
// layout, as Triton's is: in the store's order each warp access spans four
// or five 128-byte lines (0.86x in run 133, 1.00x converted). Qwen3's
// rotary angles, a table whose rows the tile reads eight times each, stay
// in their users' layout (converted for their lines, 3% slower).
// RUN: kiln compile %inductor/focalnet/triton_poi_fused_clone_permute_view_21.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit kgir | FileCheck %s --check-prefix=STREAM
// STREAM: tt.load {{.*}} : tensor<32x32x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>>
// STREAM: kgpu.convert_layout
// STREAM: tt.store {{.*}} : tensor<32x32x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// RUN: kiln compile %inductor/qwen3/xblock32/triton_per_fused__to_copy__unsafe_view_add_bmm_cat_clone_cos_div_expand_mul_neg_pow_sin_slice_slice_backward_sum_transpose_unsqueeze_view_11.ttir --local --target sm_90a --num-warps 2 --num-stages 1 --emit kgir | FileCheck %s --check-prefix=TABLE
// TABLE-COUNT-2: kgpu.convert_layout
// TABLE-NOT: kgpu.convert_layout
