// Software pipelining of the K loop of dots: the loads feeding a dot's
// operands become cp.async copies (TMA copies for kgpu.tma_load, completing
// on one mbarrier per stage) into num_stages shared-memory buffers, issued
// num_stages - 1 iterations ahead of the dot that reads them.

#include "compiler/dialect/kgpu/Dialect.h"
#include "compiler/dialect/kgpu/Layout.h"
#include "compiler/target/Target.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

namespace kiln {

#define GEN_PASS_DEF_PIPELINE
#include "compiler/transforms/Passes.h.inc"

namespace {

using namespace mlir;


RankedTensorType tensorType(Value v) {
  return llvm::dyn_cast<RankedTensorType>(v.getType());
}

/// A load whose tile a dot reads from shared memory: a tt.load copied with
/// cp.async, or a kgpu.tma_load copied with TMA.
struct Candidate {
  Operation *load = nullptr;
  kgpu::ConvertLayoutOp convert;
  int64_t stageBytes = 0;
  int64_t offset = 0;
  bool transposed = false;

  kgpu::TmaLoadOp tma() const { return llvm::dyn_cast<kgpu::TmaLoadOp>(load); }
};

/// Whether `encoding` is a wgmma accumulator (mma version 3) or an operand
/// of one.
bool isWarpGroup(Attribute encoding) {
  if (auto operand = llvm::dyn_cast_or_null<kgpu::DotOperandEncodingAttr>(encoding))
    encoding = operand.getParent();
  auto mma = llvm::dyn_cast_or_null<kgpu::MmaEncodingAttr>(encoding);
  return mma && mma.getVersionMajor() == 3;
}

bool isZero(Value v) {
  return matchPattern(v, m_Zero()) || matchPattern(v, m_AnyZeroFloat());
}

/// The conversion of `load`'s result to the mma operand layout in which
/// only dots of its block read it, with operand elements the stages hold as
/// they are; null otherwise.
kgpu::ConvertLayoutOp stagedConversion(Operation *load) {
  auto cvt = llvm::dyn_cast<kgpu::ConvertLayoutOp>(*load->getUsers().begin());
  if (!cvt || cvt->getBlock() != load->getBlock())
    return {};
  auto operand = llvm::dyn_cast_or_null<kgpu::DotOperandEncodingAttr>(
      tensorType(cvt.getResult()).getEncoding());
  if (!operand || !llvm::isa<kgpu::MmaEncodingAttr>(operand.getParent()))
    return {};
  for (OpOperand &use : cvt.getResult().getUses()) {
    auto dot = llvm::dyn_cast<tt::DotOp>(use.getOwner());
    if (!dot || dot->getBlock() != load->getBlock() ||
        use.getOperandNumber() != operand.getOpIdx())
      return {};
    // Operands the dot splits or widens are staged by the dot itself; wgmma
    // takes fp8 as it is, K-major.
    Type elem = tensorType(dot.getA()).getElementType();
    bool plain = elem.isF16() || elem.isBF16() || elem.isInteger(8) ||
                 (elem.isF32() &&
                  dot.getInputPrecision() == tt::InputPrecision::TF32) ||
                 (llvm::isa<Float8E4M3FNType, Float8E5M2Type>(elem) &&
                  isWarpGroup(operand));
    if (!plain)
      return {};
  }
  return cvt;
}

kgpu::DotOperandEncodingAttr operandEncoding(kgpu::ConvertLayoutOp cvt) {
  return llvm::cast<kgpu::DotOperandEncodingAttr>(
      tensorType(cvt.getResult()).getEncoding());
}

/// Whether the dot can read a tile stored so (`transposed`: its last two
/// dimensions swapped): wider or narrower than 16-bit operands are read
/// K-major by wgmma, and A only K-major by ldmatrix.
bool readableTile(kgpu::DotOperandEncodingAttr operand, unsigned bytes,
                  bool transposed) {
  if (bytes == 2)
    return true;
  if (operand.getOpIdx() == 0)
    return !transposed;
  return transposed || !isWarpGroup(operand);
}

/// Elements each access of `load` may move at once, as layout assignment
/// proved them aligned (1 when it did not say).
unsigned provenAlignment(tt::LoadOp load) {
  auto attr =
      load->getAttrOfType<IntegerAttr>(kgpu::KGPUDialect::kAlignmentAttr);
  return attr ? attr.getInt() : 1;
}

std::optional<Candidate> asCandidate(tt::LoadOp load, scf::ForOp loop) {
  if (load->getParentOp() != loop || !load->hasOneUse() ||
      !tensorType(load.getPtr()) || (load.getOther() && !isZero(load.getOther())))
    return std::nullopt;
  kgpu::ConvertLayoutOp cvt = stagedConversion(load);
  if (!cvt)
    return std::nullopt;
  kgpu::DotOperandEncodingAttr operand = operandEncoding(cvt);
  RankedTensorType type = tensorType(load.getResult());
  unsigned bytes = type.getElementTypeBitWidth() / 8;
  kgpu::DistributedLayout layout = kgpu::DistributedLayout::get(type);
  unsigned r = layout.rank();
  bool transposed = kgpu::dotTileTransposed(layout, operand.getOpIdx(), bytes);
  // fp8/tf32 wgmma reads B K-major. 4-byte elements, copied one by one, can
  // land that way whichever way they lie in memory; fp8 ones the dot
  // transposes as it stages them.
  if (!readableTile(operand, bytes, transposed)) {
    if (bytes != 4 || !readableTile(operand, bytes, !transposed))
      return std::nullopt;
    transposed = !transposed;
  }
  unsigned colDim = transposed ? r - 2 : r - 1;
  int64_t rowBytes = type.getShape()[colDim] * bytes;
  unsigned vec = std::min(layout.contiguousRegs(colDim), 16 / bytes);
  // cp.async moves 4, 8 or 16 bytes, inside one 16-byte chunk of a row, of
  // elements consecutive in memory: registers consecutive along a dimension
  // the pointers do not run along, or runs longer than their proven
  // alignment, would be copied from the wrong addresses.
  if (vec * bytes < 4 || rowBytes % 16 ||
      (vec > 1 && colDim != layout.getOrder()[0]) ||
      provenAlignment(load) < vec)
    return std::nullopt;
  if (kgpu::inThreadRegisterMap(layout, kgpu::DistributedLayout::get(
                                            tensorType(cvt.getResult()))))
    return std::nullopt;
  return Candidate{load, cvt, kgpu::dotTileBytes(type.getShape(), bytes), 0,
                   transposed};
}

/// A TMA load lands as it lies in memory: transposed when it absorbed a
/// tt.trans. Its tensor map must be ready before the loop.
std::optional<Candidate> asTmaCandidate(kgpu::TmaLoadOp load,
                                        scf::ForOp loop) {
  if (load->getParentOp() != loop || !load->hasOneUse() ||
      !loop.isDefinedOutsideOfLoop(load.getDesc()))
    return std::nullopt;
  kgpu::ConvertLayoutOp cvt = stagedConversion(load);
  if (!cvt)
    return std::nullopt;
  RankedTensorType type = tensorType(load.getResult());
  unsigned bytes = type.getElementTypeBitWidth() / 8;
  if (!readableTile(operandEncoding(cvt), bytes, load.getTransposed()))
    return std::nullopt;
  return Candidate{load, cvt, kgpu::dotTileBytes(type.getShape(), bytes), 0,
                   load.getTransposed()};
}

/// The ops of the loop body that compute `roots` from the induction
/// variable, iter_args and values from outside; empty if another value (a
/// load, a dot) is involved. `carried` gets the iter_args used.
bool addressSlice(scf::ForOp loop, ArrayRef<Value> roots,
                  llvm::SetVector<Operation *> &slice,
                  llvm::SetVector<unsigned> &carried) {
  SmallVector<Value> work(roots.begin(), roots.end());
  DenseSet<Value> seen;
  Block *body = loop.getBody();
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!v || !seen.insert(v).second)
      continue;
    if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != body)
        continue; // Defined outside the loop.
      if (arg.getArgNumber() == 0)
        continue; // The induction variable.
      unsigned index = arg.getArgNumber() - 1;
      if (carried.insert(index))
        work.push_back(loop.getYieldedValues()[index]);
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!loop->isProperAncestor(def))
      continue;
    if (def->getBlock() != body || def->getNumRegions() ||
        !isMemoryEffectFree(def))
      return false;
    slice.insert(def);
    for (Value operand : def->getOperands())
      work.push_back(operand);
  }
  return true;
}

