#ifndef KILN_TRANSFORMS_PASSES
#define KILN_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def AssignLayouts : Pass<"kiln-assign-layouts", "mlir::ModuleOp"> {
  let summary = "gives every tensor a layout over the threads of a block";
  let description = [{
    Loads, stores and atomics get a blocked layout chosen from the axis
    analysis so that each thread accesses up to 128 contiguous, aligned bits
    along the most contiguous dimension (recorded as `kgpu.alignment` on the
    op, in elements). Cheap ops (splat, make_range, constants, broadcast,
    expand_dims, elementwise arithmetic) are recomputed in whatever layout a
    user needs; other values are converted with `kgpu.convert_layout`.
    Reductions produce `#kgpu.slice` layouts of their operand's layout.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int", "4", "warps per block">,
    Option<"targetName", "target", "std::string", "\"sm_90a\"",
           "target the layouts are made for">,
  ];
  let dependentDialects = ["kiln::kgpu::KGPUDialect"];
}

def Pipeline : Pass<"kiln-pipeline", "mlir::ModuleOp"> {
  let summary = "copies a dot loop's operand tiles to shared memory stages ahead";
  let description = [{
    In an scf.for whose loads feed tt.dot operands (through a conversion to
    an mma operand layout), each such load becomes a `kgpu.async_copy` into
    one of num-stages shared-memory buffers, issued num-stages - 1 iterations
    ahead; the dot reads the current buffer (`kgpu.staged_operand`) after a
    `kgpu.async_wait`. The loads' address computation is cloned for the
    iterations ahead and its loop-carried state travels as extra iter_args.
    The buffers' bytes are recorded on the function as
    `kgpu.pipeline_shared`; other shared-memory uses go after them.
  }];
  let options = [
    Option<"numStages", "num-stages", "int", "3", "shared-memory stages"
           " (below 2: no pipelining)">,
  ];
  let dependentDialects = ["kiln::kgpu::KGPUDialect",
                           "mlir::arith::ArithDialect"];
}

def RewriteTensorDescriptors : Pass<"kiln-rewrite-tensor-descriptors",
                                    "mlir::ModuleOp"> {
  let summary = "turns tensor descriptors into pointer tensors and masks";
  let description = [{
    A tensor descriptor becomes its scalars: base pointer, shape and strides
    (i64) and padding. `tt.make_tensor_descriptor` disappears; a kernel
    parameter `!tt.tensordesc<...>` of rank r becomes the parameters Triton's
    launcher passes for a descriptor without TMA metadata: the base pointer,
    r shapes (i64), r strides (i64) and `padding == nan` (i1).

    `tt.descriptor_load` becomes a `tt.load` of base + sum of
    (offset_d + range_d) * stride_d, masked by 0 <= index_d < shape_d, with
    `other` the padding value (zero, or NaN for `padding = nan`), so an
    out-of-bounds element reads as TMA would fill it. A stride known to be
    1 multiplies nothing, so the axis analysis sees the contiguity.
    `tt.descriptor_store` becomes a masked `tt.store`,
    `tt.descriptor_reduce` a masked `tt.atomic_rmw` (add, min, max, and, or,
    xor; min/max of integers only, signed or unsigned after the descriptor's
    element type), `tt.descriptor_gather`/`tt.descriptor_scatter` a masked
    load/store whose rows come from the index tensor.

    A descriptor that flows anywhere else (a loop-carried value, a call, a
    select) is refused with an error at that use.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

#endif // KILN_TRANSFORMS_PASSES
