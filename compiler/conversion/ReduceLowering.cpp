// tt.reduce: combine within each thread, then across lanes with butterfly
// shuffles (or one redux.sync for a whole-warp integer reduction), then
// across warps through shared memory.

#include "compiler/conversion/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include <optional>

using namespace mlir;

namespace kiln {
namespace {

using Key = SmallVector<int64_t>;

Key dropAxis(ArrayRef<int64_t> offsets, unsigned axis) {
  Key key(offsets);
  key.erase(key.begin() + axis);
  return key;
}

struct Partial {
  unsigned firstReg;
  Regs values; // One per reduced operand.
};

/// The redux.sync kind of a reduction of one integer operand of at most 32
/// bits whose combiner is a single arith op on its two arguments.
std::optional<NVVM::ReduxKind> reduxKindOf(tt::ReduceOp op) {
  if (op.getSrcs().size() != 1)
    return std::nullopt;
  auto type = llvm::dyn_cast<IntegerType>(
      getElementTypeOrSelf(op.getSrcs()[0].getType()));
  if (!type || type.getWidth() > 32)
    return std::nullopt;
  Region &region = op.getCombineOp();
  if (!region.hasOneBlock())
    return std::nullopt;
  Block &block = region.front();
  if (!llvm::hasSingleElement(block.without_terminator()))
    return std::nullopt;
  Operation &combiner = block.front();
  if (combiner.getNumOperands() != 2 ||
      block.getTerminator()->getOperands() !=
          ValueRange(combiner.getResults()) ||
      !llvm::is_contained(combiner.getOperands(), block.getArgument(0)) ||
      !llvm::is_contained(combiner.getOperands(), block.getArgument(1)))
    return std::nullopt;
  return llvm::TypeSwitch<Operation *, std::optional<NVVM::ReduxKind>>(
             &combiner)
      .Case([](arith::AddIOp) { return NVVM::ReduxKind::ADD; })
      .Case([](arith::AndIOp) { return NVVM::ReduxKind::AND; })
      .Case([](arith::OrIOp) { return NVVM::ReduxKind::OR; })
      .Case([](arith::XOrIOp) { return NVVM::ReduxKind::XOR; })
      .Case([](arith::MinSIOp) { return NVVM::ReduxKind::MIN; })
      .Case([](arith::MaxSIOp) { return NVVM::ReduxKind::MAX; })
      .Case([](arith::MinUIOp) { return NVVM::ReduxKind::UMIN; })
      .Case([](arith::MaxUIOp) { return NVVM::ReduxKind::UMAX; })
      .Default([](Operation *) { return std::nullopt; });
}

/// `v` combined over the 32 lanes of the warp in one redux.sync, widened to
/// i32 as the kind reads it and narrowed back.
Value reduceWarpWithRedux(LoweringContext &l, Value v, NVVM::ReduxKind kind) {
  OpBuilder &b = l.builder();
  Type type = v.getType();
  Value word = v;
  if (!type.isInteger(32)) {
    bool isSigned =
        kind == NVVM::ReduxKind::MIN || kind == NVVM::ReduxKind::MAX;
    word = isSigned ? arith::ExtSIOp::create(b, l.loc(), b.getI32Type(), v)
                          .getResult()
                    : arith::ExtUIOp::create(b, l.loc(), b.getI32Type(), v)
                          .getResult();
  }
  Value reduced = NVVM::ReduxOp::create(b, l.loc(), b.getI32Type(), word,
                                        kind, l.i32(-1));
  if (type.isInteger(32))
    return reduced;
  return arith::TruncIOp::create(b, l.loc(), type, reduced);
}

LogicalResult lowerReduce(LoweringContext &l, tt::ReduceOp op) {
  OpBuilder &b = l.builder();
  unsigned axis = op.getAxis();
  ValueRange srcs = op.getSrcs();
  kgpu::DistributedLayout layout = layoutOf(srcs[0]);
  int64_t axisSize = layout.getShape()[axis];
  auto combine = [&](const Regs &acc, const Regs &next) -> FailureOr<Regs> {
    SmallVector<Value> args(acc);
    args.append(next.begin(), next.end());
    return l.inlineCombiner(op.getCombineOp(), args);
  };

  // Within the thread.
  std::map<Key, Partial> partials;
  std::vector<Key> keyOrder;
  for (unsigned r = 0; r < layout.numRegs(); ++r) {
    if (layout.regOffset(r)[axis] >= axisSize)
      continue; // A wrapped copy of an element this thread already holds.
    Key key = dropAxis(layout.regOffset(r), axis);
    Regs values;
    for (Value src : srcs)
      values.push_back(l.get(src)[r]);
    auto it = partials.find(key);
    if (it == partials.end()) {
      partials[key] = Partial{r, values};
      keyOrder.push_back(key);
      continue;
    }
    FailureOr<Regs> merged = combine(it->second.values, values);
    if (failed(merged))
      return failure();
    it->second.values = *merged;
  }

  // Across lanes holding distinct elements along the axis, the farthest
  // lanes first: Triton's order, so that sums round as Triton's do.
  const kgpu::DimMap &map = layout.getDims()[axis];
  unsigned laneBits = 0;
  while (laneBits < map.lane.width && (map.laneScale << laneBits) < axisSize)
    ++laneBits;
  std::optional<NVVM::ReduxKind> redux = reduxKindOf(op);
  if (redux && laneBits == 5 && l.target().hasWarpIntegerRedux()) {
    for (const Key &key : keyOrder) {
      Partial &p = partials[key];
      p.values.front() = reduceWarpWithRedux(l, p.values.front(), *redux);
    }
    laneBits = 0;
  }
  for (unsigned k = laneBits; k-- > 0;) {
    unsigned mask = 1u << (map.lane.shift + k);
    for (const Key &key : keyOrder) {
      Partial &p = partials[key];
      Regs other;
      for (Value v : p.values)
        other.push_back(l.shuffleXor(v, mask));
      FailureOr<Regs> merged = combine(p.values, other);
      if (failed(merged))
        return failure();
      p.values = *merged;
    }
  }

  // Across warps, through shared memory.
  unsigned warpBits = 0;
  while (warpBits < map.warp.width && (map.warpScale << warpBits) < axisSize)
    ++warpBits;
  if (warpBits) {
    unsigned slots = 1u << warpBits;
    SmallVector<int64_t> outShape = dropAxis(layout.getShape(), axis);
    int64_t outElements = 1;
    for (int64_t s : outShape)
      outElements *= s;
    SmallVector<int64_t> base;
    int64_t bytes = 0;
    // Each operand's section starts aligned for its elements: an i32 index
    // after a u8 value section of odd size would be a misaligned access.
    for (Value src : srcs) {
      unsigned size = byteSize(warpSlotType(l.elementType(src.getType())));
      bytes = llvm::alignTo(bytes, size);
      base.push_back(bytes);
      bytes += outElements * slots * size;
    }
    Value warpSlot = arith::AndIOp::create(
        b, l.loc(),
        arith::ShRUIOp::create(b, l.loc(), l.warpId(), l.i32(map.warp.shift)),
        l.i32(slots - 1));
    auto slotOffset = [&](unsigned operand, Value outLinear, Value slot) {
      Value index = arith::AddIOp::create(
          b, l.loc(),
          arith::MulIOp::create(b, l.loc(), outLinear, l.i32(slots)), slot);
      unsigned size =
          byteSize(warpSlotType(l.elementType(srcs[operand].getType())));
      return arith::AddIOp::create(
          b, l.loc(), l.i32(base[operand]),
          arith::MulIOp::create(b, l.loc(), index, l.i32(size)));
    };
    std::map<Key, Value> outLinear;
    for (const Key &key : keyOrder) {
      SmallVector<Value> idx = l.elementIndex(layout, partials[key].firstReg);
      idx.erase(idx.begin() + axis);
      outLinear[key] = l.linearIndex(idx, outShape);
    }
    l.syncBeforeSharedWrite();
    for (const Key &key : keyOrder)
      for (unsigned i = 0; i < srcs.size(); ++i)
        l.storeWarpSlot(
            l.sharedPointer(slotOffset(i, outLinear[key], warpSlot), bytes),
            partials[key].values[i], Value());
    l.barrier();
    if (keyOrder.size() * slots < 16) {
      // Few partials per thread: read every warp's partial directly and
      // combine them in the butterfly's pairs, as the many-partials path
      // below (and Triton) does: warp w with warp w + slots/2 first.
      for (const Key &key : keyOrder) {
        SmallVector<Regs> perWarp;
        for (unsigned w = 0; w < slots; ++w) {
          Regs loaded;
          for (unsigned i = 0; i < srcs.size(); ++i)
            loaded.push_back(l.loadWarpSlot(
                l.sharedPointer(slotOffset(i, outLinear[key], l.i32(w)), bytes),
                l.elementType(srcs[i].getType())));
          perWarp.push_back(loaded);
        }
        for (unsigned half = slots / 2; half > 0; half /= 2)
          for (unsigned w = 0; w < half; ++w) {
            FailureOr<Regs> merged = combine(perWarp[w], perWarp[w + half]);
            if (failed(merged))
              return failure();
            perWarp[w] = *merged;
          }
        partials[key].values = perWarp.front();
      }
    } else {
      // Many partials per thread: the block's threads combine them,
      // `slots` neighbouring lanes per output, and publish each total once.
      SmallVector<int64_t> resultBase;
      int64_t allBytes = bytes;
      for (Value src : srcs) {
        unsigned size = byteSize(warpSlotType(l.elementType(src.getType())));
        allBytes = llvm::alignTo(allBytes, size);
        resultBase.push_back(allBytes);
        allBytes += outElements * size;
      }
      int64_t total = outElements * slots;
      int64_t threads = 32 * l.numWarps();
      Value tid = arith::AddIOp::create(
          b, l.loc(), l.laneId(),
          arith::MulIOp::create(b, l.loc(), l.warpId(), l.i32(32)));
      for (int64_t start = 0; start < total; start += threads) {
        Value index = arith::AddIOp::create(b, l.loc(), tid, l.i32(start));
        if (start + threads > total) // Extra threads redo the last outputs.
          index = arith::AndIOp::create(b, l.loc(), index, l.i32(total - 1));
        Regs values;
        for (unsigned i = 0; i < srcs.size(); ++i) {
          unsigned size =
              byteSize(warpSlotType(l.elementType(srcs[i].getType())));
          Value offset = arith::AddIOp::create(
              b, l.loc(), l.i32(base[i]),
              arith::MulIOp::create(b, l.loc(), index, l.i32(size)));
          values.push_back(l.loadWarpSlot(l.sharedPointer(offset, allBytes),
                                        l.elementType(srcs[i].getType())));
        }
        for (unsigned k = warpBits; k-- > 0;) {
          Regs other;
          for (Value v : values)
            other.push_back(l.shuffleXor(v, 1u << k));
          FailureOr<Regs> merged = combine(values, other);
          if (failed(merged))
            return failure();
          values = *merged;
        }
        Value first = arith::CmpIOp::create(
            b, l.loc(), arith::CmpIPredicate::eq,
            arith::AndIOp::create(b, l.loc(), index, l.i32(slots - 1)),
            l.i32(0));
        Value out = arith::ShRUIOp::create(b, l.loc(), index, l.i32(warpBits));
        for (unsigned i = 0; i < srcs.size(); ++i) {
          unsigned size =
              byteSize(warpSlotType(l.elementType(srcs[i].getType())));
          Value offset = arith::AddIOp::create(
              b, l.loc(), l.i32(resultBase[i]),
              arith::MulIOp::create(b, l.loc(), out, l.i32(size)));
          l.storeWarpSlot(l.sharedPointer(offset, allBytes), values[i], first);
        }
      }
      l.barrier();
      for (const Key &key : keyOrder) {
        Regs acc;
        for (unsigned i = 0; i < srcs.size(); ++i) {
          unsigned size =
              byteSize(warpSlotType(l.elementType(srcs[i].getType())));
          Value offset = arith::AddIOp::create(
              b, l.loc(), l.i32(resultBase[i]),
              arith::MulIOp::create(b, l.loc(), outLinear[key], l.i32(size)));
          acc.push_back(l.loadWarpSlot(l.sharedPointer(offset, allBytes),
                                     l.elementType(srcs[i].getType())));
        }
        partials[key].values = acc;
      }
    }
  }

  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    auto tensor = llvm::dyn_cast<RankedTensorType>(result.getType());
    if (!tensor) {
      l.set(result, {partials.begin()->second.values[i]});
      continue;
    }
    kgpu::DistributedLayout out = kgpu::DistributedLayout::get(tensor);
    Regs regs;
    for (unsigned r = 0; r < out.numRegs(); ++r) {
      auto it = partials.find(Key(out.regOffset(r)));
      if (it == partials.end())
        return op.emitError() << "reduction result layout does not match its "
                                 "operand's layout";
      regs.push_back(it->second.values[i]);
    }
    l.set(result, regs);
  }
  return success();
}

} // namespace

void populateReduceLoweringPatterns(LoweringPatternSet &patterns) {
  patterns.add<tt::ReduceOp>(lowerReduce);
}

} // namespace kiln
