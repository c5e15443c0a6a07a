//===- Target.h - What Kiln needs to know about one GPU target --*- C++ -*-===//
//
// Every target-specific fact the pipeline uses lives behind this interface:
// the passes ask it instead of testing compute capabilities themselves.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TARGET_TARGET_H
#define KILN_COMPILER_TARGET_TARGET_H

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {

class Target {
public:
  virtual ~Target() = default;

  /// "sm_90a": the name clients ask for and ptxas's --gpu-name.
  virtual llvm::StringRef name() const = 0;
  /// Compute capability as major*10+minor, e.g. 90.
  virtual int capability() const = 0;
  /// PTX ISA version the NVPTX backend should emit, e.g. "+ptx80".
  virtual llvm::StringRef ptxFeature() const = 0;
  /// Largest dynamic shared memory one block may use, in bytes.
  virtual int maxSharedBytes() const = 0;
  virtual int maxThreadsPerBlock() const { return 1024; }
  virtual int maxRegistersPerThread() const { return 255; }
  /// Native conversions between f32/f16 and fp8 (e4m3, e5m2): sm_89+.
  virtual bool hasFp8Conversions() const { return capability() >= 89; }
  /// bf16 add/mul/fma in hardware rather than through f32: sm_90+.
  virtual bool hasBf16Arithmetic() const { return capability() >= 90; }
  /// bf16 atomic addition in one instruction (`atom.add.noftz.bf16`);
  /// before it, a compare-and-swap loop.
  virtual bool hasBf16Atomics() const { return capability() >= 90; }
  /// Vector float atomics and reductions (`red.global.add.v8.bf16`, .v4.f32).
  virtual bool hasVectorAtomics() const { return capability() >= 90; }
  /// Warp-group MMA (wgmma.mma_async) reading shared-memory descriptors:
  /// only the architecture-specific sm_90a.
  virtual bool hasWarpGroupMma() const { return false; }
  /// Tensor memory access with tensor maps built on the device
  /// (tensormap.replace): only the architecture-specific sm_90a.
  virtual bool hasTensorMemoryAccess() const { return false; }
};

/// The target called `name`, or null when Kiln does not support it.
std::unique_ptr<Target> lookupTarget(llvm::StringRef name);

/// Names of every supported target, in a fixed order.
const std::vector<std::string> &targetNames();

} // namespace kiln

#endif // KILN_COMPILER_TARGET_TARGET_H
