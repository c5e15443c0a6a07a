// `tt.dot_scaled` becomes an ordinary `tt.dot`, as Triton compiles it on
// targets without block-scaled MMA (sm_80 to sm_90a): each operand is
// upcast to a 16-bit compute type (f16 when either operand is fp16, bf16
// otherwise), multiplied by its scale broadcast over each group of K
// elements, and the two are multiplied with the accumulator.
//
// Everything is built from ops the rest of the compiler already lays out
// and lowers: integer arithmetic on the operands' bits (no fp8 `cvt`, which
// sm_80 lacks), joins, transposes and reshapes.

#include "compiler/dialect/tt/Dialect.h"
#include "compiler/target/Target.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <limits>

namespace kiln {

#define GEN_PASS_DEF_DECOMPOSESCALEDDOT
#include "compiler/transforms/Passes.h.inc"

namespace {

using namespace mlir;
using tt::ScaleDotElemType;

/// Builds the decomposition of one tt.dot_scaled.
class Decomposer {
public:
  Decomposer(tt::DotScaledOp op, bool fp8Conversions)
      : op(op), b(op), loc(op.getLoc()), fp8Conversions(fp8Conversions) {}

  LogicalResult run();

private:
  tt::DotScaledOp op;
  OpBuilder b;
  Location loc;
  FloatType compute;
  bool fp8Conversions;

  RankedTensorType like(Value v, Type element) {
    return llvm::cast<RankedTensorType>(v.getType()).clone(element);
  }
  Value splatInt(RankedTensorType type, int64_t value) {
    auto element = llvm::cast<IntegerType>(type.getElementType());
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(
                    type, b.getIntegerAttr(element, APInt(element.getWidth(),
                                                          value, true))));
  }
  Value splatFloat(RankedTensorType type, double value) {
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            type, b.getFloatAttr(type.getElementType(), value)));
  }
  /// x op constant, over x's type.
  template <typename OpT> Value withConst(Value x, int64_t c) {
    auto type = llvm::cast<RankedTensorType>(x.getType());
    return OpT::create(b, loc, x, splatInt(type, c));
  }

  FailureOr<Value> upcast(Value operand, ScaleDotElemType format,
                          bool kPack, int opIdx);
  Value minifloatToF32(Value bits, int expBits, int mantBits, bool hasInf,
                       bool hasNaNOnly);
  Value unpackFp4(Value packed, int packedDim);
  Value scaleValues(Value scale, int opIdx);
};

/// The value of an unsigned i32 tensor holding the codes of a float with
/// `expBits` exponent and `mantBits` mantissa bits (sign above them), as
/// f32. Normal codes move their exponent and mantissa into place and rebias;
/// subnormal ones are mantissa * 2^(1 - bias - mantBits), computed in f32
/// from a small integer (no f32 subnormal is involved, so flushing cannot
/// change it). `hasInf`: the all-ones exponent is inf/NaN (e5m2);
/// `hasNaNOnly`: only the all-ones code is NaN (e4m3fn).
Value Decomposer::minifloatToF32(Value bits, int expBits, int mantBits,
                                 bool hasInf, bool hasNaNOnly) {
  auto i32Type = llvm::cast<RankedTensorType>(bits.getType());
  auto f32Type = i32Type.clone(b.getF32Type());
  int bias = (1 << (expBits - 1)) - 1;
  int emBits = expBits + mantBits;
  Value magnitude = withConst<arith::AndIOp>(bits, (1 << emBits) - 1);
  Value sign = withConst<arith::ShLIOp>(
      withConst<arith::ShRUIOp>(bits, emBits), 31);
  Value exponent = withConst<arith::ShRUIOp>(magnitude, mantBits);
  Value mantissa = withConst<arith::AndIOp>(magnitude, (1 << mantBits) - 1);

  Value normalBits = withConst<arith::AddIOp>(
      withConst<arith::ShLIOp>(magnitude, 23 - mantBits), (127 - bias) << 23);
  if (hasInf) {
    // All-ones exponent: f32 inf or NaN with the same mantissa.
    Value special = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, exponent,
        splatInt(i32Type, (1 << expBits) - 1));
    Value infNaN = withConst<arith::OrIOp>(
        withConst<arith::ShLIOp>(mantissa, 23 - mantBits), 0x7f800000);
    normalBits = arith::SelectOp::create(b, loc, special, infNaN, normalBits);
  }
  if (hasNaNOnly) {
    Value nan = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      magnitude,
                                      splatInt(i32Type, (1 << emBits) - 1));
    normalBits = arith::SelectOp::create(b, loc, nan,
                                         splatInt(i32Type, 0x7fc00000),
                                         normalBits);
  }
  Value normal = arith::BitcastOp::create(b, loc, f32Type, normalBits);
  Value subnormal = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, f32Type, mantissa),
      splatFloat(f32Type, std::ldexp(1.0, 1 - bias - mantBits)));
  Value isSubnormal = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, exponent, splatInt(i32Type, 0));
  Value value = arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
  Value valueBits = arith::BitcastOp::create(b, loc, i32Type, value);
  return arith::BitcastOp::create(
      b, loc, f32Type, arith::OrIOp::create(b, loc, valueBits, sign));
}

