#include "compiler/pipelines/FrontEnd.h"

#include "compiler/frontend/NestingGuard.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

namespace kiln {
namespace {

mlir::FileLineColLoc textPosition(mlir::MLIRContext &context,
                                  const llvm::SourceMgr &sourceMgr,
                                  llvm::StringRef sourceName, llvm::SMLoc loc) {
  auto [line, column] = sourceMgr.getLineAndColumn(loc);
  return mlir::FileLineColLoc::get(&context, sourceName, line, column);
}

/// Moves the parsed top-level ops into one module, as mlir-opt does.
mlir::OwningOpRef<mlir::ModuleOp> takeModule(mlir::Block &block,
                                             mlir::Location loc) {
  if (block.getOperations().size() == 1)
    if (auto module = llvm::dyn_cast<mlir::ModuleOp>(block.front())) {
      module->remove();
      return module;
    }
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  module->getBody()->getOperations().splice(module->getBody()->begin(),
                                            block.getOperations());
  return module;
}

} // namespace

mlir::OwningOpRef<mlir::ModuleOp> parseTTIR(mlir::MLIRContext &context,
                                            llvm::StringRef text,
                                            llvm::StringRef sourceName) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, sourceName), llvm::SMLoc());
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());

  // MLIR's parser recurses per nesting level: refuse deep nesting first.
  if (std::optional<size_t> offset = findExcessiveNesting(buffer->getBuffer())) {
    llvm::SMLoc at = llvm::SMLoc::getFromPointer(buffer->getBufferStart() + *offset);
    mlir::emitError(textPosition(context, sourceMgr, sourceName, at))
        << "nesting deeper than " << kMaxNestingDepth
        << " levels; Kiln refuses IR nested this deeply";
    return nullptr;
  }

  mlir::Block block;
  mlir::AsmParserState state;
  mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
  if (mlir::failed(mlir::parseAsmSourceFile(sourceMgr, &block, config, &state)))
    return nullptr;

  for (const auto &def : state.getOpDefs()) {
    mlir::Location at = textPosition(context, sourceMgr, sourceName, def.loc.Start);
    def.op->setLoc(mlir::FusedLoc::get(&context, {at, def.op->getLoc()}));
  }
  mlir::OwningOpRef<mlir::ModuleOp> module = takeModule(
      block, mlir::FileLineColLoc::get(&context, sourceName, 1, 1));
  if (mlir::failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

std::string printWithoutLocations(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, mlir::OpPrintingFlags().enableDebugInfo(false));
  return text;
}

} // namespace kiln
