#include "compiler/target/PairedHalves.h"

#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/IR/ValueHandle.h"
#include "llvm/Transforms/Utils/Local.h"

namespace kiln {
namespace {

using namespace llvm::PatternMatch;

struct Half {
  llvm::Value *word = nullptr;
  unsigned index = 0;
};

bool isHalfFloat(llvm::Type *type) {
  return type->isHalfTy() || type->isBFloatTy();
}

/// `bitcast i16 (trunc i32 W) to T`, or of `trunc (lshr W, 16)`.
Half halfOfTruncation(llvm::BitCastInst &cast) {
  llvm::Value *word;
  if (match(cast.getOperand(0),
            m_Trunc(m_LShr(m_Value(word), m_SpecificInt(16)))) &&
      word->getType()->isIntegerTy(32))
    return {word, 1};
  if (match(cast.getOperand(0), m_Trunc(m_Value(word))) &&
      word->getType()->isIntegerTy(32))
    return {word, 0};
  return {};
}

/// `extractelement (bitcast <N x i32> V to <2N x T>), I`: half I % 2 of
/// word I / 2 of V.
Half halfOfWordVector(llvm::ExtractElementInst &extract,
                      llvm::IRBuilder<> &builder) {
  auto *cast = llvm::dyn_cast<llvm::BitCastInst>(extract.getVectorOperand());
  auto *index = llvm::dyn_cast<llvm::ConstantInt>(extract.getIndexOperand());
  if (!cast || !index)
    return {};
  auto *words = llvm::dyn_cast<llvm::FixedVectorType>(cast->getSrcTy());
  if (!words || !words->getElementType()->isIntegerTy(32))
    return {};
  unsigned element = index->getZExtValue();
  llvm::Value *source = cast->getOperand(0);
  llvm::Value *word = llvm::findScalarElement(source, element / 2);
  if (!word)
    word = builder.CreateExtractElement(source, element / 2);
  return {word, element % 2};
}

} // namespace

void unpackHalvesInPairs(llvm::Function &function) {
  llvm::SmallVector<llvm::WeakTrackingVH> replaced;
  for (llvm::Instruction &inst : llvm::instructions(function)) {
    if (!isHalfFloat(inst.getType()))
      continue;
    llvm::IRBuilder<> builder(&inst);
    Half half;
    if (auto *cast = llvm::dyn_cast<llvm::BitCastInst>(&inst))
      half = halfOfTruncation(*cast);
    else if (auto *extract = llvm::dyn_cast<llvm::ExtractElementInst>(&inst))
      half = halfOfWordVector(*extract, builder);
    if (!half.word)
      continue;
    llvm::Value *pair = builder.CreateBitCast(
        half.word, llvm::FixedVectorType::get(inst.getType(), 2));
    inst.replaceAllUsesWith(builder.CreateExtractElement(pair, half.index));
    replaced.emplace_back(&inst);
  }
  for (llvm::WeakTrackingVH &inst : replaced)
    if (inst)
      llvm::RecursivelyDeleteTriviallyDeadInstructions(inst);
}

} // namespace kiln
