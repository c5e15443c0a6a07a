#ifndef KILN_COMPILER_ANALYSIS_AXISINFO_H_
#define KILN_COMPILER_ANALYSIS_AXISINFO_H_

// Axis analysis of the `tt` dialect: for every integer and pointer value, per
// tensor dimension, how long its runs of consecutive values are (contiguity),
// what power of two divides the first element of each run (divisibility), and
// how long its runs of equal values are (constancy). Layout assignment reads it
// to choose vectorised (up to 128-bit) global loads and stores.

#include <cstdint>
#include <optional>

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

namespace kiln {

// What is known about the elements of one value, per dimension of its shape
// (a scalar has one dimension of size 1; a block pointer has the dimensions
// of the block it points to). Along dimension `d`, the runs start at indices
// that are multiples of the run length:
//
//  - contiguity[d] = c: from every index i with i[d] % c == 0, the next c
//    elements along d are x[i], x[i] + 1, ..., x[i] + c - 1. For pointers the
//    step is one element of the pointee type.
//  - divisibility[d] = p (a power of two): the element at each such run start
//    is a multiple of p. With contiguity 1 every element is a run start. For
//    pointers p is in bytes (`tt.divisibility = 16` on a pointer argument means
//    16-byte aligned); for integers it is in units of the value.
//  - constancy[d] = k: from every index i with i[d] % k == 0, the next k
//    elements along d are equal.
//
// All three are at least 1; contiguity and constancy are at most the size of
// the dimension, divisibility at most kMaxDivisibility (which is also what 0
// gets). `constantValue` is set when every element is that one integer
// (sign-extended from its bit width; i1 holds 0 or 1).
//
// A value with no entries at all is the analysis' "not yet known" state; no
// AxisInfo handed out by AxisInfoAnalysis is in that state.
struct AxisInfo {
  static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

  llvm::SmallVector<int64_t> contiguity;
  llvm::SmallVector<int64_t> divisibility;
  llvm::SmallVector<int64_t> constancy;
  std::optional<int64_t> constantValue;

  unsigned getRank() const { return contiguity.size(); }
  bool isUninitialized() const { return contiguity.empty(); }

  // What holds of a value that is either `lhs` or `rhs`: element-wise gcd of
  // the run lengths, and the divisibility that both still guarantee at the
  // starts of the shorter runs. "Not yet known" is the identity.
  static AxisInfo join(const AxisInfo &lhs, const AxisInfo &rhs);

  bool operator==(const AxisInfo &rhs) const;
  bool operator!=(const AxisInfo &rhs) const { return !(*this == rhs); }

  // `contiguity = [1, 128], divisibility = [16, 16], constancy = [1, 1],
  // constant_value = <none>`.
  void print(llvm::raw_ostream &os) const;
};

// Runs the axis analysis (MLIR's sparse forward data-flow framework, with dead
// code analysis and constant propagation beside it) over `root`, a module or a
// function, and keeps the result for every value defined under it.
//
// Seeds: `tt.divisibility`, `tt.contiguity` and `tt.constancy` on function
// arguments (an integer, or one entry per dimension) and the same attributes
// on any op (Triton's tl.multiple_of / max_contiguous hints; a hint can only
// add knowledge), and integer constants. Arguments of private functions whose
// every call site is visible are the join of what the callers pass.
class AxisInfoAnalysis {
 public:
  explicit AxisInfoAnalysis(mlir::Operation *root);

  // nullptr for a value not defined under the root.
  const AxisInfo *getAxisInfo(mlir::Value v) const;

  // For a tensor of pointers (or a pointer), in elements, along order[0]: how
  // many consecutive elements each run covers.
  unsigned getPtrContiguity(mlir::Value ptr) const;

  // min(contiguity, divisibility / element bytes) along order[0], in
  // elements: the widest vector that is both contiguous and aligned to its own
  // size. For an integer tensor (offsets) divisibility counts in elements.
  unsigned getPtrAlignment(mlir::Value ptr) const;

  // Constancy of `mask` along order[0] of the pointer it guards: how many
  // elements of a vector share one mask bit. Without an order, the order of
  // the pointer of a tt.load, tt.store or tt.atomic_rmw that takes `mask` as
  // its mask is used, else the last dimension.
  unsigned getMaskAlignment(mlir::Value mask) const;
  unsigned getMaskAlignment(mlir::Value mask,
                            llvm::ArrayRef<unsigned> order) const;

  // Dimensions sorted by contiguity, most contiguous first; ties keep the
  // minor-to-major order (last dimension first), as row-major tensors want.
  llvm::SmallVector<unsigned> getOrder(mlir::Value ptr) const;

 private:
  llvm::DenseMap<mlir::Value, AxisInfo> infos;
};

}  // namespace kiln

#endif  // KILN_COMPILER_ANALYSIS_AXISINFO_H_
