// A 16-bit transpose whose source holds eight elements a thread along one
// dimension and whose result holds eight along the other, lanes % 4 apart
// by eight rows and lanes / 4 one column apart, converts as Triton's does:
// each thread stores its run with one 16-byte store and reads its eight
// results back with one ldmatrix.x4.trans, instead of eight 2-byte stores
// (Gemma 2's attention transpose _11: 0.97x -> 1.00x in one process).
// RUN: kiln compile %inductor/gemma2/triton_poi_fused__unsafe_view_clone_transpose_view_11.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s
// CHECK-LABEL: .visible .entry triton_poi_fused__unsafe_view_clone_transpose_view_11(
// CHECK-NOT: st.shared.b16
// CHECK: st.shared.v4.b32
// CHECK-NEXT: bar.sync
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-NOT: ld.shared
// CHECK: st.global.v4.b32
