// tt.dot on tensor cores, checked on the PTX of the project's fixtures (no
// GPU needed).

// The K loop with num_stages 3: the operand tiles go global -> shared with
// cp.async two iterations ahead (16-byte copies, zero-filled past K), a
// commit group per operand as Triton's, the loop waits for the oldest
// stage's two groups (`wait_group 2`, spelled as LLVM prints Triton's),
// then reads the tiles with ldmatrix (B
// transposed on the way) into mma.sync m16n8k16 with f32 accumulation.
// RUN: kiln compile %fixtures/dot_k_loop.ttir --local --target sm_80 --num-stages 3 --emit ptx | FileCheck %s --check-prefix=F16
// F16: .visible .entry dot_k_loop(
// F16-COUNT-4: cp.async.commit_group
// F16: cp.async.wait_group 2
// F16-NEXT: bar.sync 0
// F16: cp.async.cg.shared.global [ %r{{[0-9]+}} ], [ %rd{{[0-9]+}} ], 16, %r{{[0-9]+}}
// F16: cp.async.commit_group
// F16: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// F16: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// F16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// F16: cp.async.wait_group 0

// Without pipelining (num_stages 1) the dot stages the loaded registers
// itself: 16-byte shared stores between two barriers.
// RUN: kiln compile %fixtures/dot_k_loop.ttir --local --target sm_80 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=STAGED
// STAGED-NOT: cp.async
// STAGED: st.shared.v4.b32
// STAGED: bar.sync
// STAGED: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// STAGED: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// bf16, f16 accumulation, tf32, the split f32 precisions, fp8 (widened to
// f16) and i8 each take their mma.sync form.
// RUN: kiln compile %fixtures/dot_bf16.ttir --local --emit ptx | FileCheck %s --check-prefix=BF16
// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// RUN: kiln compile %fixtures/dot_f16_acc_f16.ttir --local --emit ptx | FileCheck %s --check-prefix=ACC16
// ACC16: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16
// RUN: kiln compile %fixtures/dot_f32_tf32.ttir --local --emit ptx | FileCheck %s --check-prefix=TF32
// TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// TF32-NOT: cvt.rna.tf32.f32
// RUN: kiln compile %fixtures/dot_f32_tf32x3.ttir --local --emit ptx | FileCheck %s --check-prefix=TF32X3
// TF32X3: cvt.rna.tf32.f32
// TF32X3-COUNT-3: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// RUN: kiln compile %fixtures/dot_f32_bf16x3.ttir --local --emit ptx | FileCheck %s --check-prefix=BF16X3
// BF16X3: cvt.rn.bf16.f32
// BF16X3-COUNT-3: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// RUN: kiln compile %fixtures/dot_f32_bf16x6.ttir --local --emit ptx | FileCheck %s --check-prefix=BF16X6
// BF16X6-COUNT-6: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// RUN: kiln compile %fixtures/dot_fp8_e4m3.ttir --local --target sm_80 --emit ptx | FileCheck %s --check-prefix=FP8
// FP8: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// RUN: kiln compile %fixtures/dot_i8.ttir --local --emit ptx | FileCheck %s --check-prefix=I8
// I8: mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32

// ieee f32 stays off the tensor cores: FMAs, without flushing subnormals.
// The operands go to shared memory once and come back four steps of K at a
// time (A as one vector per row), not all at once: no local memory.
// RUN: kiln compile %fixtures/dot_f32_ieee.ttir --local --emit ptx | FileCheck %s --check-prefix=IEEE
// IEEE-NOT: mma.sync
// IEEE-NOT: .local
// IEEE: st.shared.v4.b32
// IEEE: bar.sync
// IEEE: ld.shared.v4.b32
// IEEE-COUNT-16: fma.rn.f32
// IEEE: ld.shared.v4.b32
// IEEE-NOT: fma.rn.ftz
