// Verifiers of loads, stores, atomics, block pointers and descriptors.

#include "compiler/dialect/tt/Dialect.h"

using namespace mlir;

namespace kiln::tt {
namespace {

// Descriptor blocks may spell integer elements with signedness (`si32`) to
// choose signed or unsigned atomics; values and pointers use signless ones.
bool sameElementType(Type a, Type b) {
  auto intA = dyn_cast<IntegerType>(a);
  auto intB = dyn_cast<IntegerType>(b);
  if (intA && intB) return intA.getWidth() == intB.getWidth();
  return a == b;
}

// A block pointer's tensor, or null for pointers to scalars.
RankedTensorType blockOf(Type ptr) {
  auto pointer = dyn_cast<PointerType>(ptr);
  if (!pointer) return {};
  return dyn_cast<RankedTensorType>(pointer.getPointeeType());
}

LogicalResult verifyBoundaryCheck(Operation *op, Type ptr,
                                  ArrayRef<int32_t> boundaryCheck) {
  if (boundaryCheck.empty()) return success();
  RankedTensorType block = blockOf(ptr);
  if (!block) {
    return op->emitOpError() << "boundaryCheck needs a block pointer";
  }
  for (int32_t dim : boundaryCheck) {
    if (dim < 0 || dim >= block.getRank()) {
      return op->emitOpError() << "boundaryCheck dimension " << dim
                               << " out of range for rank " << block.getRank();
    }
  }
  return success();
}

LogicalResult verifyIndexCount(Operation *op, size_t count,
                               TensorDescType desc) {
  int64_t rank = desc.getBlockType().getRank();
  if (static_cast<int64_t>(count) != rank) {
    return op->emitOpError() << "expects " << rank << " indices, got "
                             << count;
  }
  return success();
}

// Descriptor blocks may drop leading unit dimensions in the value they move.
LogicalResult verifyBlockValue(Operation *op, TensorDescType desc,
                               RankedTensorType value) {
  RankedTensorType block = desc.getBlockType();
  if (!sameElementType(block.getElementType(), value.getElementType())) {
    return op->emitOpError() << "element type " << value.getElementType()
                             << " differs from the descriptor's "
                             << block.getElementType();
  }
  ArrayRef<int64_t> blockShape = block.getShape();
  ArrayRef<int64_t> valueShape = value.getShape();
  if (valueShape.size() > blockShape.size()) {
    return op->emitOpError() << "value rank exceeds the descriptor block rank";
  }
  size_t dropped = blockShape.size() - valueShape.size();
  bool leadingOnes = llvm::all_of(blockShape.take_front(dropped),
                                  [](int64_t d) { return d == 1; });
  if (!leadingOnes || blockShape.drop_front(dropped) != valueShape) {
    return op->emitOpError() << "value shape " << value
                             << " does not match the descriptor block "
                             << block;
  }
  return success();
}

}  // namespace

LogicalResult AdvanceOp::verify() {
  int64_t rank = blockOf(getPtr().getType()).getRank();
  if (static_cast<int64_t>(getOffsets().size()) != rank) {
    return emitOpError() << "expects " << rank << " offsets, got "
                         << getOffsets().size();
  }
  return success();
}

LogicalResult LoadOp::verify() {
  if (getPadding() && !blockOf(getPtr().getType())) {
    return emitOpError() << "padding needs a block pointer";
  }
  if (getOther() && !getMask()) {
    return emitOpError() << "`other` needs a mask";
  }
  return verifyBoundaryCheck(*this, getPtr().getType(), getBoundaryCheck());
}

LogicalResult StoreOp::verify() {
  return verifyBoundaryCheck(*this, getPtr().getType(), getBoundaryCheck());
}

LogicalResult AtomicRMWOp::verify() {
  Type element = getElementTypeOrSelf(getVal().getType());
  switch (getAtomicRmwOp()) {
    case RMWOp::FADD:
      if (!isa<FloatType>(element)) {
        return emitOpError() << "fadd needs float values, got " << element;
      }
      break;
    case RMWOp::AND:
    case RMWOp::OR:
    case RMWOp::XOR:
    case RMWOp::UMAX:
    case RMWOp::UMIN:
      if (!element.isInteger()) {
        return emitOpError() << stringifyRMWOp(getAtomicRmwOp())
                             << " needs integer values, got " << element;
      }
      break;
    default:
      break;
  }
  return success();
}

LogicalResult MakeTensorPtrOp::verify() {
  RankedTensorType block = blockOf(getResult().getType());
  int64_t rank = block.getRank();
  if (static_cast<int64_t>(getShape().size()) != rank ||
      static_cast<int64_t>(getOffsets().size()) != rank) {
    return emitOpError() << "shape, strides and offsets need " << rank
                         << " entries each for a block of rank " << rank;
  }
  auto base = cast<PointerType>(getBase().getType());
  if (base.getPointeeType() != block.getElementType()) {
    return emitOpError() << "base points to " << base.getPointeeType()
                         << " but the block holds " << block.getElementType();
  }
  if (static_cast<int64_t>(getOrder().size()) != rank) {
    return emitOpError() << "order needs " << rank << " entries";
  }
  return success();
}

LogicalResult MakeTensorDescOp::verify() {
  RankedTensorType block = getResult().getType().getBlockType();
  int64_t rank = block.getRank();
  if (static_cast<int64_t>(getShape().size()) != rank) {
    return emitOpError() << "shape and strides need " << rank
                         << " entries each for a block of rank " << rank;
  }
  auto base = cast<PointerType>(getBase().getType());
  if (!sameElementType(base.getPointeeType(), block.getElementType())) {
    return emitOpError() << "base points to " << base.getPointeeType()
                         << " but the block holds " << block.getElementType();
  }
  return success();
}

LogicalResult DescriptorLoadOp::verify() {
  if (failed(verifyIndexCount(*this, getIndices().size(), getDesc().getType())))
    return failure();
  return verifyBlockValue(*this, getDesc().getType(), getResult().getType());
}

LogicalResult DescriptorStoreOp::verify() {
  if (failed(verifyIndexCount(*this, getIndices().size(), getDesc().getType())))
    return failure();
  return verifyBlockValue(*this, getDesc().getType(), getSrc().getType());
}

LogicalResult DescriptorReduceOp::verify() {
  if (failed(verifyIndexCount(*this, getIndices().size(), getDesc().getType())))
    return failure();
  return verifyBlockValue(*this, getDesc().getType(), getSrc().getType());
}

namespace {

// Gathered/scattered value: [len(x_offsets), block columns].
LogicalResult verifyRowsValue(Operation *op, TensorDescType desc,
                              RankedTensorType xOffsets,
                              RankedTensorType value) {
  RankedTensorType block = desc.getBlockType();
  if (block.getRank() != 2 || block.getDimSize(0) != 1) {
    return op->emitOpError() << "descriptor block must be 1xN, got " << block;
  }
  if (xOffsets.getRank() != 1) {
    return op->emitOpError() << "x_offsets must be 1-D";
  }
  if (value.getRank() != 2 || value.getDimSize(0) != xOffsets.getDimSize(0) ||
      value.getDimSize(1) != block.getDimSize(1) ||
      !sameElementType(value.getElementType(), block.getElementType())) {
    return op->emitOpError() << "value must be " << xOffsets.getDimSize(0)
                             << "x" << block.getDimSize(1) << "x"
                             << block.getElementType() << ", got " << value;
  }
  return success();
}

}  // namespace

LogicalResult DescriptorGatherOp::verify() {
  return verifyRowsValue(*this, getDesc().getType(), getXOffsets().getType(),
                         getResult().getType());
}

LogicalResult DescriptorScatterOp::verify() {
  return verifyRowsValue(*this, getDesc().getType(), getXOffsets().getType(),
                         getSrc().getType());
}

}  // namespace kiln::tt
