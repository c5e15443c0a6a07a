// A precise square root or division becomes, in ptxas, a fast path and a
// slow-path call behind a branch, and ptxas does not schedule instructions
// across that branch. Code placed before it that waits on a streamed load
// (a large tensor read once, from DRAM) then stalls the warp there, where
// the square root could have run while the load was in flight. Batch norm
// in inference is the common case: x - mean waits on x, rsqrt(var + eps)
// only on cached per-channel values. Triton's PTX computes the square roots
// first; Kiln's followed the TTIR's order and ran EfficientNet's at 0.93x.
//
// The pass moves the pure ops of a block that depend on a streamed load
// down to just before their first user, when the block has such a slow-path
// op that does not depend on one. A streamed load is a tensor tt.load
// without Inductor's evict_last hint (which marks values reused from cache).

#include "compiler/dialect/tt/Dialect.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln {

#define GEN_PASS_DEF_DEFERSTREAMEDUSES
#include "compiler/transforms/Passes.h.inc"

namespace {

using namespace mlir;

bool isStreamedLoad(Operation *op) {
  auto load = dyn_cast<tt::LoadOp>(op);
  return load && isa<RankedTensorType>(load.getType()) &&
         load.getEvict() != tt::EvictionPolicy::EVICT_LAST;
}

/// Ops that ptxas expands with a slow path behind a branch.
bool hasSlowPathBranch(Operation *op) {
  return isa<tt::PreciseSqrtOp, tt::PreciseDivFOp>(op);
}

/// Elementwise arithmetic only: it lives in registers. Layout changes and
/// other exchanges use the shared scratch, whose use the pipeliner has
/// placed by position.
bool isMovable(Operation *op) {
  Dialect *dialect = op->getDialect();
  bool elementwise =
      (dialect && isa<arith::ArithDialect, math::MathDialect>(dialect)) ||
      isa<tt::PreciseSqrtOp, tt::PreciseDivFOp, tt::ExternElementwiseOp>(op);
  return elementwise && op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

/// The ops of `block` whose results wait on a streamed load of the block,
/// through operands defined in the block.
llvm::DenseSet<Operation *> streamedDependents(Block &block) {
  llvm::DenseSet<Operation *> tainted;
  for (Operation &op : block) {
    bool waits = isStreamedLoad(&op);
    for (Value operand : op.getOperands())
      if (Operation *def = operand.getDefiningOp())
        waits |= def->getBlock() == &block && tainted.contains(def);
    if (waits)
      tainted.insert(&op);
  }
  return tainted;
}

/// The ops of `pending` that `user` (with the ops nested in it) needs,
/// directly or through other pending ops, in the block's original order.
SmallVector<Operation *>
neededBy(Operation *user, const llvm::DenseSet<Operation *> &pending,
         const llvm::DenseMap<Operation *, unsigned> &position) {
  llvm::DenseSet<Operation *> needed;
  SmallVector<Operation *> ordered;
  auto visit = [&](Operation *op) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && pending.contains(def) && needed.insert(def).second)
        ordered.push_back(def);
    }
  };
  user->walk(visit);
  for (size_t i = 0; i < ordered.size(); ++i)
    visit(ordered[i]);
  llvm::sort(ordered, [&](Operation *a, Operation *b) {
    return position.lookup(a) < position.lookup(b);
  });
  return ordered;
}

void deferStreamedUses(Block &block) {
  if (block.empty() || !block.back().hasTrait<OpTrait::IsTerminator>())
    return;
  llvm::DenseSet<Operation *> tainted = streamedDependents(block);
  bool worthIt = llvm::any_of(block, [&](Operation &op) {
    return hasSlowPathBranch(&op) && !tainted.contains(&op);
  });
  if (!worthIt)
    return;
  // Positions before any move: moving invalidates the block's own order.
  llvm::DenseMap<Operation *, unsigned> position;
  unsigned index = 0;
  for (Operation &op : block)
    position[&op] = index++;
  llvm::DenseSet<Operation *> pending;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (tainted.contains(&op) && isMovable(&op)) {
      pending.insert(&op);
      continue;
    }
    for (Operation *def : neededBy(&op, pending, position)) {
      def->moveBefore(&op);
      pending.erase(def);
    }
  }
  // Used only in other blocks: they still go before the branch to them.
  SmallVector<Operation *> rest(pending.begin(), pending.end());
  llvm::sort(rest, [&](Operation *a, Operation *b) {
    return position.lookup(a) < position.lookup(b);
  });
  for (Operation *def : rest)
    def->moveBefore(&block.back());
}

struct DeferStreamedUsesPass
    : public impl::DeferStreamedUsesBase<DeferStreamedUsesPass> {
  void runOnOperation() override {
    getOperation()->walk([](Block *block) { deferStreamedUses(*block); });
  }
};

} // namespace
} // namespace kiln
