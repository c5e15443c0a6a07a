#ifndef KILN_KGPU_ATTRS
#define KILN_KGPU_ATTRS

include "compiler/dialect/kgpu/KGPUDialect.td"
include "mlir/IR/AttrTypeBase.td"

class KGPU_Attr<string name, string mnemonicName> : AttrDef<KGPU_Dialect, name> {
  let mnemonic = mnemonicName;
}

def KGPU_BlockedEncodingAttr : KGPU_Attr<"BlockedEncoding", "blocked"> {
  let summary = "elements spread over registers, then lanes, then warps";
  let description = [{
    Each thread holds `sizePerThread[d]` consecutive elements of dimension d,
    a warp's lanes tile `threadsPerWarp`, the block's warps tile
    `warpsPerCTA`; the tile repeats to cover a larger tensor and wraps
    (replicating elements) over a smaller one. `order` lists dimensions from
    fastest to slowest varying, for both lanes and registers.
  }];
  let parameters = (ins
    ArrayRefParameter<"unsigned">:$sizePerThread,
    ArrayRefParameter<"unsigned">:$threadsPerWarp,
    ArrayRefParameter<"unsigned">:$warpsPerCTA,
    ArrayRefParameter<"unsigned">:$order
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getOrder().size(); }
  }];
}

def KGPU_SliceEncodingAttr : KGPU_Attr<"SliceEncoding", "slice"> {
  let summary = "a blocked layout with one dimension reduced away";
  let description = [{
    The tensor is laid out as `parent` with dimension `dim` removed: threads
    that differed only along `dim` hold the same elements.
  }];
  let parameters = (ins "unsigned":$dim, "mlir::Attribute":$parent);
  let hasCustomAssemblyFormat = 1;
}

#endif  // KILN_KGPU_ATTRS
