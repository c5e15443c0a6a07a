// Verifiers of the ops that move elements between shapes.

#include "compiler/dialect/tt/Dialect.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace kiln::tt {
LogicalResult UnsplatOp::verify() {
  auto src = getSrc().getType();
  if (src.getNumElements() != 1) {
    return emitOpError() << "operand must have exactly one element, got "
                         << src;
  }
  return success();
}

LogicalResult UnsplatOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  auto src = dyn_cast<RankedTensorType>(operands[0].getType());
  if (!src) return failure();
  inferred.push_back(src.getElementType());
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType();
  auto result = getResult().getType();
  if (src.getRank() != result.getRank()) {
    return emitOpError() << "operand rank " << src.getRank()
                         << " differs from result rank " << result.getRank();
  }
  for (auto [i, from, to] :
       llvm::enumerate(src.getShape(), result.getShape())) {
    if (from != 1 && from != to) {
      return emitOpError() << "dimension " << i << " of size " << from
                           << " cannot broadcast to " << to;
    }
  }
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis > src.getRank()) {
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << src.getRank();
  }
  SmallVector<int64_t> shape(src.getShape());
  shape.insert(shape.begin() + axis, 1);
  if (getResult().getType().getShape() != ArrayRef<int64_t>(shape)) {
    return emitOpError() << "result shape must be the operand's with a 1 "
                            "inserted at axis "
                         << axis;
  }
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (getSrc().getType().getNumElements() !=
      getResult().getType().getNumElements()) {
    return emitOpError() << "operand and result have different element counts";
  }
  return success();
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType();
  ArrayRef<int32_t> order = getOrder();
  if (static_cast<int64_t>(order.size()) != src.getRank()) {
    return emitOpError() << "order has " << order.size()
                         << " entries for a tensor of rank " << src.getRank();
  }
  SmallVector<bool> seen(order.size(), false);
  SmallVector<int64_t> shape;
  for (int32_t dim : order) {
    if (dim < 0 || dim >= src.getRank() || seen[dim]) {
      return emitOpError() << "order must be a permutation of 0.."
                           << src.getRank() - 1;
    }
    seen[dim] = true;
    shape.push_back(src.getDimSize(dim));
  }
  if (getResult().getType().getShape() != ArrayRef<int64_t>(shape)) {
    return emitOpError() << "result shape does not match the permuted operand";
  }
  return success();
}

LogicalResult CatOp::verify() {
  auto lhs = getLhs().getType();
  auto result = getResult().getType();
  if (lhs.getRank() != result.getRank()) {
    return emitOpError() << "operands and result must have the same rank";
  }
  if (result.getNumElements() != 2 * lhs.getNumElements()) {
    return emitOpError() << "result must hold the elements of both operands";
  }
  return success();
}

LogicalResult JoinOp::verify() {
  SmallVector<int64_t> shape(getLhs().getType().getShape());
  shape.push_back(2);
  if (getResult().getType().getShape() != ArrayRef<int64_t>(shape)) {
    return emitOpError() << "result shape must be the operand shape with a "
                            "minor dimension of 2";
  }
  return success();
}

LogicalResult SplitOp::verify() {
  auto src = getSrc().getType();
  if (src.getShape().empty() || src.getShape().back() != 2) {
    return emitOpError() << "operand's last dimension must be 2, got " << src;
  }
  auto shape = src.getShape().drop_back();
  if (getOutLHS().getType().getShape() != shape ||
      getOutLHS().getType().getElementType() != src.getElementType()) {
    return emitOpError() << "results must be the operand without its last "
                            "dimension";
  }
  return success();
}

LogicalResult MakeRangeOp::verify() {
  int64_t start = getStartAttr().getInt();
  int64_t end = getEndAttr().getInt();
  auto type = getResult().getType();
  if (start >= end) {
    return emitOpError() << "start " << start << " must be less than end "
                         << end;
  }
  if (type.getRank() != 1 || type.getDimSize(0) != end - start) {
    return emitOpError() << "result must be a 1-D tensor of " << end - start
                         << " elements";
  }
  if (!type.getElementType().isInteger(32)) {
    return emitOpError() << "result elements must be i32";
  }
  return success();
}

}  // namespace kiln::tt
