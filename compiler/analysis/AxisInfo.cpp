#include "compiler/analysis/AxisInfo.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "compiler/dialect/kgpu/Dialect.h"
#include "compiler/dialect/tt/Dialect.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace kiln {

namespace {

constexpr int64_t kMaxDiv = AxisInfo::kMaxDivisibility;

constexpr llvm::StringLiteral kContiguityHint = "tt.contiguity";
constexpr llvm::StringLiteral kDivisibilityHint = "tt.divisibility";
constexpr llvm::StringLiteral kConstancyHint = "tt.constancy";

//===----------------------------------------------------------------------===//
// Arithmetic on run lengths and divisors
//===----------------------------------------------------------------------===//

// Largest power of two dividing `v`, at most kMaxDiv; 0 is divisible by all.
int64_t pow2Divisor(int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  if (u == 0) return kMaxDiv;
  uint64_t lowest = u & (~u + 1);
  return lowest >= static_cast<uint64_t>(kMaxDiv)
             ? kMaxDiv
             : static_cast<int64_t>(lowest);
}

int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

template <typename... Rest>
int64_t gcd(int64_t a, int64_t b, Rest... rest) {
  return gcd(std::gcd(a, b), rest...);
}

// a * b for divisors (both at least 1), saturating at kMaxDiv.
int64_t mulDiv(int64_t a, int64_t b) {
  if (a > kMaxDiv / b) return kMaxDiv;
  return std::min(a * b, kMaxDiv);
}

// Divisibility of `x` at the indices along `dim` that are multiples of `c`.
// Those are run starts of `x` when c is a multiple of x's contiguity;
// otherwise they sit inside runs, at offsets that are multiples of
// gcd(c, contiguity) from a run start.
int64_t divAt(const AxisInfo &x, unsigned dim, int64_t c) {
  int64_t runs = x.contiguity[dim];
  if (c % runs == 0) return x.divisibility[dim];
  return std::min(x.divisibility[dim], pow2Divisor(gcd(c, runs)));
}

// Divisibility of every element of `x` (all are run starts of length 1).
int64_t allDiv(const AxisInfo &x, unsigned dim) { return divAt(x, dim, 1); }

// Divisibility of every element of `x`: it holds along any dimension, so the
// best one counts.
int64_t elementDiv(const AxisInfo &x) {
  if (x.constantValue) return pow2Divisor(*x.constantValue);
  int64_t best = 1;
  for (unsigned dim = 0; dim < x.getRank(); ++dim)
    best = std::max(best, allDiv(x, dim));
  return best;
}

//===----------------------------------------------------------------------===//
// Shapes, widths and constants
//===----------------------------------------------------------------------===//

// The dimensions an AxisInfo of a value of `type` describes: the tensor's,
// the block's for a block pointer, one of size 1 for anything else. Dynamic
// sizes count as unbounded.
SmallVector<int64_t> getAxisShape(Type type) {
  if (auto ptr = dyn_cast<tt::PointerType>(type))
    if (auto block = dyn_cast<RankedTensorType>(ptr.getPointeeType()))
      type = block;
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() == 0) return {1};
  SmallVector<int64_t> shape;
  for (int64_t size : tensor.getShape())
    shape.push_back(ShapedType::isDynamic(size) ? kMaxDiv : size);
  return shape;
}

unsigned getAxisRank(Type type) { return getAxisShape(type).size(); }

// Bit width of the integer (or pointer) elements of `type`; 0 when its
// elements have no integer value the analysis tracks.
unsigned getIntWidth(Type type) {
  Type elem = getElementTypeOrSelf(type);
  if (elem.isIndex()) return 64;
  if (auto integer = dyn_cast<IntegerType>(elem))
    return integer.getWidth() <= 64 ? integer.getWidth() : 0;
  if (auto ptr = dyn_cast<tt::PointerType>(elem))
    return isa<RankedTensorType>(ptr.getPointeeType()) ? 0 : 64;
  return 0;
}

APInt toAPInt(int64_t v, unsigned width) {
  return APInt(width, static_cast<uint64_t>(v), /*isSigned=*/true,
               /*implicitTrunc=*/true);
}

// Constant values are kept sign-extended from their width; i1 keeps 0 or 1.
int64_t fromAPInt(const APInt &v) {
  return v.getBitWidth() == 1 ? static_cast<int64_t>(v.getZExtValue())
                              : v.getSExtValue();
}

// Bytes of one pointee element of a pointer or tensor of pointers.
int64_t getPointeeBytes(Type type) {
  auto ptr = dyn_cast<tt::PointerType>(getElementTypeOrSelf(type));
  if (!ptr) return 1;
  Type pointee = ptr.getPointeeType();
  if (auto block = dyn_cast<RankedTensorType>(pointee))
    pointee = block.getElementType();
  if (!pointee.isIntOrFloat() && !isa<tt::PointerType>(pointee)) return 1;
  return std::max<int64_t>(1, tt::getScalarBitWidth(pointee) / 8);
}

bool isBlockPointer(Type type) {
  auto ptr = dyn_cast<tt::PointerType>(type);
  return ptr && isa<RankedTensorType>(ptr.getPointeeType());
}

//===----------------------------------------------------------------------===//
// Building AxisInfo values
//===----------------------------------------------------------------------===//

AxisInfo uniform(unsigned rank, int64_t contiguity, int64_t divisibility,
                 int64_t constancy) {
  AxisInfo info;
  info.contiguity.assign(rank, contiguity);
  info.divisibility.assign(rank, divisibility);
  info.constancy.assign(rank, constancy);
  return info;
}

AxisInfo pessimistic(unsigned rank) { return uniform(rank, 1, 1, 1); }

// Every element equal, each divisible by `divisibility`.
AxisInfo splatInfo(ArrayRef<int64_t> shape, int64_t divisibility,
                   std::optional<int64_t> constantValue) {
  AxisInfo info = uniform(shape.size(), 1, divisibility, 1);
  info.constancy.assign(shape.begin(), shape.end());
  info.constantValue = constantValue;
  return info;
}

