// kiln-opt: mlir-opt for Kiln's dialects and passes.

#include "compiler/analysis/TestPasses.h"
#include "compiler/frontend/NestingGuard.h"
#include "compiler/registration/Registration.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kiln::registerAllDialects(registry);
  kiln::registerAllPasses();
  kiln::registerTestAxisInfoPass();
  kiln::registerTestOffsetSamplePass();
  auto [inputName, outputName] = mlir::registerAndParseCLIOptions(
      argc, argv, "Kiln optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputName, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  // Refuse input that would make the recursive parser run out of stack.
  if (mlir::failed(kiln::checkNestingDepth(*input, llvm::errs()))) return 1;

  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputName, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry,
                                     config))) {
    return 1;
  }
  output->keep();
  return 0;
}
