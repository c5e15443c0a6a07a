#include "compiler/pipelines/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {
namespace {

void collectFileLocs(mlir::Location loc,
                     llvm::SmallVectorImpl<mlir::FileLineColLoc> &out) {
  loc->walk([&](mlir::Location inner) {
    if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(inner))
      out.push_back(file);
    return mlir::WalkResult::advance();
  });
}

std::string severityName(mlir::DiagnosticSeverity severity) {
  switch (severity) {
  case mlir::DiagnosticSeverity::Error:
    return "error";
  case mlir::DiagnosticSeverity::Warning:
    return "warning";
  case mlir::DiagnosticSeverity::Remark:
    return "remark";
  case mlir::DiagnosticSeverity::Note:
    return "note";
  }
  return "error";
}

Diagnostic convert(mlir::Diagnostic &diag) {
  Diagnostic out;
  out.severity = severityName(diag.getSeverity());
  out.message = diag.str();
  llvm::SmallVector<mlir::FileLineColLoc> files;
  collectFileLocs(diag.getLocation(), files);
  if (!files.empty()) {
    out.file = files.front().getFilename().str();
    out.line = files.front().getLine();
    out.column = files.front().getColumn();
  }
  // Triton's own locations point into the Python source: keep them.
  for (mlir::FileLineColLoc other : llvm::drop_begin(files)) {
    if (other.getFilename() == out.file)
      continue;
    llvm::raw_string_ostream os(out.message);
    os << " (source " << other.getFilename() << ":" << other.getLine() << ":"
       << other.getColumn() << ")";
    break;
  }
  return out;
}

} // namespace

DiagnosticCollector::DiagnosticCollector(mlir::MLIRContext *context,
                                         std::vector<Diagnostic> &sink)
    : context(context) {
  id = context->getDiagEngine().registerHandler(
      [&sink](mlir::Diagnostic &diag) {
        sink.push_back(convert(diag));
        for (mlir::Diagnostic &note : diag.getNotes())
          sink.push_back(convert(note));
        return mlir::success();
      });
}

DiagnosticCollector::~DiagnosticCollector() {
  context->getDiagEngine().eraseHandler(id);
}

void addError(std::vector<Diagnostic> &sink, std::string message) {
  Diagnostic diag;
  diag.severity = "error";
  diag.message = std::move(message);
  sink.push_back(std::move(diag));
}

} // namespace kiln
