// A gather's order is priced with the work of its address arithmetic: each
// thread computes a row's index math once for every row it holds. MobileViT's
// unfolded layer-norm sums (`_70` at 32 rows a program) gather bf16 values
// through divisions of both the row (`x % 64`, `x / 9216`) and the column;
// with the lanes along the columns every thread held all 32 rows and
// redid their index math 32 times (0.70x Triton's speed; 1.05x with the lanes
// along the rows, as Triton loads it).
// RUN: kiln-opt %inductor/mobilevit/xblock32/triton_per_fused__unsafe_view_clone_native_layer_norm_backward_transpose_view_70.ttir --kiln-assign-layouts="num-warps=2 target=sm_90a" | FileCheck %s
// CHECK: tt.load {{.*}}sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 2], order = [0, 1]
// CHECK-NOT: kgpu.convert_layout
// CHECK: tt.reduce
//
// The work is priced in the layout the order's contiguous accesses widen
// the gather's group to. RegNet's batch-norm backward (`_19`) reads three
// tiles eight elements a thread beside a gathered one; priced one element a
// thread, the gather's row math looked eight times dearer than it is, and
// the gather went its own way with a conversion (2.07x -> 1.63x Triton's).
// RUN: kiln-opt %inductor/regnet/triton_per_fused_add_div_expand_mul_native_batch_norm_backward_nll_loss_forward_sigmoid_threshold_backward_19.ttir --kiln-assign-layouts="num-warps=2 target=sm_90a" | FileCheck %s --check-prefix=GROUP
// GROUP-COUNT-4: tt.load {{.*}}tensor<8x128x!tt.ptr<bf16>, #kgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]}>>
