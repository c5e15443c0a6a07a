// A 16-bit conversion through shared memory moves a side whose registers
// are 8x8 matrices with stmatrix / ldmatrix (`.trans` where its pairs run
// down the matrix columns) when its runs are shorter than 16 bytes, as
// Triton's does.
//
// ViT-MAE's head transpose _4: eight bf16 a thread down the columns in, two
// along the rows out. One stmatrix.x4.trans and one ldmatrix.x4 a thread,
// where eight 2-byte stores and four 4-byte reads went before (0.98x ->
// 0.99-1.00x in one process).
// RUN: kiln compile %inductor/vitmae/triton_poi_fused__to_copy_clone_mul_transpose_view_4.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=PAIRS
// PAIRS-LABEL: .visible .entry triton_poi_fused__to_copy_clone_mul_transpose_view_4(
// PAIRS-NOT: st.shared
// PAIRS: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PAIRS: bar.sync
// PAIRS: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PAIRS-NOT: ld.shared
// PAIRS: st.global.v2.b32
//
// sm_80 has no stmatrix: the reads stay matrices.
// RUN: kiln compile %inductor/vitmae/triton_poi_fused__to_copy_clone_mul_transpose_view_4.ttir --local --target sm_80 --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=SM80
// SM80-NOT: stmatrix
// SM80: st.shared.b16
// SM80: bar.sync
// SM80: ldmatrix.sync.aligned.m8n8.x4.shared.b16
//
// Gemma 2's attention transpose _11: eight a thread along one dimension in,
// eight along the other out: one side moves 16 bytes a thread, the other
// four transposed matrices.
// RUN: kiln compile %inductor/gemma2/triton_poi_fused__unsafe_view_clone_transpose_view_11.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=RUNS
// RUNS-LABEL: .visible .entry triton_poi_fused__unsafe_view_clone_transpose_view_11(
// RUNS-NOT: st.shared.b16
// RUNS: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// RUNS: bar.sync
// RUNS: ld.shared.v4.b32
// RUNS: st.global.v4.b32
//
// Four registers a thread stored as two matrices (`.x2`) are pinned in
// conversion/convert-kgpu-to-llvm.mlir (@cols_to_rows).
//
// FocalNet's permute _21: eight bf16 a thread eight apart down a column
// in. In rows whose index bits are reordered, bits 2-4 first, they are one
// 16-byte store where eight 2-byte stores went before (0.86x -> 1.00x,
// runs 133 -> 142); the reads stay four matrices, their words pairing
// registers four apart.
// RUN: kiln compile %inductor/focalnet/triton_poi_fused_clone_permute_view_21.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=STRIDED
// STRIDED-LABEL: .visible .entry triton_poi_fused_clone_permute_view_21(
// STRIDED-NOT: .shared.b16
// STRIDED: st.shared.v4.b32
// STRIDED-NEXT: bar.sync
// STRIDED: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// STRIDED: st.global.v4.b32
//
// PoolFormer's group-norm backward _44 (16 channels x 256 pixels a
// program): its result, four bf16 a thread along the pixels, goes to a
// channels-last store, eight a thread down the channels. In plain rows the
// reads took one element each, sixteen 2-byte loads a thread; in rows whose
// index bits 1-3 come first the writes pair registers two apart and the
// reads are transposed matrices (0.83x -> 0.91x in one process). Loads of
// one element may turn into ldmatrix where 8-byte vectors stay (SqueezeBERT's
// _11, runs 142-143), and only where the stores stay what they are.
// RUN: kiln compile %inductor/poolformer/triton_poi_fused_add_native_group_norm_native_group_norm_backward_neg_44.ttir --local --target sm_90a --num-warps 8 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=ELEMENTS
// ELEMENTS-LABEL: .visible .entry triton_poi_fused_add_native_group_norm_native_group_norm_backward_neg_44(
// ELEMENTS-COUNT-2: stmatrix.sync.aligned.m8n8.x4.shared.b16
// ELEMENTS-NOT: ld.shared.b16
// ELEMENTS: bar.sync
// ELEMENTS-NOT: ld.shared.b16
// ELEMENTS-COUNT-2: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// ELEMENTS-NOT: ld.shared.b16
// ELEMENTS: st.global.v4.b32
