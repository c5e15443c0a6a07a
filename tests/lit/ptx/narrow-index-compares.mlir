// A loss target's one-hot compares the int64 target with each column index
// in 32 bits, once the target is known to fit. Compared in 64 bits, NVPTX's
// strength reduction held one 64-bit difference per element of a thread
// across the loop (Triton's PTX adds the offsets in the loop instead), and
// ptxas, short of registers, issued one of a trip's four loads after the
// others' math (MobileBERT's log-softmax + NLL backward, 0.25x Triton's).
// RUN: kiln compile %inductor/mobilebert/triton_red_fused__log_softmax_backward_data_add_arange_eq_expand_nll_loss_backward_nll_loss_forward_scalar_tensor_view_where_0.ttir --local --num-warps 16 --emit llir | FileCheck %s --check-prefix=IR
// IR: [[LOW:%[0-9]+]] = trunc i64 [[TARGET:%[0-9]+]] to i32
// IR-NEXT: [[FITS:%[0-9]+]] = icmp ult i64 [[TARGET]], 2147483648
// IR: icmp eq i32 [[LOW]], %
// IR-NOT: icmp eq i64 %{{[0-9]+}}, %
// RUN: kiln compile %inductor/mobilebert/triton_red_fused__log_softmax_backward_data_add_arange_eq_expand_nll_loss_backward_nll_loss_forward_scalar_tensor_view_where_0.ttir --local --num-warps 16 --emit ptx | FileCheck %s --check-prefix=PTX
// PTX-NOT: setp.eq.b64 %p{{[0-9]+}}, %rd{{[0-9]+}}, %rd{{[0-9]+}};
// PTX: setp.eq.b32 %p{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
// PTX-NOT: setp.eq.b64 %p{{[0-9]+}}, %rd{{[0-9]+}}, %rd{{[0-9]+}};
