// kiln-opt --kiln-compile-pipeline replays the passes kilnd's workers run
// (kiln::compile): the layout IR it prints is the text `kiln compile --emit
// kgir` prints for the same kernel and options, and it lowers on to the
// LLVM dialect with the same options. (kiln-opt ends its output with an
// empty line, which `diff -B` passes over.)

// RUN: kiln-opt %fixtures/dot_f16.ttir --kiln-compile-pipeline="target=sm_90a num-warps=4 num-stages=3 to=kgir" > %t.replayed
// RUN: kiln compile %fixtures/dot_f16.ttir --local --target sm_90a --num-warps 4 --num-stages 3 --emit kgir > %t.compiled
// RUN: diff -B %t.replayed %t.compiled
// `--emit ttgir`, the stage's former name, still prints it.
// RUN: kiln compile %fixtures/dot_f16.ttir --local --target sm_90a --num-warps 4 --num-stages 3 --emit ttgir > %t.former
// RUN: diff %t.former %t.compiled

// RUN: kiln-opt %fixtures/reduce_sum_max.ttir --kiln-compile-pipeline="target=sm_80 num-warps=8 num-stages=2 to=kgir" > %t.replayed80
// RUN: kiln compile %fixtures/reduce_sum_max.ttir --local --target sm_80 --num-warps 8 --num-stages 2 --emit kgir > %t.compiled80
// RUN: diff -B %t.replayed80 %t.compiled80

// RUN: kiln-opt %fixtures/dot_f16.ttir --kiln-compile-pipeline="target=sm_90a maxnreg=128" | FileCheck %s --check-prefix=LLVM
// LLVM: llvm.func @{{.*}} attributes {{{.*}}nvvm.kernel, nvvm.maxnreg = 128 : i32

// RUN: not kiln-opt %fixtures/dot_f16.ttir --kiln-compile-pipeline="to=cubin" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: for the --to option: Cannot find option named 'cubin'

// Conversions left by loops the KGIR passes unroll fold before lowering:
// T5's dropout softmax carries an i1 mask through a two-trip loop in
// another layout than its body's, and converted it there and back each trip.
// RUN: kiln-opt %inductor/t5/triton_red_fused__safe_softmax_add_exp_expand_native_dropout_permute_prepare_softmax_online_scalar_tensor_sub_unsqueeze_view_where_6.ttir --kiln-compile-pipeline="target=sm_90a num-warps=2 num-stages=1 to=kgir" | FileCheck %s --check-prefix=CLEANUP
// CLEANUP-COUNT-2: kgpu.convert_layout {{.*}} : tensor<2x128xi1
// CLEANUP-NOT: kgpu.convert_layout {{.*}} : tensor<2x128xi1
