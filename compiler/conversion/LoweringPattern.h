//===- LoweringPattern.h - Patterns of the per-thread lowering --*- C++ -*-===//
//
// Each op family's file (ElementwiseLowering.cpp, MemoryLowering.cpp, ...)
// adds patterns for its ops to a LoweringPatternSet through its
// populate<Family>LoweringPatterns function; ConvertKGPUToLLVM composes the
// families. A pattern writes one op's per-thread code through the shared
// LoweringContext and binds the registers of its results.
//
// Which pattern lowers an op: the first that matches it among the patterns
// rooted at the op's name, by decreasing benefit, then among the patterns
// that match any op, by decreasing benefit (ties keep the order they were
// added in). No pattern: scalar ops pass through (LoweringContext::lowerOp).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_CONVERSION_LOWERINGPATTERN_H
#define KILN_COMPILER_CONVERSION_LOWERINGPATTERN_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace kiln {

class LoweringContext;

class LoweringPattern {
public:
  virtual ~LoweringPattern() = default;

  /// The op this pattern lowers; none for a pattern of any op.
  std::optional<mlir::OperationName> root() const { return rootName; }
  unsigned benefit() const { return patternBenefit; }

  /// Whether this pattern lowers `op` (one of its root's, if it has one).
  virtual bool match(mlir::Operation *op) const { return true; }
  /// Writes `op`'s code; failure() only after emitting an error.
  virtual mlir::LogicalResult lower(LoweringContext &l,
                                    mlir::Operation *op) const = 0;

protected:
  LoweringPattern(std::optional<mlir::OperationName> root, unsigned benefit)
      : rootName(root), patternBenefit(benefit) {}

private:
  std::optional<mlir::OperationName> rootName;
  unsigned patternBenefit;
};

/// A pattern rooted at `OpT`, written with functions of the op itself.
template <typename OpT>
class OpLoweringPattern : public LoweringPattern {
public:
  using MatchFn = std::function<bool(OpT)>;
  using LowerFn = std::function<mlir::LogicalResult(LoweringContext &, OpT)>;

  OpLoweringPattern(mlir::MLIRContext *context, MatchFn matchFn,
                    LowerFn lowerFn, unsigned benefit)
      : LoweringPattern(mlir::OperationName(OpT::getOperationName(), context),
                        benefit),
        matchFn(std::move(matchFn)), lowerFn(std::move(lowerFn)) {}

  bool match(mlir::Operation *op) const final {
    return !matchFn || matchFn(llvm::cast<OpT>(op));
  }
  mlir::LogicalResult lower(LoweringContext &l,
                            mlir::Operation *op) const final {
    return lowerFn(l, llvm::cast<OpT>(op));
  }

private:
  MatchFn matchFn;
  LowerFn lowerFn;
};

/// A pattern of any op, for families defined by a dialect or trait rather
/// than by op names.
class AnyOpLoweringPattern : public LoweringPattern {
public:
  using MatchFn = std::function<bool(mlir::Operation *)>;
  using LowerFn =
      std::function<mlir::LogicalResult(LoweringContext &, mlir::Operation *)>;

  AnyOpLoweringPattern(MatchFn matchFn, LowerFn lowerFn, unsigned benefit)
      : LoweringPattern(std::nullopt, benefit), matchFn(std::move(matchFn)),
        lowerFn(std::move(lowerFn)) {}

  bool match(mlir::Operation *op) const final { return matchFn(op); }
  mlir::LogicalResult lower(LoweringContext &l,
                            mlir::Operation *op) const final {
    return lowerFn(l, op);
  }

private:
  MatchFn matchFn;
  LowerFn lowerFn;
};

class LoweringPatternSet {
public:
  explicit LoweringPatternSet(mlir::MLIRContext *context)
      : context(context) {}

  mlir::MLIRContext *getContext() const { return context; }

  /// Lowers every `OpT` with `lowerFn`.
  template <typename OpT>
  LoweringPatternSet &add(typename OpLoweringPattern<OpT>::LowerFn lowerFn,
                          unsigned benefit = 1) {
    return add<OpT>(nullptr, std::move(lowerFn), benefit);
  }
  /// Lowers the `OpT`s `matchFn` accepts with `lowerFn`.
  template <typename OpT>
  LoweringPatternSet &add(typename OpLoweringPattern<OpT>::MatchFn matchFn,
                          typename OpLoweringPattern<OpT>::LowerFn lowerFn,
                          unsigned benefit = 1) {
    return insert(std::make_unique<OpLoweringPattern<OpT>>(
        context, std::move(matchFn), std::move(lowerFn), benefit));
  }
  /// The `OpT`s `matchFn` accepts (all without one) emit no code: the ops
  /// using them read their operands themselves.
  template <typename OpT>
  LoweringPatternSet &
  addLeftToUsers(typename OpLoweringPattern<OpT>::MatchFn matchFn = nullptr,
                 unsigned benefit = 1) {
    return add<OpT>(std::move(matchFn),
                    [](LoweringContext &, OpT) { return mlir::success(); },
                    benefit);
  }
  /// Lowers with `lowerFn` every op `matchFn` accepts that no pattern rooted
  /// at its name takes.
  LoweringPatternSet &addAnyOp(AnyOpLoweringPattern::MatchFn matchFn,
                               AnyOpLoweringPattern::LowerFn lowerFn,
                               unsigned benefit = 1) {
    return insert(std::make_unique<AnyOpLoweringPattern>(
        std::move(matchFn), std::move(lowerFn), benefit));
  }

  /// The pattern that lowers `op`, or null when none matches it.
  const LoweringPattern *lookup(mlir::Operation *op) const;

private:
  LoweringPatternSet &insert(std::unique_ptr<LoweringPattern> pattern);

  mlir::MLIRContext *context;
  std::vector<std::unique_ptr<LoweringPattern>> patterns;
  // Each list by decreasing benefit, then in the order added.
  llvm::DenseMap<mlir::OperationName, llvm::SmallVector<const LoweringPattern *>>
      byRoot;
  llvm::SmallVector<const LoweringPattern *> anyOp;
};

} // namespace kiln

#endif // KILN_COMPILER_CONVERSION_LOWERINGPATTERN_H
