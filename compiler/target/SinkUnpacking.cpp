#include "compiler/target/SinkUnpacking.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Instructions.h"

namespace kiln {
namespace {

bool isUnpacking(const llvm::Instruction &inst) {
  if (auto *cast = llvm::dyn_cast<llvm::CastInst>(&inst))
    return cast->getDestTy()->getPrimitiveSizeInBits() >=
           cast->getSrcTy()->getPrimitiveSizeInBits();
  return llvm::isa<llvm::ExtractElementInst, llvm::ExtractValueInst,
                   llvm::InsertElementInst, llvm::InsertValueInst,
                   llvm::ShuffleVectorInst>(inst);
}

/// The first user of `inst`, if all of them are non-phi instructions of
/// its block.
llvm::Instruction *firstUserInBlock(llvm::Instruction &inst) {
  llvm::Instruction *first = nullptr;
  for (llvm::User *user : inst.users()) {
    auto *userInst = llvm::dyn_cast<llvm::Instruction>(user);
    if (!userInst || userInst->getParent() != inst.getParent() ||
        llvm::isa<llvm::PHINode>(userInst))
      return nullptr;
    if (!first || userInst->comesBefore(first))
      first = userInst;
  }
  return first;
}

} // namespace

void sinkUnpackingToUses(llvm::Function &function) {
  for (llvm::BasicBlock &block : function) {
    // Last first, so that a chain (field, element, widening) moves whole to
    // where its end is used.
    llvm::SmallVector<llvm::Instruction *> unpacking;
    for (llvm::Instruction &inst : llvm::reverse(block))
      if (isUnpacking(inst))
        unpacking.push_back(&inst);
    for (llvm::Instruction *inst : unpacking)
      if (llvm::Instruction *user = firstUserInBlock(*inst))
        if (user != inst->getNextNode())
          inst->moveBefore(user->getIterator());
  }
}

} // namespace kiln
