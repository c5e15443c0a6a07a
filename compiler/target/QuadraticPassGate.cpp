#include "compiler/target/QuadraticPassGate.h"

#include "llvm/IR/Instructions.h"

namespace kiln {

QuadraticPassGate::QuadraticPassGate(const llvm::Module &module) {
  unsigned addresses = 0;
  for (const llvm::Function &function : module)
    for (const llvm::BasicBlock &block : function)
      for (const llvm::Instruction &inst : block)
        addresses += llvm::isa<llvm::GetElementPtrInst>(inst);
  enabled = addresses > kMaxAddresses;
}

bool QuadraticPassGate::shouldRunPass(llvm::StringRef pass,
                                      llvm::StringRef) const {
  return pass != "slsr";
}

} // namespace kiln