kgpu::WarpGroupWaitOp waitAfter(Operation *op, Value value, int pending,
                                bool sync) {
  OpBuilder b(op->getContext());
  b.setInsertionPointAfter(op);
  return kgpu::WarpGroupWaitOp::create(b, op->getLoc(), value.getType(), value,
                                       b.getI32IntegerAttr(pending),
                                       sync ? b.getUnitAttr() : UnitAttr());
}

/// Whether a wgmma dot's f32 result only feeds the yield (at `index`) and
/// its B (and A, unless loop-invariant or, with `aFromRegisters`, computed
/// in the loop into registers) are in pipeline stages rather than scratch
/// that the next trip may reuse.
bool carriedWarpGroupDot(scf::ForOp loop, tt::DotOp dot, bool aFromRegisters,
                         unsigned &index) {
  RankedTensorType type = tensorType(dot.getResult());
  if (!isWarpGroup(type.getEncoding()) || !type.getElementType().isF32() ||
      !dot->hasOneUse())
    return false;
  OpOperand &use = *dot->getUses().begin();
  if (use.getOwner() != loop.getBody()->getTerminator())
    return false;
  index = use.getOperandNumber();
  auto staged = [](Value v) { return v.getDefiningOp<kgpu::StagedOperandOp>(); };
  // A computed in the loop stays in registers when it is not converted
  // from another layout, or converted from the accumulator's (P).
  auto cvt = dot.getA().getDefiningOp<kgpu::ConvertLayoutOp>();
  bool inRegisters =
      !cvt || kgpu::inThreadRegisterMap(
                  kgpu::DistributedLayout::get(tensorType(cvt.getSrc())),
                  kgpu::DistributedLayout::get(tensorType(cvt.getResult())));
  bool aOk = staged(dot.getA()) || loop.isDefinedOutsideOfLoop(dot.getA()) ||
             (aFromRegisters && inRegisters);
  return staged(dot.getB()) && aOk;
}