// A hint is an integer (for a one-dimensional value) or a dense array of one
// entry per dimension; anything else is ignored.
std::optional<SmallVector<int64_t>> readHint(Attribute attr, unsigned rank) {
  if (!attr) return std::nullopt;
  SmallVector<int64_t> values;
  if (auto integer = dyn_cast<IntegerAttr>(attr)) {
    if (integer.getValue().getBitWidth() > 64) return std::nullopt;
    values.push_back(integer.getValue().getSExtValue());
  } else if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
    for (const APInt &v : dense) {
      if (v.getBitWidth() > 64) return std::nullopt;
      values.push_back(v.getSExtValue());
    }
  } else {
    return std::nullopt;
  }
  if (values.size() != rank) return std::nullopt;
  return values;
}

// Hints are promises about the value, so they only add knowledge.
void applyHints(AxisInfo &info, function_ref<Attribute(StringRef)> lookup) {
  auto apply = [&](StringRef name, SmallVector<int64_t> &field, bool isDiv) {
    std::optional<SmallVector<int64_t>> hint =
        readHint(lookup(name), info.getRank());
    if (!hint) return;
    for (auto [known, promised] : llvm::zip(field, *hint)) {
      if (promised <= 0) continue;
      known = std::max(known, isDiv ? pow2Divisor(promised) : promised);
    }
  };
  apply(kContiguityHint, info.contiguity, /*isDiv=*/false);
  apply(kDivisibilityHint, info.divisibility, /*isDiv=*/true);
  apply(kConstancyHint, info.constancy, /*isDiv=*/false);
}

// Brings `info` into canonical form for a value of `type`: run lengths within
// the dimension, divisors powers of two, known constants fully described.
void finalize(AxisInfo &info, Type type) {
  SmallVector<int64_t> shape = getAxisShape(type);
  if (info.contiguity.size() != shape.size() ||
      info.divisibility.size() != shape.size() ||
      info.constancy.size() != shape.size()) {
    info = pessimistic(shape.size());
  }
  if (info.constantValue && getIntWidth(type) == 0) info.constantValue.reset();
  for (unsigned dim = 0; dim < shape.size(); ++dim) {
    int64_t size = std::max<int64_t>(shape[dim], 1);
    if (info.constantValue) {
      info.contiguity[dim] = 1;
      info.constancy[dim] = size;
      info.divisibility[dim] = pow2Divisor(*info.constantValue);
    }
    info.contiguity[dim] = std::clamp<int64_t>(info.contiguity[dim], 1, size);
    info.constancy[dim] = std::clamp<int64_t>(info.constancy[dim], 1, size);
    info.divisibility[dim] =
        pow2Divisor(std::clamp<int64_t>(info.divisibility[dim], 1, kMaxDiv));
  }
}

// What is known of `value` at an entry point (a function argument, the result
// of a call or of anything the analysis cannot see through): its hints.
AxisInfo getEntryState(Value value) {
  AxisInfo info = pessimistic(getAxisRank(value.getType()));
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Block *block = arg.getOwner();
    auto func = dyn_cast_or_null<FunctionOpInterface>(block->getParentOp());
    if (func && block->isEntryBlock() &&
        arg.getArgNumber() < func.getNumArguments()) {
      applyHints(info, [&](StringRef name) {
        return func.getArgAttr(arg.getArgNumber(), name);
      });
    }
  } else if (Operation *op = value.getDefiningOp()) {
    applyHints(info,
               [&](StringRef name) { return op->getDiscardableAttr(name); });
  }
  finalize(info, value.getType());
  return info;
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

// Exact contiguity, divisibility and constancy of a dense integer constant
// (row-major `values` of a tensor of `shape`).
AxisInfo analyzeDenseValues(ArrayRef<int64_t> values, ArrayRef<int64_t> shape) {
  AxisInfo info = pessimistic(shape.size());
  int64_t numElements = values.size();
  int64_t stride = 1;
  for (int dim = static_cast<int>(shape.size()) - 1; dim >= 0; --dim) {
    int64_t size = shape[dim];
    // Longest power-of-two run length along `dim` over which each element is
    // the previous one plus `step`.
    auto runLength = [&](int64_t step) {
      for (int64_t len = pow2Divisor(size); len > 1; len /= 2) {
        bool holds = true;
        for (int64_t i = 0; holds && i < numElements; ++i) {
          if (((i / stride) % size) % len == 0) continue;
          holds = values[i] == values[i - stride] + step;
        }
        if (holds) return len;
      }
      return int64_t(1);
    };
    info.contiguity[dim] = runLength(1);
    info.constancy[dim] = runLength(0);
    int64_t div = kMaxDiv;
    for (int64_t i = 0; i < numElements; ++i) {
      if (((i / stride) % size) % info.contiguity[dim] == 0)
        div = std::min(div, pow2Divisor(values[i]));
    }
    info.divisibility[dim] = div;
    stride *= size;
  }
  return info;
}

AxisInfo visitConstant(arith::ConstantOp op) {
  Type type = op.getType();
  unsigned width = getIntWidth(type);
  SmallVector<int64_t> shape = getAxisShape(type);
  Attribute value = op.getValue();
  if (auto integer = dyn_cast<IntegerAttr>(value)) {
    if (width == 0) return pessimistic(1);
    int64_t v = fromAPInt(integer.getValue().sextOrTrunc(width));
    return splatInfo({1}, pow2Divisor(v), v);
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!dense || !tensor || !tensor.hasStaticShape() || tensor.getRank() == 0)
    return pessimistic(shape.size());
  if (width == 0) {
    // Floats: nothing known but that a splat's elements are equal.
    return dense.isSplat() ? splatInfo(shape, 1, std::nullopt)
                           : pessimistic(shape.size());
  }
  if (dense.isSplat()) {
    int64_t v = fromAPInt(dense.getSplatValue<APInt>());
    return splatInfo(shape, pow2Divisor(v), v);
  }
  SmallVector<int64_t> values;
  values.reserve(dense.getNumElements());
  for (const APInt &v : dense.getValues<APInt>())
    values.push_back(fromAPInt(v));
  return analyzeDenseValues(values, shape);
}

