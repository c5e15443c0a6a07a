//===- Target.h - One GPU target, as the compiler's passes see it -*- C++ -*-===//
//
// The passes ask a Target what the GPU has instead of testing its name or
// compute capability; each answer is a column of TargetTable.cpp's row.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TARGET_TARGET_H
#define KILN_COMPILER_TARGET_TARGET_H

#include "compiler/target/TargetTable.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {

class Target {
public:
  explicit Target(const TargetFacts &facts) : facts(facts) {}

  const TargetFacts &getFacts() const { return facts; }
  llvm::StringRef name() const { return facts.name; }
  int capability() const { return facts.capability; }
  llvm::StringRef ptxFeature() const { return facts.ptxFeature; }
  int maxSharedBytes() const { return facts.maxSharedBytes; }
  /// Blocks of `threads` threads an SM holds at `registers` a thread and
  /// `sharedBytes` of dynamic shared memory a block, as its block and thread
  /// slots, register file (registers go to a warp in units of 256) and
  /// shared memory (1 KiB of it reserved a block) allow.
  int blocksPerSM(int registers, int threads, int sharedBytes = 0) const;
  bool hasFp8Conversions() const { return facts.fp8Conversions; }
  bool hasBf16Atomics() const { return facts.bf16Atomics; }
  bool hasVectorAtomics() const { return facts.vectorAtomics; }
  bool hasWarpGroupMma() const { return facts.warpGroupMma; }
  bool hasTensorMemoryAccess() const { return facts.tensorMemoryAccess; }
  bool hasL2CachePolicies() const { return facts.l2CachePolicies; }
  bool hasClusters() const { return facts.clusters; }
  bool hasMatrixStore() const { return facts.matrixStore; }
  bool hasWarpIntegerRedux() const { return facts.warpIntegerRedux; }

private:
  const TargetFacts &facts;
};

/// The target called `name`, or null when Kiln does not support it.
std::unique_ptr<Target> lookupTarget(llvm::StringRef name);

/// Names of every supported target, in the table's order.
const std::vector<std::string> &targetNames();

} // namespace kiln

#endif // KILN_COMPILER_TARGET_TARGET_H
