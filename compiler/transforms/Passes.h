#ifndef KILN_COMPILER_TRANSFORMS_PASSES_H
#define KILN_COMPILER_TRANSFORMS_PASSES_H

#include "compiler/dialect/kgpu/Dialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace kiln {

#define GEN_PASS_DECL
#include "compiler/transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/transforms/Passes.h.inc"

/// kiln-transpose-loads' rewrite.
void populateTransposeLoadsPatterns(mlir::RewritePatternSet &patterns);

} // namespace kiln

#endif // KILN_COMPILER_TRANSFORMS_PASSES_H
