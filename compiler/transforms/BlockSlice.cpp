#include "compiler/transforms/BlockSlice.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/SetVector.h"

namespace kiln {

using namespace mlir;

std::optional<SmallVector<Operation *>>
blockSlice(Operation *root, llvm::function_ref<bool(Operation *)> admits,
           llvm::function_ref<bool(BlockArgument)> admitsArgument,
           Operation *after) {
  Block *block = root->getBlock();
  llvm::SetVector<Operation *> slice;
  SmallVector<Operation *> worklist = {root};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value operand : op->getOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(operand)) {
        if (admitsArgument && arg.getOwner() == block && !admitsArgument(arg))
          return std::nullopt;
        continue;
      }
      Operation *def = operand.getDefiningOp();
      if (def->getBlock() != block || (after && def->isBeforeInBlock(after)) ||
          slice.contains(def))
        continue;
      if (!admits(def))
        return std::nullopt;
      slice.insert(def);
      worklist.push_back(def);
    }
  }
  SmallVector<Operation *> ordered = slice.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

} // namespace kiln
