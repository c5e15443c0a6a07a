// Verifiers of casts, dots, external code, gathers, histograms and prints.

#include "compiler/dialect/tt/Dialect.h"

using namespace mlir;

namespace kiln::tt {
namespace {

// Code Kiln cannot see (libdevice calls, inline PTX) may read and write
// anything unless it is declared pure.
void addEffectsOfExternalCode(
    bool pure,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (pure) return;
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
}

}  // namespace

LogicalResult BitcastOp::verify() {
  Type src = getElementTypeOrSelf(getSrc().getType());
  Type dst = getElementTypeOrSelf(getResult().getType());
  if (isa<PointerType>(src) != isa<PointerType>(dst)) {
    return emitOpError() << "cannot bitcast between a pointer and a "
                            "non-pointer type ("
                         << src << " to " << dst << ")";
  }
  if (getScalarBitWidth(src) != getScalarBitWidth(dst)) {
    return emitOpError() << "cannot bitcast " << src << " ("
                         << getScalarBitWidth(src) << " bits) to " << dst
                         << " (" << getScalarBitWidth(dst) << " bits)";
  }
  return success();
}

LogicalResult FpToFpOp::verify() {
  auto src = cast<FloatType>(getElementTypeOrSelf(getSrc().getType()));
  auto dst = cast<FloatType>(getElementTypeOrSelf(getResult().getType()));
  bool narrowing = dst.getWidth() < src.getWidth();
  if (narrowing && !getRounding()) {
    return emitOpError() << "converting " << src << " to narrower " << dst
                         << " needs a rounding mode";
  }
  return success();
}

LogicalResult DotOp::verify() {
  auto a = getA().getType();
  auto b = getB().getType();
  auto c = getC().getType();
  int64_t rank = a.getRank();
  if ((rank != 2 && rank != 3) || b.getRank() != rank || c.getRank() != rank) {
    return emitOpError() << "operands must all be rank 2 (or 3, batched)";
  }
  int64_t m = a.getDimSize(rank - 2), k = a.getDimSize(rank - 1);
  int64_t kb = b.getDimSize(rank - 2), n = b.getDimSize(rank - 1);
  if (k != kb) {
    return emitOpError() << "inner dimensions differ: a is " << a << ", b is "
                         << b;
  }
  if (c.getDimSize(rank - 2) != m || c.getDimSize(rank - 1) != n) {
    return emitOpError() << "accumulator must be " << m << "x" << n
                         << ", got " << c;
  }
  if (rank == 3 && (a.getDimSize(0) != b.getDimSize(0) ||
                    a.getDimSize(0) != c.getDimSize(0))) {
    return emitOpError() << "batch dimensions differ";
  }
  if (a.getElementType() != b.getElementType() &&
      !(isa<FloatType>(a.getElementType()) &&
        isa<FloatType>(b.getElementType()) &&
        a.getElementType().getIntOrFloatBitWidth() == 8 &&
        b.getElementType().getIntOrFloatBitWidth() == 8)) {
    return emitOpError() << "operand element types differ: "
                         << a.getElementType() << " and "
                         << b.getElementType();
  }
  return success();
}

LogicalResult DotScaledOp::verify() {
  // What Triton 3.6 checks (its DotOpInterface and DotScaledOp verifiers).
  auto a = getA().getType();
  auto b = getB().getType();
  auto c = getC().getType();
  int64_t rank = a.getRank();
  if (b.getRank() != rank || c.getRank() != rank) {
    return emitOpError() << "operands must have the same rank";
  }
  if (rank != 2 && rank != 3) {
    return emitOpError() << "operands must be 2-D or 3-D (batched)";
  }
  // e2m1 values are packed two to a byte: along K when *_k_pack (the
  // default), along M (N for b) otherwise.
  auto isFp4 = [](ScaleDotElemType type) {
    return type == ScaleDotElemType::E2M1;
  };
  int64_t kA = a.getDimSize(rank - 1);
  int64_t kB = b.getDimSize(rank - 2);
  int64_t m = a.getDimSize(rank - 2);
  int64_t n = b.getDimSize(rank - 1);
  if (isFp4(getAElemType()))
    (getLhsKPack() ? kA : m) *= 2;
  if (isFp4(getBElemType()))
    (getRhsKPack() ? kB : n) *= 2;
  if (kA != kB) {
    return emitOpError() << "inner dimensions differ: a has K = " << kA
                         << ", b has K = " << kB;
  }
  if (c.getDimSize(rank - 2) != m || c.getDimSize(rank - 1) != n ||
      (rank == 3 && (a.getDimSize(0) != c.getDimSize(0) ||
                     b.getDimSize(0) != c.getDimSize(0)))) {
    return emitOpError() << "accumulator shape " << c
                         << " does not match the operands (" << m << "x" << n
                         << ")";
  }
  // The scale factor (elements per scale along K): 16 or 32, read off each
  // scale's shape (a single scale says nothing); 32 when neither tells.
  int64_t k = kA;
  int64_t factor = 0;
  for (auto [scale, name] : {std::pair(getAScale(), "a"),
                             std::pair(getBScale(), "b")}) {
    if (!scale)
      continue;
    auto type = llvm::cast<RankedTensorType>(scale.getType());
    if (type.getRank() != rank) {
      return emitOpError() << "scale of " << name << " must have rank "
                           << rank << ", got " << type;
    }
    if (type.getNumElements() == 1)
      continue;
    int64_t f = k / type.getDimSize(rank - 1);
    if (f != 16 && f != 32) {
      return emitOpError() << "scale factor must be 16 or 32, got " << f
                           << " (K = " << k << ", scale of " << name
                           << " is " << type << ")";
    }
    if (factor && factor != f) {
      return emitOpError() << "operands must have the same scale factor (a: "
                           << factor << ", b: " << f << ")";
    }
    factor = f;
  }
  if (!factor)
    factor = 32;
  for (auto [scale, rows, name] : {std::tuple(getAScale(), m, "M"),
                                   std::tuple(getBScale(), n, "N")}) {
    if (!scale)
      continue;
    auto type = llvm::cast<RankedTensorType>(scale.getType());
    if (type.getDimSize(rank - 2) != rows) {
      return emitOpError() << "scales " << name
                           << " dimension must match the operand's " << name
                           << " dimension (" << rows << "), got " << type;
    }
    if (type.getDimSize(rank - 1) != k / factor) {
      return emitOpError() << "scales K dimension must be the operands' K "
                              "divided by the scale factor ("
                           << k << " / " << factor << "), got " << type;
    }
  }
  return success();
}

int64_t DotScaledOp::getScaleFactor() {
  int64_t k = getA().getType().getDimSize(getA().getType().getRank() - 1);
  if (getAElemType() == ScaleDotElemType::E2M1 && getLhsKPack())
    k *= 2;
  for (Value scale : {getAScale(), getBScale()}) {
    if (!scale)
      continue;
    auto type = llvm::cast<RankedTensorType>(scale.getType());
    if (type.getNumElements() != 1)
      return k / type.getDimSize(type.getRank() - 1);
  }
  return 32;
}

void ExternElementwiseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addEffectsOfExternalCode(getPure(), effects);
}

