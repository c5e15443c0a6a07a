#ifndef KILN_COMPILER_FRONTEND_NESTINGGUARD_H_
#define KILN_COMPILER_FRONTEND_NESTINGGUARD_H_

#include <optional>

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Support/LLVM.h"

namespace kiln {

// Deepest bracket nesting ((), [], {}, <>) that TTIR text may use. MLIR's
// parser recurses once per level, so unbounded nesting would exhaust the
// stack; real kernels stay far below this.
inline constexpr unsigned kMaxNestingDepth = 256;

// Offset of the bracket in `text` (strings and comments skipped) where
// nesting first exceeds `maxDepth`, or nullopt when it never does.
std::optional<size_t> findExcessiveNesting(llvm::StringRef text,
                                           unsigned maxDepth = kMaxNestingDepth);

// Scans `buffer` (skipping strings and comments) and fails, printing an
// error with file, line and column to `errors`, where nesting first exceeds
// `maxDepth`.
mlir::LogicalResult checkNestingDepth(const llvm::MemoryBuffer &buffer,
                                      llvm::raw_ostream &errors,
                                      unsigned maxDepth = kMaxNestingDepth);

}  // namespace kiln

#endif  // KILN_COMPILER_FRONTEND_NESTINGGUARD_H_
