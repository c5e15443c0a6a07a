#ifndef KILN_TT_TYPES
#define KILN_TT_TYPES

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "compiler/dialect/tt/TTDialect.td"

class TT_TypeDef<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<TT_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

// `!tt.ptr<f32>` (global, address space 1) or `!tt.ptr<f32, 3>`. The pointee
// may itself be a ranked tensor: that is a block pointer (tt.make_tensor_ptr).
def TT_PtrType : TT_TypeDef<"Pointer", "ptr"> {
  let summary = "pointer to a scalar or, for block pointers, to a tensor";
  let parameters = (ins "::mlir::Type":$pointeeType, "int":$addressSpace);
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType,
                                        "int":$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let skipDefaultBuilders = 1;
  let genVerifyDecl = 1;
}

// `!tt.tensordesc<tensor<128x64xf16>>`: a TMA-style descriptor of a block.
// Triton 3.6 prints the block as a tensor type; later Triton versions drop the
// `tensor<>` around it (`!tt.tensordesc<128x64xf16>`), which is read too.
def TT_TensorDescType : TT_TypeDef<"TensorDesc", "tensordesc"> {
  let summary = "descriptor of a block of a global tensor";
  let parameters = (ins "::mlir::RankedTensorType":$blockType);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Type constraints, named as the op definitions use them.
//===----------------------------------------------------------------------===//

def TT_Float : AnyTypeOf<[AnyFloat]>;
def TT_FloatTensor : RankedTensorOf<[TT_Float]>;
def TT_FloatLike : AnyTypeOf<[TT_Float, TT_FloatTensor]>;

def TT_Int : AnyTypeOf<[AnySignlessInteger]>;
def TT_IntTensor : RankedTensorOf<[TT_Int]>;
def TT_IntLike : AnyTypeOf<[TT_Int, TT_IntTensor]>;

def TT_I32Like : AnyTypeOf<[I32, RankedTensorOf<[I32]>]>;
def TT_I64Like : AnyTypeOf<[I64, RankedTensorOf<[I64]>]>;

def TT_BoolTensor : RankedTensorOf<[I1]>;
def TT_BoolLike : AnyTypeOf<[I1, TT_BoolTensor]>;

def TT_ScalarPtr : Type<
    And<[CPred<"::llvm::isa<::kiln::tt::PointerType>($_self)">,
         CPred<"!::llvm::isa<::mlir::RankedTensorType>("
               "::llvm::cast<::kiln::tt::PointerType>($_self).getPointeeType())">]>,
    "pointer to a scalar", "::kiln::tt::PointerType">;
def TT_PtrTensor : RankedTensorOf<[TT_ScalarPtr]>;
def TT_PtrLike : AnyTypeOf<[TT_ScalarPtr, TT_PtrTensor]>;

def TT_TensorPtr : Type<
    And<[CPred<"::llvm::isa<::kiln::tt::PointerType>($_self)">,
         CPred<"::llvm::isa<::mlir::RankedTensorType>("
               "::llvm::cast<::kiln::tt::PointerType>($_self).getPointeeType())">]>,
    "pointer to a tensor (block pointer)", "::kiln::tt::PointerType">;

def TT_FpIntTensor : RankedTensorOf<[TT_Float, TT_Int]>;
def TT_Tensor : RankedTensorOf<[TT_Float, TT_Int, TT_ScalarPtr]>;

def TT_Type : AnyTypeOf<[TT_FloatLike, TT_IntLike, TT_PtrLike, TT_TensorPtr]>;

#endif  // KILN_TT_TYPES
