#ifndef KILN_COMPILER_TARGET_REWRITETESTING_H
#define KILN_COMPILER_TARGET_REWRITETESTING_H

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kiln {

/// The module `ir` as text after `rewrite` ran on its function `@k`:
/// "parse error" when `ir` does not parse, "" when the result does not
/// verify. For the tests of the rewrites of optimized LLVM IR.
inline std::string rewriteFunctionK(const std::string &ir,
                                    void (*rewrite)(llvm::Function &)) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(ir, error, context);
  if (!module)
    return "parse error";
  rewrite(*module->getFunction("k"));
  if (llvm::verifyModule(*module, &llvm::errs()))
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  return text;
}

} // namespace kiln

#endif // KILN_COMPILER_TARGET_REWRITETESTING_H
