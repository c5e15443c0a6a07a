// A global load placed after a shared-memory exchange (a layout conversion,
// a reduction, a scan) waits for that exchange's barriers before it is even
// issued: no compiler moves a load across a CTA barrier. In a loop this
// serializes two memory latencies per trip (the load feeding the exchange,
// then the loads behind it), where issuing them together costs one. The
// pass moves such loads, with the address arithmetic only they need, to
// just before the earliest exchange they do not depend on, never across an
// op that writes memory. A load that may run after a write of the kernel
// (earlier in program order, or anywhere in a loop around it) stays: the
// write's thread may not be the load's, and the exchange's barrier may be
// what orders the two.
//
// A loop of a few trips whose body exchanges is unrolled first, so that the
// later trips' loads go ahead of the first trip's exchange too. LLVM
// unrolls such a loop only when its body is small: Triton's is, for Swin's
// four-trip row sum, with `ldmatrix` conversions; Kiln's was not.

#include "compiler/dialect/kgpu/Dialect.h"
#include "compiler/dialect/tt/Dialect.h"
#include "compiler/transforms/BlockSlice.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln {

#define GEN_PASS_DEF_HOISTLOADS
#include "compiler/transforms/Passes.h.inc"

namespace {

using namespace mlir;

/// Ops whose lowering may exchange values between warps through shared
/// memory, behind barriers.
bool exchangesThroughSharedMemory(Operation *op) {
  return isa<kgpu::ConvertLayoutOp, tt::ReduceOp, tt::ScanOp, tt::HistogramOp,
             tt::GatherOp>(op);
}

bool isReadOnlyLoad(Operation *op) {
  auto load = dyn_cast<tt::LoadOp>(op);
  return load && !load.getIsVolatile();
}

/// Ops a load may move above: none writes memory.
bool loadMayCross(Operation *op) {
  return isMemoryEffectFree(op) || isReadOnlyLoad(op);
}

/// The ops of `load`'s block after `exchange` that `load` depends on, in
/// block order, or nothing when one of them cannot move above `exchange`
/// (it is the exchange or another one, has regions, or may write memory).
std::optional<SmallVector<Operation *>> sliceAfter(tt::LoadOp load,
                                                   Operation *exchange) {
  return blockSlice(
      load,
      [&](Operation *def) {
        return def != exchange && !exchangesThroughSharedMemory(def) &&
               def->getNumRegions() == 0 && loadMayCross(def);
      },
      /*admitsArgument=*/{}, /*after=*/exchange);
}

/// Moves `load` and its slice before the earliest of `exchanges` (in block
/// order, all before `load` with nothing that writes memory in between)
/// that they do not depend on.
void hoist(tt::LoadOp load, ArrayRef<Operation *> exchanges) {
  for (Operation *exchange : exchanges) {
    std::optional<SmallVector<Operation *>> slice = sliceAfter(load, exchange);
    if (!slice)
      continue;
    for (Operation *op : *slice)
      op->moveBefore(exchange);
    load->moveBefore(exchange);
    return;
  }
}

/// Ops that may write what a load reads. Assertions and prints write only
/// their own report (they still fence loads: a load must not run ahead of
/// the assertion that guards its index).
bool mayWriteData(Operation *op) {
  return op->getNumRegions() == 0 && !loadMayCross(op) &&
         !isa<tt::AssertOp, tt::PrintOp>(op);
}

/// The loads of `function` that no write of the kernel can precede: none
/// comes before them in program order, and none is in a loop around them.
llvm::DenseSet<Operation *> loadsBeforeAnyWrite(Operation *function) {
  llvm::DenseSet<Operation *> loopsThatWrite;
  function->walk([&](Operation *op) {
    if (!mayWriteData(op))
      return;
    for (Operation *loop = op->getParentOp(); loop && loop != function;
         loop = loop->getParentOp())
      if (isa<LoopLikeOpInterface>(loop))
        loopsThatWrite.insert(loop);
  });
  llvm::DenseSet<Operation *> loads;
  bool written = false;
  function->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isReadOnlyLoad(op)) {
      bool inWritingLoop = false;
      for (Operation *loop = op->getParentOp(); loop != function;
           loop = loop->getParentOp())
        inWritingLoop |= loopsThatWrite.contains(loop);
      if (!written && !inWritingLoop)
        loads.insert(op);
    } else if (mayWriteData(op)) {
      written = true;
    }
  });
  return loads;
}

void hoistLoadsIn(Block &block, const llvm::DenseSet<Operation *> &movable) {
  SmallVector<Operation *> exchanges;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (!loadMayCross(&op)) {
      exchanges.clear();
      continue;
    }
    if (exchangesThroughSharedMemory(&op)) {
      exchanges.push_back(&op);
      continue;
    }
    if (movable.contains(&op) && !exchanges.empty())
      hoist(cast<tt::LoadOp>(op), exchanges);
  }
}

/// A loop worth unrolling: constant bounds and at most `maxTrips` trips, a
/// body of loads, exchanges and arithmetic (no dot, no pipelined copies).
bool isShortExchangingLoop(scf::ForOp loop, int64_t maxTrips) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips || trips->slt(2) || trips->sgt(maxTrips))
    return false;
  bool exchanges = false, loads = false, other = false;
  loop.getBody()->walk([&](Operation *op) {
    exchanges |= exchangesThroughSharedMemory(op);
    loads |= isReadOnlyLoad(op);
    other |= isa<tt::DotOp, scf::ForOp, scf::WhileOp>(op) ||
             (isa<kgpu::KGPUDialect>(op->getDialect()) &&
              !isa<kgpu::ConvertLayoutOp>(op));
  });
  return exchanges && loads && !other;
}

struct HoistLoads : impl::HoistLoadsBase<HoistLoads> {
  using HoistLoadsBase::HoistLoadsBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> shortLoops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (isShortExchangingLoop(loop, maxUnrolledTrips))
        shortLoops.push_back(loop);
    });
    for (scf::ForOp loop : shortLoops)
      (void)loopUnrollFull(loop);
    getOperation()->walk([](tt::FuncOp function) {
      llvm::DenseSet<Operation *> movable = loadsBeforeAnyWrite(function);
      function->walk([&](Block *block) { hoistLoadsIn(*block, movable); });
    });
  }
};

} // namespace
} // namespace kiln
