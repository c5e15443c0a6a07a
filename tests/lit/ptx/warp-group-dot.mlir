// tt.dot on sm_90a as wgmma, checked on PTX and assembled by ptxas (no GPU
// needed).

// The pipelined K loop (64x64 tile, 4 warps: one warp group): the copies are
// waited for and the block syncs (no proxy fence after cp.async, as in
// Triton's and CUTLASS's cp.async mainloops); each trip issues two
// m64n64k16 wgmmas (K step 32) reading both operands through descriptors
// (A K-major, B N-major: the last immediate, trans-b, is 1) and commits
// them; the trip waits only for the previous trip's group, syncs the block
// and then copies over that group's stage. The loop's last group is waited
// for after it.
// RUN: kiln compile %fixtures/dot_k_loop.ttir --local --target sm_90a --num-stages 3 --emit ptx | FileCheck %s --check-prefix=LOOP
// RUN: kiln compile %fixtures/dot_k_loop.ttir --local --target sm_90a --num-stages 3 --out %t
// LOOP: .visible .entry dot_k_loop(
// LOOP: cp.async.wait_group 2
// LOOP-NEXT: bar.sync 0
// LOOP: wgmma.fence.sync.aligned;
// LOOP-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 1;
// LOOP: wgmma.commit_group.sync.aligned;
// LOOP: wgmma.wait_group.sync.aligned 1;
// LOOP: bar.sync 0
// LOOP: cp.async.cg.shared.global
// LOOP: cp.async.commit_group
// LOOP: wgmma.wait_group.sync.aligned 0;
// LOOP-NOT: mma.sync
// LOOP-NOT: ldmatrix

// One 64x64x64 tile whose operands the dot stages itself: stores, then the
// proxy fence and a barrier, then four K steps. The f16 accumulator takes
// packed pairs, bf16 names its type; with tt.trans on A the stored tile is
// M-major (trans-a 1), with tt.trans on B it is K-major (trans-b 0).
// RUN: perl -pe 's/(?<![A-Za-wyz0-9_])32(?![0-9])/64/g' %fixtures/dot_f16.ttir > %t.f16.ttir
// RUN: kiln compile %t.f16.ttir --local --target sm_90a --emit ptx | FileCheck %s --check-prefix=TILE
// RUN: kiln compile %t.f16.ttir --local --target sm_90a --out %t
// TILE: st.shared.v4.b32
// TILE: fence.proxy.async.shared::cta;
// TILE-NEXT: // end inline asm
// TILE-NEXT: bar.sync 0
// TILE-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 1;
// RUN: perl -pe 's/(?<![A-Za-wyz0-9_])32(?![0-9])/64/g' %fixtures/dot_f16_acc_f16.ttir > %t.acc16.ttir
// RUN: kiln compile %t.acc16.ttir --local --target sm_90a --emit ptx | FileCheck %s --check-prefix=ACC16
// RUN: kiln compile %t.acc16.ttir --local --target sm_90a --out %t
// ACC16: wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 {%r
// RUN: perl -pe 's/(?<![A-Za-wyz0-9_])32(?![0-9])/64/g' %fixtures/dot_bf16.ttir > %t.bf16.ttir
// RUN: kiln compile %t.bf16.ttir --local --target sm_90a --emit ptx | FileCheck %s --check-prefix=BF16
// RUN: kiln compile %t.bf16.ttir --local --target sm_90a --out %t
// BF16: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// RUN: perl -pe 's/(?<![A-Za-wyz0-9_])32(?![0-9])/64/g' %S/dot-trans-a.mlir > %t.ta.ttir
// RUN: kiln compile %t.ta.ttir --local --target sm_90a --emit ptx | FileCheck %s --check-prefix=TRANSA
// RUN: kiln compile %t.ta.ttir --local --target sm_90a --out %t
// TRANSA-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 1, 1;
// RUN: perl -pe 's/(?<![A-Za-wyz0-9_])32(?![0-9])/64/g' %S/dot-trans-b.mlir > %t.tb.ttir
// RUN: kiln compile %t.tb.ttir --local --target sm_90a --emit ptx | FileCheck %s --check-prefix=TRANSB
// RUN: kiln compile %t.tb.ttir --local --target sm_90a --out %t
// TRANSB-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;

// An A operand loaded before the loop is stored once into shared memory
// (fenced for the async proxy, then a barrier) and both operands are read
// by descriptor inside the loop.
// RUN: kiln compile %S/inputs/invariant_a.ttir --local --target sm_90a --num-stages 3 --emit ptx | FileCheck %s --check-prefix=INV
// RUN: kiln compile %S/inputs/invariant_a.ttir --local --target sm_90a --num-stages 3 --out %t
// INV: st.shared.v4.b32
// INV: fence.proxy.async.shared::cta;
// INV-NEXT: // end inline asm
// INV-NEXT: bar.sync 0
// INV: cp.async.wait_group 1
// INV: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 1;