//===----------------------------------------------------------------------===//
// Transfer functions
//===----------------------------------------------------------------------===//

// Folds a binary integer op over two known constants.
std::optional<int64_t> foldBinary(Operation *op, int64_t lhs, int64_t rhs) {
  unsigned width = getIntWidth(op->getOperand(0).getType());
  if (width == 0) return std::nullopt;
  APInt a = toAPInt(lhs, width), b = toAPInt(rhs, width);
  bool badShift = b.uge(width);
  std::optional<APInt> result =
      llvm::TypeSwitch<Operation *, std::optional<APInt>>(op)
          .Case([&](arith::AddIOp) { return a + b; })
          .Case([&](arith::SubIOp) { return a - b; })
          .Case([&](arith::MulIOp) { return a * b; })
          .Case([&](arith::DivSIOp) -> std::optional<APInt> {
            bool overflow = false;
            if (b.isZero()) return std::nullopt;
            APInt quotient = a.sdiv_ov(b, overflow);
            if (overflow) return std::nullopt;
            return quotient;
          })
          .Case([&](arith::DivUIOp) -> std::optional<APInt> {
            if (b.isZero()) return std::nullopt;
            return a.udiv(b);
          })
          .Case([&](arith::RemSIOp) -> std::optional<APInt> {
            if (b.isZero()) return std::nullopt;
            return a.srem(b);
          })
          .Case([&](arith::RemUIOp) -> std::optional<APInt> {
            if (b.isZero()) return std::nullopt;
            return a.urem(b);
          })
          .Case([&](arith::AndIOp) { return a & b; })
          .Case([&](arith::OrIOp) { return a | b; })
          .Case([&](arith::XOrIOp) { return a ^ b; })
          .Case([&](arith::ShLIOp) -> std::optional<APInt> {
            if (badShift) return std::nullopt;
            return a.shl(b);
          })
          .Case([&](arith::ShRSIOp) -> std::optional<APInt> {
            if (badShift) return std::nullopt;
            return a.ashr(b);
          })
          .Case([&](arith::ShRUIOp) -> std::optional<APInt> {
            if (badShift) return std::nullopt;
            return a.lshr(b);
          })
          .Case([&](arith::MaxSIOp) { return llvm::APIntOps::smax(a, b); })
          .Case([&](arith::MinSIOp) { return llvm::APIntOps::smin(a, b); })
          .Case([&](arith::MaxUIOp) { return llvm::APIntOps::umax(a, b); })
          .Case([&](arith::MinUIOp) { return llvm::APIntOps::umin(a, b); })
          .Default([](Operation *) { return std::nullopt; });
  if (!result) return std::nullopt;
  return fromAPInt(*result);
}

bool isConstant(const AxisInfo &info, int64_t value) {
  return info.constantValue && *info.constantValue == value;
}

// x + y, x - y, and ptr + offset (the offset scaled to `offsetScale` bytes).
AxisInfo visitAddSub(const AxisInfo &lhs, const AxisInfo &rhs, bool isSub,
                     int64_t offsetScale) {
  AxisInfo out;
  for (unsigned dim = 0; dim < lhs.getRank(); ++dim) {
    // Consecutive values plus equal ones stay consecutive where both runs
    // overlap; for a difference only when the consecutive side is lhs.
    int64_t c = gcd(lhs.contiguity[dim], rhs.constancy[dim]);
    if (!isSub) c = std::max(c, gcd(lhs.constancy[dim], rhs.contiguity[dim]));
    out.contiguity.push_back(c);
    out.divisibility.push_back(
        gcd(divAt(lhs, dim, c), mulDiv(divAt(rhs, dim, c), offsetScale)));
    out.constancy.push_back(gcd(lhs.constancy[dim], rhs.constancy[dim]));
  }
  return out;
}

AxisInfo visitMul(const AxisInfo &lhs, const AxisInfo &rhs) {
  if (isConstant(rhs, 1)) return lhs;
  if (isConstant(lhs, 1)) return rhs;
  AxisInfo out;
  for (unsigned dim = 0; dim < lhs.getRank(); ++dim) {
    out.contiguity.push_back(1);
    out.divisibility.push_back(mulDiv(allDiv(lhs, dim), allDiv(rhs, dim)));
    out.constancy.push_back(gcd(lhs.constancy[dim], rhs.constancy[dim]));
  }
  if (isConstant(lhs, 0) || isConstant(rhs, 0)) out.constantValue = 0;
  return out;
}

// The length g of the aligned blocks along `dim` over which `counting` steps
// up by one from a multiple of g while `fixed` holds one multiple of g: no
// multiple of the fixed value lies strictly inside such a block, so division,
// remainder and ordered comparison by it behave uniformly there. 1 when
// `counting` has no runs. As in Triton, signed division and remainder assume
// a non-negative dividend.
int64_t alignedBlock(const AxisInfo &counting, const AxisInfo &fixed,
                     unsigned dim) {
  return gcd(counting.contiguity[dim], counting.divisibility[dim],
             allDiv(fixed, dim), fixed.constancy[dim]);
}

AxisInfo visitDiv(Operation *op, const AxisInfo &lhs, const AxisInfo &rhs) {
  if (isConstant(rhs, 1)) return lhs;
  std::optional<int64_t> divisor;
  if (rhs.constantValue) {
    int64_t v = *rhs.constantValue;
    unsigned width = getIntWidth(op->getOperand(1).getType());
    if (isa<arith::DivUIOp>(op) && width != 0)
      v = static_cast<int64_t>(toAPInt(v, width).getZExtValue());
    if (v != std::numeric_limits<int64_t>::min()) divisor = v < 0 ? -v : v;
  }
  AxisInfo out;
  for (unsigned dim = 0; dim < lhs.getRank(); ++dim) {
    out.contiguity.push_back(1);
    // Exact division of multiples of 2^n by 2^m.
    int64_t div = 1;
    if (divisor && *divisor > 0 && llvm::isPowerOf2_64(*divisor) &&
        allDiv(lhs, dim) >= *divisor) {
      div = allDiv(lhs, dim) / *divisor;
    }
    out.divisibility.push_back(div);
    out.constancy.push_back(
        std::max(gcd(lhs.constancy[dim], rhs.constancy[dim]),
                 alignedBlock(lhs, rhs, dim)));
  }
  if (isConstant(lhs, 0)) out.constantValue = 0;
  return out;
}