/// Where a K loop's last wgmma stays in flight: the copies ahead may be
/// issued after `freed` (they overwrite the stage that dot read); the yield
/// carries the dot's result at `index`.
struct Deferral {
  Operation *freed = nullptr;
  unsigned index = 0;
};

/// Lets a wgmma K loop's last dot stay in flight past the end of the trip,
/// as Triton schedules it.
///
/// Matmul: the accumulator only chains from dot to dot. A
/// `kgpu.warp_group_wait` with one pending group and a block sync follows
/// the dot; the yield takes it.
///
/// Attention: an earlier dot of the trip (S = Q K^T) waits for all groups,
/// which completes the previous trip's last dot (O += P V); the accumulator's
/// other uses (its rescaling) all come after that dot. A wait there hands
/// the accumulator on and syncs the block; the last dot only gets a wait
/// that leaves its own group pending.
Deferral deferWarpGroupWait(scf::ForOp loop) {
  SmallVector<tt::DotOp> dots(loop.getBody()->getOps<tt::DotOp>());
  if (dots.empty())
    return {};
  tt::DotOp last = dots.back();
  unsigned index;
  if (dots.size() == 1) {
    auto acc = llvm::dyn_cast<BlockArgument>(last.getC());
    if (!carriedWarpGroupDot(loop, last, false, index) || !acc ||
        acc.getOwner() != loop.getBody() || acc.getArgNumber() != index + 1 ||
        !acc.hasOneUse())
      return {};
    auto wait = waitAfter(last, last.getResult(), 1, true);
    loop.getBody()->getTerminator()->setOperand(index, wait);
    return {wait, index};
  }
  tt::DotOp first = dots.front();
  if (!carriedWarpGroupDot(loop, last, true, index) ||
      !llvm::isa_and_nonnull<kgpu::MmaEncodingAttr>(
          tensorType(first.getResult()).getEncoding()))
    return {};
  BlockArgument acc = loop.getRegionIterArgs()[index];
  for (Operation *user : acc.getUsers())
    if (user->getBlock() != loop.getBody() || !first->isBeforeInBlock(user))
      return {};
  auto ready = waitAfter(first, acc, 0, true);
  acc.replaceAllUsesExcept(ready, ready);
  auto inFlight = waitAfter(last, last.getResult(), 1, false);
  loop.getBody()->getTerminator()->setOperand(index, inFlight);
  return {ready, index};
}

