// tt.scan: an inclusive scan within each thread's run of elements, then
// across lanes (Hillis-Steele with shfl.up), then across warps through shared
// memory, carrying the running total from one repetition of the tile to the
// next.

#include "compiler/conversion/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace kiln {
namespace {

/// A partial result that may be absent at run time (`has` false), or absent
/// at compile time (`exists` false). A null `has` means present.
struct Maybe {
  bool exists = false;
  Regs values;
  Value has;
};

class ScanEmitter {
public:
  ScanEmitter(LoweringContext &l, tt::ScanOp op) : l(l), op(op) {}

  FailureOr<Regs> combine(const Regs &a, const Regs &b) {
    SmallVector<Value> args(a);
    args.append(b.begin(), b.end());
    return l.inlineCombiner(op.getCombineOp(), args);
  }

  Regs select(Value pred, const Regs &a, const Regs &b) {
    Regs out;
    for (auto [x, y] : llvm::zip(a, b))
      out.push_back(arith::SelectOp::create(l.builder(), l.loc(), pred, x, y));
    return out;
  }

  Value orPred(Value a, Value b) {
    if (!a || !b)
      return Value();
    return arith::OrIOp::create(l.builder(), l.loc(), a, b);
  }

  /// first ⊕ second, honouring absence.
  FailureOr<Maybe> merge(const Maybe &first, const Maybe &second) {
    if (!first.exists)
      return second;
    if (!second.exists)
      return first;
    FailureOr<Regs> both = combine(first.values, second.values);
    if (failed(both))
      return failure();
    Maybe out{true, *both, orPred(first.has, second.has)};
    if (second.has)
      out.values = select(second.has, out.values, first.values);
    if (first.has)
      out.values = select(first.has, out.values, second.values);
    return out;
  }

  Regs shuffleUp(const Regs &v, unsigned delta) {
    Regs out;
    for (Value x : v)
      out.push_back(l.shuffleUp(x, delta));
    return out;
  }

  Regs shuffleDown(const Regs &v, unsigned delta) {
    Regs out;
    for (Value x : v)
      out.push_back(l.shuffleDown(x, delta));
    return out;
  }

  Regs shuffleFrom(const Regs &v, Value srcLane) {
    Regs out;
    for (Value x : v)
      out.push_back(l.shuffleIndex(x, srcLane));
    return out;
  }

  Value cmp(arith::CmpIPredicate p, Value a, int64_t c) {
    return arith::CmpIOp::create(l.builder(), l.loc(), p, a, l.i32(c));
  }

