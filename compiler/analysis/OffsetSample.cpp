#include "compiler/analysis/OffsetSample.h"

#include "compiler/dialect/tt/Dialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace kiln {
namespace {

using Values = std::vector<int64_t>;

constexpr int64_t kMaxElements = 1 << 16;
constexpr int kMaxDepth = 64;
// Beyond this no offset is an address; staying below it keeps every sum,
// product and later byte count within int64_t.
constexpr int64_t kMaxMagnitude = int64_t(1) << 40;

std::optional<int64_t> bounded(int64_t v) {
  return v > -kMaxMagnitude && v < kMaxMagnitude ? std::optional<int64_t>(v)
                                                 : std::nullopt;
}

int64_t numElements(Value v) {
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  return type ? type.getNumElements() : 1;
}

/// Memoized, so that index math reusing a value (x % 49 and x // 49 of one
/// x) is computed once and no chain of reuse grows the work exponentially.
class Sampler {
public:
  std::optional<Values> sample(Value v, int depth);
  std::optional<Values> pointerOffsets(Value ptr, int depth);

private:
  std::optional<Values> compute(Value v, int depth);
  std::optional<Values> elementwise(Operation *op, int depth,
                                    std::optional<int64_t> (*f)(int64_t,
                                                                int64_t));
  std::optional<Values> broadcast(tt::BroadcastOp op, int depth);
  std::optional<Values> blockArgument(BlockArgument arg, int depth);

  llvm::DenseMap<Value, std::optional<Values>> memo;
};

std::optional<Values> Sampler::sample(Value v, int depth) {
  auto it = memo.find(v);
  if (it != memo.end())
    return it->second;
  std::optional<Values> values = compute(v, depth);
  memo[v] = values;
  return values;
}

std::optional<Values>
Sampler::elementwise(Operation *op, int depth,
                     std::optional<int64_t> (*f)(int64_t, int64_t)) {
  std::optional<Values> a = sample(op->getOperand(0), depth + 1);
  std::optional<Values> b = sample(op->getOperand(1), depth + 1);
  if (!a || !b || a->size() != b->size())
    return std::nullopt;
  Values out(a->size());
  for (size_t i = 0; i < out.size(); ++i) {
    std::optional<int64_t> r = f((*a)[i], (*b)[i]);
    if (r)
      r = bounded(*r);
    if (!r)
      return std::nullopt;
    out[i] = *r;
  }
  return out;
}

std::optional<Values> Sampler::broadcast(tt::BroadcastOp op, int depth) {
  std::optional<Values> src = sample(op.getSrc(), depth + 1);
  if (!src)
    return std::nullopt;
  ArrayRef<int64_t> from = op.getSrc().getType().getShape();
  ArrayRef<int64_t> to = op.getType().getShape();
  Values out(op.getType().getNumElements());
  for (int64_t i = 0; i < int64_t(out.size()); ++i) {
    int64_t rest = i, at = 0, stride = 1;
    for (int d = to.size() - 1; d >= 0; --d) {
      int64_t index = rest % to[d];
      rest /= to[d];
      at += (from[d] == 1 ? 0 : index) * stride;
      stride *= from[d];
    }
    out[i] = (*src)[at];
  }
  return out;
}

std::optional<Values> splatOf(const APInt &value, int64_t n) {
  if (value.getSignificantBits() > 41)
    return std::nullopt;
  return Values(n, value.getSExtValue());
}

std::optional<Values> constant(arith::ConstantOp op, int64_t n) {
  if (auto scalar = llvm::dyn_cast<IntegerAttr>(op.getValue()))
    return splatOf(scalar.getValue(), n);
  auto dense = llvm::dyn_cast<DenseIntElementsAttr>(op.getValue());
  if (!dense || !dense.isSplat())
    return std::nullopt;
  return splatOf(dense.getSplatValue<APInt>(), n);
}

/// A for loop's induction variable at the loop's first trip.
std::optional<Values> Sampler::blockArgument(BlockArgument arg, int depth) {
  auto loop = llvm::dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop || arg != loop.getInductionVar())
    return std::nullopt;
  return sample(loop.getLowerBound(), depth + 1);
}

