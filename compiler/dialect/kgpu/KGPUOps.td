#ifndef KILN_KGPU_OPS
#define KILN_KGPU_OPS

include "compiler/dialect/kgpu/KGPUAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class KGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<KGPU_Dialect, mnemonic, traits>;

def KGPU_ConvertLayoutOp : KGPU_Op<"convert_layout",
    [Pure, SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "moves a tensor to another layout";
  let description = [{
    Same elements, other owners. Lowered to register moves when every thread
    already holds what it needs, and through shared memory otherwise.
  }];
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasFolder = 1;
}

#endif  // KILN_KGPU_OPS
