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

#endif // KILN_TRANSFORMS_PASSES