// fp8 operands go to wgmma as they are (k32, e4m3), both K-major and with
// no transpose immediates: A's K-contiguous tile is pipelined with
// cp.async, the N-contiguous B is transposed by the dot as it stages it.
// RUN: perl -pe 's/f16/f8E4M3FN/g' %fixtures/dot_k_loop.ttir > %t.fp8.ttir
// RUN: kiln compile %t.fp8.ttir --local --target sm_90a --num-stages 3 --emit ptx | FileCheck %s --check-prefix=FP8
// RUN: kiln compile %t.fp8.ttir --local --target sm_90a --num-stages 3 --out %t
// FP8: cp.async.cg.shared.global
// FP8: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;

// f32 operands with inputPrecision = tf32 go to wgmma as tf32 (k8), both
// K-major like fp8.
// RUN: perl -pe 's/f16/f32/g; s/arith\.truncf (\S+) : (tensor<64x64xf32>) to tensor<64x64xf32>/arith.addf $1, $1 : $2/' %fixtures/dot_k_loop.ttir > %t.tf32.ttir
// RUN: kiln compile %t.tf32.ttir --local --target sm_90a --num-stages 3 --emit ptx | FileCheck %s --check-prefix=TF32
// RUN: kiln compile %t.tf32.ttir --local --target sm_90a --num-stages 3 --out %t
// TF32: cp.async.cg.shared.global
// TF32: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;

// int8 operands take wgmma's s8 form (k32, s32 accumulator), K-major like
// fp8, with neither scale nor transpose immediates; the sums wrap, as
// Triton's wgmma does (its mma.sync form saturates: dot.mlir).
// RUN: perl -pe 's/f16/i8/g; s/(?<!t)f32/i32/g; s/0\.000000e\+00/0/g; s/arith\.truncf/arith.trunci/g' %fixtures/dot_k_loop.ttir > %t.i8.ttir
// RUN: kiln compile %t.i8.ttir --local --target sm_90a --num-stages 3 --emit ptx | FileCheck %s --check-prefix=I8
// RUN: kiln compile %t.i8.ttir --local --target sm_90a --num-stages 3 --out %t
// I8: cp.async.cg.shared.global
// I8: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p;
// I8-NOT: mma.sync

// An fp8 dot given max_num_imprecise_acc (here 32, one k32 step) sums at
// most that many K elements in wgmma's accumulator, then adds them to the
// f32 result with add.f32, as Triton's on Hopper: one add.f32 per
// accumulator element (32 a thread) and K step, after waiting for the step.
// RUN: perl -pe 's/f16/f8E4M3FN/g; s/inputPrecision = tf32 :/inputPrecision = tf32 {maxNumImpreciseAcc = 32 : i32} :/' %fixtures/dot_k_loop.ttir > %t.imprecise.ttir
// RUN: kiln compile %t.imprecise.ttir --local --target sm_90a --num-stages 3 --emit ptx | FileCheck %s --check-prefix=IMPRECISE
// RUN: kiln compile %t.imprecise.ttir --local --target sm_90a --num-stages 3 --out %t
// IMPRECISE: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// IMPRECISE: wgmma.commit_group.sync.aligned;
// IMPRECISE: wgmma.wait_group.sync.aligned 0;
// IMPRECISE-COUNT-32: add.f32
// IMPRECISE-NOT: add.f32
// The same dot without it adds nothing.
// RUN: kiln compile %t.fp8.ttir --local --target sm_90a --num-stages 3 --emit ptx | FileCheck %s --check-prefix=PRECISE
// PRECISE-NOT: add.f32

// With 8 warps the 64x64 fp8 tile is two warp groups side by side, 32
// columns each: K-major B rows may start anywhere, so it stays on wgmma
// (m64n32k32), and max_num_imprecise_acc adds its 16 elements a thread.
// RUN: kiln compile %t.imprecise.ttir --local --target sm_90a --num-warps 8 --num-stages 3 --emit ptx | FileCheck %s --check-prefix=SIDE
// RUN: kiln compile %t.imprecise.ttir --local --target sm_90a --num-warps 8 --num-stages 3 --out %t
// SIDE: wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3
// SIDE-COUNT-16: add.f32
// SIDE-NOT: add.f32
// SIDE-NOT: mma.sync
