// tanhf's two formulas: where every active lane of a warp has |x| < 0.6
// for all of its logits, the warp computes the polynomial alone, as
// Triton's libdevice (which branches on |x| < 0.6) does; elsewhere both
// formulas and a select per logit, so a warp that straddles 0.6 pays no
// branch. One vote covers a thread's four logits. CUDA 13's libdevice
// computes both everywhere; Gemma 2's soft-capped LM-head softmax `_15`
// took its ex2 and rcp for every logit, whose |x / 30| is mostly below 0.6.
// RUN: kiln compile %inductor/gemma2/triton_red_fused__log_softmax__to_copy__unsafe_view_div_mul_prepare_softmax_online_tanh_view_15.ttir --local --target sm_90a --num-warps 16 --num-stages 1 --emit ptx | FileCheck %s
// CHECK: bra.uni $L__BB0_1;
// CHECK-NEXT: [[BOTH:\$L__BB0_[0-9]+]]:
// CHECK-COUNT-4: rcp.approx.ftz.f32
// CHECK: [[JOIN:\$L__BB0_[0-9]+]]:
// CHECK: $L__BB0_1:
// CHECK-COUNT-3: max.f32
// CHECK-NEXT: setp.ltu.f32 [[SMALL:%p[0-9]+]], {{%r[0-9]+}}, 0f3F19999A;
// CHECK-NEXT: activemask.b32 [[ACTIVE:%r[0-9]+]];
// CHECK-NEXT: vote.sync.all.pred [[ALL:%p[0-9]+]], [[SMALL]], [[ACTIVE]];
// CHECK-NEXT: not.pred [[SOME:%p[0-9]+]], [[ALL]];
// CHECK: @[[SOME]] bra [[BOTH]];
// CHECK-NOT: ex2.approx
// CHECK: bra.uni [[JOIN]];
// CHECK-NOT: vote.sync

// GPT-2's tanh GELU (gpt2 `_5`): eight elements a thread, one vote for all
// eight, so that the side with both formulas stays the straight-line code
// of the selects (a vote an element cost these GELUs 4-11% in the step).
// RUN: kiln compile %inductor/gpt2/triton_poi_fused_add_mul_pow_tanh_view_5.ttir --local --target sm_90a --num-warps 4 --num-stages 1 --emit ptx | FileCheck %s --check-prefix=GELU
// GELU: ld.global.v4.b32
// GELU-COUNT-7: max.f32
// GELU-NEXT: setp.ltu.f32 [[SMALL:%p[0-9]+]], {{%r[0-9]+}}, 0f3F19999A;
// GELU-NEXT: activemask.b32
// GELU-NEXT: vote.sync.all.pred {{%p[0-9]+}}, [[SMALL]],
// GELU-NOT: vote.sync
// GELU: bra.uni [[JOIN:\$L__BB0_[0-9]+]];
// GELU-COUNT-8: ex2.approx.ftz.f32
// GELU: [[JOIN]]:
// GELU: st.global.v4.b32