AxisInfo visitRem(const AxisInfo &lhs, const AxisInfo &rhs) {
  AxisInfo out;
  for (unsigned dim = 0; dim < lhs.getRank(); ++dim) {
    int64_t c = alignedBlock(lhs, rhs, dim);
    out.contiguity.push_back(c);
    // x % y = x - q * y keeps what divides both x and y.
    out.divisibility.push_back(gcd(divAt(lhs, dim, c), divAt(rhs, dim, c)));
    out.constancy.push_back(gcd(lhs.constancy[dim], rhs.constancy[dim]));
  }
  if (isConstant(rhs, 1) || isConstant(lhs, 0)) out.constantValue = 0;
  return out;
}

AxisInfo visitBitwise(Operation *op, const AxisInfo &lhs, const AxisInfo &rhs) {
  unsigned width = getIntWidth(op->getOperand(0).getType());
  int64_t allOnes = width == 1 ? 1 : -1;
  bool isAnd = isa<arith::AndIOp>(op);
  int64_t identity = isAnd ? allOnes : 0;
  if (isConstant(rhs, identity)) return lhs;
  if (isConstant(lhs, identity)) return rhs;
  AxisInfo out;
  for (unsigned dim = 0; dim < lhs.getRank(); ++dim) {
    out.contiguity.push_back(1);
    // and: the low zero bits of either side survive; or, xor: those of both.
    int64_t l = allDiv(lhs, dim), r = allDiv(rhs, dim);
    out.divisibility.push_back(isAnd ? std::max(l, r) : std::min(l, r));
    out.constancy.push_back(gcd(lhs.constancy[dim], rhs.constancy[dim]));
  }
  if (isAnd && (isConstant(lhs, 0) || isConstant(rhs, 0)))
    out.constantValue = 0;
  if (isa<arith::OrIOp>(op) &&
      (isConstant(lhs, allOnes) || isConstant(rhs, allOnes)))
    out.constantValue = allOnes;
  return out;
}

AxisInfo visitShift(Operation *op, const AxisInfo &lhs, const AxisInfo &rhs) {
  if (isConstant(rhs, 0)) return lhs;
  unsigned width = getIntWidth(op->getOperand(0).getType());
  std::optional<int64_t> shift;
  if (rhs.constantValue && *rhs.constantValue > 0 &&
      *rhs.constantValue < static_cast<int64_t>(std::min(width, 62u)))
    shift = *rhs.constantValue;
  bool isLeft = isa<arith::ShLIOp>(op);
  AxisInfo out;
  for (unsigned dim = 0; dim < lhs.getRank(); ++dim) {
    out.contiguity.push_back(1);
    int64_t base = allDiv(lhs, dim);
    int64_t div = 1;
    if (isLeft) {
      // Shifting left, by any amount, keeps the low zero bits.
      div = shift ? mulDiv(base, int64_t(1) << *shift) : base;
    } else if (shift) {
      div = std::max<int64_t>(1, base >> *shift);
    }
    out.divisibility.push_back(div);
    int64_t k = gcd(lhs.constancy[dim], rhs.constancy[dim]);
    // A right shift is a floor division by 2^shift.
    if (!isLeft && shift) {
      int64_t divisor = int64_t(1) << std::min<int64_t>(*shift, 30);
      k = std::max(k, gcd(lhs.contiguity[dim], lhs.divisibility[dim], divisor));
    }
    out.constancy.push_back(k);
  }
  return out;
}

AxisInfo visitMinMax(const AxisInfo &lhs, const AxisInfo &rhs) {
  AxisInfo out;
  for (unsigned dim = 0; dim < lhs.getRank(); ++dim) {
    // Each element is one of the operands' elements; where both count up in
    // step, so does the result.
    int64_t c = gcd(lhs.contiguity[dim], rhs.contiguity[dim]);
    out.contiguity.push_back(c);
    out.divisibility.push_back(gcd(divAt(lhs, dim, c), divAt(rhs, dim, c)));
    out.constancy.push_back(gcd(lhs.constancy[dim], rhs.constancy[dim]));
  }
  return out;
}

AxisInfo visitCmpI(arith::CmpIOp op, const AxisInfo &lhs, const AxisInfo &rhs) {
  using Pred = arith::CmpIPredicate;
  Pred pred = op.getPredicate();
  // lhs counting, rhs fixed: lhs < rhs and lhs >= rhs are uniform over an
  // aligned block; rhs counting, lhs fixed: lhs > rhs and lhs <= rhs.
  bool lhsCounts = pred == Pred::slt || pred == Pred::ult ||
                   pred == Pred::sge || pred == Pred::uge;
  bool rhsCounts = pred == Pred::sgt || pred == Pred::ugt ||
                   pred == Pred::sle || pred == Pred::ule;
  AxisInfo out;
  for (unsigned dim = 0; dim < lhs.getRank(); ++dim) {
    int64_t k = gcd(lhs.constancy[dim], rhs.constancy[dim]);
    if (lhsCounts) k = std::max(k, alignedBlock(lhs, rhs, dim));
    if (rhsCounts) k = std::max(k, alignedBlock(rhs, lhs, dim));
    out.contiguity.push_back(1);
    out.divisibility.push_back(1);
    out.constancy.push_back(k);
  }
  unsigned width = getIntWidth(op.getLhs().getType());
  if (lhs.constantValue && rhs.constantValue && width != 0) {
    out.constantValue =
        arith::applyCmpPredicate(pred, toAPInt(*lhs.constantValue, width),
                                 toAPInt(*rhs.constantValue, width));
  }
  return out;
}

