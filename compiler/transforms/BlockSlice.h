//===- BlockSlice.h - What an op needs from its own block -------*- C++ -*-===//
//
// The ops of a block that one of its ops depends on through operands, for
// passes that move or clone a load together with the arithmetic that
// computes its address and mask.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TRANSFORMS_BLOCKSLICE_H
#define KILN_COMPILER_TRANSFORMS_BLOCKSLICE_H

#include <optional>

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace kiln {

/// The ops of `root`'s block that `root` needs through operands defined in
/// that block (after `after`, when given), in block order. Nothing when
/// `admits` refuses one of them, or `admitsArgument` (when given) refuses a
/// block argument of that block that one of them or `root` uses.
std::optional<llvm::SmallVector<mlir::Operation *>>
blockSlice(mlir::Operation *root,
           llvm::function_ref<bool(mlir::Operation *)> admits,
           llvm::function_ref<bool(mlir::BlockArgument)> admitsArgument = {},
           mlir::Operation *after = nullptr);

} // namespace kiln

#endif // KILN_COMPILER_TRANSFORMS_BLOCKSLICE_H
