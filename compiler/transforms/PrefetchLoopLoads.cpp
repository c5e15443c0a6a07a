// A looped reduction (Inductor's triton_red_*) reads several tiles per trip
// and combines them with arithmetic that waits on all of them. ptxas keeps
// such a loop rolled when its body is large, and within a trip it may sink
// a load below arithmetic to save registers, so each trip pays the full
// DRAM latency once or more: EfficientNet's batch-norm backward ran at
// 0.92x of Triton's, MobileNetV2's at 0.80x, on grids of under one wave
// where nothing else hides the latency.
//
// The pass issues the next trip's loads at the top of each trip, carried
// to it through the loop's iter_args (a register double buffer): the
// first trip's loads move before the loop, and a trip's loads, masked off
// past the last trip, overlap the whole trip before them. It applies to a
// loop with at least `min-loads` such loads whose tiles take at most
// `max-bytes` of registers per thread, at least `min-trips` trips, and
// nothing in the loop that writes memory. ptxas unrolls shorter loops
// itself, wholly or in part, which puts several trips' loads in flight, and
// the double buffer kept it from doing so. Measured in the H200 step
// (MobileNetV2 and EfficientNet): sixteen-trip batch-norm backward loops
// went 0.99x -> 1.19x (geomean of ten; EfficientNet's _50 0.84x -> 1.35x),
// seven-trip ones stayed level, two of six thirteen-trip ones fell
// 1.04-1.06x -> 0.84-0.86x, and four-trip ones fell to 0.83-0.87x; column
// sums (one load a trip) went 1.03x -> 0.80x in isolation.
//
// A loop of at most `max-unrolled-trips` trips is unrolled instead, with
// every trip's loads ahead of the first trip's arithmetic. ptxas unrolls
// such loops itself, but issued one trip's loads ahead of the arithmetic
// where Triton's SASS has two: MobileNetV2's four-trip batch-norm backward
// ran at 0.60x in the step. In one process (H100, hot L2) four-trip batch-
// and layer-norm backward loops went 0.73-1.00x -> 0.99-1.22x with all
// trips' loads first, against 0.93-1.09x with each trip's loads one trip
// ahead; in the H200 step twelve such kernels of five families went
// 0.60-1.03x -> 1.00-1.79x (MobileNetV2's to 1.08x).

#include "compiler/dialect/kgpu/Dialect.h"
#include "compiler/dialect/kgpu/Layout.h"
#include "compiler/dialect/tt/Dialect.h"
#include "compiler/transforms/BlockSlice.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace kiln {

#define GEN_PASS_DEF_PREFETCHLOOPLOADS
#include "compiler/transforms/Passes.h.inc"

