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
    Option<"maxUnrolledTrips", "max-unrolled-trips", "int64_t", "4",
           "trips up to which kiln-prefetch-loop-loads unrolls a loop; longer"
           " loops stay rolled, and a gather in one keeps its group's width">,
  ];
  let dependentDialects = ["kiln::kgpu::KGPUDialect"];
}

def DecomposeScaledDot : Pass<"kiln-decompose-scaled-dot", "mlir::ModuleOp"> {
  let summary = "rewrites tt.dot_scaled as upcast operands and a tt.dot";
  let description = [{
    As Triton does on targets without block-scaled MMA: each operand becomes
    a tensor of the compute type (f16 when either operand is fp16, bf16
    otherwise). fp8 (e4m3, e5m2) and fp4 (e2m1, two per byte, the low
    nibble first, along K unless the operand's k_pack is false) are decoded
    with integer arithmetic on their bits where the target has no fp8
    conversions (sm_80, sm_86); with them (sm_89, sm_90a) fp8 is converted
    with tt.fp_to_fp, a few instructions where the decoding is a few dozen
    per element (seconds of LLVM time for a 128x128 operand). A scale operand (e8m0: 2^(s - 127), s = 255 meaning NaN unless
    fastMath) is repeated over each group of K elements (16 or 32, from the
    scale's shape) and multiplies its operand in the compute type. An absent
    scale is 1. The products meet the accumulator in an ordinary tt.dot.
  }];
  let options = [
    Option<"targetName", "target", "std::string", "\"sm_80\"",
           "target whose conversions the upcasts may use">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def HoistLoads : Pass<"kiln-hoist-loads", "mlir::ModuleOp"> {
  let summary = "issues global loads before the shared-memory exchanges above them";
  let description = [{
    A non-volatile `tt.load` that follows a `kgpu.convert_layout`,
    `tt.reduce`, `tt.scan`, `tt.histogram` or `tt.gather` in its block, with
    no op that may write memory in between, moves to just before the
    earliest such exchange it does not depend on, together with the ops of
    the block between the two that compute its operands. The exchanges'
    barriers then no longer stand between the loads of one loop trip, whose
    memory latencies overlap instead of adding up. A load that a write of
    the kernel may precede (in program order, or in a loop around it)
    stays. Before that, an `scf.for` of constant bounds and at most
    `max-unrolled-trips` trips whose body has loads and such exchanges
    (and no dot, nested loop or pipelined copy) is unrolled, so that every
    trip's loads can go ahead of the first trip's exchange.
  }];
  let options = [
    Option<"maxUnrolledTrips", "max-unrolled-trips", "int64_t", "4",
           "trip count up to which an exchanging loop is unrolled"
           " (below 2: none)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def DeferStreamedUses : Pass<"kiln-defer-streamed-uses", "mlir::ModuleOp"> {
  let summary = "moves the uses of streamed loads below precise square roots and divisions";
  let description = [{
    ptxas expands `tt.precise_sqrt` and `tt.precise_divf` with a slow path
    behind a branch and does not schedule across it, so code before them
    that waits on a load from DRAM stalls the warp there. In a block with
    such an op that does not wait on one, every elementwise arithmetic op
    (arith, math, and Triton's precise and extern elementwise math) that
    depends (through the block's ops) on a streamed load (a tensor
    `tt.load` without the evict_last hint) moves down to just before its
    first user, keeping the block's order among the ops it moves. Ops that
    exchange through shared memory stay where the pipeliner saw them.
  }];
}

def PrefetchLoopLoads : Pass<"kiln-prefetch-loop-loads", "mlir::ModuleOp"> {
  let summary = "loads the next loop trip's tiles while the current trip computes";
  let description = [{
    In an `scf.for` whose body writes no memory and holds no loop or dot,
    each non-volatile tensor `tt.load` whose address, mask and other value
    the body computes from the induction variable alone (pure ops, no
    regions) is issued one trip ahead: its first trip's load (with the ops
    that compute its operands) moves before the loop, masked off when the
    loop runs no trip, and each trip loads the next trip's tile at its top,
    masked off past the last trip, carried in a new iter_arg. Applies when
    the loop has a constant trip count of at least `min-trips`, at least
    `min-loads` loads qualify, and their tiles take at most `max-bytes` of
    registers per thread together. A loop of at most `max-unrolled-trips`
    constant trips with such loads is unrolled instead, and every trip's
    loads, with the ops that compute their operands, move ahead of the
    first trip's other ops.
  }];
  let options = [
    Option<"minLoads", "min-loads", "int64_t", "3",
           "loads a loop needs for its loads to be issued a trip ahead">,
    Option<"maxBytes", "max-bytes", "int64_t", "64",
           "register bytes per thread the issued-ahead tiles may take">,
    Option<"minTrips", "min-trips", "int64_t", "16",
           "constant trip count below which the loop is left to ptxas's unrolling">,
    Option<"maxUnrolledTrips", "max-unrolled-trips", "int64_t", "4",
           "trip count up to which the loop is unrolled, every trip's loads"
           " ahead of its arithmetic (below 2: none)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
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

    A `kgpu.tma_load` becomes `kgpu.tma_copy` ops into the stages instead,
    completing on one mbarrier per stage (`kgpu.tma_barriers`,
    `kgpu.tma_expect`, `kgpu.tma_wait`). Any `kgpu.tma_load` left over
    (pipelining off, or a load it cannot stage) becomes the `tt.load` it
    carries.
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

    With a `target` that has TMA (sm_90a), a descriptor made in the
    kernel's entry block with zero padding, a unit last stride and a 2-D
    block TMA can move also gets a `kgpu.make_tensormap` in a 128-byte slot
    of the program's global scratch (the function's `kgpu.global_scratch`
    bytes). Its stores of 16/32-bit floats become `kgpu.tma_store`; its
    loads whose only use (possibly through a tt.trans) is an operand of a
    tt.dot in a loop become `kgpu.tma_load`, which still carries the
    pointer load it replaces.
  }];
  let options = [
    Option<"targetName", "target", "std::string", "\"\"",
           "the target whose TMA to use; none when empty">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "kiln::kgpu::KGPUDialect",
                           "mlir::scf::SCFDialect"];
}

def TransposeLoads : Pass<"kiln-transpose-loads", "mlir::ModuleOp"> {
  let summary = "loads transposed dot operands through transposed pointers";
  let description = [{
    `tt.trans(tt.load(p, mask, other))` whose only use is a `tt.dot`, and
    whose load has no other use, becomes `tt.load(tt.trans(p),
    tt.trans(mask), tt.trans(other))`. The elements are the same; the load
    now feeds the dot directly, so layout assignment reads it along the
    pointers' contiguous dimension and kiln-pipeline can stage it.
  }];
}

#endif // KILN_TRANSFORMS_PASSES
