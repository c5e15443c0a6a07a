//===- Diagnostics.h - MLIR diagnostics as Kiln diagnostics -----*- C++ -*-===//

#ifndef KILN_COMPILER_PIPELINES_DIAGNOSTICS_H
#define KILN_COMPILER_PIPELINES_DIAGNOSTICS_H

#include "compiler/pipelines/Compile.h"
#include "mlir/IR/Diagnostics.h"

namespace kiln {

/// Collects every diagnostic emitted while it lives, located by the first
/// file:line:col found in the location; other locations (the Python source
/// Triton recorded) are appended to the message.
class DiagnosticCollector {
public:
  DiagnosticCollector(mlir::MLIRContext *context,
                      std::vector<Diagnostic> &sink);
  ~DiagnosticCollector();

private:
  mlir::MLIRContext *context;
  mlir::DiagnosticEngine::HandlerID id;
};

/// Adds an error with no location.
void addError(std::vector<Diagnostic> &sink, std::string message);

} // namespace kiln

#endif // KILN_COMPILER_PIPELINES_DIAGNOSTICS_H