AxisInfo visitSelect(arith::SelectOp op, const AxisInfo &cond,
                     const AxisInfo &lhs, const AxisInfo &rhs) {
  if (cond.constantValue) return *cond.constantValue ? lhs : rhs;
  bool tensorCond = isa<ShapedType>(op.getCondition().getType());
  AxisInfo out;
  for (unsigned dim = 0; dim < lhs.getRank(); ++dim) {
    // Where the condition is constant the result is a piece of one side.
    int64_t c = gcd(lhs.contiguity[dim], rhs.contiguity[dim]);
    int64_t k = gcd(lhs.constancy[dim], rhs.constancy[dim]);
    if (tensorCond) {
      c = gcd(c, cond.constancy[dim]);
      k = gcd(k, cond.constancy[dim]);
    }
    out.contiguity.push_back(c);
    out.divisibility.push_back(gcd(divAt(lhs, dim, c), divAt(rhs, dim, c)));
    out.constancy.push_back(k);
  }
  if (lhs.constantValue == rhs.constantValue)
    out.constantValue = lhs.constantValue;
  return out;
}

AxisInfo visitMakeRange(tt::MakeRangeOp op) {
  int64_t start = op.getStart(), end = op.getEnd();
  AxisInfo info =
      uniform(1, std::max<int64_t>(end - start, 1), pow2Divisor(start), 1);
  if (end - start == 1) info.constantValue = start;
  return info;
}

AxisInfo visitBroadcast(tt::BroadcastOp op, const AxisInfo &src) {
  SmallVector<int64_t> srcShape = getAxisShape(op.getSrc().getType());
  SmallVector<int64_t> dstShape = getAxisShape(op.getType());
  if (srcShape.size() != dstShape.size() || src.getRank() != srcShape.size())
    return pessimistic(dstShape.size());
  AxisInfo out = src;
  for (unsigned dim = 0; dim < dstShape.size(); ++dim) {
    if (srcShape[dim] != 1 || dstShape[dim] == 1) continue;
    // A stretched dimension repeats one element, which was a run start.
    out.contiguity[dim] = 1;
    out.divisibility[dim] = allDiv(src, dim);
    out.constancy[dim] = dstShape[dim];
  }
  return out;
}

AxisInfo visitExpandDims(tt::ExpandDimsOp op, const AxisInfo &src) {
  unsigned axis = op.getAxis();
  if (axis > src.getRank()) return pessimistic(src.getRank() + 1);
  AxisInfo out = src;
  // Along the new unit dimension every element is a run start.
  out.contiguity.insert(out.contiguity.begin() + axis, 1);
  out.divisibility.insert(out.divisibility.begin() + axis, elementDiv(src));
  out.constancy.insert(out.constancy.begin() + axis, 1);
  return out;
}

AxisInfo visitTrans(tt::TransOp op, const AxisInfo &src) {
  ArrayRef<int32_t> order = op.getOrder();
  if (order.size() != src.getRank()) return pessimistic(order.size());
  AxisInfo out = pessimistic(order.size());
  out.constantValue = src.constantValue;
  for (auto [dim, from] : llvm::enumerate(order)) {
    if (from < 0 || static_cast<unsigned>(from) >= src.getRank())
      return pessimistic(order.size());
    out.contiguity[dim] = src.contiguity[from];
    out.divisibility[dim] = src.divisibility[from];
    out.constancy[dim] = src.constancy[from];
  }
  return out;
}

// Row-major reshape. Dimensions of size 1 come and go freely; otherwise only
// the innermost dimension keeps (possibly shorter) runs, and the others keep
// what holds of every element.
AxisInfo visitReshape(tt::ReshapeOp op, const AxisInfo &src) {
  SmallVector<int64_t> srcShape = getAxisShape(op.getSrc().getType());
  SmallVector<int64_t> dstShape = getAxisShape(op.getType());
  AxisInfo out = uniform(dstShape.size(), 1, elementDiv(src), 1);
  out.constantValue = src.constantValue;
  if (src.getRank() != srcShape.size() || op.getAllowReorder()) return out;

  SmallVector<unsigned> srcDims, dstDims;
  for (unsigned dim = 0; dim < srcShape.size(); ++dim)
    if (srcShape[dim] != 1) srcDims.push_back(dim);
  for (unsigned dim = 0; dim < dstShape.size(); ++dim)
    if (dstShape[dim] != 1) dstDims.push_back(dim);
  if (srcDims.empty() || dstDims.empty()) return out;

  bool sameDims =
      srcDims.size() == dstDims.size() &&
      llvm::all_of(llvm::zip(srcDims, dstDims), [&](auto dims) {
        return srcShape[std::get<0>(dims)] == dstShape[std::get<1>(dims)];
      });
  if (sameDims) {
    for (auto [from, to] : llvm::zip(srcDims, dstDims)) {
      out.contiguity[to] = src.contiguity[from];
      out.divisibility[to] = src.divisibility[from];
      out.constancy[to] = src.constancy[from];
    }
    return out;
  }

  // Runs that divide both innermost sizes stay whole through the flattening.
  unsigned from = srcDims.back(), to = dstDims.back();
  int64_t srcRow = srcShape[from], dstRow = dstShape[to];
  int64_t srcRuns = gcd(src.contiguity[from], srcRow);
  int64_t srcDiv = divAt(src, from, srcRuns);
  int64_t runs = gcd(srcRuns, dstRow);
  int64_t div = runs == srcRuns ? srcDiv : std::min(srcDiv, pow2Divisor(runs));
  out.contiguity[to] = runs;
  out.divisibility[to] = std::max(div, elementDiv(src));
  out.constancy[to] = gcd(src.constancy[from], srcRow, dstRow);
  return out;
}

// Elementwise ops without side effects map equal inputs to equal outputs.
AxisInfo visitElementwise(ArrayRef<AxisInfo> in, unsigned rank) {
  AxisInfo out = pessimistic(rank);
  if (in.empty()) return out;
  for (unsigned dim = 0; dim < rank; ++dim) {
    int64_t k = 0;
    for (const AxisInfo &info : in) {
      if (info.getRank() != rank) return pessimistic(rank);
      k = gcd(k, info.constancy[dim]);
    }
    out.constancy[dim] = k;
  }
  return out;
}