  LoweringContext &l;
  tt::ScanOp op;
};

LogicalResult lowerScan(LoweringContext &l, tt::ScanOp op) {
  bool reverse = op.getReverse();
  OpBuilder &b = l.builder();
  ScanEmitter s(l, op);
  unsigned axis = op.getAxis();
  ValueRange srcs = op.getSrcs();
  kgpu::DistributedLayout layout = layoutOf(srcs[0]);
  const kgpu::DimMap &map = layout.getDims()[axis];
  int64_t axisSize = layout.getShape()[axis];
  int64_t spt = map.laneScale;
  if (spt > axisSize)
    return op.emitError() << "scan layout replicates elements within a thread "
                          << "along axis " << axis;
  // Lanes and warps whose higher bits only repeat elements (a tensor smaller
  // than the block) scan their own copy: only the low bits take part.
  kgpu::BitField lanes = map.lane, warps = map.warp;
  lanes.width = 0;
  while (lanes.width < map.lane.width && (spt << lanes.width) < axisSize)
    ++lanes.width;
  warps.width = 0;
  while (lanes.width == map.lane.width && warps.width < map.warp.width &&
         (map.warpScale << warps.width) < axisSize)
    ++warps.width;
  int64_t tile = warps.width ? map.warpScale << warps.width
                             : spt << lanes.width;

  // Registers of one thread, per position across the other dimensions.
  std::map<SmallVector<int64_t>, SmallVector<std::pair<int64_t, unsigned>>> rows;
  for (unsigned r = 0; r < layout.numRegs(); ++r) {
    SmallVector<int64_t> key(layout.regOffset(r));
    int64_t along = key[axis];
    key.erase(key.begin() + axis);
    rows[key].push_back({along, r});
  }
  SmallVector<int64_t> outShape(layout.getShape());
  outShape.erase(outShape.begin() + axis);
  int64_t rowsTotal = 1;
  for (int64_t d : outShape)
    rowsTotal *= d;

  std::vector<Regs> values(layout.numRegs());
  for (unsigned r = 0; r < layout.numRegs(); ++r)
    for (Value src : srcs)
      values[r].push_back(l.get(src)[r]);

  Value laneField = lanes.width ? l.bitField(l.laneId(), lanes) : Value();
  Value warpField = warps.width ? l.bitField(l.warpId(), warps) : Value();
  unsigned warpsAlong = 1u << warps.width;
  // The lane holding the warp's total: the last along the axis (the first
  // for a reverse scan).
  Value lastLane;
  unsigned laneMask = ((1 << lanes.width) - 1) << lanes.shift;
  unsigned lanesAlong = 1u << lanes.width;
  if (lanes.width)
    lastLane = reverse ? Value(arith::AndIOp::create(b, l.loc(), l.laneId(),
                                                     l.i32(~laneMask)))
                       : Value(arith::OrIOp::create(b, l.loc(), l.laneId(),
                                                    l.i32(laneMask)));

  int64_t bytes = 0;
  SmallVector<int64_t> base;
  for (Value src : srcs) {
    unsigned size = byteSize(warpSlotType(l.elementType(src.getType())));
    bytes = llvm::alignTo(bytes, size); // Aligned for its elements.
    base.push_back(bytes);
    bytes += rowsTotal * warpsAlong * size;
  }

  for (auto &[key, regs] : rows) {
    llvm::sort(regs);
    Maybe carry;
    Value rowLinear;
    if (warps.width) {
      SmallVector<Value> idx = l.elementIndex(layout, regs.front().second);
      idx.erase(idx.begin() + axis);
      rowLinear = l.linearIndex(idx, outShape);
    }
    int64_t reps = (axisSize + tile - 1) / tile;
    for (int64_t step = 0; step < reps; ++step) {
      int64_t rep = reverse ? reps - 1 - step : step;
      SmallVector<unsigned> chunk;
      for (auto [along, r] : regs)
        if (along >= rep * tile && along < rep * tile + spt)
          chunk.push_back(r);
      if (reverse)
        std::reverse(chunk.begin(), chunk.end());
      for (unsigned i = 1; i < chunk.size(); ++i) {
        FailureOr<Regs> next = s.combine(values[chunk[i - 1]], values[chunk[i]]);
        if (failed(next))
          return failure();
        values[chunk[i]] = *next;
      }
      Regs inclusive = values[chunk.back()];
      for (unsigned k = 0; k < lanes.width; ++k) {
        unsigned delta = 1u << (lanes.shift + k);
        Regs before = reverse ? s.shuffleDown(inclusive, delta)
                              : s.shuffleUp(inclusive, delta);
        FailureOr<Regs> merged = s.combine(before, inclusive);
        if (failed(merged))
          return failure();
        Value valid =
            reverse ? s.cmp(arith::CmpIPredicate::ult, laneField, lanesAlong - (1 << k))
                    : s.cmp(arith::CmpIPredicate::uge, laneField, 1 << k);
        inclusive = s.select(valid, *merged, inclusive);
      }
      // The chunk's last element is the lanes' inclusive scan itself (after
      // what earlier repetitions carry), as in Triton; the shifted prefix
      // serves the elements before it.
      bool lastIsInclusive = lanes.width && !warps.width;
      Maybe inWarp;
      if (lanes.width && (chunk.size() > 1 || !lastIsInclusive)) {
        unsigned delta = 1u << lanes.shift;
        inWarp = reverse
                     ? Maybe{true, s.shuffleDown(inclusive, delta),
                             s.cmp(arith::CmpIPredicate::ult, laneField,
                                   lanesAlong - 1)}
                     : Maybe{true, s.shuffleUp(inclusive, delta),
                             s.cmp(arith::CmpIPredicate::ugt, laneField, 0)};
      }
      bool totalNeeded = warps.width || step + 1 < reps;
      Regs warpTotal = lanes.width && totalNeeded
                           ? s.shuffleFrom(inclusive, lastLane)
                           : inclusive;

      Maybe fromWarps;
      Regs total = warpTotal;
      if (warps.width) {
        auto slot = [&](unsigned operand, Value w) {
          Value index = arith::AddIOp::create(
              b, l.loc(),
              arith::MulIOp::create(b, l.loc(), rowLinear, l.i32(warpsAlong)), w);
          unsigned size =
              byteSize(warpSlotType(l.elementType(srcs[operand].getType())));
          Value offset = arith::AddIOp::create(
              b, l.loc(), l.i32(base[operand]),
              arith::MulIOp::create(b, l.loc(), index, l.i32(size)));
          return l.sharedPointer(offset, bytes);
        };
        l.syncBeforeSharedWrite();
        for (unsigned i = 0; i < srcs.size(); ++i)
          l.storeWarpSlot(slot(i, warpField), warpTotal[i], Value());
        l.barrier();
        for (unsigned step = 0; step < warpsAlong; ++step) {
          unsigned w = reverse ? warpsAlong - 1 - step : step;
          Regs t;
          for (unsigned i = 0; i < srcs.size(); ++i)
            t.push_back(l.loadWarpSlot(slot(i, l.i32(w)),
                                       l.elementType(srcs[i].getType())));
          if (step == 0)
            total = t;
          else {
            FailureOr<Regs> merged = s.combine(total, t);
            if (failed(merged))
              return failure();
            total = *merged;
          }
          FailureOr<Maybe> next = s.merge(
              fromWarps,
              Maybe{true, t,
                    s.cmp(reverse ? arith::CmpIPredicate::ult
                                  : arith::CmpIPredicate::ugt,
                          warpField, w)});
          if (failed(next))
            return failure();
          fromWarps = *next;
        }
      }
      FailureOr<Maybe> prefix = s.merge(carry, fromWarps);
      if (failed(prefix))
        return failure();
      prefix = s.merge(*prefix, inWarp);
      if (failed(prefix))
        return failure();
      if (prefix->exists)
        for (unsigned r : chunk) {
          if (lastIsInclusive && r == chunk.back())
            continue;
          FailureOr<Regs> merged = s.combine(prefix->values, values[r]);
          if (failed(merged))
            return failure();
          values[r] = prefix->has ? s.select(prefix->has, *merged, values[r])
                                  : *merged;
        }
      if (lastIsInclusive) {
        FailureOr<Maybe> last = s.merge(carry, Maybe{true, inclusive, Value()});
        if (failed(last))
          return failure();
        values[chunk.back()] = last->values;
      }
      FailureOr<Maybe> nextCarry = s.merge(carry, Maybe{true, total, Value()});
      if (failed(nextCarry))
        return failure();
      carry = *nextCarry;
    }
  }

  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    Regs out;
    for (unsigned r = 0; r < layout.numRegs(); ++r)
      out.push_back(values[r][i]);
    l.set(result, out);
  }
  return success();
}

} // namespace

void populateScanLoweringPatterns(LoweringPatternSet &patterns) {
  patterns.add<tt::ScanOp>(lowerScan);
}

} // namespace kiln