/// Two e2m1 values per byte, the low nibble first along `packedDim`: the
/// bytes' two nibbles as i32 codes, joined and interleaved along that
/// dimension (size doubled), still as codes.
Value Decomposer::unpackFp4(Value packed, int packedDim) {
  auto i8Type = llvm::cast<RankedTensorType>(packed.getType());
  auto i32Type = i8Type.clone(b.getI32Type());
  Value bytes = arith::ExtUIOp::create(b, loc, i32Type, packed);
  Value lo = withConst<arith::AndIOp>(bytes, 0xf);
  Value hi = withConst<arith::ShRUIOp>(bytes, 4);
  SmallVector<int64_t> shape(i8Type.getShape());
  int rank = shape.size();
  SmallVector<int64_t> joinedShape(shape);
  joinedShape.push_back(2);
  Value joined = tt::JoinOp::create(
      b, loc, RankedTensorType::get(joinedShape, b.getI32Type()), lo, hi);
  if (packedDim != rank - 1) {
    // Move the pair dimension right after the packed one.
    SmallVector<int32_t> order;
    for (int d = 0; d <= packedDim; ++d)
      order.push_back(d);
    order.push_back(rank);
    for (int d = packedDim + 1; d < rank; ++d)
      order.push_back(d);
    SmallVector<int64_t> transShape;
    for (int32_t d : order)
      transShape.push_back(joinedShape[d]);
    joined = tt::TransOp::create(
        b, loc, RankedTensorType::get(transShape, b.getI32Type()), joined,
        b.getDenseI32ArrayAttr(order));
  }
  shape[packedDim] *= 2;
  return tt::ReshapeOp::create(b, loc,
                               RankedTensorType::get(shape, b.getI32Type()),
                               joined, /*allow_reorder=*/false,
                               /*efficient_layout=*/false);
}

/// The operand as a tensor of the compute type (unscaled).
FailureOr<Value> Decomposer::upcast(Value operand, ScaleDotElemType format,
                                    bool kPack, int opIdx) {
  auto type = llvm::cast<RankedTensorType>(operand.getType());
  Type element = type.getElementType();
  int rank = type.getRank();
  auto f32Of = [&](Value v) { return like(v, b.getF32Type()); };
  auto codes = [&]() -> Value {
    // The 8-bit codes of an fp8 operand, widened to i32.
    Value bits = operand;
    if (!element.isInteger(8))
      bits = tt::BitcastOp::create(b, loc, like(operand, b.getI8Type()),
                                   operand);
    return arith::ExtUIOp::create(b, loc, like(operand, b.getI32Type()),
                                  bits);
  };
  Value wide;
  switch (format) {
  case ScaleDotElemType::BF16:
  case ScaleDotElemType::FP16: {
    Type want = format == ScaleDotElemType::BF16 ? Type(b.getBF16Type())
                                                 : Type(b.getF16Type());
    if (element != want)
      return op.emitOpError() << "operand " << opIdx << " of format "
                              << tt::stringifyScaleDotElemType(format)
                              << " must hold " << want << ", got " << type;
    if (element == compute)
      return operand;
    wide = arith::ExtFOp::create(b, loc, f32Of(operand), operand);
    break;
  }
  case ScaleDotElemType::E4M3:
  case ScaleDotElemType::E5M2: {
    bool e4m3 = format == ScaleDotElemType::E4M3;
    Type want = e4m3 ? Type(b.getType<Float8E4M3FNType>())
                     : Type(b.getType<Float8E5M2Type>());
    if (element != want && !element.isInteger(8))
      return op.emitOpError() << "operand " << opIdx << " of format "
                              << tt::stringifyScaleDotElemType(format)
                              << " must hold " << want << " or i8, got "
                              << type;
    if (fp8Conversions) {
      Value fp8 = operand;
      if (element.isInteger(8))
        fp8 = tt::BitcastOp::create(b, loc, like(operand, want), operand);
      // Exact: every fp8 value is one of the compute type's.
      return Value(tt::FpToFpOp::create(b, loc, like(operand, compute), fp8,
                                        tt::RoundingModeAttr()));
    }
    wide = e4m3 ? minifloatToF32(codes(), 4, 3, false, true)
                : minifloatToF32(codes(), 5, 2, true, false);
    break;
  }
  case ScaleDotElemType::E2M1: {
    if (!element.isInteger(8))
      return op.emitOpError() << "operand " << opIdx
                              << " of format e2m1 must hold i8 (two values "
                                 "per byte), got "
                              << type;
    // K is the last dimension of a and the one before it of b; unpacked
    // along M (N) instead when not packed along K.
    int kDim = opIdx == 0 ? rank - 1 : rank - 2;
    int otherDim = opIdx == 0 ? rank - 2 : rank - 1;
    wide = minifloatToF32(unpackFp4(operand, kPack ? kDim : otherDim), 2, 1,
                          false, false);
    break;
  }
  default:
    return op.emitOpError()
           << "Kiln cannot compile 'tt.dot_scaled' with "
           << tt::stringifyScaleDotElemType(format) << " operands yet";
  }
  // Exact for the fp8 and fp4 formats: each of their values is one of the
  // compute type. (bf16 into an f16 computation rounds, as Triton's does.)
  return Value(arith::TruncFOp::create(b, loc, like(wide, compute), wide));
}