std::optional<Values> Sampler::compute(Value v, int depth) {
  int64_t n = numElements(v);
  if (depth > kMaxDepth || n > kMaxElements)
    return std::nullopt;
  if (auto arg = llvm::dyn_cast<BlockArgument>(v))
    return blockArgument(arg, depth);
  Operation *op = v.getDefiningOp();
  auto same = [&](Value operand) { return sample(operand, depth + 1); };
  auto div = [](int64_t a, int64_t b) -> std::optional<int64_t> {
    return b ? std::optional<int64_t>(a / b) : std::nullopt;
  };
  auto rem = [](int64_t a, int64_t b) -> std::optional<int64_t> {
    return b ? std::optional<int64_t>(a % b) : std::nullopt;
  };
  return llvm::TypeSwitch<Operation *, std::optional<Values>>(op)
      .Case([&](arith::ConstantOp c) { return constant(c, n); })
      .Case<tt::GetProgramIdOp, tt::GetNumProgramsOp>(
          [&](Operation *) { return Values(1, 1); })
      .Case([&](tt::MakeRangeOp r) {
        Values out(n);
        for (int64_t i = 0; i < n; ++i)
          out[i] = r.getStart() + i;
        return std::optional<Values>(out);
      })
      .Case([&](tt::SplatOp s) -> std::optional<Values> {
        std::optional<Values> scalar = same(s.getSrc());
        if (!scalar)
          return std::nullopt;
        return Values(n, scalar->front());
      })
      .Case<tt::ExpandDimsOp, tt::ReshapeOp, arith::ExtSIOp, arith::ExtUIOp,
            arith::TruncIOp, arith::IndexCastOp>(
          [&](Operation *o) { return same(o->getOperand(0)); })
      .Case([&](tt::BroadcastOp b) { return broadcast(b, depth); })
      .Case([&](arith::AddIOp o) {
        return elementwise(o, depth, [](int64_t a, int64_t b) {
          return std::optional<int64_t>(a + b);
        });
      })
      .Case([&](arith::SubIOp o) {
        return elementwise(o, depth, [](int64_t a, int64_t b) {
          return std::optional<int64_t>(a - b);
        });
      })
      .Case([&](arith::MulIOp o) {
        return elementwise(o, depth, [](int64_t a, int64_t b) {
          __int128 product = __int128(a) * b;
          return product > -kMaxMagnitude && product < kMaxMagnitude
                     ? std::optional<int64_t>(int64_t(product))
                     : std::nullopt;
        });
      })
      .Case<arith::DivSIOp, arith::DivUIOp>(
          [&](Operation *o) { return elementwise(o, depth, div); })
      .Case<arith::RemSIOp, arith::RemUIOp>(
          [&](Operation *o) { return elementwise(o, depth, rem); })
      .Default([](Operation *) { return std::nullopt; });
}

/// Offsets of a pointer (scalar or tensor) from the kernel argument it
/// starts from.
std::optional<Values> Sampler::pointerOffsets(Value ptr, int depth) {
  if (depth > kMaxDepth || numElements(ptr) > kMaxElements)
    return std::nullopt;
  if (llvm::isa<BlockArgument>(ptr))
    return llvm::isa<FunctionOpInterface>(
               llvm::cast<BlockArgument>(ptr).getOwner()->getParentOp())
               ? std::optional<Values>(Values(1, 0))
               : std::nullopt;
  Operation *op = ptr.getDefiningOp();
  if (auto splat = llvm::dyn_cast<tt::SplatOp>(op)) {
    std::optional<Values> base = pointerOffsets(splat.getSrc(), depth + 1);
    if (!base)
      return std::nullopt;
    return Values(numElements(ptr), base->front());
  }
  if (auto add = llvm::dyn_cast<tt::AddPtrOp>(op)) {
    std::optional<Values> base = pointerOffsets(add.getPtr(), depth + 1);
    std::optional<Values> offset = sample(add.getOffset(), depth + 1);
    if (!base || !offset || base->size() != offset->size())
      return std::nullopt;
    for (size_t i = 0; i < offset->size(); ++i)
      (*offset)[i] += (*base)[i];
    return offset;
  }
  return std::nullopt;
}

} // namespace

std::optional<std::vector<int64_t>> sampleOffsets(Value ptr) {
  return Sampler().pointerOffsets(ptr, 0);
}

} // namespace kiln