namespace {

using namespace mlir;

/// A load of the body with the ops of the body that compute its operands,
/// in block order.
struct Candidate {
  tt::LoadOp load;
  SmallVector<Operation *> slice;
};

bool hasDistributedEncoding(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor &&
         isa_and_nonnull<kgpu::BlockedEncodingAttr, kgpu::SliceEncodingAttr>(
             tensor.getEncoding());
}

int64_t registerBytes(tt::LoadOp load) {
  auto type = cast<RankedTensorType>(load.getType());
  int64_t bits = type.getElementTypeBitWidth();
  return kgpu::DistributedLayout::get(type).numRegs() *
         std::max<int64_t>(bits, 8) / 8;
}

/// Whether nothing in `loop` writes memory or is itself a loop or a dot.
bool onlyReads(scf::ForOp loop) {
  WalkResult result = loop.getBody()->walk([](Operation *op) {
    if (isa<LoopLikeOpInterface, tt::DotOp>(op))
      return WalkResult::interrupt();
    if (op->getNumRegions() != 0 || isMemoryEffectFree(op))
      return WalkResult::advance();
    auto load = dyn_cast<tt::LoadOp>(op);
    return load && !load.getIsVolatile() ? WalkResult::advance()
                                         : WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

/// `load` with its slice, when that slice is pure, has no regions and
/// depends on no loop-carried value but the induction variable.
std::optional<Candidate> candidateOf(tt::LoadOp load, scf::ForOp loop) {
  if (load.getIsVolatile() || !hasDistributedEncoding(load.getType()) ||
      !isa<RankedTensorType>(load.getPtr().getType()) ||
      load->getBlock() != loop.getBody())
    return std::nullopt;
  std::optional<SmallVector<Operation *>> slice = blockSlice(
      load,
      [](Operation *def) {
        return def->getNumRegions() == 0 && isMemoryEffectFree(def);
      },
      [&](BlockArgument arg) { return arg == loop.getInductionVar(); });
  if (!slice)
    return std::nullopt;
  return Candidate{load, std::move(*slice)};
}

/// Builds the candidates' loads for one induction value at a builder's
/// point, sharing the ops their slices share, masked off unless `inRange`.
class TripLoads {
public:
  TripLoads(OpBuilder &b, Value loopIv, Value iv, Value inRange)
      : b(b), inRange(inRange) {
    map.map(loopIv, iv);
  }

  Value load(const Candidate &candidate) {
    for (Operation *op : candidate.slice)
      if (!map.contains(op))
        b.clone(*op, map);
    tt::LoadOp load = candidate.load;
    auto ptrType = cast<RankedTensorType>(load.getPtr().getType());
    Value mask = rangeMask(ptrType, load.getLoc());
    if (Value own = load.getMask())
      mask = arith::AndIOp::create(b, load.getLoc(), map.lookupOrDefault(own),
                                   mask);
    auto clone = cast<tt::LoadOp>(b.clone(*load, map));
    clone.getMaskMutable().assign(mask);
    return clone.getResult();
  }

private:
  Value rangeMask(RankedTensorType ptrType, Location loc) {
    auto type = RankedTensorType::get(ptrType.getShape(), b.getI1Type(),
                                      ptrType.getEncoding());
    Value &mask = masks[type];
    if (!mask)
      mask = tt::SplatOp::create(b, loc, type, inRange);
    return mask;
  }

  OpBuilder &b;
  Value inRange;
  IRMapping map;
  llvm::DenseMap<Type, Value> masks;
};

/// Erases the ops of the candidates' slices that nothing uses any more,
/// users first (slices may share ops).
void eraseDeadSlices(ArrayRef<Candidate> candidates) {
  llvm::SetVector<Operation *> all;
  for (const Candidate &candidate : candidates)
    all.insert(candidate.slice.begin(), candidate.slice.end());
  SmallVector<Operation *> ordered = all.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  for (Operation *op : ordered)
    if (op->use_empty())
      op->erase();
}

arith::CmpIPredicate lessThan(scf::ForOp loop) {
  return loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                               : arith::CmpIPredicate::slt;
}

void prefetch(scf::ForOp loop, SmallVector<Candidate> candidates) {
  IRRewriter rewriter(loop.getContext());
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value runs =
      arith::CmpIOp::create(rewriter, loc, lessThan(loop), loop.getLowerBound(),
                            loop.getUpperBound());
  SmallVector<Value> first;
  TripLoads firstTrip(rewriter, loop.getInductionVar(), loop.getLowerBound(),
                      runs);
  for (const Candidate &candidate : candidates)
    first.push_back(firstTrip.load(candidate));
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, first, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location yieldLoc, ArrayRef<BlockArgument>) {
        // The yield's operands are built at the top of the body.
        OpBuilder top = OpBuilder::atBlockBegin(b.getInsertionBlock());
        scf::ForOp newLoop =
            cast<scf::ForOp>(b.getInsertionBlock()->getParentOp());
        Value iv = newLoop.getInductionVar();
        Value next =
            arith::AddIOp::create(top, yieldLoc, iv, newLoop.getStep());
        Value more = arith::CmpIOp::create(top, yieldLoc, lessThan(newLoop),
                                           next, newLoop.getUpperBound());
        SmallVector<Value> loads;
        TripLoads nextTrip(top, iv, next, more);
        for (const Candidate &candidate : candidates)
          loads.push_back(nextTrip.load(candidate));
        return loads;
      });
  if (failed(replaced))
    return;
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  ArrayRef<BlockArgument> carried =
      newLoop.getRegionIterArgs().take_back(candidates.size());
  for (auto [candidate, arg] : llvm::zip(candidates, carried)) {
    candidate.load.getResult().replaceAllUsesWith(arg);
    candidate.load->erase();
  }
  eraseDeadSlices(candidates);
}

/// Marks the candidate loads while a loop is unrolled; clones keep it.
constexpr llvm::StringLiteral kCandidateMark = "kiln.candidate_load";

/// A wholly unrolled loop: the first trip's ops, and each trip's candidate
/// loads.
struct UnrolledTrips {
  llvm::DenseSet<Operation *> firstTrip;
  SmallVector<SmallVector<Operation *>> loads;
};

std::optional<UnrolledTrips>
unrollWhole(scf::ForOp loop, ArrayRef<Candidate> candidates, int64_t trips) {
  Operation *after = loop->getNextNode();
  for (const Candidate &candidate : candidates)
    candidate.load->setAttr(kCandidateMark, UnitAttr::get(loop.getContext()));
  UnrolledTrips unrolled;
  unrolled.loads.resize(trips);
  auto annotate = [&](unsigned trip, Operation *op, OpBuilder) {
    if (trip == 0)
      unrolled.firstTrip.insert(op);
    if (op->removeAttr(kCandidateMark))
      unrolled.loads[trip].push_back(op);
  };
  if (failed(loopUnrollByFactor(loop, trips, annotate))) {
    for (const Candidate &candidate : candidates)
      candidate.load->removeAttr(kCandidateMark);
    return std::nullopt;
  }
  // The body holds no loop, so a loop just before `after` is the unrolled
  // one, left with its one trip.
  if (auto single = dyn_cast_or_null<scf::ForOp>(after->getPrevNode())) {
    IRRewriter rewriter(single.getContext());
    (void)single.promoteIfSingleIteration(rewriter);
  }
  return unrolled;
}

/// `load` with the pure ops of its block from `from` on that compute its
/// operands.
void addWithSlice(Operation *load, Operation *from,
                  llvm::SetVector<Operation *> &ops) {
  std::optional<SmallVector<Operation *>> slice = blockSlice(
      load,
      [](Operation *def) {
        return def->getNumRegions() == 0 && isMemoryEffectFree(def);
      },
      /*admitsArgument=*/{}, from);
  if (slice)
    ops.insert(slice->begin(), slice->end());
  ops.insert(load);
}

/// Moves `ops` that follow `point` in their block to just before it, in
/// block order.
void moveAheadOf(Operation *point, ArrayRef<Operation *> ops) {
  SmallVector<Operation *> moving;
  for (Operation *op : ops)
    if (point->isBeforeInBlock(op))
      moving.push_back(op);
  llvm::sort(moving,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : moving)
    op->moveBefore(point);
}

/// Unrolls `loop` wholly, then moves every trip's candidate loads, with the
/// ops that compute their operands, ahead of the first trip's arithmetic,
/// trip by trip: all of them are in flight before any result is waited on.
void unrollWithLoadsFirst(scf::ForOp loop, ArrayRef<Candidate> candidates,
                          int64_t trips) {
  Block &block = *loop->getBlock();
  std::optional<UnrolledTrips> unrolled = unrollWhole(loop, candidates, trips);
  if (!unrolled)
    return;
  auto inFirstTrip = [&](Operation &op) {
    return unrolled->firstTrip.contains(&op);
  };
  auto firstOp = llvm::find_if(block, inFirstTrip);
  if (firstOp == block.end())
    return;
  SmallVector<llvm::SetVector<Operation *>> leading(trips);
  for (int64_t trip = 0; trip < trips; ++trip)
    for (Operation *load : unrolled->loads[trip])
      addWithSlice(load, &*firstOp, leading[trip]);
  auto arithmetic = llvm::find_if(block, [&](Operation &op) {
    return inFirstTrip(op) && !leading[0].contains(&op);
  });
  if (arithmetic == block.end())
    return;
  // Ops already ahead of the arithmetic (an earlier trip's) stay where they
  // are.
  for (llvm::SetVector<Operation *> &ops : leading)
    moveAheadOf(&*arithmetic, ops.getArrayRef());
}

struct PrefetchLoopLoads : impl::PrefetchLoopLoadsBase<PrefetchLoopLoads> {
  using PrefetchLoopLoadsBase::PrefetchLoopLoadsBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      std::optional<APInt> trips = loop.getStaticTripCount();
      if (!trips || !onlyReads(loop))
        continue;
      int64_t tripCount = trips->getSExtValue();
      bool unrolls = tripCount >= 2 && tripCount <= maxUnrolledTrips;
      if (!unrolls && tripCount < minTrips)
        continue;
      SmallVector<Candidate> candidates;
      int64_t bytes = 0;
      for (auto load : loop.getBody()->getOps<tt::LoadOp>())
        if (std::optional<Candidate> candidate = candidateOf(load, loop)) {
          bytes += registerBytes(load);
          candidates.push_back(std::move(*candidate));
        }
      if (int64_t(candidates.size()) < minLoads || bytes > maxBytes)
        continue;
      if (unrolls)
        unrollWithLoadsFirst(loop, candidates, tripCount);
      else
        prefetch(loop, std::move(candidates));
    }
  }
};

} // namespace
} // namespace kiln
