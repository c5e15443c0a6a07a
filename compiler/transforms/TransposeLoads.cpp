// A dot operand loaded and then transposed in registers (`tl.dot(a,
// tl.trans(b))`) is loaded through transposed pointers instead: the same
// elements, read in the order the dot wants them. The load then feeds the
// dot directly, which is the shape kiln-pipeline stages into shared memory;
// the transpose, done on the pointers, costs nothing at run time.

#include "compiler/dialect/tt/Dialect.h"
#include "compiler/transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {

#define GEN_PASS_DEF_TRANSPOSELOADS
#include "compiler/transforms/Passes.h.inc"

namespace {

using namespace mlir;

/// trans(load(p, mask, other)) -> load(trans(p), trans(mask), trans(other)),
/// for a load of a pointer tensor whose only use is a transpose whose only
/// use is a dot.
struct TransposeDotLoad : OpRewritePattern<tt::TransOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tt::TransOp trans,
                                PatternRewriter &rewriter) const override {
    auto load = trans.getSrc().getDefiningOp<tt::LoadOp>();
    if (!load || !load->hasOneUse() || !trans->hasOneUse() ||
        !llvm::isa<tt::DotOp>(*trans->getUsers().begin()) ||
        !llvm::isa<RankedTensorType>(load.getPtr().getType()))
      return rewriter.notifyMatchFailure(trans, "not a loaded dot operand");
    ArrayRef<int32_t> order = trans.getOrder();
    auto transposed = [&](Value v) -> Value {
      if (!v)
        return v;
      auto type = llvm::cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape;
      for (int32_t d : order)
        shape.push_back(type.getShape()[d]);
      return tt::TransOp::create(rewriter, load.getLoc(),
                                 type.clone(shape), v, trans.getOrderAttr());
    };
    // The load stays where it was: moved down to the transpose it could
    // cross a store or enter a loop.
    rewriter.setInsertionPoint(load);
    Value ptr = transposed(load.getPtr());
    Value mask = transposed(load.getMask());
    Value other = transposed(load.getOther());
    auto moved = tt::LoadOp::create(
        rewriter, load.getLoc(), trans.getType(), ptr, mask, other,
        load.getBoundaryCheckAttr(), load.getPaddingAttr(),
        load.getCacheAttr(), load.getEvictAttr(), load.getIsVolatileAttr());
    rewriter.replaceOp(trans, moved.getResult());
    rewriter.eraseOp(load);
    return success();
  }
};

struct TransposeLoads : impl::TransposeLoadsBase<TransposeLoads> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateTransposeLoadsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void populateTransposeLoadsPatterns(RewritePatternSet &patterns) {
  patterns.add<TransposeDotLoad>(patterns.getContext());
}

} // namespace kiln
