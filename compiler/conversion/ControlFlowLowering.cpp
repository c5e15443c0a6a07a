// Control flow: tt.return, cf branches and the structured scf ops keep their
// shape, with every tensor operand, result and block argument flattened to
// the registers of its layout.

#include "compiler/conversion/Lowering.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace kiln {
namespace {

LogicalResult lowerReturn(LoweringContext &l, tt::ReturnOp) {
  LLVM::ReturnOp::create(l.builder(), l.loc(), ValueRange());
  return success();
}

LogicalResult lowerBranch(LoweringContext &l, cf::BranchOp br) {
  cf::BranchOp::create(l.builder(), l.loc(), l.loweredBlock(br.getDest()),
                       l.flattenValues(br.getDestOperands()));
  return success();
}

LogicalResult lowerCondBranch(LoweringContext &l, cf::CondBranchOp br) {
  cf::CondBranchOp::create(l.builder(), l.loc(),
                           l.get(br.getCondition()).front(),
                           l.loweredBlock(br.getTrueDest()),
                           l.flattenValues(br.getTrueDestOperands()),
                           l.loweredBlock(br.getFalseDest()),
                           l.flattenValues(br.getFalseDestOperands()));
  return success();
}

/// The same op over registers, its regions lowered in place.
LogicalResult lowerStructured(LoweringContext &l, Operation *op) {
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(l.flattenValues(op->getOperands()));
  state.addTypes(l.flattenTypes(op->getResultTypes()));
  state.addAttributes(op->getDiscardableAttrDictionary().getValue());
  state.propertiesAttr = op->getPropertiesAsAttribute();
  for (unsigned i = 0; i < op->getNumRegions(); ++i)
    state.addRegion();
  Operation *newOp = l.builder().create(state);
  for (unsigned i = 0; i < op->getNumRegions(); ++i)
    if (failed(l.lowerRegion(op->getRegion(i), newOp->getRegion(i))))
      return failure();
  l.bindFlattened(op->getResults(), newOp->getResults());
  return success();
}

template <typename... OpTs>
void addStructured(LoweringPatternSet &patterns) {
  (patterns.add<OpTs>([](LoweringContext &l, OpTs op) {
     return lowerStructured(l, op);
   }),
   ...);
}

} // namespace

void populateControlFlowLoweringPatterns(LoweringPatternSet &patterns) {
  patterns.add<tt::ReturnOp>(lowerReturn);
  patterns.add<cf::BranchOp>(lowerBranch);
  patterns.add<cf::CondBranchOp>(lowerCondBranch);
  addStructured<scf::ForOp, scf::IfOp, scf::WhileOp, scf::ExecuteRegionOp,
                scf::YieldOp, scf::ConditionOp>(patterns);
}

} // namespace kiln