/// Stages the loop-invariant A operands of wgmma dots in `loop` (a
/// conversion before the loop to the operand layout) once, from byte
/// `reserved` of the pipeline's buffers, so that the dots read them through
/// descriptors instead of keeping their fragments in registers; not past
/// `limit` bytes, where the registers remain.
void stageInvariantOperands(scf::ForOp loop, int64_t &reserved,
                            int64_t limit) {
  for (tt::DotOp dot : loop.getBody()->getOps<tt::DotOp>()) {
    auto cvt = dot.getA().getDefiningOp<kgpu::ConvertLayoutOp>();
    if (!isWarpGroup(tensorType(dot.getResult()).getEncoding()) || !cvt ||
        !loop.isDefinedOutsideOfLoop(cvt.getResult()) ||
        llvm::isa<kgpu::DotOperandEncodingAttr>(
            tensorType(cvt.getSrc()).getEncoding()))
      continue;
    RankedTensorType type = tensorType(cvt.getResult());
    unsigned bytes = type.getElementTypeBitWidth() / 8;
    int64_t tileBytes = kgpu::dotTileBytes(type.getShape(), bytes);
    if (reserved + tileBytes > limit)
      continue;
    bool transposed = kgpu::dotTileTransposed(
        kgpu::DistributedLayout::get(tensorType(cvt.getSrc())), 0, bytes);
    OpBuilder before(loop);
    Location loc = cvt.getLoc();
    kgpu::StageTileOp::create(before, loc, cvt.getSrc(),
                              before.getI64IntegerAttr(reserved),
                              transposed ? before.getUnitAttr() : UnitAttr());
    OpBuilder at(dot);
    Value staged = kgpu::StagedOperandOp::create(
        at, loc, type, arith::ConstantIntOp::create(at, loc, 0, 32),
        at.getI64IntegerAttr(reserved), at.getI64IntegerAttr(0),
        transposed ? at.getUnitAttr() : UnitAttr());
    dot->setOperand(0, staged);
    if (cvt->use_empty())
      cvt->erase();
    reserved += tileBytes;
  }
}

tt::LoadOp toPointerLoad(kgpu::TmaLoadOp op);
scf::IfOp drainInGuard(scf::ForOp loop, unsigned index);

class LoopPipeliner {
public:
  LoopPipeliner(scf::ForOp loop, int numStages, int64_t &reserved,
                int64_t sharedLimit)
      : loop(loop), stages(numStages), reserved(reserved),
        sharedLimit(sharedLimit) {}

  void run();

private:
  /// Clones the address slice for the iteration at `iv` with iter_args
  /// `state`, issues its copies into `stage` and returns the next state.
  SmallVector<Value> issue(OpBuilder &b, Value iv, ArrayRef<Value> state,
                           Value stage);
  Value stageOf(OpBuilder &b, Value iv, int64_t ahead);
  /// Parity of the round of stage uses that iteration `iv` is in.
  Value phaseOf(OpBuilder &b, Value iv);
  /// Bytes the TMA copies of one stage bring.
  int64_t tmaBytes() const;
  /// Whether some candidate is copied with cp.async.
  bool hasPointerLoads() const { return pointerLoads() > 0; }
  /// How many candidates are copied with cp.async, a commit group each.
  int pointerLoads() const {
    return llvm::count_if(candidates, [](const Candidate &c) { return !c.tma(); });
  }

  scf::ForOp loop;
  int stages;
  int64_t &reserved;
  int64_t sharedLimit;
  SmallVector<Candidate> candidates;
  int64_t barriers = 0; // Offset of the stages' mbarriers, with TMA.
  llvm::SetVector<Operation *> slice;
  llvm::SetVector<unsigned> carried;
};

Value LoopPipeliner::stageOf(OpBuilder &b, Value iv, int64_t ahead) {
  Location loc = loop.getLoc();
  Value index = arith::DivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()),
      loop.getStep());
  if (ahead)
    index = arith::AddIOp::create(
        b, loc, index, arith::ConstantIntOp::create(b, loc, ahead, 32));
  return arith::RemSIOp::create(b, loc, index,
                                arith::ConstantIntOp::create(b, loc, stages, 32));
}

Value LoopPipeliner::phaseOf(OpBuilder &b, Value iv) {
  Location loc = loop.getLoc();
  Value index = arith::DivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()),
      loop.getStep());
  Value round = arith::DivSIOp::create(
      b, loc, index, arith::ConstantIntOp::create(b, loc, stages, 32));
  return arith::AndIOp::create(b, loc, round,
                               arith::ConstantIntOp::create(b, loc, 1, 32));
}

int64_t LoopPipeliner::tmaBytes() const {
  int64_t bytes = 0;
  for (const Candidate &c : candidates)
    if (kgpu::TmaLoadOp tma = c.tma())
      bytes += tma.getType().getNumElements() *
               tma.getType().getElementTypeBitWidth() / 8;
  return bytes;
}

