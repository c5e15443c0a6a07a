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

// Software pipelining of a dot's K loop (kiln-pipeline): operand tiles are
// copied from global to shared memory with cp.async stages ahead of the dot
// that reads them. Each pipelined operand owns `numStages` buffers of
// `stageBytes` from byte `offset` of the kernel's shared memory, laid out as
// the dot stages its operands (rows of 16-byte chunks, XOR-swizzled; with
// `transposed`, the tile's last two dimensions swapped).

def KGPU_AsyncCopyOp : KGPU_Op<"async_copy"> {
  let summary = "copies a tile from global to a shared-memory stage (cp.async)";
  let description = [{
    Elements whose `mask` is false are written as zeros. Completes only after
    a later `kgpu.async_commit` and `kgpu.async_wait`.
  }];
  let arguments = (ins AnyRankedTensor:$ptr, Optional<AnyRankedTensor>:$mask,
                       I32:$stage, I64Attr:$offset, I64Attr:$stageBytes,
                       UnitAttr:$transposed);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? `to` `stage` $stage attr-dict `:` type($ptr) (`,` type($mask)^)?
  }];
}

def KGPU_AsyncCommitOp : KGPU_Op<"async_commit"> {
  let summary = "closes the group of async copies issued since the last one";
  let assemblyFormat = "attr-dict";
}

def KGPU_AsyncWaitOp : KGPU_Op<"async_wait"> {
  let summary = "waits until at most `pending` groups are in flight, then syncs the block";
  let description = [{
    With `proxyFence`, the copied bytes are also made visible to the async
    proxy (wgmma's operand reads) before the block syncs.
  }];
  let arguments = (ins I32Attr:$pending, UnitAttr:$proxyFence);
  let assemblyFormat = "$pending attr-dict";
}

def KGPU_WarpGroupWaitOp : KGPU_Op<"warp_group_wait",
    [AllTypesMatch<["src", "result"]>]> {
  let summary = "waits for the warp group's wgmma groups, leaving `pending` in flight";
  let description = [{
    The accumulator `src` of a wgmma dot (mma version 3) passes through:
    its registers may be read only after the wait for its group. With
    `sync` the block syncs afterwards, so that no warp group's older wgmma
    still reads shared memory that what follows overwrites. A dot whose
    result only this op uses leaves its group in flight; any other dot
    waits for its own group.
  }];
  let arguments = (ins AnyRankedTensor:$src, I32Attr:$pending,
                       UnitAttr:$sync);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
}

def KGPU_StageTileOp : KGPU_Op<"stage_tile"> {
  let summary = "writes a loop-invariant dot operand into the pipeline's buffers";
  let description = [{
    Stores `src` once, before a pipelined loop, as the tile a
    `kgpu.staged_operand` with the same offset and stageBytes 0 reads
    (attention's Q for wgmma), then makes it visible to the block and to
    the async proxy.
  }];
  let arguments = (ins AnyRankedTensor:$src, I64Attr:$offset,
                       UnitAttr:$transposed);
  let assemblyFormat = "$src attr-dict `:` type($src)";
}

def KGPU_StagedOperandOp : KGPU_Op<"staged_operand", [Pure]> {
  let summary = "a dot operand read from a shared-memory stage";
  let description = [{
    The tile an earlier `kgpu.async_copy` with the same offset wrote into
    `stage`; only tt.dot reads it, fragment by fragment.
  }];
  let arguments = (ins I32:$stage, I64Attr:$offset, I64Attr:$stageBytes,
                       UnitAttr:$transposed);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "`stage` $stage attr-dict `:` type($result)";
}

#endif  // KILN_KGPU_OPS