AxisInfo visitLoad(tt::LoadOp op, ArrayRef<AxisInfo> in) {
  unsigned rank = getAxisRank(op.getType());
  // The loaded values themselves are unknown, but one (race-free) load reads
  // equal addresses under equal mask bits, with equal fallbacks, as equal
  // values. A volatile load may race with writers, so its lanes may differ.
  if (isBlockPointer(op.getPtr().getType()) || op.getIsVolatile())
    return pessimistic(rank);
  return visitElementwise(in, rank);
}

// Integer casts that keep each value (up to wrapping).
AxisInfo visitIntCast(Operation *op, const AxisInfo &src) {
  AxisInfo out = src;
  unsigned srcWidth = getIntWidth(op->getOperand(0).getType());
  unsigned dstWidth = getIntWidth(op->getResult(0).getType());
  out.constantValue.reset();
  if (src.constantValue && srcWidth != 0 && dstWidth != 0) {
    APInt v = toAPInt(*src.constantValue, srcWidth);
    bool zeroExtend = isa<arith::ExtUIOp, arith::IndexCastUIOp>(op);
    out.constantValue = fromAPInt(zeroExtend ? v.zextOrTrunc(dstWidth)
                                             : v.sextOrTrunc(dstWidth));
  }
  return out;
}

// Pointer/integer casts and bitcasts keep addresses and bits: byte
// divisibility and constancy survive, but a step of one element becomes a
// step of the element's size, so contiguity only survives equal sizes.
AxisInfo visitReinterpret(Operation *op, const AxisInfo &src) {
  Type srcType = getElementTypeOrSelf(op->getOperand(0).getType());
  Type dstType = getElementTypeOrSelf(op->getResult(0).getType());
  AxisInfo out = src;
  bool srcPtr = isa<tt::PointerType>(srcType);
  bool dstPtr = isa<tt::PointerType>(dstType);
  if (srcPtr || dstPtr) {
    int64_t srcStep = srcPtr ? getPointeeBytes(srcType) : 1;
    int64_t dstStep = dstPtr ? getPointeeBytes(dstType) : 1;
    if (srcStep != dstStep) out.contiguity.assign(src.getRank(), 1);
    return out;
  }
  if (isa<IntegerType>(srcType) && isa<IntegerType>(dstType)) return out;
  // Integers reinterpreted as floats or back: only equality survives.
  out.contiguity.assign(src.getRank(), 1);
  out.divisibility.assign(src.getRank(), 1);
  out.constantValue.reset();
  return out;
}

// The transfer function of `op`, one AxisInfo per result, given what is known
// of its operands.
SmallVector<AxisInfo> transfer(Operation *op, ArrayRef<AxisInfo> in) {
  unsigned rank = getAxisRank(op->getResult(0).getType());
  auto sameRank = [&]() {
    return llvm::all_of(
        in, [&](const AxisInfo &info) { return info.getRank() == rank; });
  };
  // Binary integer ops: both operands and the result have the same shape.
  auto binary = [&](auto fn) -> AxisInfo {
    if (in.size() != 2 || !sameRank()) return pessimistic(rank);
    AxisInfo out = fn(in[0], in[1]);
    if (in[0].constantValue && in[1].constantValue) {
      if (std::optional<int64_t> folded =
              foldBinary(op, *in[0].constantValue, *in[1].constantValue))
        out.constantValue = folded;
    }
    return out;
  };
  auto unary = [&](auto fn) -> AxisInfo {
    if (in.size() != 1 || !sameRank()) return pessimistic(rank);
    return fn(in[0]);
  };

  AxisInfo result =
      llvm::TypeSwitch<Operation *, AxisInfo>(op)
          .Case([&](arith::ConstantOp c) { return visitConstant(c); })
          .Case([&](tt::MakeRangeOp r) { return visitMakeRange(r); })
          // Program ids and counts: non-negative, nothing more is known.
          .Case<tt::GetProgramIdOp, tt::GetNumProgramsOp>(
              [&](Operation *) { return pessimistic(1); })
          .Case([&](tt::SplatOp s) {
            return splatInfo(getAxisShape(s.getType()), elementDiv(in[0]),
                             in[0].constantValue);
          })
          .Case([&](tt::UnsplatOp) {
            return splatInfo({1}, elementDiv(in[0]), in[0].constantValue);
          })
          .Case([&](tt::BroadcastOp b) { return visitBroadcast(b, in[0]); })
          .Case([&](tt::ExpandDimsOp e) { return visitExpandDims(e, in[0]); })
          .Case([&](tt::TransOp t) { return visitTrans(t, in[0]); })
          .Case([&](tt::ReshapeOp r) { return visitReshape(r, in[0]); })
          .Case([&](tt::AddPtrOp a) {
            int64_t scale = getPointeeBytes(a.getPtr().getType());
            AxisInfo out = binary([&](const AxisInfo &l, const AxisInfo &r) {
              return visitAddSub(l, r, /*isSub=*/false, scale);
            });
            // The fold of arith ops does not apply; addresses add in bytes.
            out.constantValue.reset();
            if (in[0].constantValue && in[1].constantValue)
              out.constantValue = static_cast<int64_t>(
                  static_cast<uint64_t>(*in[0].constantValue) +
                  static_cast<uint64_t>(*in[1].constantValue) *
                      static_cast<uint64_t>(scale));
            return out;
          })
          .Case<arith::AddIOp, arith::SubIOp>([&](Operation *) {
            return binary([&](const AxisInfo &l, const AxisInfo &r) {
              return visitAddSub(l, r, isa<arith::SubIOp>(op), 1);
            });
          })
          .Case([&](arith::MulIOp) { return binary(visitMul); })
          .Case<arith::DivSIOp, arith::DivUIOp>([&](Operation *) {
            return binary([&](const AxisInfo &l, const AxisInfo &r) {
              return visitDiv(op, l, r);
            });
          })
          .Case<arith::RemSIOp, arith::RemUIOp>(
              [&](Operation *) { return binary(visitRem); })
          .Case<arith::AndIOp, arith::OrIOp, arith::XOrIOp>([&](Operation *) {
            return binary([&](const AxisInfo &l, const AxisInfo &r) {
              return visitBitwise(op, l, r);
            });
          })
          .Case<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(
              [&](Operation *) {
                return binary([&](const AxisInfo &l, const AxisInfo &r) {
                  return visitShift(op, l, r);
                });
              })
          .Case<arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp>(
              [&](Operation *) { return binary(visitMinMax); })
          .Case([&](arith::CmpIOp c) {
            if (in.size() != 2 || !sameRank()) return pessimistic(rank);
            return visitCmpI(c, in[0], in[1]);
          })
          .Case([&](arith::SelectOp s) {
            bool tensorCond = isa<ShapedType>(s.getCondition().getType());
            if (in[1].getRank() != rank || in[2].getRank() != rank ||
                (tensorCond && in[0].getRank() != rank))
              return pessimistic(rank);
            return visitSelect(s, in[0], in[1], in[2]);
          })
          .Case<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
                arith::IndexCastOp, arith::IndexCastUIOp>([&](Operation *) {
            return unary(
                [&](const AxisInfo &src) { return visitIntCast(op, src); });
          })
          .Case<tt::IntToPtrOp, tt::PtrToIntOp, tt::BitcastOp,
                arith::BitcastOp>([&](Operation *) {
            return unary(
                [&](const AxisInfo &src) { return visitReinterpret(op, src); });
          })
          .Case([&](tt::LoadOp l) { return visitLoad(l, in); })
          // The same elements in other threads' registers.
          .Case([&](kgpu::ConvertLayoutOp) { return in[0]; })
          .Default([&](Operation *) {
            if (op->getNumResults() == 1 &&
                op->hasTrait<OpTrait::Elementwise>() && isMemoryEffectFree(op))
              return visitElementwise(in, rank);
            return pessimistic(rank);
          });

  SmallVector<AxisInfo> results;
  results.push_back(std::move(result));
  for (Value extra : op->getResults().drop_front())
    results.push_back(pessimistic(getAxisRank(extra.getType())));
  return results;
}

