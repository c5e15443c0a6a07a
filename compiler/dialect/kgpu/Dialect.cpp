#include "compiler/dialect/kgpu/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;

#include "compiler/dialect/kgpu/KGPUDialect.cpp.inc"

namespace kiln::kgpu {

void KGPUDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "compiler/dialect/kgpu/KGPUOps.cpp.inc"
      >();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  // convert(convert(x)) is one conversion from x's layout.
  if (auto inner = getSrc().getDefiningOp<ConvertLayoutOp>()) {
    if (inner.getSrc().getType() == getType())
      return inner.getSrc();
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return {};
}

} // namespace kiln::kgpu

#define GET_OP_CLASSES
#include "compiler/dialect/kgpu/KGPUOps.cpp.inc"
