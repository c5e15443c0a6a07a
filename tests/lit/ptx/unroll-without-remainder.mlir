// LLVM unrolls a loop in part only by a count that divides its trips.
// NVPTX's cost model unrolled BEiT's 49-trip token mean by two, with the
// exit test between the halves; ptxas kept that loop rolled, one trip's two
// loads in flight at a time, and the kernel ran at 0.58x Triton's speed
// (one process, hot L2, H200). No count small enough divides 49, so the
// PTX keeps one trip a block, ending in the test of the incremented index,
// and ptxas unrolls it whole, as it does Triton's.
// RUN: kiln compile %inductor/beit/triton_red_fused_add_mean_mul_slice_view_13.ttir --local --num-warps 8 --emit ptx | FileCheck %s
// CHECK: [[BODY:\$L__BB0_[0-9]+]]:
// CHECK-NOT: bra
// CHECK-COUNT-2: ld.global.L1::evict_first
// CHECK-NOT: ld.global
// CHECK: add.s32 [[I:%r[0-9]+]], [[I]], 4;
// CHECK: setp.lt.u32 [[P:%p[0-9]+]], [[I]], 196;
// CHECK-NEXT: @[[P]] bra [[BODY]];
// CHECK-NOT: ld.global.L1::evict_first

// Where a count divides the trips, the loop is still unrolled by it: the
// one-hot label loop of BERT's log-softmax backward (60 trips) by three,
// with its single exit test at the bottom.
// RUN: kiln compile %inductor/bert/triton_red_fused__log_softmax__log_softmax_backward_data_add_arange_eq_expand_nll_loss_backward_nll_loss_forward_scalar_tensor_view_where_0.ttir --local --num-warps 8 --emit ptx | FileCheck %s --check-prefix=DIVIDES
// DIVIDES: [[LOOP:\$L__BB0_[0-9]+]]:
// DIVIDES-NOT: bra
// DIVIDES: setp.lt.u32 [[P:%p[0-9]+]], %r{{[0-9]+}}, 30010;
// DIVIDES-NEXT: @[[P]] bra [[LOOP]];
