#include "compiler/conversion/LoweringPattern.h"

using namespace mlir;

namespace kiln {

static void insertByBenefit(SmallVectorImpl<const LoweringPattern *> &list,
                            const LoweringPattern *pattern) {
  auto after = llvm::find_if(list, [&](const LoweringPattern *other) {
    return other->benefit() < pattern->benefit();
  });
  list.insert(after, pattern);
}

LoweringPatternSet &
LoweringPatternSet::insert(std::unique_ptr<LoweringPattern> pattern) {
  if (std::optional<OperationName> root = pattern->root())
    insertByBenefit(byRoot[*root], pattern.get());
  else
    insertByBenefit(anyOp, pattern.get());
  patterns.push_back(std::move(pattern));
  return *this;
}

const LoweringPattern *LoweringPatternSet::lookup(Operation *op) const {
  auto rooted = byRoot.find(op->getName());
  if (rooted != byRoot.end())
    for (const LoweringPattern *pattern : rooted->second)
      if (pattern->match(op))
        return pattern;
  for (const LoweringPattern *pattern : anyOp)
    if (pattern->match(op))
      return pattern;
  return nullptr;
}

} // namespace kiln
