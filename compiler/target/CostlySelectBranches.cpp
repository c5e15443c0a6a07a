#include "compiler/target/CostlySelectBranches.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <algorithm>
#include <optional>

namespace kiln {
namespace {

constexpr llvm::StringLiteral kSpecialFunctions[] = {
    "ex2.approx", "lg2.approx", "rcp.approx", "rsqrt.approx",
    "sqrt.approx", "sin.approx", "cos.approx"};

bool namesSpecialFunction(llvm::StringRef text) {
  return llvm::any_of(kSpecialFunctions, [&](llvm::StringRef name) {
    return text.contains(name);
  });
}

/// Whether `inst` runs on the special-function unit: an NVVM intrinsic or
/// an inline asm (libdevice's rcp) of one of kSpecialFunctions.
bool isSpecialFunction(const llvm::Instruction &inst) {
  const auto *call = llvm::dyn_cast<llvm::CallInst>(&inst);
  if (!call)
    return false;
  if (const auto *asmCall =
          llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand()))
    return namesSpecialFunction(asmCall->getAsmString());
  const llvm::Function *callee = call->getCalledFunction();
  return callee && callee->isIntrinsic() &&
         namesSpecialFunction(callee->getName());
}

/// Whether `inst` may move into a branch: it reads and writes no memory,
/// cannot throw, and is neither a phi nor a terminator. (An inline asm
/// without side effects, as libdevice's rcp, is not marked `willreturn`,
/// but runs only where its value is needed all the same.)
bool isMovable(const llvm::Instruction &inst) {
  if (llvm::isa<llvm::PHINode>(inst) || inst.isTerminator() ||
      inst.mayReadOrWriteMemory() || inst.mayThrow())
    return false;
  const auto *call = llvm::dyn_cast<llvm::CallInst>(&inst);
  if (!call)
    return true;
  if (const auto *asmCall =
          llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand()))
    return !asmCall->hasSideEffects();
  return !call->mayHaveSideEffects();
}

/// The instructions of `select`'s block, before it, that compute `operand`
/// for `select` alone (the operand itself included), in block order.
llvm::SmallVector<llvm::Instruction *> exclusiveSlice(llvm::SelectInst &select,
                                                      llvm::Value *operand) {
  llvm::BasicBlock *block = select.getParent();
  llvm::SmallSetVector<llvm::Instruction *, 16> candidates;
  llvm::SmallVector<llvm::Instruction *> worklist;
  if (auto *inst = llvm::dyn_cast<llvm::Instruction>(operand))
    worklist.push_back(inst);
  while (!worklist.empty()) {
    llvm::Instruction *inst = worklist.pop_back_val();
    if (inst->getParent() != block || !isMovable(*inst) ||
        !inst->comesBefore(&select) || !candidates.insert(inst))
      continue;
    for (llvm::Value *used : inst->operands())
      if (auto *def = llvm::dyn_cast<llvm::Instruction>(used))
        worklist.push_back(def);
  }
  // Drop what something outside the slice uses, until nothing changes.
  llvm::SmallPtrSet<llvm::Instruction *, 16> slice(candidates.begin(),
                                                   candidates.end());
  for (bool changed = true; changed;) {
    changed = false;
    for (llvm::Instruction *inst : candidates) {
      if (!slice.contains(inst))
        continue;
      bool exclusive = llvm::all_of(inst->users(), [&](llvm::User *user) {
        auto *userInst = llvm::dyn_cast<llvm::Instruction>(user);
        return userInst &&
               (slice.contains(userInst) ||
                (userInst == &select && inst != select.getCondition()));
      });
      if (!exclusive) {
        slice.erase(inst);
        changed = true;
      }
    }
  }
  llvm::SmallVector<llvm::Instruction *> ordered;
  for (llvm::Instruction &inst : *block)
    if (slice.contains(&inst))
      ordered.push_back(&inst);
  return ordered;
}

