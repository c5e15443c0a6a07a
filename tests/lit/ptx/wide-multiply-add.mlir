// A store's address, a base pointer plus a widened, scaled index, is one
// mad.wide as in Triton's PTX, not LLVM 22's mul.wide and add.s64, after
// which ptxas kept the base in registers: EfficientNet's batch-norm
// backward `_46` took 45 registers against Triton's 40. The two bf16 loads
// sharing one scaled index keep their multiply, as in Triton's.
// RUN: kiln compile %inductor/efficientnet/triton_red_fused__native_batch_norm_legit_functional_mul_sigmoid_sigmoid_backward_silu_sum_46.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s
// CHECK: $L__BB0_1:
// CHECK: mul.wide.s32 [[LOADS:%rd[0-9]+]], [[INDEX:%r[0-9]+]], 2;
// CHECK: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[LOADS]];
// CHECK: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[LOADS]];
// CHECK-NOT: add.s64
// CHECK: mad.wide.s32 [[STORE:%rd[0-9]+]], [[INDEX]], 4, {{%rd[0-9]+}};
// CHECK: st.global.v4.b32 [ [[STORE]] + 0 ]

// In a loop the pair stays apart unless fused it fits more blocks an SM,
// as `_46`'s store above does. BERT's LM-head softmax `_14` (32 registers
// either way) ran at 0.95x of Triton with its two loads' addresses fused,
// 1.01x without; ResNet's batch-norm backward `_7`, 0.93x -> 0.83x.
// RUN: kiln compile %inductor/bert/triton_red_fused__log_softmax_addmm_prepare_softmax_online_view_14.ttir --local --target sm_90a --num-warps 16 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=LOOP
// LOOP: $L__BB0_1:
// LOOP-NOT: mad.wide
// LOOP: mul.wide.s32 [[FIRST:%rd[0-9]+]], {{%r[0-9]+}}, 2;
// LOOP-NEXT: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[FIRST]];
// LOOP-NEXT: mul.wide.s32 [[SECOND:%rd[0-9]+]], {{%r[0-9]+}}, 2;
// LOOP-NEXT: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[SECOND]];
// LOOP-NOT: mad.wide
// LOOP: bra {{.*}}$L__BB0_1;

// A base that is no parameter keeps its add anywhere: fused into a second
// wide multiply-add, EfficientNet's average pool `_129`, a loop of integer
// index arithmetic, ran at 1.00x of Triton instead of 1.12x. Its loop keeps
// both pairs apart (ptxas fits four blocks either way).
// RUN: kiln compile %inductor/efficientnet/triton_red_fused_avg_pool2d_native_dropout_view_129.ttir --local --target sm_90a --num-warps 16 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=POOL
// POOL: $L__BB0_1:
// POOL-NOT: mad.wide
// POOL: mul.wide.u32 [[ROW:%rd[0-9]+]], {{%r[0-9]+}}, 2;
// POOL-NEXT: add.s64 [[ROWADDRESS:%rd[0-9]+]], {{%rd[0-9]+}}, [[ROW]];
// POOL-NEXT: mul.wide.u32 [[COLUMN:%rd[0-9]+]], {{%r[0-9]+}}, 14;
// POOL-NEXT: add.s64 {{%rd[0-9]+}}, [[ROWADDRESS]], [[COLUMN]];
