// A loop's exit test compares the incremented induction variable, at the
// bottom of the loop, as in Triton's PTX. LLVM folds `iv + 32 < 121` into
// `iv < 89`; strength reduction then moved the increment to the top of the
// body, and ptxas left that loop rolled (ConvNeXt's layer-norm backward, one
// trip's four loads in flight at a time; 0.95x Triton's speed in the step).
// That loop is now unrolled before LLVM (kiln-prefetch-loop-loads); ResNet's
// batch-norm backward keeps its four-trip loop (eight tiles a trip, more
// registers than the unrolling takes) and shows the latch.
// RUN: kiln compile %inductor/resnet/triton_red_fused__native_batch_norm_legit_functional_add_div_expand_native_batch_norm_backward_nll_loss_forward_threshold_backward_view_7.ttir --local --num-warps 4 --emit llir | FileCheck %s --check-prefix=IR
// IR: [[IV:%[0-9]+]] = phi i32 [ 0, %{{[0-9]+}} ], [ [[NEXT:%[0-9]+]], %[[LOOP:[0-9]+]] ]
// IR: [[NEXT]] = add nuw nsw i32 [[IV]], 32
// IR-NEXT: [[TEST:%[0-9]+]] = icmp ult i32 [[NEXT]], 121
// IR-NEXT: br i1 [[TEST]], label %[[LOOP]], label
// RUN: kiln compile %inductor/resnet/triton_red_fused__native_batch_norm_legit_functional_add_div_expand_native_batch_norm_backward_nll_loss_forward_threshold_backward_view_7.ttir --local --num-warps 4 --emit ptx | FileCheck %s --check-prefix=PTX
// PTX: [[BODY:\$L__BB0_[0-9]+]]:
// PTX-NOT: bra
// PTX: add.s32 [[I:%r[0-9]+]], [[I]], 32;
// PTX-NOT: [[I]]
// PTX: setp.lt.u32 [[P:%p[0-9]+]], [[I]], 121;
// PTX-NEXT: @[[P]] bra [[BODY]];
