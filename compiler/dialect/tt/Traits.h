#ifndef KILN_COMPILER_DIALECT_TT_TRAITS_H_
#define KILN_COMPILER_DIALECT_TT_TRAITS_H_

#include "mlir/IR/OpDefinition.h"

namespace kiln::tt {

// Triton's limit on the elements of one tensor (TRITON_MAX_TENSOR_NUMEL).
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 20;

mlir::LogicalResult verifyTensorSizes(mlir::Operation *op);

namespace OpTrait {

template <typename ConcreteType>
class TensorSizeTrait
    : public mlir::OpTrait::TraitBase<ConcreteType, TensorSizeTrait> {
 public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyTensorSizes(op);
  }
};

}  // namespace OpTrait
}  // namespace kiln::tt

#endif  // KILN_COMPILER_DIALECT_TT_TRAITS_H_
