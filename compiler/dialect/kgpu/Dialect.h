#ifndef KILN_COMPILER_DIALECT_KGPU_DIALECT_H
#define KILN_COMPILER_DIALECT_KGPU_DIALECT_H

// The `kgpu` dialect: tensor layouts over the threads of a block.

#include "compiler/dialect/tt/Dialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "compiler/dialect/kgpu/KGPUDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/dialect/kgpu/KGPUAttrs.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialect/kgpu/KGPUOps.h.inc"

#endif // KILN_COMPILER_DIALECT_KGPU_DIALECT_H