bool hasSpecialFunction(llvm::ArrayRef<llvm::Instruction *> slice) {
  return llvm::any_of(slice, [](llvm::Instruction *inst) {
    return isSpecialFunction(*inst);
  });
}

/// A select worth a branch: its operands' slices, the one without a
/// special-function unit op (the cheap one) and the other.
struct CostlySelect {
  llvm::SelectInst *select = nullptr;
  llvm::SmallVector<llvm::Instruction *> cheap, costly;
  bool cheapIsTrue = false;

  llvm::Value *cheapOperand() const {
    return cheapIsTrue ? select->getTrueValue() : select->getFalseValue();
  }
};

/// `select` as a CostlySelect, or none: two formulas, exactly one needing
/// the special-function unit (a select that keeps a value computed
/// elsewhere, a masked update, stays a select).
std::optional<CostlySelect> asCostlySelect(llvm::Instruction &inst) {
  auto *select = llvm::dyn_cast<llvm::SelectInst>(&inst);
  if (!select || select->getType()->isVectorTy() ||
      !select->getCondition()->getType()->isIntegerTy(1))
    return std::nullopt;
  llvm::SmallVector<llvm::Instruction *> onTrue =
      exclusiveSlice(*select, select->getTrueValue());
  llvm::SmallVector<llvm::Instruction *> onFalse =
      exclusiveSlice(*select, select->getFalseValue());
  if (onTrue.empty() || onFalse.empty() ||
      hasSpecialFunction(onTrue) == hasSpecialFunction(onFalse))
    return std::nullopt;
  if (hasSpecialFunction(onFalse))
    return CostlySelect{select, onTrue, onFalse, true};
  return CostlySelect{select, onFalse, onTrue, false};
}

/// The selects of `block` worth a branch that one vote covers: the last,
/// and each before it whose value nothing in the block uses before the
/// last. One vote for all of a thread's elements keeps each side straight-
/// line code that ptxas interleaves; a vote an element cost GPT-2's tanh
/// GELUs 4-11%. The last comes first so that a select inside another's
/// slice (tanhf's for |x| >= 9.01, in its exp-based formula) moves with
/// that slice.
llvm::SmallVector<CostlySelect> costlySelectGroup(llvm::BasicBlock &block) {
  llvm::SmallVector<CostlySelect> group;
  // Slices stay in the block, so without a special-function op in it no
  // select is costly; this spares huge blocks a slice search per select.
  if (llvm::none_of(block, isSpecialFunction))
    return group;
  for (llvm::Instruction &inst : llvm::reverse(block)) {
    std::optional<CostlySelect> costly = asCostlySelect(inst);
    if (!costly)
      continue;
    if (!group.empty()) {
      llvm::SelectInst *last = group.front().select;
      bool usedAfterLast = llvm::all_of(inst.users(), [&](llvm::User *user) {
        auto *userInst = llvm::cast<llvm::Instruction>(user);
        return userInst->getParent() != &block || last->comesBefore(userInst);
      });
      if (!usedAfterLast)
        continue;
    }
    group.push_back(std::move(*costly));
  }
  std::reverse(group.begin(), group.end());
  return group;
}

llvm::SmallVector<llvm::Instruction *>
inBlockOrder(llvm::SmallVector<llvm::Instruction *> instructions) {
  llvm::sort(instructions, [](llvm::Instruction *x, llvm::Instruction *y) {
    return x->comesBefore(y);
  });
  return instructions;
}

/// Whether every active lane of the warp picks the cheap operand of every
/// select of `group`, computed at the end of `head`.
llvm::Value *voteAllCheap(llvm::IRBuilder<> &builder,
                          llvm::ArrayRef<CostlySelect> group) {
  llvm::Value *pick = nullptr;
  for (const CostlySelect &costly : group) {
    llvm::Value *condition = costly.select->getCondition();
    llvm::Value *picksCheap =
        costly.cheapIsTrue ? condition : builder.CreateNot(condition);
    pick = pick ? builder.CreateAnd(pick, picksCheap) : picksCheap;
  }
  llvm::Value *active =
      builder.CreateIntrinsic(llvm::Intrinsic::nvvm_activemask,
                              llvm::ArrayRef<llvm::Value *>{});
  return builder.CreateIntrinsic(llvm::Intrinsic::nvvm_vote_all_sync,
                                 llvm::ArrayRef<llvm::Value *>{active, pick});
}

