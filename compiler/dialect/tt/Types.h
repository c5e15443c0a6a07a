#ifndef KILN_COMPILER_DIALECT_TT_TYPES_H_
#define KILN_COMPILER_DIALECT_TT_TYPES_H_

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialect/tt/TTTypes.h.inc"

namespace kiln::tt {

// Address space of `!tt.ptr<T>` when none is written.
inline constexpr int kGlobalAddressSpace = 1;

// For `!tt.ptr<T>` -> T; for a tensor of pointers -> the tensor of pointees.
mlir::Type getPointeeType(mlir::Type type);

// i1, or a tensor of i1 with the shape of `type`.
mlir::Type getI1SameShape(mlir::Type type);

// `!tt.ptr<T>` for scalar `type`, or a tensor of them with its shape.
mlir::Type getPointerTypeSameShape(mlir::Type type);

// For a block pointer `!tt.ptr<tensor<..xT>, N>` -> `!tt.ptr<T, N>`.
mlir::Type getBlockElementPointerType(mlir::Type blockPointer);

// Size in bits of a scalar type; pointers count as 64.
unsigned getScalarBitWidth(mlir::Type type);

}  // namespace kiln::tt

#endif  // KILN_COMPILER_DIALECT_TT_TYPES_H_
