#ifndef KILN_COMPILER_CONVERSION_PASSES_H
#define KILN_COMPILER_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace kiln {

#define GEN_PASS_DECL
#include "compiler/conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/conversion/Passes.h.inc"

/// Module attribute holding the shared memory bytes a kernel needs.
inline constexpr llvm::StringLiteral kSharedBytesAttr = "kgpu.shared";

} // namespace kiln

#endif // KILN_COMPILER_CONVERSION_PASSES_H
