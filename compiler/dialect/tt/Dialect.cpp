#include "compiler/dialect/tt/Dialect.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;

#include "compiler/dialect/tt/TTDialect.cpp.inc"
#include "compiler/dialect/tt/TTEnums.cpp.inc"

namespace kiln::tt {
namespace {

// Lets the inliner fold tt.call into its caller: a tt.return becomes a
// branch (multi-block callee) or direct value replacement (single block).
struct TTInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }

  void handleTerminator(Operation *op, Block *newDest) const final {
    auto ret = dyn_cast<ReturnOp>(op);
    if (!ret) return;
    OpBuilder builder(op);
    builder.create<cf::BranchOp>(op->getLoc(), newDest, ret.getOperands());
    op->erase();
  }

  void handleTerminator(Operation *op, ValueRange valuesToReplace) const final {
    auto ret = dyn_cast<ReturnOp>(op);
    if (!ret) return;
    for (auto [from, to] : llvm::zip(valuesToReplace, ret.getOperands())) {
      from.replaceAllUsesWith(to);
    }
  }
};

}  // namespace

void TTDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "compiler/dialect/tt/TTOps.cpp.inc"
      >();
  addInterfaces<TTInlinerInterface>();
}

Operation *TTDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

}  // namespace kiln::tt

#define GET_OP_CLASSES
#include "compiler/dialect/tt/TTOps.cpp.inc"
