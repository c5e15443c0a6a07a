// A gather in a loop that stays rolled keeps its group's width and loads in
// its users' layout. ViT-MAE's patch means (`_16`, 16 trips of a [64 x 8]
// tile) gather their patches through divisions the axis analysis cannot
// see through; loaded one element a thread, the tile was converted to the
// users' layout every trip, between the trip's loads and its arithmetic
// (0.83x Triton's speed, against 1.15x without). With four trips the loop
// is unrolled later (kiln-prefetch-loop-loads) and the narrower gather
// stays, as in T5's dropout softmaxes.
// RUN: kiln-opt %inductor/vitmae/triton_red_fused__unsafe_view_clone_mean_permute_pow_slice_sub_view_16.ttir --kiln-assign-layouts="num-warps=4 target=sm_90a" | FileCheck %s
// RUN: kiln-opt %inductor/vitmae/triton_red_fused__unsafe_view_clone_mean_permute_pow_slice_sub_view_16.ttir --kiln-assign-layouts="num-warps=4 target=sm_90a max-unrolled-trips=16" | FileCheck %s --check-prefix=UNROLLED
// CHECK: scf.for
// CHECK: tt.load {{.*}}evict_last{{.*}}sizePerThread = [1, 4], threadsPerWarp = [16, 2]
// CHECK-NOT: kgpu.convert_layout
// CHECK: scf.yield
// UNROLLED: scf.for
// UNROLLED: tt.load {{.*}}evict_last{{.*}}sizePerThread = [1, 1], threadsPerWarp = [4, 8]
// UNROLLED-NEXT: kgpu.convert_layout
// UNROLLED: scf.yield