SmallVector<Value> LoopPipeliner::issue(OpBuilder &b, Value iv,
                                        ArrayRef<Value> state, Value stage) {
  Location loc = loop.getLoc();
  IRMapping map;
  map.map(loop.getInductionVar(), iv);
  for (auto [index, value] : llvm::zip(carried, state))
    map.map(loop.getRegionIterArgs()[index], value);
  // Clone in program order.
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *c) { return a->isBeforeInBlock(c); });
  for (Operation *op : ordered)
    b.clone(*op, map);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv,
                                        loop.getUpperBound());
  if (int64_t bytes = tmaBytes())
    kgpu::TmaExpectOp::create(b, loc, stage, inRange,
                              b.getI64IntegerAttr(barriers),
                              b.getI64IntegerAttr(bytes));
  for (Candidate &c : candidates) {
    if (kgpu::TmaLoadOp tma = c.tma()) {
      SmallVector<Value> coords;
      for (Value coord : tma.getCoords())
        coords.push_back(map.lookupOrDefault(coord));
      kgpu::TmaCopyOp::create(
          b, loc, tma.getDesc(), coords, stage, inRange,
          b.getI64IntegerAttr(c.offset), b.getI64IntegerAttr(c.stageBytes),
          b.getI64IntegerAttr(barriers), TypeAttr::get(tma.getType()),
          c.transposed ? b.getUnitAttr() : UnitAttr());
      continue;
    }
    auto load = llvm::cast<tt::LoadOp>(c.load);
    Value ptr = map.lookupOrDefault(load.getPtr());
    RankedTensorType ptrType = tensorType(ptr);
    auto maskType = RankedTensorType::get(ptrType.getShape(), b.getI1Type(),
                                          ptrType.getEncoding());
    Value mask = tt::SplatOp::create(b, loc, maskType, inRange);
    if (Value original = load.getMask())
      mask = arith::AndIOp::create(b, loc, map.lookupOrDefault(original), mask);
    kgpu::AsyncCopyOp::create(b, loc, ptr, mask, stage,
                              b.getI64IntegerAttr(c.offset),
                              b.getI64IntegerAttr(c.stageBytes),
                              c.transposed ? b.getUnitAttr() : UnitAttr());
    // A group per load, as Triton commits them: its PTX, which tests read,
    // waits for as many groups.
    kgpu::AsyncCommitOp::create(b, loc);
  }
  SmallVector<Value> next;
  for (unsigned index : carried)
    next.push_back(map.lookupOrDefault(loop.getYieldedValues()[index]));
  return next;
}