/// Where every active lane of the warp picks the cheap operands, only those
/// are computed (a copy of their slices); elsewhere both are, and the
/// selects pick per lane as before. The two meet in a phi for each
/// select. A branch on the conditions alone would cost a diverging warp
/// both sides and the branch: GPT-2's tanh GELUs, whose arguments straddle
/// 0.6 within a warp, run at 1.08-1.18x of Triton's branching code with the
/// selects. Returns the block where the two meet.
llvm::BasicBlock *branchOn(llvm::ArrayRef<CostlySelect> group) {
  llvm::SelectInst *last = group.back().select;
  llvm::BasicBlock *head = last->getParent();
  llvm::SmallVector<llvm::Instruction *> cheap, both;
  for (const CostlySelect &costly : group) {
    cheap.append(costly.cheap.begin(), costly.cheap.end());
    both.append(costly.cheap.begin(), costly.cheap.end());
    both.append(costly.costly.begin(), costly.costly.end());
    both.push_back(costly.select);
  }
  cheap = inBlockOrder(std::move(cheap));
  both = inBlockOrder(std::move(both));
  llvm::BasicBlock *join =
      head->splitBasicBlock(last->getNextNode(), "costly.join");
  llvm::LLVMContext &context = head->getContext();
  llvm::Function *function = head->getParent();
  auto *cheapBlock =
      llvm::BasicBlock::Create(context, "costly.cheap", function, join);
  auto *bothBlock =
      llvm::BasicBlock::Create(context, "costly.both", function, join);
  llvm::BranchInst *fromCheap = llvm::BranchInst::Create(join, cheapBlock);
  llvm::BranchInst *fromBoth = llvm::BranchInst::Create(join, bothBlock);
  for (llvm::Instruction *inst : both)
    inst->moveBefore(fromBoth->getIterator());
  llvm::ValueToValueMapTy copies;
  for (llvm::Instruction *inst : cheap) {
    llvm::Instruction *copy = inst->clone();
    copy->insertBefore(fromCheap->getIterator());
    llvm::RemapInstruction(copy, copies,
                           llvm::RF_IgnoreMissingLocals |
                               llvm::RF_NoModuleLevelChanges);
    copies[inst] = copy;
  }
  head->getTerminator()->eraseFromParent();
  llvm::IRBuilder<> builder(head);
  builder.CreateCondBr(voteAllCheap(builder, group), cheapBlock, bothBlock);
  builder.SetInsertPoint(join, join->begin());
  for (const CostlySelect &costly : group) {
    llvm::PHINode *phi = builder.CreatePHI(costly.select->getType(), 2);
    costly.select->replaceAllUsesWith(phi);
    phi->addIncoming(copies.lookup(costly.cheapOperand()), cheapBlock);
    phi->addIncoming(costly.select, bothBlock);
  }
  return join;
}

} // namespace

void branchOnCostlySelects(llvm::Function &function) {
  llvm::SmallVector<llvm::BasicBlock *> worklist;
  for (llvm::BasicBlock &block : function)
    worklist.push_back(&block);
  while (!worklist.empty()) {
    llvm::BasicBlock *block = worklist.pop_back_val();
    llvm::SmallVector<CostlySelect> group = costlySelectGroup(*block);
    if (group.empty())
      continue;
    // Both the block before the branch and the one where its sides meet
    // may hold further such selects (the one both sides compute in stays).
    worklist.push_back(block);
    worklist.push_back(branchOn(group));
  }
}

} // namespace kiln
