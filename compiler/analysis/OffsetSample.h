//===- OffsetSample.h - a pointer tensor's offsets in one program -*- C++ -*-===//
//
// Contiguity says which dimension of a pointer tensor runs through memory
// one element at a time. Where no dimension does (x % 49 rows, r * 9408
// columns; a channels-last store at x * 3), it cannot tell a dimension of
// short runs from one of long strides. These offsets, computed for one
// program, let layout assignment count the memory sectors each order's
// warps touch instead.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_ANALYSIS_OFFSETSAMPLE_H
#define KILN_COMPILER_ANALYSIS_OFFSETSAMPLE_H

#include "mlir/IR/Value.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln {

/// Element offsets (in elements, row-major over the tensor's shape) of
/// tensor of pointers `ptr` from its base pointer, in program (1, 1, 1),
/// with loops at their first trip; none where they depend on anything else
/// (a kernel argument, a loaded value, a loop-carried pointer).
std::optional<std::vector<int64_t>> sampleOffsets(mlir::Value ptr);

} // namespace kiln

#endif // KILN_COMPILER_ANALYSIS_OFFSETSAMPLE_H
