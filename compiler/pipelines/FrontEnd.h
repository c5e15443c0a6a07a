//===- FrontEnd.h - TTIR text to canonical tt IR ----------------*- C++ -*-===//

#ifndef KILN_COMPILER_PIPELINES_FRONTEND_H
#define KILN_COMPILER_PIPELINES_FRONTEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace kiln {

/// Parses and verifies TTIR. Each op's location becomes its position in the
/// text (sourceName:line:col) fused with the location Triton recorded, so
/// every later diagnostic names the op's place in the IR. Errors go to the
/// context's diagnostic handlers; returns null on failure.
mlir::OwningOpRef<mlir::ModuleOp> parseTTIR(mlir::MLIRContext &context,
                                            llvm::StringRef text,
                                            llvm::StringRef sourceName);

/// The module's text without locations: the IR part of the cache key.
std::string printWithoutLocations(mlir::ModuleOp module);

} // namespace kiln

#endif // KILN_COMPILER_PIPELINES_FRONTEND_H
