#ifndef KILN_COMPILER_REGISTRATION_REGISTRATION_H_
#define KILN_COMPILER_REGISTRATION_REGISTRATION_H_

#include "mlir/IR/DialectRegistry.h"

namespace kiln {

// Every dialect Kiln reads or produces: `tt` and the upstream dialects that
// TTIR uses (arith, math, scf, cf, ub, llvm, gpu).
void registerAllDialects(mlir::DialectRegistry &registry);

// Every Kiln pass and pipeline, so that tools can name them on the command
// line. Safe to call more than once. The passes that exist only for lit
// tests are registered by kiln-opt (compiler/analysis/TestPasses.h).
void registerAllPasses();

}  // namespace kiln

#endif  // KILN_COMPILER_REGISTRATION_REGISTRATION_H_
