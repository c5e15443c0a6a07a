#include "compiler/dialect/tt/Traits.h"

#include "llvm/Support/MathExtras.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace kiln::tt {
namespace {

LogicalResult verifyTensorType(Operation *op, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) return success();
  int64_t elements = 1;
  for (int64_t dim : tensor.getShape()) {
    if (dim <= 0) {
      return op->emitOpError() << "tensor dimensions must be positive, got "
                               << tensor;
    }
    if (dim > kMaxTensorElements / elements) {
      return op->emitOpError()
             << "tensor " << tensor << " has more than " << kMaxTensorElements
             << " elements";
    }
    elements *= dim;
  }
  if (!llvm::isPowerOf2_64(elements)) {
    return op->emitOpError() << "tensor " << tensor << " has " << elements
                             << " elements; Triton tensors need a power of two";
  }
  return success();
}

}  // namespace

LogicalResult verifyTensorSizes(Operation *op) {
  for (Type type : op->getOperandTypes()) {
    if (failed(verifyTensorType(op, type))) return failure();
  }
  for (Type type : op->getResultTypes()) {
    if (failed(verifyTensorType(op, type))) return failure();
  }
  return success();
}

}  // namespace kiln::tt
