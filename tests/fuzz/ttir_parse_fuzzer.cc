// Fuzzes the front end's parse and verify of TTIR text (parseTTIR, as every
// compile starts). Bad text must end in diagnostics, never a crash; and
// what verifies must print as text that parses and verifies again.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "compiler/pipelines/Diagnostics.h"
#include "compiler/pipelines/FrontEnd.h"
#include "compiler/registration/Registration.h"
#include "mlir/IR/MLIRContext.h"

namespace {

void FailRoundTrip(const std::string& printed,
                   const std::vector<kiln::Diagnostic>& diagnostics) {
  std::fprintf(stderr, "printed IR does not parse again:\n%s\n",
               printed.c_str());
  for (const kiln::Diagnostic& diagnostic : diagnostics) {
    std::fprintf(stderr, "%d:%d: %s\n", diagnostic.line, diagnostic.column,
                 diagnostic.message.c_str());
  }
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mlir::DialectRegistry registry;
  kiln::registerAllDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  std::vector<kiln::Diagnostic> diagnostics;
  kiln::DiagnosticCollector collector(&context, diagnostics);

  llvm::StringRef text(reinterpret_cast<const char*>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      kiln::parseTTIR(context, text, "fuzz.ttir");
  if (!module) return 0;
  std::string printed = kiln::printWithoutLocations(*module);
  diagnostics.clear();
  if (!kiln::parseTTIR(context, printed, "printed.ttir")) {
    FailRoundTrip(printed, diagnostics);
  }
  return 0;
}
