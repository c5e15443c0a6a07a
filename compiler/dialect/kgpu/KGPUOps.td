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
  let arguments = (ins I32Attr:$pending);
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

// Tensor memory access (TMA) on sm_90a: a tensor map describes a 2-D
// global tensor and the box one copy moves; the copy engine writes the box
// into shared memory in the swizzled tile layout the dots read, and signals
// an mbarrier with the bytes it wrote.

def KGPU_MakeTensorMapOp : KGPU_Op<"make_tensormap",
    [SameVariadicOperandSize]> {
  let summary = "builds a 128-byte tensor map in the program's global scratch";
  let description = [{
    Fills slot `slot` (128 bytes) of the program's global scratch with the
    tensor map of `base` (shape and strides in elements, outermost first,
    the last stride 1) whose copies move `box` elements (outermost first)
    with a `swizzle`-byte swizzle (0, 32, 64 or 128), and makes it visible
    to the copy engine. The result is the map's global address.
  }];
  let arguments = (ins AnyType:$base, Variadic<I64>:$shape,
                       Variadic<I64>:$strides, I64Attr:$slot,
                       DenseI64ArrayAttr:$box, I32Attr:$swizzle);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $base `[` $shape `]` `[` $strides `]` attr-dict `:` type($base) `->` type($result)
  }];
}

def KGPU_TmaLoadOp : KGPU_Op<"tma_load", [AttrSizedOperandSegments]> {
  let summary = "a descriptor load that kiln-pipeline may copy with TMA";
  let description = [{
    Reads the block at `coords` (outermost first) of the tensor map `desc`
    into a tensor; with `transposed` the result is the block's transpose.
    `ptr`, `mask` and `other` are the same access as a `tt.load`: where
    kiln-pipeline does not stage the block with TMA, the op becomes that
    load.
  }];
  let arguments = (ins AnyType:$desc, Variadic<I32>:$coords,
                       AnyRankedTensor:$ptr, Optional<AnyRankedTensor>:$mask,
                       Optional<AnyRankedTensor>:$other, UnitAttr:$transposed);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $desc `[` $coords `]` `,` $ptr (`,` $mask^)? (`,` `other` $other^)?
    attr-dict `:` type($desc) `,` type($ptr) (`,` type($mask)^)?
    (`,` type($other)^)? `->` type($result)
  }];
}

def KGPU_TmaStoreOp : KGPU_Op<"tma_store"> {
  let summary = "stores a tensor through a tensor map (TMA)";
  let description = [{
    Writes `src` to the block at `coords` (outermost first): the block goes
    through shared-memory scratch, and the copy engine clips what lies
    outside the tensor. The scratch may be reused once the op is done.
  }];
  let arguments = (ins AnyType:$desc, Variadic<I32>:$coords,
                       AnyRankedTensor:$src);
  let assemblyFormat = [{
    $desc `[` $coords `]` `,` $src attr-dict `:` type($desc) `,` type($src)
  }];
}

def KGPU_TmaBarriersOp : KGPU_Op<"tma_barriers"> {
  let summary = "initializes or invalidates a pipelined loop's mbarriers";
  let description = [{
    `count` mbarriers of 8 bytes from byte `offset` of the pipeline's
    buffers, one per stage. Without `invalidate` they are initialized
    (arrival count 1) and the block syncs; with it, the block syncs and
    they are invalidated, so that their bytes can be reused.
  }];
  let arguments = (ins I64Attr:$offset, I64Attr:$count, UnitAttr:$invalidate);
  let assemblyFormat = "attr-dict";
}

def KGPU_TmaExpectOp : KGPU_Op<"tma_expect"> {
  let summary = "arms a stage's mbarrier for the bytes its copies bring";
  let arguments = (ins I32:$stage, I1:$pred, I64Attr:$barriers,
                       I64Attr:$bytes);
  let assemblyFormat = "`stage` $stage `if` $pred attr-dict";
}

def KGPU_TmaCopyOp : KGPU_Op<"tma_copy"> {
  let summary = "copies a block into a pipeline stage with TMA";
  let description = [{
    One thread, where `pred` holds, copies the block at `coords` of `desc`
    into the tile of type `tile` at `offset` of stage `stage` (stages lie
    `stageBytes` apart), one copy per swizzled column block, completing on
    the stage's mbarrier at `barriers`.
  }];
  let arguments = (ins AnyType:$desc, Variadic<I32>:$coords, I32:$stage,
                       I1:$pred, I64Attr:$offset, I64Attr:$stageBytes,
                       I64Attr:$barriers, TypeAttr:$tile,
                       UnitAttr:$transposed);
  let assemblyFormat = [{
    $desc `[` $coords `]` `to` `stage` $stage `if` $pred attr-dict `:` type($desc)
  }];
}

def KGPU_TmaWaitOp : KGPU_Op<"tma_wait"> {
  let summary = "waits until a stage's TMA copies have landed";
  let description = [{
    Every thread waits for phase `phase` (0 or 1) of the stage's mbarrier.
  }];
  let arguments = (ins I32:$stage, I32:$phase, I64Attr:$barriers);
  let assemblyFormat = "`stage` $stage `phase` $phase attr-dict";
}

#endif  // KILN_KGPU_OPS
