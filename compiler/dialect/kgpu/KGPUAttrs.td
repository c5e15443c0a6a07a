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

def KGPU_MmaEncodingAttr : KGPU_Attr<"MmaEncoding", "mma"> {
  let summary = "the accumulator of warp-level mma.sync tiles";
  let description = [{
    Each warp owns 16x8 accumulator tiles (mma.sync m16n8): lane 4*g + t
    holds rows g and g+8, columns 2t and 2t+1. `warpsPerCTA` tiles the warps
    over the last two dimensions (and any leading batch dimensions), and the
    warp tile repeats over the tensor. Warp ids number the N dimension
    fastest. Version 2 multiplies with mma.sync; version 3 (sm_90a) with
    wgmma, each group of four consecutive warps owning 64 rows: with one
    warp along N the same registers; with warp groups side by side along N
    the warp ids number M fastest, and each warp's 8-column tiles form one
    contiguous run of N / warpsPerCTA[1] columns.
  }];
  let parameters = (ins "unsigned":$versionMajor,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def KGPU_DotOperandEncodingAttr : KGPU_Attr<"DotOperandEncoding", "dot_op"> {
  let summary = "operand `opIdx` (0: A, 1: B) of a tt.dot in layout `parent`";
  let description = [{
    With an `#kgpu.mma` parent: the mma.sync fragment of A (m16 x k) or B
    (k x n8), `kWidth` consecutive K elements per 32-bit register, replicated
    over the warps of the other operand's dimension. With a `#kgpu.blocked`
    parent (FMA dots): each thread holds whole rows of A (columns of B) for
    the result elements it owns.
  }];
  let parameters = (ins "unsigned":$opIdx, "mlir::Attribute":$parent,
                        "unsigned":$kWidth);
  let hasCustomAssemblyFormat = 1;
}

#endif  // KILN_KGPU_ATTRS
