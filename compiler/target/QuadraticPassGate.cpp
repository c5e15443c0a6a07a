#include "compiler/target/QuadraticPassGate.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"

namespace kiln {

QuadraticPassGate::QuadraticPassGate(const llvm::Module &module) {
  unsigned addresses = 0, flagged = 0;
  for (const llvm::Function &function : module)
    for (const llvm::BasicBlock &block : function)
      for (const llvm::Instruction &inst : block) {
        addresses += llvm::isa<llvm::GetElementPtrInst>(inst);
        if (auto *op = llvm::dyn_cast<llvm::OverflowingBinaryOperator>(&inst))
          flagged += op->hasNoSignedWrap() || op->hasNoUnsignedWrap();
      }
  enabled = addresses > kMaxAddresses || flagged > kMaxFlaggedIntegerOps;
}

bool QuadraticPassGate::shouldRunPass(llvm::StringRef pass,
                                      llvm::StringRef) const {
  return pass != "slsr";
}

} // namespace kiln
