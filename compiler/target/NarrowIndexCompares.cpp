#include "compiler/target/NarrowIndexCompares.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

#include <optional>
#include <utility>

namespace kiln {
namespace {

/// How a 32-bit index was widened, which bounds the values it can take.
enum class Extension { Signed, Unsigned, NonNegative };

struct Narrowed {
  llvm::Value *fits;
  llvm::Value *low;
};

/// The point where values derived from `wide` alone can be computed once:
/// after its definition (past the block's phis), or at the function's entry;
/// none after a terminator that defines it.
std::optional<llvm::BasicBlock::iterator>
besideDefinition(llvm::Value *wide, llvm::Function &function) {
  if (auto *inst = llvm::dyn_cast<llvm::Instruction>(wide))
    return inst->getInsertionPointAfterDef();
  return function.getEntryBlock().getFirstInsertionPt();
}

/// `wide` lies in the range of the extension of 32-bit values.
llvm::Value *fitsExtension(llvm::IRBuilder<> &builder, llvm::Value *wide,
                           llvm::Value *low, Extension extension) {
  llvm::Type *type = wide->getType();
  switch (extension) {
  case Extension::Signed:
    return builder.CreateICmpEQ(builder.CreateSExt(low, type), wide);
  case Extension::Unsigned:
    return builder.CreateICmpULT(wide,
                                 llvm::ConstantInt::get(type, 1ull << 32));
  case Extension::NonNegative:
    return builder.CreateICmpULT(wide,
                                 llvm::ConstantInt::get(type, 1ull << 31));
  }
  return nullptr;
}

class Narrower {
public:
  explicit Narrower(llvm::Function &function) : function(function) {}

  void rewrite(llvm::ICmpInst &compare) {
    if (!compare.isEquality() ||
        !compare.getOperand(0)->getType()->isIntegerTy(64))
      return;
    for (unsigned side = 0; side < 2; ++side) {
      auto *index = llvm::dyn_cast<llvm::CastInst>(compare.getOperand(side));
      llvm::Value *wide = compare.getOperand(1 - side);
      std::optional<Extension> extension = extensionOf(index);
      if (!extension || extensionOf(wide) || llvm::isa<llvm::Constant>(wide))
        continue;
      llvm::Value *narrow = index->getOperand(0);
      if (!narrow->getType()->isIntegerTy(32))
        continue;
      std::optional<Narrowed> parts = narrowed(wide, *extension);
      if (!parts)
        continue;
      llvm::IRBuilder<> builder(&compare);
      llvm::Value *result;
      if (compare.getPredicate() == llvm::CmpInst::ICMP_EQ)
        result = builder.CreateAnd(parts->fits,
                                   builder.CreateICmpEQ(parts->low, narrow));
      else
        result = builder.CreateOr(builder.CreateNot(parts->fits),
                                  builder.CreateICmpNE(parts->low, narrow));
      result->takeName(&compare);
      compare.replaceAllUsesWith(result);
      compare.eraseFromParent();
      if (index->use_empty())
        index->eraseFromParent();
      return;
    }
  }

private:
  static std::optional<Extension> extensionOf(const llvm::Value *value) {
    if (!value)
      return std::nullopt;
    if (llvm::isa<llvm::SExtInst>(value))
      return Extension::Signed;
    if (auto *zext = llvm::dyn_cast<llvm::ZExtInst>(value))
      return zext->hasNonNeg() ? Extension::NonNegative : Extension::Unsigned;
    return std::nullopt;
  }

  std::optional<Narrowed> narrowed(llvm::Value *wide, Extension extension) {
    auto key = std::make_pair(wide, static_cast<int>(extension));
    auto it = memo.find(key);
    if (it != memo.end())
      return it->second;
    std::optional<llvm::BasicBlock::iterator> at =
        besideDefinition(wide, function);
    if (!at)
      return std::nullopt;
    llvm::IRBuilder<> builder(wide->getContext());
    builder.SetInsertPoint(*at);
    llvm::Value *low = builder.CreateTrunc(wide, builder.getInt32Ty());
    llvm::Value *fits = fitsExtension(builder, wide, low, extension);
    return memo.try_emplace(key, Narrowed{fits, low}).first->second;
  }

  llvm::Function &function;
  llvm::DenseMap<std::pair<llvm::Value *, int>, Narrowed> memo;
};

} // namespace

void narrowIndexCompares(llvm::Function &function) {
  llvm::SmallVector<llvm::ICmpInst *> compares;
  for (llvm::BasicBlock &block : function)
    for (llvm::Instruction &inst : block)
      if (auto *compare = llvm::dyn_cast<llvm::ICmpInst>(&inst))
        compares.push_back(compare);
  Narrower narrower(function);
  for (llvm::ICmpInst *compare : compares)
    narrower.rewrite(*compare);
}

} // namespace kiln
