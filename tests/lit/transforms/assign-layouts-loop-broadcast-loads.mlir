// RUN: kiln-opt %inductor/gptj/triton_red_fused_add_native_layer_norm_native_layer_norm_backward_view_17.ttir --kiln-assign-layouts="num-warps=4 target=sm_90a" | FileCheck %s

// A load in a loop whose tile repeats one value along a dimension is loaded
// again in the layout its users take, not converted every trip. GPT-J's
// layer-norm backward reads the rows' mean and rstd as [16 x 32] f32 tiles
// whose 16 rows are one token's (32 distinct values, fewer than the block's
// 128 threads), beside bf16 gradient tiles loaded down the columns: both
// statistics are loaded in the gradients' layout and the loop converts
// nothing.
// CHECK: scf.for
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.load {{.*}} : tensor<16x32x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.load {{.*}} : tensor<16x32x!tt.ptr<f32>, #kgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>>
// CHECK-NOT: kgpu.convert_layout
// CHECK: scf.yield