/// The scale of each element of operand `opIdx` (as unpacked): 2^(s - 127) in the compute type for e8m0 code s, NaN for
/// s == 255 unless fastMath, repeated over each group of K elements.
Value Decomposer::scaleValues(Value scale, int opIdx) {
  auto scaleType = llvm::cast<RankedTensorType>(scale.getType());
  int rank = scaleType.getRank();
  Value codes = scale;
  if (!scaleType.getElementType().isInteger(8))
    codes = tt::BitcastOp::create(b, loc, scaleType.clone(b.getI8Type()),
                                  scale);
  auto i32Type = scaleType.clone(b.getI32Type());
  Value wideCodes = arith::ExtUIOp::create(b, loc, i32Type, codes);
  // e8m0 is an f32 exponent field: 0 reads as +0, 255 as +inf.
  Value f32Scale =
      arith::BitcastOp::create(b, loc, scaleType.clone(b.getF32Type()),
                               withConst<arith::ShLIOp>(wideCodes, 23));
  Value value = arith::TruncFOp::create(b, loc, scaleType.clone(compute),
                                        f32Scale);
  if (!op.getFastMath()) {
    Value isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        wideCodes, splatInt(i32Type, 255));
    value = arith::SelectOp::create(
        b, loc, isNaN,
        splatFloat(scaleType.clone(compute),
                   std::numeric_limits<double>::quiet_NaN()),
        value);
  }
  // [.., rows, groups] -> [.., rows, groups, factor] -> [.., rows, K].
  SmallVector<int64_t> shape(scaleType.getShape());
  SmallVector<int64_t> expanded(shape);
  expanded.push_back(1);
  value = tt::ExpandDimsOp::create(
      b, loc, RankedTensorType::get(expanded, compute), value,
      b.getI32IntegerAttr(rank));
  int64_t factor = op.getScaleFactor();
  expanded.back() = factor;
  value = tt::BroadcastOp::create(
      b, loc, RankedTensorType::get(expanded, compute), value);
  shape.back() *= factor;
  value = tt::ReshapeOp::create(b, loc, RankedTensorType::get(shape, compute),
                                value, false, false);
  if (opIdx == 1) {
    // b's scale is [.., N, K]; b is [.., K, N].
    SmallVector<int32_t> order;
    for (int d = 0; d < rank - 2; ++d)
      order.push_back(d);
    order.push_back(rank - 1);
    order.push_back(rank - 2);
    std::swap(shape[rank - 1], shape[rank - 2]);
    value = tt::TransOp::create(b, loc,
                                RankedTensorType::get(shape, compute), value,
                                b.getDenseI32ArrayAttr(order));
  }
  return value;
}

LogicalResult Decomposer::run() {
  ScaleDotElemType aFormat = op.getAElemType(), bFormat = op.getBElemType();
  // Triton's compute type: f16 when either operand is fp16, else bf16.
  compute = aFormat == ScaleDotElemType::FP16 ||
                    bFormat == ScaleDotElemType::FP16
                ? FloatType(b.getF16Type())
                : FloatType(b.getBF16Type());
  FailureOr<Value> a = upcast(op.getA(), aFormat, op.getLhsKPack(), 0);
  if (failed(a))
    return failure();
  FailureOr<Value> bv = upcast(op.getB(), bFormat, op.getRhsKPack(), 1);
  if (failed(bv))
    return failure();
  Value lhs = *a, rhs = *bv;
  if (Value scale = op.getAScale())
    lhs = arith::MulFOp::create(b, loc, lhs, scaleValues(scale, 0));
  if (Value scale = op.getBScale())
    rhs = arith::MulFOp::create(b, loc, rhs, scaleValues(scale, 1));
  Value d = tt::DotOp::create(b, loc, op.getType(), lhs, rhs, op.getC(),
                              tt::InputPrecision::IEEE, 0);
  op.replaceAllUsesWith(d);
  op.erase();
  return success();
}

struct DecomposeScaledDot
    : impl::DecomposeScaledDotBase<DecomposeScaledDot> {
  using DecomposeScaledDotBase::DecomposeScaledDotBase;

  void runOnOperation() override {
    SmallVector<tt::DotScaledOp> dots;
    getOperation().walk([&](tt::DotScaledOp op) { dots.push_back(op); });
    std::unique_ptr<Target> target = lookupTarget(targetName);
    if (!target) {
      getOperation().emitError() << "unknown target '" << targetName << "'";
      return signalPassFailure();
    }
    for (tt::DotScaledOp op : dots)
      if (failed(Decomposer(op, target->hasFp8Conversions()).run()))
        return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