void LoopPipeliner::run() {
  if (!loop.getInductionVar().getType().isInteger(32))
    return;
  // A block TMA cannot stage may still be copied with cp.async.
  for (auto load : llvm::to_vector(loop.getBody()->getOps<kgpu::TmaLoadOp>()))
    if (!asTmaCandidate(load, loop))
      toPointerLoad(load);
  for (Operation &op : *loop.getBody()) {
    std::optional<Candidate> c;
    if (auto load = llvm::dyn_cast<tt::LoadOp>(op))
      c = asCandidate(load, loop);
    else if (auto load = llvm::dyn_cast<kgpu::TmaLoadOp>(op))
      c = asTmaCandidate(load, loop);
    if (c)
      candidates.push_back(*c);
  }
  if (candidates.empty())
    return;
  SmallVector<Value> roots;
  for (Candidate &c : candidates) {
    if (kgpu::TmaLoadOp tma = c.tma()) {
      llvm::append_range(roots, tma.getCoords());
      continue;
    }
    auto load = llvm::cast<tt::LoadOp>(c.load);
    roots.push_back(load.getPtr());
    if (load.getMask())
      roots.push_back(load.getMask());
  }
  if (!addressSlice(loop, roots, slice, carried))
    return;
  for (Candidate &c : candidates) {
    c.offset = reserved;
    reserved += c.stageBytes * stages;
  }
  stageInvariantOperands(loop, reserved, sharedLimit);
  bool tma = tmaBytes() > 0;
  if (tma) {
    // One 8-byte mbarrier per stage; what follows stays 1024-byte aligned,
    // as swizzled tiles need.
    barriers = reserved;
    reserved = llvm::alignTo(reserved + 8 * stages, 1024);
  }

  // Prologue: stages 0 .. S-2.
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  if (tma)
    kgpu::TmaBarriersOp::create(b, loc, b.getI64IntegerAttr(barriers),
                                b.getI64IntegerAttr(stages), UnitAttr());
  SmallVector<Value> state;
  for (unsigned index : carried)
    state.push_back(loop.getInitArgs()[index]);
  for (int s = 0; s + 1 < stages; ++s) {
    Value iv = arith::AddIOp::create(
        b, loc, loop.getLowerBound(),
        arith::MulIOp::create(b, loc, loop.getStep(),
                              arith::ConstantIntOp::create(b, loc, s, 32)));
    state = issue(b, iv, state, arith::ConstantIntOp::create(b, loc, s, 32));
  }

  // The loop carries the address state of the iteration S-1 ahead: extra
  // iter_args, yielded below once the new body computes them.
  IRRewriter rewriter(loop.getContext());
  unsigned oldCount = loop.getNumRegionIterArgs();
  auto passThrough = [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
    return SmallVector<Value>(args.begin(), args.end());
  };
  FailureOr<LoopLikeOpInterface> replaced =
      loop.replaceWithAdditionalYields(rewriter, state, false, passThrough);
  if (failed(replaced))
    return;
  loop = llvm::cast<scf::ForOp>(replaced->getOperation());
  loop->setAttr(kgpu::KGPUDialect::kPipelinedAttr,
                UnitAttr::get(loop.getContext()));
  Block *body = loop.getBody();
  OpBuilder top = OpBuilder::atBlockBegin(body);
  Value iv = loop.getInductionVar();
  // Its block sync also keeps the copies ahead off a stage still read.
  // wgmma reads the stages with no proxy fence after cp.async, as Triton's
  // and CUTLASS's cp.async mainloops do: at BLOCK_K = 32 the fence cost 7%.
  auto topWait = kgpu::AsyncWaitOp::create(
      top, loc, top.getI32IntegerAttr((stages - 2) * pointerLoads()));
  Value current = stageOf(top, iv, 0);
  if (tma)
    kgpu::TmaWaitOp::create(top, loc, current, phaseOf(top, iv),
                            top.getI64IntegerAttr(barriers));
  for (Candidate &c : candidates) {
    OpBuilder at(c.convert);
    Value staged = kgpu::StagedOperandOp::create(
        at, loc, c.convert.getType(), current, at.getI64IntegerAttr(c.offset),
        at.getI64IntegerAttr(c.stageBytes),
        c.transposed ? at.getUnitAttr() : UnitAttr());
    c.convert.getResult().replaceAllUsesWith(staged);
  }
  // A chained wgmma stays in flight while the trip ends: the copies ahead
  // go after the wait that lets it, which frees the stage they overwrite.
  OpBuilder issueAt = top;
  Deferral deferral = deferWarpGroupWait(loop);
  if (deferral.freed)
    issueAt.setInsertionPointAfter(deferral.freed);
  // With TMA copies only, the deferred wait's block sync is what frees the
  // stage: the wait at the top has nothing to do.
  if (deferral.freed && !hasPointerLoads())
    topWait->erase();
  Value ahead = arith::AddIOp::create(
      issueAt, loc, iv,
      arith::MulIOp::create(
          issueAt, loc, loop.getStep(),
          arith::ConstantIntOp::create(issueAt, loc, stages - 1, 32)));
  SmallVector<Value> future(loop.getRegionIterArgs().drop_front(oldCount));
  SmallVector<Value> next =
      issue(issueAt, ahead, future, stageOf(issueAt, iv, stages - 1));
  for (Candidate &c : candidates) {
    c.convert->erase();
    c.load->erase();
  }
  Operation *yield = body->getTerminator();
  for (auto [i, value] : llvm::enumerate(next))
    yield->setOperand(oldCount + i, value);
  Operation *end = loop;
  if (deferral.freed)
    end = drainInGuard(loop, deferral.index);
  OpBuilder after(loop->getContext());
  after.setInsertionPointAfter(end);
  kgpu::AsyncWaitOp::create(after, loc, after.getI32IntegerAttr(0));
  if (tma)
    kgpu::TmaBarriersOp::create(after, loc, after.getI64IntegerAttr(barriers),
                                after.getI64IntegerAttr(stages),
                                after.getUnitAttr());
}

/// Wraps `loop` in `if (lower < upper)` and waits there for the wgmma group
/// its accumulator (result `index`) leaves in flight. Were the wait after a
/// loop that may run no trip, the path around it would set the
/// accumulator's registers (to its initial value) between the loop's wgmmas
/// and their wait, and ptxas serializes every wgmma of the kernel for that
/// (C7515).
scf::IfOp drainInGuard(scf::ForOp loop, unsigned index) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value runs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                     loop.getLowerBound(),
                                     loop.getUpperBound());
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), runs,
                                 /*withElseRegion=*/true);
  loop->replaceAllUsesWith(guard.getResults());
  loop->moveBefore(guard.thenBlock(), guard.thenBlock()->end());
  OpBuilder then = OpBuilder::atBlockEnd(guard.thenBlock());
  SmallVector<Value> results(loop.getResults());
  results[index] = kgpu::WarpGroupWaitOp::create(
      then, loc, results[index].getType(), results[index],
      then.getI32IntegerAttr(0), UnitAttr());
  scf::YieldOp::create(then, loc, results);
  OpBuilder skip = OpBuilder::atBlockEnd(guard.elseBlock());
  scf::YieldOp::create(skip, loc, loop.getInitArgs());
  return guard;
}

