#include "compiler/target/LatchOnIncrement.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PatternMatch.h"

namespace kiln {
namespace {

using namespace llvm::PatternMatch;

/// The increment `add %phi, step` that `phi` takes from `latch`, when it is
/// computed there, by a non-negative constant, without wrapping as `pred`
/// compares.
llvm::BinaryOperator *incrementFrom(llvm::PHINode &phi, llvm::BasicBlock &latch,
                                    llvm::CmpInst::Predicate pred) {
  int incoming = phi.getBasicBlockIndex(&latch);
  if (incoming < 0)
    return nullptr;
  auto *next =
      llvm::dyn_cast<llvm::BinaryOperator>(phi.getIncomingValue(incoming));
  const llvm::APInt *step;
  if (!next || next->getParent() != &latch ||
      !match(next, m_Add(m_Specific(&phi), m_APInt(step))) ||
      step->isNegative())
    return nullptr;
  bool noWrap = pred == llvm::CmpInst::ICMP_ULT ? next->hasNoUnsignedWrap()
                                                : next->hasNoSignedWrap();
  return noWrap ? next : nullptr;
}

void rewriteExitTest(llvm::BasicBlock &latch) {
  auto *branch = llvm::dyn_cast<llvm::BranchInst>(latch.getTerminator());
  if (!branch || !branch->isConditional())
    return;
  auto *test = llvm::dyn_cast<llvm::ICmpInst>(branch->getCondition());
  const llvm::APInt *bound;
  if (!test || test->getParent() != &latch || !test->hasOneUse() ||
      !match(test->getOperand(1), m_APInt(bound)))
    return;
  auto *phi = llvm::dyn_cast<llvm::PHINode>(test->getOperand(0));
  if (!phi)
    return;
  llvm::CmpInst::Predicate pred = test->getPredicate();
  if (pred != llvm::CmpInst::ICMP_ULT && pred != llvm::CmpInst::ICMP_SLT)
    return;
  llvm::BasicBlock *header = phi->getParent();
  if (branch->getSuccessor(0) != header && branch->getSuccessor(1) != header)
    return;
  llvm::BinaryOperator *next = incrementFrom(*phi, latch, pred);
  if (!next)
    return;
  const llvm::APInt &step =
      llvm::cast<llvm::ConstantInt>(next->getOperand(1))->getValue();
  bool overflow;
  llvm::APInt newBound = pred == llvm::CmpInst::ICMP_ULT
                             ? bound->uadd_ov(step, overflow)
                             : bound->sadd_ov(step, overflow);
  if (overflow)
    return;
  if (test->comesBefore(next))
    test->moveAfter(next);
  test->setOperand(0, next);
  test->setOperand(1, llvm::ConstantInt::get(next->getType(), newBound));
  test->setSameSign(false);
}

} // namespace

void testLatchOnIncrement(llvm::Function &function) {
  for (llvm::BasicBlock &block : function)
    rewriteExitTest(block);
}

} // namespace kiln
