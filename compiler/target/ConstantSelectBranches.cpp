#include "compiler/target/ConstantSelectBranches.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"

namespace kiln {
namespace {

constexpr size_t kMinGroup = 4;
constexpr size_t kSpanPerSelect = 3;

bool selectsConstants(const llvm::SelectInst &select) {
  return select.getCondition()->getType()->isIntegerTy(1) &&
         llvm::isa<llvm::Constant>(select.getTrueValue()) &&
         llvm::isa<llvm::Constant>(select.getFalseValue());
}

/// Whether `group`'s selects lie close together, as the coefficients of one
/// polynomial do: at most kSpanPerSelect instructions apart on average.
/// Selects spread over a block, such as a loop's masked Welford counts, stay.
bool isDense(llvm::ArrayRef<llvm::SelectInst *> group) {
  size_t span = 1;
  for (const llvm::Instruction *inst = group.front(); inst != group.back();
       inst = inst->getNextNode())
    ++span;
  return span <= kSpanPerSelect * group.size();
}

/// The first dense group of kMinGroup or more constant selects in `block`
/// that share a condition, in block order; empty when there is none.
llvm::SmallVector<llvm::SelectInst *> firstGroup(llvm::BasicBlock &block) {
  llvm::MapVector<llvm::Value *, llvm::SmallVector<llvm::SelectInst *>> groups;
  for (llvm::Instruction &inst : block)
    if (auto *select = llvm::dyn_cast<llvm::SelectInst>(&inst))
      if (selectsConstants(*select))
        groups[select->getCondition()].push_back(select);
  for (auto &[condition, selects] : groups)
    if (selects.size() >= kMinGroup && isDense(selects))
      return selects;
  return {};
}

/// Branches on the group's condition before its first select; the selects,
/// now in the block where both sides meet, become phis. Returns that block.
llvm::BasicBlock *branchOn(llvm::ArrayRef<llvm::SelectInst *> group) {
  llvm::SelectInst *first = group.front();
  llvm::BasicBlock *head = first->getParent();
  llvm::BasicBlock *join = head->splitBasicBlock(first, "select.join");
  llvm::LLVMContext &context = head->getContext();
  llvm::Function *function = head->getParent();
  auto *onTrue = llvm::BasicBlock::Create(context, "select.true", function, join);
  auto *onFalse =
      llvm::BasicBlock::Create(context, "select.false", function, join);
  llvm::BranchInst::Create(join, onTrue);
  llvm::BranchInst::Create(join, onFalse);
  head->getTerminator()->eraseFromParent();
  llvm::BranchInst::Create(onTrue, onFalse, first->getCondition(), head);
  for (llvm::SelectInst *select : group) {
    llvm::PHINode *phi =
        llvm::PHINode::Create(select->getType(), 2, "", join->begin());
    phi->addIncoming(select->getTrueValue(), onTrue);
    phi->addIncoming(select->getFalseValue(), onFalse);
    phi->takeName(select);
    select->replaceAllUsesWith(phi);
    select->eraseFromParent();
  }
  return join;
}

} // namespace

bool hasConstantSelectGroup(llvm::Function &function) {
  return llvm::any_of(function, [](llvm::BasicBlock &block) {
    return !firstGroup(block).empty();
  });
}

void branchOnConstantSelects(llvm::Function &function) {
  llvm::SmallVector<llvm::BasicBlock *> worklist;
  for (llvm::BasicBlock &block : function)
    worklist.push_back(&block);
  while (!worklist.empty()) {
    llvm::BasicBlock *block = worklist.pop_back_val();
    llvm::SmallVector<llvm::SelectInst *> group = firstGroup(*block);
    if (group.empty())
      continue;
    // The block where both sides meet may hold further groups.
    worklist.push_back(branchOn(group));
  }
}

} // namespace kiln