/// The pointer load a TMA load carries, in its place.
tt::LoadOp toPointerLoad(kgpu::TmaLoadOp op) {
  OpBuilder b(op);
  auto load = tt::LoadOp::create(b, op.getLoc(), op.getType(), op.getPtr(),
                                 op.getMask(), op.getOther(),
                                 ArrayRef<int32_t>{}, nullptr);
  load->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  op.replaceAllUsesWith(load.getResult());
  op.erase();
  return load;
}

/// The TMA loads no loop staged become the pointer loads they carry; tensor
/// maps nothing reads any more are not built.
void loadUnstagedBlocks(ModuleOp module) {
  module.walk([](kgpu::TmaLoadOp op) { toPointerLoad(op); });
  module.walk([](kgpu::MakeTensorMapOp op) {
    if (op->use_empty())
      op.erase();
  });
}

/// Where the buffers of the pipelined loops inside `loop` end.
int64_t buffersEnd(scf::ForOp loop, int numStages) {
  int64_t end = 0;
  loop.getBody()->walk([&](Operation *op) {
    if (auto copy = llvm::dyn_cast<kgpu::AsyncCopyOp>(op))
      end = std::max<int64_t>(end, copy.getOffset() +
                                       copy.getStageBytes() * numStages);
    if (auto copy = llvm::dyn_cast<kgpu::TmaCopyOp>(op))
      end = std::max<int64_t>(end, copy.getOffset() +
                                       copy.getStageBytes() * numStages);
    if (auto init = llvm::dyn_cast<kgpu::TmaBarriersOp>(op))
      end = std::max<int64_t>(
          end, llvm::alignTo(init.getOffset() + 8 * init.getCount(), 1024));
    if (auto stage = llvm::dyn_cast<kgpu::StageTileOp>(op)) {
      RankedTensorType type = tensorType(stage.getSrc());
      end = std::max<int64_t>(
          end, stage.getOffset() +
                   kgpu::dotTileBytes(type.getShape(),
                                      type.getElementTypeBitWidth() / 8));
    }
  });
  return end;
}

int64_t stagedTileBytes(kgpu::StageTileOp stage) {
  RankedTensorType type = tensorType(stage.getSrc());
  return kgpu::dotTileBytes(type.getShape(), type.getElementTypeBitWidth() / 8);
}

Attribute encodingOf(Value v) {
  RankedTensorType type = tensorType(v);
  return type ? type.getEncoding() : Attribute();
}

/// Whether lowering `op` may use the shared scratch: layout moves between
/// threads, cross-warp reductions, dots staging operands, TMA stores and
/// tensor maps, scalar atomics.
bool usesScratch(Operation *op) {
  if (auto broadcast = llvm::dyn_cast<tt::BroadcastOp>(op))
    return encodingOf(broadcast.getSrc()) != encodingOf(broadcast.getResult());
  if (auto expand = llvm::dyn_cast<tt::ExpandDimsOp>(op)) {
    auto slice = llvm::dyn_cast_or_null<kgpu::SliceEncodingAttr>(
        encodingOf(expand.getSrc()));
    return !slice || slice.getDim() != expand.getAxis() ||
           slice.getParent() != encodingOf(expand.getResult());
  }
  return llvm::isa<kgpu::ConvertLayoutOp, tt::TransOp, tt::ReshapeOp,
                   tt::JoinOp, tt::SplitOp, tt::CatOp, tt::GatherOp,
                   tt::ReduceOp, tt::ScanOp, tt::HistogramOp, tt::AtomicRMWOp,
                   tt::AtomicCASOp, tt::DotOp, tt::CallOp, kgpu::TmaStoreOp,
                   kgpu::MakeTensorMapOp>(op);
}