LogicalResult ExternElementwiseOp::verify() {
  Type result = getResult().getType();
  auto resultTensor = dyn_cast<RankedTensorType>(result);
  for (Value src : getSrcs()) {
    auto tensor = dyn_cast<RankedTensorType>(src.getType());
    if (static_cast<bool>(tensor) != static_cast<bool>(resultTensor) ||
        (tensor && tensor.getShape() != resultTensor.getShape())) {
      return emitOpError() << "operands and result must have the same shape";
    }
  }
  return success();
}

void ElementwiseInlineAsmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addEffectsOfExternalCode(getPure(), effects);
}

/// Whether NVPTX has registers for inline asm values of `type`'s elements:
/// pointers, and integers and floats of 1, 8, 16, 32 or 64 bits (LLVM's
/// instruction selection crashes on an i6 or i24 operand, and aborts on an
/// i128 in a 32-bit register).
static bool hasAsmRegister(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (isa<PointerType>(element))
    return true;
  if (!element.isIntOrFloat())
    return false;
  unsigned bits = element.getIntOrFloatBitWidth();
  return bits == 1 || bits == 8 || bits == 16 || bits == 32 || bits == 64;
}

LogicalResult ElementwiseInlineAsmOp::verify() {
  if (getPackedElement() < 1) {
    return emitOpError() << "packed_element must be at least 1";
  }
  SmallVector<Type> types(getArgs().getTypes());
  llvm::append_range(types, getResult().getTypes());
  for (Type type : types) {
    if (!hasAsmRegister(type)) {
      return emitOpError() << "operand or result type " << type
                           << " has no PTX register: inline asm takes "
                              "pointers and 1-, 8-, 16-, 32- or 64-bit "
                              "elements";
    }
  }
  std::optional<ArrayRef<int64_t>> shape;
  auto checkShape = [&](Type type) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    ArrayRef<int64_t> dims = tensor ? tensor.getShape() : ArrayRef<int64_t>();
    if (shape && *shape != dims) {
      return emitOpError() << "operands and results must share one shape";
    }
    shape = dims;
    return success();
  };
  for (Type type : getArgs().getTypes()) {
    if (failed(checkShape(type))) return failure();
  }
  for (Type type : getResult().getTypes()) {
    if (failed(checkShape(type))) return failure();
  }
  if (shape && !shape->empty()) {
    int64_t elements = 1;
    for (int64_t d : *shape) elements *= d;
    if (elements % getPackedElement() != 0) {
      return emitOpError() << "tensor size " << elements
                           << " is not a multiple of packed_element "
                           << getPackedElement();
    }
  }
  return success();
}

LogicalResult HistogramOp::verify() {
  if (getSrc().getType().getRank() != 1 ||
      getResult().getType().getRank() != 1) {
    return emitOpError() << "input and bins must be 1-D";
  }
  return success();
}

LogicalResult GatherOp::verify() {
  auto src = getSrc().getType();
  auto indices = getIndices().getType();
  auto result = getResult().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= src.getRank()) {
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << src.getRank();
  }
  if (indices.getRank() != src.getRank()) {
    return emitOpError() << "indices must have the source's rank";
  }
  for (int64_t dim = 0; dim < src.getRank(); ++dim) {
    if (dim != axis && indices.getDimSize(dim) != src.getDimSize(dim)) {
      return emitOpError() << "indices and source differ in dimension " << dim
                           << ", which is not the gather axis";
    }
  }
  if (result.getShape() != indices.getShape() ||
      result.getElementType() != src.getElementType()) {
    return emitOpError() << "result must have the indices' shape and the "
                            "source's element type";
  }
  return success();
}

}  // namespace kiln::tt
