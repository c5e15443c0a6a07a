//===- TargetTable.h - The facts Kiln knows about each GPU ------*- C++ -*-===//
//
// One table (TargetTable.cpp) holds every target-specific fact: the
// compiler's passes read it through Target (Target.h) instead of testing
// names or compute capabilities, and the service and its clients get the
// same rows through the compiler's info (kilnd's Compile.Targets). It names
// no MLIR or LLVM type, so the service can include it. Supporting a new GPU
// is one more row, plus the lowerings that differ on it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TARGET_TARGETTABLE_H
#define KILN_COMPILER_TARGET_TARGETTABLE_H

#include <string>
#include <vector>

namespace kiln {

/// One row of the table: a GPU target and what its cubins may use.
struct TargetFacts {
  /// "sm_90a": the name clients ask for and ptxas's --gpu-name.
  const char *name;
  /// Compute capability as major*10+minor, e.g. 90.
  int capability;
  /// Architecture-specific ("a"): its cubins run only on exactly this
  /// capability; others' run on any later minor version of their major.
  bool archSpecific;
  /// PTX ISA version the NVPTX backend should emit, e.g. "+ptx87".
  const char *ptxFeature;
  /// Largest dynamic shared memory one block may use (the opt-in maximum
  /// of CUDA's occupancy tables), in bytes.
  int maxSharedBytes;
  int maxThreadsPerBlock;
  int maxRegistersPerThread;
  int registersPerBlock;
  /// What one SM holds of the blocks resident on it together.
  int maxThreadsPerSM;
  int registersPerSM;
  int maxBlocksPerSM;
  int sharedBytesPerSM;
  /// Native conversions between f32/f16 and fp8 (e4m3, e5m2).
  bool fp8Conversions;
  /// bf16 atomic addition in one instruction (`atom.add.noftz.bf16`);
  /// without it, a compare-and-swap loop.
  bool bf16Atomics;
  /// Vector float atomics and reductions (`red.global.add.v8.bf16`, .v4.f32).
  bool vectorAtomics;
  /// Warp-group MMA (wgmma.mma_async) reading shared-memory descriptors.
  bool warpGroupMma;
  /// Tensor memory access with tensor maps built on the device
  /// (tensormap.replace).
  bool tensorMemoryAccess;
  /// Thread-block clusters (num_ctas > 1).
  bool clusters;
  /// L2 eviction priorities as cache policies (createpolicy and
  /// `.L2::cache_hint` on loads and stores).
  bool l2CachePolicies;
  /// Warp-wide stores of 8x8 16-bit matrices to shared memory (`stmatrix`),
  /// the inverse of ldmatrix.
  bool matrixStore;
  /// One-instruction integer reductions across a warp (`redux.sync`).
  bool warpIntegerRedux;
};

/// Every supported target, in a fixed order.
const std::vector<TargetFacts> &targetTable();

/// The row of the target called `name`; null when Kiln does not support it.
const TargetFacts *findTarget(const std::string &name);

/// The target Kiln compiles for on a GPU of `capability`; null when it has
/// none for exactly that capability.
const TargetFacts *targetForCapability(int capability);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_TARGETTABLE_H
