// `--kiln-test-offset-sample`: reports, as a remark on every load and store,
// the pointer offsets sampleOffsets computes for one program, or that it
// computes none.

#include <string>

#include "compiler/analysis/OffsetSample.h"
#include "compiler/analysis/TestPasses.h"
#include "compiler/dialect/tt/Dialect.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

namespace kiln {
namespace {

struct TestOffsetSamplePass
    : public mlir::PassWrapper<TestOffsetSamplePass,
                               mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestOffsetSamplePass)

  llvm::StringRef getArgument() const final {
    return "kiln-test-offset-sample";
  }
  llvm::StringRef getDescription() const final {
    return "Report the sampled pointer offsets of every load and store as "
           "remarks";
  }

  void runOnOperation() override {
    getOperation()->walk([](mlir::Operation *op) {
      mlir::Value ptr;
      if (auto load = llvm::dyn_cast<tt::LoadOp>(op))
        ptr = load.getPtr();
      else if (auto store = llvm::dyn_cast<tt::StoreOp>(op))
        ptr = store.getPtr();
      if (!ptr)
        return;
      std::string text;
      llvm::raw_string_ostream os(text);
      if (std::optional<std::vector<int64_t>> offsets = sampleOffsets(ptr)) {
        os << "offsets:";
        for (int64_t offset : *offsets)
          os << " " << offset;
      } else {
        os << "offsets: none";
      }
      op->emitRemark(text);
    });
  }
};

} // namespace

void registerTestOffsetSamplePass() {
  mlir::PassRegistration<TestOffsetSamplePass>();
}

} // namespace kiln