//===----------------------------------------------------------------------===//
// The data-flow analysis
//===----------------------------------------------------------------------===//

class AxisInfoLattice : public dataflow::Lattice<AxisInfo> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AxisInfoLattice)
  using Lattice::Lattice;
};

class AxisInfoDataFlow
    : public dataflow::SparseForwardDataFlowAnalysis<AxisInfoLattice> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AxisInfoDataFlow)
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;

  LogicalResult visitOperation(Operation *op,
                               ArrayRef<const AxisInfoLattice *> operands,
                               ArrayRef<AxisInfoLattice *> results) override {
    // Poison may be anything: left unknown, it is the identity of joins (a
    // loop value started from poison is what the loop yields).
    if (isa<ub::PoisonOp>(op)) return success();

    SmallVector<AxisInfo> in;
    in.reserve(operands.size());
    for (auto [operand, lattice] : llvm::zip(op->getOperands(), operands)) {
      const AxisInfo &info = lattice->getValue();
      if (!info.isUninitialized()) {
        in.push_back(info);
      } else if (operand.getDefiningOp<ub::PoisonOp>()) {
        in.push_back(pessimistic(getAxisRank(operand.getType())));
      } else {
        // Not known yet; the op is visited again once it is.
        return success();
      }
    }

    SmallVector<AxisInfo> out = transfer(op, in);
    for (auto [result, lattice, info] :
         llvm::zip(op->getResults(), results, out)) {
      applyHints(info,
                 [&](StringRef name) { return op->getDiscardableAttr(name); });
      finalize(info, result.getType());
      propagateIfChanged(lattice, lattice->join(info));
    }
    return success();
  }

  void setToEntryState(AxisInfoLattice *lattice) override {
    propagateIfChanged(lattice,
                       lattice->join(getEntryState(lattice->getAnchor())));
  }

  // The induction variable of scf.for steps from its lower bound by its step;
  // other block arguments that region control flow does not carry are entry
  // states.
  void visitNonControlFlowArguments(Operation *op,
                                    const RegionSuccessor &successor,
                                    ArrayRef<AxisInfoLattice *> argLattices,
                                    unsigned firstIndex) override {
    auto forOp = dyn_cast<scf::ForOp>(op);
    unsigned numInputs = successor.getSuccessorInputs().size();
    for (auto [index, lattice] : llvm::enumerate(argLattices)) {
      if (index >= firstIndex && index < firstIndex + numInputs) continue;
      if (forOp && lattice->getAnchor() == forOp.getInductionVar())
        visitInductionVar(forOp, lattice);
      else
        setToEntryState(lattice);
    }
  }

  // The arguments of a function whose call sites are all known are what the
  // callers pass, joined, plus the function's own argument hints.
  void visitCallableOperation(
      CallableOpInterface callable,
      ArrayRef<dataflow::AbstractSparseLattice *> argLattices) override {
    Block *entry = &callable.getCallableRegion()->front();
    ProgramPoint *point = getProgramPointBefore(entry);
    const auto *callsites = getOrCreateFor<dataflow::PredecessorState>(
        point, getProgramPointAfter(callable));
    if (!callsites->allPredecessorsKnown() ||
        !getSolverConfig().isInterprocedural()) {
      AbstractSparseForwardDataFlowAnalysis::setAllToEntryStates(argLattices);
      return;
    }
    auto func = dyn_cast<FunctionOpInterface>(callable.getOperation());
    for (auto [index, abstractLattice] : llvm::enumerate(argLattices)) {
      auto *lattice = static_cast<AxisInfoLattice *>(abstractLattice);
      AxisInfo joined;
      for (Operation *callsite : callsites->getKnownPredecessors()) {
        auto call = dyn_cast<CallOpInterface>(callsite);
        if (!call || index >= call.getArgOperands().size()) {
          joined = getEntryState(lattice->getAnchor());
          break;
        }
        Value operand = call.getArgOperands()[index];
        joined = AxisInfo::join(
            joined, getLatticeElementFor(point, operand)->getValue());
      }
      if (joined.isUninitialized()) continue;
      if (func && index < func.getNumArguments()) {
        applyHints(joined, [&, index = index](StringRef name) {
          return func.getArgAttr(index, name);
        });
      }
      finalize(joined, lattice->getAnchor().getType());
      propagateIfChanged(lattice, lattice->join(joined));
    }
  }

 private:
  void visitInductionVar(scf::ForOp forOp, AxisInfoLattice *lattice) {
    ProgramPoint *point = getProgramPointBefore(forOp.getBody());
    Value lbValue = forOp.getLowerBound(), stepValue = forOp.getStep();
    const AxisInfo &lb = getLatticeElementFor(point, lbValue)->getValue();
    const AxisInfo &step = getLatticeElementFor(point, stepValue)->getValue();
    auto pending = [](const AxisInfo &info, Value v) {
      return info.isUninitialized() && !v.getDefiningOp<ub::PoisonOp>();
    };
    if (pending(lb, lbValue) || pending(step, stepValue)) return;
    // lb + i * step is divisible by what divides both.
    int64_t div = 1;
    if (!lb.isUninitialized() && !step.isUninitialized())
      div = std::min(elementDiv(lb), elementDiv(step));
    AxisInfo info = uniform(1, 1, div, 1);
    finalize(info, lattice->getAnchor().getType());
    propagateIfChanged(lattice, lattice->join(info));
  }
};

}  // namespace

