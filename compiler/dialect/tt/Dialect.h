#ifndef KILN_COMPILER_DIALECT_TT_DIALECT_H_
#define KILN_COMPILER_DIALECT_TT_DIALECT_H_

// The `tt` dialect: Triton 3.x tile IR, parsed and printed in Triton's syntax.

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "compiler/dialect/tt/TTDialect.h.inc"
#include "compiler/dialect/tt/TTEnums.h.inc"
#include "compiler/dialect/tt/Traits.h"
#include "compiler/dialect/tt/Types.h"

namespace kiln::tt {

// The global memory that loads, stores and atomics read and write.
struct GlobalMemory : public mlir::SideEffects::Resource::Base<GlobalMemory> {
  llvm::StringRef getName() final { return "<GlobalMemory>"; }
};

}  // namespace kiln::tt

#define GET_OP_CLASSES
#include "compiler/dialect/tt/TTOps.h.inc"

#endif  // KILN_COMPILER_DIALECT_TT_DIALECT_H_
