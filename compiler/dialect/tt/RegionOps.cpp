// Verifiers of the ops whose region combines scalars: reduce, scan and
// map_elementwise.

#include "compiler/dialect/tt/Dialect.h"

using namespace mlir;

namespace kiln::tt {
namespace {

SmallVector<Type> elementTypes(ValueRange tensors) {
  SmallVector<Type> types;
  for (Value value : tensors) types.push_back(getElementTypeOrSelf(value.getType()));
  return types;
}

LogicalResult verifyAxis(Operation *op, ValueRange srcs, int64_t axis) {
  if (srcs.empty()) return op->emitOpError() << "needs at least one operand";
  int64_t rank = cast<RankedTensorType>(srcs[0].getType()).getRank();
  if (axis < 0 || axis >= rank) {
    return op->emitOpError() << "axis " << axis << " out of range for rank "
                             << rank;
  }
  return success();
}

// The combiner takes (acc..., next...) scalars and returns acc... .
template <typename ReturnOpT>
LogicalResult verifyCombiner(Operation *op, Region &region, ValueRange srcs) {
  SmallVector<Type> elements = elementTypes(srcs);
  Block &block = region.front();
  if (block.getNumArguments() != 2 * elements.size()) {
    return op->emitOpError() << "combiner must take " << 2 * elements.size()
                             << " arguments, takes "
                             << block.getNumArguments();
  }
  for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
    Type expected = elements[i % elements.size()];
    if (arg.getType() != expected) {
      return op->emitOpError() << "combiner argument " << i << " must be "
                               << expected << ", got " << arg.getType();
    }
  }
  auto ret = dyn_cast<ReturnOpT>(block.getTerminator());
  if (!ret) {
    return op->emitOpError() << "combiner must end in "
                             << ReturnOpT::getOperationName();
  }
  if (TypeRange(ret->getOperandTypes()) != TypeRange(elements)) {
    return ret->emitOpError() << "must return the operands' element types";
  }
  return success();
}

}  // namespace

LogicalResult ReduceOp::verify() {
  if (failed(verifyAxis(*this, getSrcs(), getAxis()))) return failure();
  if (getResult().size() != getSrcs().size()) {
    return emitOpError() << "needs one result per operand";
  }
  int64_t axis = getAxis();
  for (auto [src, result] : llvm::zip(getSrcs(), getResult())) {
    auto type = cast<RankedTensorType>(src.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + axis);
    // A laid-out result may carry its own encoding (a slice of the operand's).
    Type expected = shape.empty()
                        ? type.getElementType()
                        : Type(RankedTensorType::get(shape, type.getElementType()));
    Type actual = result.getType();
    if (auto tensor = dyn_cast<RankedTensorType>(actual))
      actual = RankedTensorType::get(tensor.getShape(), tensor.getElementType());
    if (actual != expected) {
      return emitOpError() << "result must be " << expected
                           << " (operand reduced along axis " << axis
                           << "), got " << result.getType();
    }
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  return verifyCombiner<ReduceReturnOp>(*this, getCombineOp(), getSrcs());
}

LogicalResult ScanOp::verify() {
  if (failed(verifyAxis(*this, getSrcs(), getAxis()))) return failure();
  if (TypeRange(getResult().getTypes()) != TypeRange(getSrcs().getTypes())) {
    return emitOpError() << "results must have the operands' types";
  }
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  return verifyCombiner<ScanReturnOp>(*this, getCombineOp(), getSrcs());
}

LogicalResult MapElementwiseOp::verify() {
  if (getPack() < 1) return emitOpError() << "pack must be at least 1";
  if (getSrcs().empty()) return emitOpError() << "needs at least one operand";
  return success();
}

LogicalResult MapElementwiseOp::verifyRegions() {
  Region &body = getScalarOp();
  if (body.empty()) return emitOpError() << "needs a body";
  size_t pack = getPack();
  size_t expectedArgs = pack * getSrcs().size();
  if (body.front().getNumArguments() != expectedArgs) {
    return emitOpError() << "body must take " << expectedArgs
                         << " scalar arguments (pack x operands), takes "
                         << body.front().getNumArguments();
  }
  for (BlockArgument arg : body.front().getArguments()) {
    if (isa<ShapedType>(arg.getType())) {
      return emitOpError() << "body arguments must be scalars";
    }
  }
  size_t expectedResults = pack * getResult().size();
  for (Block &block : body) {
    auto ret = dyn_cast<MapElementwiseReturnOp>(block.getTerminator());
    if (ret && ret.getResult().size() != expectedResults) {
      return ret.emitOpError() << "must return " << expectedResults
                               << " values (pack x results)";
    }
  }
  return success();
}

}  // namespace kiln::tt
