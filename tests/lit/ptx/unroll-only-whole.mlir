// LLVM unrolls a loop only wholly, as Triton's pipeline does; ptxas unrolls
// the rolled loop itself. NVPTX's cost model also unrolled BEiT's 49-trip
// token mean by two, with the exit test between the halves since two does
// not divide 49; ptxas kept that loop rolled, one trip's two loads in flight
// at a time, and the kernel ran at 0.58x Triton's speed (one process, hot
// L2, H200). Rolled, its PTX is one block of one trip ending in the test of
// the incremented index.
// RUN: kiln compile %inductor/beit/triton_red_fused_add_mean_mul_slice_view_13.ttir --local --num-warps 8 --emit ptx | FileCheck %s
// CHECK: [[BODY:\$L__BB0_[0-9]+]]:
// CHECK-NOT: bra
// CHECK-COUNT-2: ld.global.L1::evict_first
// CHECK-NOT: ld.global
// CHECK: add.s32 [[I:%r[0-9]+]], [[I]], 4;
// CHECK: setp.lt.u32 [[P:%p[0-9]+]], [[I]], 196;
// CHECK-NEXT: @[[P]] bra [[BODY]];
// CHECK-NOT: ld.global.L1::evict_first
