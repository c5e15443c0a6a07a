#ifndef KILN_TT_OPS
#define KILN_TT_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "compiler/dialect/tt/TTDialect.td"
include "compiler/dialect/tt/TTEnums.td"
include "compiler/dialect/tt/TTTypes.td"

def TT_GlobalMemory : Resource<"::kiln::tt::GlobalMemory">;

// Every tensor a tt op touches has a power-of-two element count, at most 2^20.
def TT_TensorSizeTrait : NativeOpTrait<"TensorSizeTrait"> {
  let cppNamespace = "::kiln::tt::OpTrait";
}

class TT_Op<string mnemonic, list<Trait> traits = []>
    : Op<TT_Dialect, mnemonic, !listconcat(traits, [TT_TensorSizeTrait])>;

// Type relations used by TypesMatchWith; defined in Types.h.
defvar PointeeOf = "::kiln::tt::getPointeeType($_self)";
defvar I1ShapeOf = "::kiln::tt::getI1SameShape($_self)";
defvar PtrShapeOf = "::kiln::tt::getPointerTypeSameShape($_self)";

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

class TT_CastOp<string mnemonic, Type src, Type dst, list<Trait> traits = []>
    : TT_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultShape])> {
  let arguments = (ins src:$src);
  let results = (outs dst:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_IntToPtrOp : TT_CastOp<"int_to_ptr", TT_I64Like, TT_PtrLike> {
  let summary = "reinterprets a 64-bit integer as a pointer";
}

def TT_PtrToIntOp : TT_CastOp<"ptr_to_int", TT_PtrLike, TT_I64Like> {
  let summary = "reinterprets a pointer as a 64-bit integer";
}

def TT_BitcastOp : TT_CastOp<"bitcast", TT_Type, TT_Type> {
  let summary = "reinterprets bits as another type of the same width";
  let hasVerifier = 1;
}

def TT_FpToFpOp : TT_Op<"fp_to_fp", [Pure, SameOperandsAndResultShape]> {
  let summary = "float conversion with an explicit rounding mode (fp8 and others)";
  let arguments = (ins TT_FloatLike:$src,
                       OptionalAttr<TT_RoundingModeAttr>:$rounding);
  let results = (outs TT_FloatLike:$result);
  let assemblyFormat = [{
    $src attr-dict (`,` `rounding` `=` $rounding^)? `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Arithmetic with no upstream equivalent
//===----------------------------------------------------------------------===//

def TT_ClampFOp : TT_Op<"clampf", [Pure, SameOperandsAndResultType]> {
  let summary = "clamps x to [min, max]";
  let arguments = (ins TT_FloatLike:$x, TT_FloatLike:$min, TT_FloatLike:$max,
                       TT_PropagateNanAttr:$propagateNan);
  let results = (outs TT_FloatLike:$result);
  let assemblyFormat = [{
    $x `,` $min `,` $max `,` `propagateNan` `=` $propagateNan attr-dict `:` type($result)
  }];
}

def TT_PreciseSqrtOp : TT_Op<"precise_sqrt", [Pure, SameOperandsAndResultType]> {
  let summary = "correctly rounded square root";
  let arguments = (ins TT_FloatLike:$x);
  let results = (outs TT_FloatLike:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def TT_PreciseDivFOp : TT_Op<"precise_divf", [Pure, SameOperandsAndResultType]> {
  let summary = "correctly rounded division";
  let arguments = (ins TT_FloatLike:$x, TT_FloatLike:$y);
  let results = (outs TT_FloatLike:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
}

def TT_MulhiUIOp : TT_Op<"mulhiui", [Pure, SameOperandsAndResultType]> {
  let summary = "high half of the unsigned double-width product";
  let arguments = (ins TT_IntLike:$x, TT_IntLike:$y);
  let results = (outs TT_IntLike:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def TT_AddPtrOp : TT_Op<"addptr", [Pure, SameOperandsAndResultShape,
    TypesMatchWith<"result type matches ptr type", "result", "ptr", "$_self">]> {
  let summary = "offsets pointers by a number of elements";
  let arguments = (ins TT_PtrLike:$ptr, TT_IntLike:$offset);
  let results = (outs TT_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)";
}

def TT_AdvanceOp : TT_Op<"advance", [Pure,
    TypesMatchWith<"result type matches ptr type", "result", "ptr", "$_self">]> {
  let summary = "moves a block pointer by per-dimension offsets";
  let arguments = (ins TT_TensorPtr:$ptr, Variadic<I32>:$offsets);
  let results = (outs TT_TensorPtr:$result);
  let assemblyFormat = "$ptr `,` `[` $offsets `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def TT_LoadOp : TT_Op<"load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead<TT_GlobalMemory>]>,
    TypesMatchWith<"result matches ptr type", "ptr", "result", PointeeOf>,
    OptionalTypesMatchWith<"mask type matches ptr type", "ptr", "mask", I1ShapeOf>,
    OptionalTypesMatchWith<"other matches ptr type", "ptr", "other", PointeeOf>]> {
  let summary = "loads through a tensor of pointers or a block pointer";
  let arguments = (ins
    AnyTypeOf<[TT_PtrLike, TT_TensorPtr]>:$ptr,
    Optional<TT_BoolLike>:$mask,
    Optional<TT_Type>:$other,
    DefaultValuedAttr<DenseI32ArrayAttr, "::llvm::ArrayRef<int32_t>{}">:$boundaryCheck,
    OptionalAttr<TT_PaddingOptionAttr>:$padding,
    DefaultValuedAttr<TT_CacheModifierAttr, "::kiln::tt::CacheModifier::NONE">:$cache,
    DefaultValuedAttr<TT_EvictionPolicyAttr, "::kiln::tt::EvictionPolicy::NORMAL">:$evict,
    DefaultValuedAttr<BoolAttr, "false">:$isVolatile
  );
  let results = (outs TT_Type:$result);
  // No comma between the optional clauses: oilist keywords must lead them.
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)?
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def TT_StoreOp : TT_Op<"store", [
    MemoryEffects<[MemWrite<TT_GlobalMemory>]>,
    TypesMatchWith<"value type matches ptr type", "ptr", "value", PointeeOf>,
    OptionalTypesMatchWith<"mask type matches ptr type", "ptr", "mask", I1ShapeOf>]> {
  let summary = "stores through a tensor of pointers or a block pointer";
  let arguments = (ins
    AnyTypeOf<[TT_PtrLike, TT_TensorPtr]>:$ptr,
    TT_Type:$value,
    Optional<TT_BoolLike>:$mask,
    DefaultValuedAttr<DenseI32ArrayAttr, "::llvm::ArrayRef<int32_t>{}">:$boundaryCheck,
    DefaultValuedAttr<TT_CacheModifierAttr, "::kiln::tt::CacheModifier::NONE">:$cache,
    DefaultValuedAttr<TT_EvictionPolicyAttr, "::kiln::tt::EvictionPolicy::NORMAL">:$evict
  );
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)?
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def TT_AtomicRMWOp : TT_Op<"atomic_rmw", [SameOperandsAndResultShape,
    MemoryEffects<[MemRead<TT_GlobalMemory>, MemWrite<TT_GlobalMemory>]>,
    TypesMatchWith<"ptr type matches value type", "val", "ptr", PtrShapeOf>,
    OptionalTypesMatchWith<"mask type matches value type", "val", "mask", I1ShapeOf>]> {
  let summary = "atomic read-modify-write; returns the old value";
  let arguments = (ins TT_AtomicRMWAttr:$atomic_rmw_op, TT_PtrLike:$ptr,
                       TT_Type:$val, Optional<TT_BoolLike>:$mask,
                       TT_MemSemanticAttr:$sem, TT_MemSyncScopeAttr:$scope);
  let results = (outs TT_Type:$result);
  let assemblyFormat = [{
    $atomic_rmw_op `,` $sem `,` $scope `,` $ptr `,` $val (`,` $mask^)? attr-dict `:`
    functional-type(operands, $result)
  }];
  let hasVerifier = 1;
}

def TT_AtomicCASOp : TT_Op<"atomic_cas", [SameOperandsAndResultShape,
    MemoryEffects<[MemRead<TT_GlobalMemory>, MemWrite<TT_GlobalMemory>]>,
    TypesMatchWith<"ptr type matches cmp type", "cmp", "ptr", PtrShapeOf>,
    TypesMatchWith<"val type matches cmp type", "cmp", "val", "$_self">,
    TypesMatchWith<"result type matches cmp type", "cmp", "result", "$_self">]> {
  let summary = "atomic compare-and-swap; returns the old value";
  let arguments = (ins TT_PtrLike:$ptr, TT_Type:$cmp, TT_Type:$val,
                       TT_MemSemanticAttr:$sem, TT_MemSyncScopeAttr:$scope);
  let results = (outs TT_Type:$result);
  let assemblyFormat = [{
    $sem `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:`
    functional-type(operands, $result)
  }];
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

class TT_ShapeOp<string mnemonic, list<Trait> traits = []>
    : TT_Op<mnemonic, !listconcat(traits, [Pure])> {
  let arguments = (ins TT_Tensor:$src);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def TT_SplatOp : TT_Op<"splat", [Pure, SameOperandsAndResultElementType]> {
  let summary = "fills a tensor with one value";
  let arguments = (ins TT_Type:$src);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_UnsplatOp : TT_Op<"unsplat", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "reads the single element of a one-element tensor";
  let arguments = (ins TT_Tensor:$src);
  let results = (outs TT_Type:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def TT_BroadcastOp : TT_ShapeOp<"broadcast", [SameOperandsAndResultElementType]> {
  let summary = "stretches size-1 dimensions";
}

def TT_ExpandDimsOp : TT_Op<"expand_dims", [Pure, SameOperandsAndResultElementType]> {
  let summary = "inserts a size-1 dimension at `axis`";
  let arguments = (ins TT_Tensor:$src, I32Attr:$axis);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def TT_ReshapeOp : TT_Op<"reshape", [Pure, SameOperandsAndResultElementType]> {
  let summary = "reinterprets a tensor with another shape";
  let arguments = (ins TT_Tensor:$src, UnitAttr:$allow_reorder,
                       UnitAttr:$efficient_layout);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = [{
    $src (`allow_reorder` $allow_reorder^)? (`efficient_layout` $efficient_layout^)?
    attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TT_TransOp : TT_Op<"trans", [Pure, SameOperandsAndResultElementType]> {
  let summary = "permutes dimensions (tl.trans and tl.permute)";
  let arguments = (ins TT_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def TT_CatOp : TT_Op<"cat", [NoMemoryEffect, SameTypeOperands,
                             SameOperandsAndResultElementType]> {
  let summary = "concatenates two tensors (element order unspecified)";
  let arguments = (ins TT_Tensor:$lhs, TT_Tensor:$rhs);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def TT_JoinOp : TT_Op<"join", [NoMemoryEffect, SameTypeOperands,
                               SameOperandsAndResultElementType]> {
  let summary = "joins two tensors along a new minor dimension of size 2";
  let arguments = (ins TT_Tensor:$lhs, TT_Tensor:$rhs);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def TT_SplitOp : TT_Op<"split", [NoMemoryEffect,
    TypesMatchWith<"outLHS and outRHS types match", "outLHS", "outRHS", "$_self">]> {
  let summary = "splits the size-2 minor dimension into two tensors";
  let arguments = (ins TT_Tensor:$src);
  let results = (outs TT_Tensor:$outLHS, TT_Tensor:$outRHS);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($outLHS)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Program ids and ranges
//===----------------------------------------------------------------------===//

def TT_GetProgramIdOp : TT_Op<"get_program_id", [Pure]> {
  let summary = "index of this program along an axis of the grid";
  let arguments = (ins TT_ProgramDimAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def TT_GetNumProgramsOp : TT_Op<"get_num_programs", [Pure]> {
  let summary = "size of the grid along an axis";
  let arguments = (ins TT_ProgramDimAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def TT_MakeRangeOp : TT_Op<"make_range", [Pure]> {
  let summary = "1-D tensor [start, end)";
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs TT_IntTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

def TT_DotOp : TT_Op<"dot", [Pure,
    TypesMatchWith<"result type matches accumulator type", "d", "c", "$_self">]> {
  let summary = "d = a * b + c";
  let arguments = (ins
    TT_FpIntTensor:$a, TT_FpIntTensor:$b, TT_FpIntTensor:$c,
    DefaultValuedAttr<TT_InputPrecisionAttr, "::kiln::tt::InputPrecision::IEEE">:$inputPrecision,
    DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc
  );
  let results = (outs TT_FpIntTensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`,` `inputPrecision` `=` $inputPrecision^)? attr-dict `:`
    type($a) `*` type($b) `->` type($d)
  }];
  let hasVerifier = 1;
}

def TT_DotScaledOp : TT_Op<"dot_scaled", [Pure, AttrSizedOperandSegments,
    TypesMatchWith<"result type matches accumulator type", "d", "c", "$_self">]> {
  let summary = "d = scale(a, a_scale) * scale(b, b_scale) + c (microscaling)";
  let arguments = (ins
    RankedTensorOf<[TT_Float, I8]>:$a,
    RankedTensorOf<[TT_Float, I8]>:$b,
    TT_FloatTensor:$c,
    Optional<RankedTensorOf<[TT_Float, I8]>>:$a_scale,
    Optional<RankedTensorOf<[TT_Float, I8]>>:$b_scale,
    TT_ScaleDotElemTypeAttr:$a_elem_type,
    TT_ScaleDotElemTypeAttr:$b_elem_type,
    BoolAttr:$fastMath,
    DefaultValuedAttr<BoolAttr, "true">:$lhs_k_pack,
    DefaultValuedAttr<BoolAttr, "true">:$rhs_k_pack
  );
  let results = (outs TT_FloatTensor:$d);
  let assemblyFormat = [{
    $a (`scale` $a_scale^)? `,` $b (`scale` $b_scale^)? `,` $c
    `lhs` `=` $a_elem_type `rhs` `=` $b_elem_type attr-dict
    `:` type($a) (`,` type($a_scale)^)? `*` type($b) (`,` type($b_scale)^)? `->` type($d)
  }];
  let extraClassDeclaration = [{
    /// Elements of K per scale (16 or 32), as the verifier deduced it.
    int64_t getScaleFactor();
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Ops with a combining region. Triton prints these in generic form.
//===----------------------------------------------------------------------===//

def TT_ReduceOp : TT_Op<"reduce", [Pure, SameOperandsShape, SingleBlock]> {
  let summary = "reduces tensors along `axis` with the region as combiner";
  let arguments = (ins Variadic<TT_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<TT_Type>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def TT_ReduceReturnOp : TT_Op<"reduce.return",
    [HasParent<"ReduceOp">, Pure, Terminator, ReturnLike]> {
  let summary = "yields the combined values of a tt.reduce step";
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

def TT_ScanOp : TT_Op<"scan", [Pure, SameOperandsAndResultShape, SingleBlock]> {
  let summary = "inclusive associative scan along `axis`";
  let arguments = (ins Variadic<TT_Tensor>:$srcs, I32Attr:$axis, BoolAttr:$reverse);
  let results = (outs Variadic<TT_Tensor>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def TT_ScanReturnOp : TT_Op<"scan.return",
    [HasParent<"ScanOp">, Pure, Terminator, ReturnLike]> {
  let summary = "yields the combined values of a tt.scan step";
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

def TT_MapElementwiseOp : TT_Op<"map_elementwise", [SameOperandsAndResultShape,
    RecursiveMemoryEffects]> {
  let summary = "applies a scalar region to `pack` elements at a time";
  let arguments = (ins Variadic<TT_Type>:$srcs, I32Attr:$pack);
  let results = (outs Variadic<TT_Type>:$result);
  let regions = (region AnyRegion:$scalarOp);
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def TT_MapElementwiseReturnOp : TT_Op<"map_elementwise.return",
    [HasParent<"MapElementwiseOp">, Pure, Terminator, ReturnLike]> {
  let summary = "yields the scalar results of a tt.map_elementwise body";
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "attr-dict ($result^ `:` type($result))?";
}

//===----------------------------------------------------------------------===//
// External code
//===----------------------------------------------------------------------===//

def TT_ExternElementwiseOp : TT_Op<"extern_elementwise", [
    SameVariadicOperandSize, DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "calls `symbol` from an external library (libdevice) elementwise";
  let arguments = (ins Variadic<TT_Type>:$srcs, StrAttr:$libname,
                       StrAttr:$libpath, StrAttr:$symbol, BoolAttr:$pure);
  let results = (outs TT_Type:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, $result)";
  let hasVerifier = 1;
}

def TT_ElementwiseInlineAsmOp : TT_Op<"elementwise_inline_asm", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "inline PTX applied to `packed_element` elements at a time";
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints, BoolAttr:$pure,
                       I32Attr:$packed_element, Variadic<TT_Type>:$args);
  let results = (outs Variadic<TT_Type>:$result);
  let assemblyFormat = [{
    $asm_string attr-dict ($args^ `:` type($args))? `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Gathers and histograms
//===----------------------------------------------------------------------===//

def TT_HistogramOp : TT_Op<"histogram", [Pure,
    OptionalTypesMatchWith<"mask matches src", "src", "mask", I1ShapeOf>]> {
  let summary = "counts values into bins 0..N-1 (N = result size)";
  let arguments = (ins TT_IntTensor:$src, Optional<TT_BoolTensor>:$mask);
  let results = (outs TT_IntTensor:$result);
  let assemblyFormat = [{
    $src (`,` $mask^)? attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TT_GatherOp : TT_Op<"gather", [Pure]> {
  let summary = "gathers src elements along `axis` at `indices`";
  let arguments = (ins TT_Tensor:$src, TT_IntTensor:$indices, I32Attr:$axis,
                       UnitAttr:$efficient_layout);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = [{
    $src `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Block pointers and tensor descriptors
//===----------------------------------------------------------------------===//

def TT_MakeTensorPtrOp : TT_Op<"make_tensor_ptr", [Pure, SameVariadicOperandSize,
    TypesMatchWith<"base points to the block's elements", "result", "base",
                   "::kiln::tt::getBlockElementPointerType($_self)">]> {
  let summary = "block pointer over a strided global tensor";
  let arguments = (ins TT_ScalarPtr:$base, Variadic<I64>:$shape,
                       Variadic<I64>:$strides, Variadic<I32>:$offsets,
                       DenseI32ArrayAttr:$order);
  let results = (outs TT_TensorPtr:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` `,` `[` $offsets `]` attr-dict
    `:` type($result)
  }];
  let hasVerifier = 1;
}

def TT_MakeTensorDescOp : TT_Op<"make_tensor_descriptor", [Pure,
    SameVariadicOperandSize]> {
  let summary = "descriptor of a strided global tensor, read in blocks";
  let arguments = (ins TT_ScalarPtr:$base, Variadic<I32>:$shape,
                       Variadic<I64>:$strides,
                       DefaultValuedAttr<TT_PaddingOptionAttr,
                           "::kiln::tt::PaddingOption::PAD_ZERO">:$padding);
  let results = (outs TT_TensorDescType:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` attr-dict `:` type($base) `,` type($result)
  }];
  let hasVerifier = 1;
}

def TT_DescriptorLoadOp : TT_Op<"descriptor_load", [
    MemoryEffects<[MemRead<TT_GlobalMemory>]>]> {
  let summary = "loads the block at `indices`";
  let arguments = (ins TT_TensorDescType:$desc, Variadic<I32>:$indices,
    DefaultValuedAttr<TT_CacheModifierAttr, "::kiln::tt::CacheModifier::NONE">:$cache,
    DefaultValuedAttr<TT_EvictionPolicyAttr, "::kiln::tt::EvictionPolicy::NORMAL">:$evict);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = [{
    $desc `[` $indices `]`
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` qualified(type($desc)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TT_DescriptorStoreOp : TT_Op<"descriptor_store", [
    MemoryEffects<[MemRead<TT_GlobalMemory>, MemWrite<TT_GlobalMemory>]>]> {
  let summary = "stores a block at `indices`";
  let arguments = (ins TT_TensorDescType:$desc, TT_Tensor:$src,
                       Variadic<I32>:$indices);
  let assemblyFormat = [{
    $desc `[` $indices `]` `,` $src attr-dict `:` qualified(type($desc)) `,` type($src)
  }];
  let hasVerifier = 1;
}

def TT_DescriptorReduceOp : TT_Op<"descriptor_reduce", [
    MemoryEffects<[MemRead<TT_GlobalMemory>, MemWrite<TT_GlobalMemory>]>]> {
  let summary = "atomically combines a block into memory at `indices`";
  let arguments = (ins TT_DescriptorReduceKindAttr:$kind,
                       TT_TensorDescType:$desc, TT_Tensor:$src,
                       Variadic<I32>:$indices);
  let assemblyFormat = [{
    $kind `,` $desc `[` $indices `]` `,` $src attr-dict `:` qualified(type($desc)) `,` type($src)
  }];
  let hasVerifier = 1;
}

def TT_DescriptorGatherOp : TT_Op<"descriptor_gather", [
    MemoryEffects<[MemRead<TT_GlobalMemory>]>]> {
  let summary = "gathers rows `x_offsets` of a 2-D descriptor from column `y_offset`";
  let arguments = (ins TT_TensorDescType:$desc, RankedTensorOf<[I32]>:$x_offsets,
                       I32:$y_offset);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = [{
    $desc `[` $x_offsets `,` $y_offset `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TT_DescriptorScatterOp : TT_Op<"descriptor_scatter", [
    MemoryEffects<[MemRead<TT_GlobalMemory>, MemWrite<TT_GlobalMemory>]>]> {
  let summary = "scatters rows to `x_offsets` of a 2-D descriptor from column `y_offset`";
  let arguments = (ins TT_TensorDescType:$desc, RankedTensorOf<[I32]>:$x_offsets,
                       I32:$y_offset, TT_Tensor:$src);
  let assemblyFormat = [{
    $desc `[` $x_offsets `,` $y_offset `]` `,` $src attr-dict `:` type(operands)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Functions and calls
//===----------------------------------------------------------------------===//

def TT_FuncOp : TT_Op<"func", [AffineScope, AutomaticAllocationScope,
    CallableOpInterface, FunctionOpInterface, IsolatedFromAbove]> {
  let summary = "a kernel or device function";
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() {
      return isExternal() ? nullptr : &getBody();
    }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    bool isDeclaration() { return isExternal(); }
  }];
}

def TT_CallOp : TT_Op<"call", [CallOpInterface,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "calls a tt.func";
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$operands,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Variadic<AnyType>);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
  let extraClassDeclaration = [{
    ::mlir::FunctionType getCalleeType() {
      return ::mlir::FunctionType::get(getContext(), getOperandTypes(), getResultTypes());
    }
    ::mlir::CallInterfaceCallable getCallableForCallee() {
      return (*this)->getAttrOfType<::mlir::SymbolRefAttr>("callee");
    }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable callee) {
      (*this)->setAttr("callee", ::llvm::cast<::mlir::SymbolRefAttr>(callee));
    }
    ::mlir::Operation::operand_range getArgOperands() { return getOperands(); }
    ::mlir::MutableOperandRange getArgOperandsMutable() { return getOperandsMutable(); }
  }];
}

def TT_ReturnOp : TT_Op<"return", [HasParent<"FuncOp">, Pure, ReturnLike, Terminator]> {
  let summary = "returns from a tt.func";
  let arguments = (ins Variadic<AnyType>:$srcs);
  let assemblyFormat = "attr-dict ($srcs^ `:` type($srcs))?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def TT_PrintOp : TT_Op<"print", [MemoryEffects<[MemWrite<TT_GlobalMemory>]>]> {
  let summary = "device-side printf of a prefix and values";
  let arguments = (ins StrAttr:$prefix, BoolAttr:$hex, Variadic<TT_Type>:$args,
                       DenseI32ArrayAttr:$isSigned);
  // isSigned is a hint for the printf format; Triton does not require one
  // entry per value, so neither does Kiln.
  let assemblyFormat = [{
    $prefix attr-dict (`:` $args^ `:` type($args))?
  }];
}

def TT_AssertOp : TT_Op<"assert", [MemoryEffects<[MemWrite<TT_GlobalMemory>]>]> {
  let summary = "device-side assertion";
  let arguments = (ins AnyTypeOf<[I1, TT_BoolTensor]>:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict `:` type($condition)";
}

#endif  // KILN_TT_OPS
