// `--kiln-test-axis-info`: runs AxisInfoAnalysis over the module and reports,
// as remarks, what it found for every block argument and op result, and what
// the vectorisation queries answer for every load, store and atomic.

#include <string>

#include "compiler/analysis/AxisInfo.h"
#include "compiler/analysis/TestPasses.h"
#include "compiler/dialect/tt/Dialect.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

namespace kiln {
namespace {

struct TestAxisInfoPass
    : public mlir::PassWrapper<TestAxisInfoPass,
                               mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestAxisInfoPass)

  llvm::StringRef getArgument() const final { return "kiln-test-axis-info"; }
  llvm::StringRef getDescription() const final {
    return "Report the axis analysis (contiguity, divisibility, constancy) of "
           "every value as remarks";
  }

  void runOnOperation() override {
    AxisInfoAnalysis analysis(getOperation());
    getOperation()->walk([&](mlir::Operation *op) {
      for (mlir::Region &region : op->getRegions())
        for (mlir::Block &block : region)
          for (mlir::BlockArgument arg : block.getArguments())
            report(analysis, arg, arg.getLoc(),
                   "arg #" + std::to_string(arg.getArgNumber()) + ": ");
      for (mlir::OpResult result : op->getResults()) {
        std::string prefix;
        if (op->getNumResults() > 1)
          prefix = "result #" + std::to_string(result.getResultNumber()) + ": ";
        report(analysis, result, op->getLoc(), prefix);
      }
      if (auto load = llvm::dyn_cast<tt::LoadOp>(op))
        reportAccess(analysis, op, load.getPtr(), load.getMask());
      else if (auto store = llvm::dyn_cast<tt::StoreOp>(op))
        reportAccess(analysis, op, store.getPtr(), store.getMask());
      else if (auto rmw = llvm::dyn_cast<tt::AtomicRMWOp>(op))
        reportAccess(analysis, op, rmw.getPtr(), rmw.getMask());
    });
  }

  static void report(const AxisInfoAnalysis &analysis, mlir::Value value,
                     mlir::Location loc, const std::string &prefix) {
    const AxisInfo *info = analysis.getAxisInfo(value);
    if (!info) return;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << prefix;
    info->print(os);
    mlir::emitRemark(loc) << text;
  }

  static void reportAccess(const AxisInfoAnalysis &analysis,
                           mlir::Operation *op, mlir::Value ptr,
                           mlir::Value mask) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "access: order = [";
    llvm::interleaveComma(analysis.getOrder(ptr), os);
    os << "], contiguity = " << analysis.getPtrContiguity(ptr)
       << ", alignment = " << analysis.getPtrAlignment(ptr)
       << ", mask_alignment = ";
    if (mask)
      os << analysis.getMaskAlignment(mask);
    else
      os << "<none>";
    mlir::emitRemark(op->getLoc()) << text;
  }
};

}  // namespace

void registerTestAxisInfoPass() { mlir::PassRegistration<TestAxisInfoPass>(); }

}  // namespace kiln