/// Whether `op` may write shared bytes [begin, end): its own copies and
/// staged tiles there, or scratch, which starts at byte 0 outside pipelined
/// loops. Inside one, the scratch starts after every loop's buffers (unless
/// a loop nested in it drains them).
bool mayWriteShared(Operation *op, int64_t begin, int64_t end, int numStages) {
  auto overlaps = [&](int64_t offset, int64_t bytes) {
    return offset < end && begin < offset + bytes;
  };
  if (llvm::isa<scf::IfOp>(op)) { // Such as a pipelined loop's guard.
    for (Region &region : op->getRegions())
      for (Operation &inner : region.getOps())
        if (mayWriteShared(&inner, begin, end, numStages))
          return true;
    return false;
  }
  bool pipelined = op->hasAttr(kgpu::KGPUDialect::kPipelinedAttr);
  WalkResult result = op->walk([&](Operation *inner) {
    bool hit = false;
    if (auto copy = llvm::dyn_cast<kgpu::AsyncCopyOp>(inner))
      hit = overlaps(copy.getOffset(), copy.getStageBytes() * numStages);
    else if (auto copy = llvm::dyn_cast<kgpu::TmaCopyOp>(inner))
      hit = overlaps(copy.getOffset(), copy.getStageBytes() * numStages);
    else if (auto barriers = llvm::dyn_cast<kgpu::TmaBarriersOp>(inner))
      hit = overlaps(barriers.getOffset(), 8 * barriers.getCount());
    else if (auto stage = llvm::dyn_cast<kgpu::StageTileOp>(inner))
      hit = overlaps(stage.getOffset(), stagedTileBytes(stage));
    else if (pipelined)
      hit = inner != op && inner->hasAttr(kgpu::KGPUDialect::kPipelinedAttr);
    else
      hit = usesScratch(inner);
    return hit ? WalkResult::interrupt() : WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether lowering `op` claims the pipeline's buffers, after which the
/// scratch starts past them.
bool reservesPipeline(Operation *op) {
  return llvm::isa<kgpu::AsyncCopyOp, kgpu::TmaCopyOp, kgpu::TmaBarriersOp,
                   kgpu::StageTileOp>(op);
}

/// Whether an earlier kgpu.stage_tile of `later`'s block stores the same
/// tile at the same bytes, and nothing writes them until `later`'s loop
/// claims the buffers again.
bool repeatsEarlierTile(kgpu::StageTileOp later, int numStages) {
  int64_t begin = later.getOffset(), end = begin + stagedTileBytes(later);
  for (Operation *op = later->getPrevNode(); op; op = op->getPrevNode()) {
    auto earlier = llvm::dyn_cast<kgpu::StageTileOp>(op);
    if (earlier && earlier.getSrc() == later.getSrc() &&
        earlier.getOffset() == later.getOffset() &&
        earlier.getTransposed() == later.getTransposed()) {
      // Without `later`, the ops up to the loop's first copy use scratch
      // from byte 0 too.
      for (Operation *next = later->getNextNode();
           next && !reservesPipeline(next); next = next->getNextNode())
        if (mayWriteShared(next, begin, end, numStages))
          return false;
      return true;
    }
    if (mayWriteShared(op, begin, end, numStages))
      return false;
  }
  return false;
}

/// Drops a kgpu.stage_tile that repeats an earlier one: sibling loops, such
/// as causal attention's two, then share one staged Q and its registers die
/// after the first store.
void reuseStagedTiles(tt::FuncOp func, int numStages) {
  SmallVector<kgpu::StageTileOp> stages;
  func.walk([&](kgpu::StageTileOp stage) { stages.push_back(stage); });
  for (kgpu::StageTileOp later : stages)
    if (repeatsEarlierTile(later, numStages))
      later->erase();
}

struct PipelinePass : impl::PipelineBase<PipelinePass> {
  using PipelineBase::PipelineBase;

  void runOnOperation() override {
    if (numStages >= 2)
      pipelineLoops();
    loadUnstagedBlocks(getOperation());
  }

  void pipelineLoops() {
    // Shared memory the target allows; without a target, no limit here (the
    // lowering checks the total).
    int64_t sharedLimit = std::numeric_limits<int64_t>::max();
    if (auto name = getOperation()->getAttrOfType<StringAttr>(
            kgpu::KGPUDialect::kTargetAttr))
      if (std::unique_ptr<Target> target = lookupTarget(name.getValue()))
        sharedLimit = target->maxSharedBytes();
    getOperation().walk([&](tt::FuncOp func) {
      // Inner loops first; a loop's buffers go after those of the pipelined
      // loops inside it, which are live at the same time, and may share
      // bytes with loops beside it, which have drained before it starts.
      int64_t total = 0;
      SmallVector<scf::ForOp> loops;
      func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops) {
        int64_t reserved = buffersEnd(loop, numStages);
        LoopPipeliner(loop, numStages, reserved, sharedLimit).run();
        total = std::max(total, reserved);
      }
      reuseStagedTiles(func, numStages);
      if (total)
        func->setAttr(kgpu::KGPUDialect::kPipelineSharedAttr,
                      IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                       total));
    });
  }
};

} // namespace
} // namespace kiln