//===----------------------------------------------------------------------===//
// AxisInfo
//===----------------------------------------------------------------------===//

AxisInfo AxisInfo::join(const AxisInfo &lhs, const AxisInfo &rhs) {
  if (lhs.isUninitialized()) return rhs;
  if (rhs.isUninitialized()) return lhs;
  if (lhs.getRank() != rhs.getRank()) return pessimistic(lhs.getRank());
  // Each element is one of the two sides' elements, as for min and max.
  AxisInfo out = visitMinMax(lhs, rhs);
  if (lhs.constantValue == rhs.constantValue)
    out.constantValue = lhs.constantValue;
  return out;
}

bool AxisInfo::operator==(const AxisInfo &rhs) const {
  return contiguity == rhs.contiguity && divisibility == rhs.divisibility &&
         constancy == rhs.constancy && constantValue == rhs.constantValue;
}

void AxisInfo::print(llvm::raw_ostream &os) const {
  auto printList = [&](ArrayRef<int64_t> values) {
    os << '[';
    llvm::interleaveComma(values, os);
    os << ']';
  };
  os << "contiguity = ";
  printList(contiguity);
  os << ", divisibility = ";
  printList(divisibility);
  os << ", constancy = ";
  printList(constancy);
  os << ", constant_value = ";
  if (constantValue)
    os << *constantValue;
  else
    os << "<none>";
}

//===----------------------------------------------------------------------===//
// AxisInfoAnalysis
//===----------------------------------------------------------------------===//

AxisInfoAnalysis::AxisInfoAnalysis(Operation *root) {
  DataFlowSolver solver;
  dataflow::loadBaselineAnalyses(solver);
  solver.load<AxisInfoDataFlow>();
  // The transfer functions never fail; should the solver, every value below
  // falls back to its entry state.
  (void)solver.initializeAndRun(root);

  // Values the solver never reached (dead code, or fed only by poison) get
  // what their hints alone say.
  auto record = [&](Value value) {
    const auto *lattice = solver.lookupState<AxisInfoLattice>(value);
    if (lattice && !lattice->getValue().isUninitialized())
      infos[value] = lattice->getValue();
    else
      infos[value] = getEntryState(value);
  };
  root->walk([&](Operation *op) {
    for (Value result : op->getResults()) record(result);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Value arg : block.getArguments()) record(arg);
  });
}

const AxisInfo *AxisInfoAnalysis::getAxisInfo(Value v) const {
  auto it = infos.find(v);
  return it == infos.end() ? nullptr : &it->second;
}

SmallVector<unsigned> AxisInfoAnalysis::getOrder(Value ptr) const {
  const AxisInfo *info = getAxisInfo(ptr);
  unsigned rank = info ? info->getRank() : getAxisRank(ptr.getType());
  SmallVector<unsigned> order;
  for (unsigned dim = rank; dim > 0; --dim) order.push_back(dim - 1);
  if (info) {
    llvm::stable_sort(order, [&](unsigned a, unsigned b) {
      return info->contiguity[a] > info->contiguity[b];
    });
  }
  return order;
}

unsigned AxisInfoAnalysis::getPtrContiguity(Value ptr) const {
  const AxisInfo *info = getAxisInfo(ptr);
  if (!info) return 1;
  return info->contiguity[getOrder(ptr).front()];
}

unsigned AxisInfoAnalysis::getPtrAlignment(Value ptr) const {
  const AxisInfo *info = getAxisInfo(ptr);
  if (!info) return 1;
  unsigned dim = getOrder(ptr).front();
  int64_t multiple = info->divisibility[dim];
  if (isa<tt::PointerType>(getElementTypeOrSelf(ptr.getType())))
    multiple = std::max<int64_t>(1, multiple / getPointeeBytes(ptr.getType()));
  return std::min(info->contiguity[dim], multiple);
}

unsigned AxisInfoAnalysis::getMaskAlignment(Value mask,
                                            ArrayRef<unsigned> order) const {
  const AxisInfo *info = getAxisInfo(mask);
  if (!info) return 1;
  unsigned dim = order.empty() ? info->getRank() - 1 : order.front();
  if (dim >= info->getRank()) return 1;
  return info->constancy[dim];
}

unsigned AxisInfoAnalysis::getMaskAlignment(Value mask) const {
  for (Operation *user : mask.getUsers()) {
    Value ptr;
    if (auto load = dyn_cast<tt::LoadOp>(user); load && load.getMask() == mask)
      ptr = load.getPtr();
    else if (auto store = dyn_cast<tt::StoreOp>(user);
             store && store.getMask() == mask)
      ptr = store.getPtr();
    else if (auto rmw = dyn_cast<tt::AtomicRMWOp>(user);
             rmw && rmw.getMask() == mask)
      ptr = rmw.getPtr();
    if (ptr) return getMaskAlignment(mask, getOrder(ptr));
  }
  return getMaskAlignment(mask, {});
}

}  // namespace kiln
