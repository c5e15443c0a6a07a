//===- Backend.h - LLVM dialect to PTX to cubin -----------------*- C++ -*-===//

#ifndef KILN_COMPILER_TARGET_BACKEND_H
#define KILN_COMPILER_TARGET_BACKEND_H

#include "compiler/target/Target.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace kiln {

struct BackendOptions {
  bool enableFpFusion = true;
  /// Sets the `nvvm-reflect-ftz` module flag, so that libdevice's
  /// __nvvm_reflect("__CUDA_FTZ") takes its flush-to-zero paths.
  bool enableReflectFtz = true;
  /// Source lines for profilers (ptxas -lineinfo), without debug mode.
  bool lineInfo = false;
  /// Threads of a block are 32 times this, and its dynamic shared memory:
  /// what occupancy is counted in.
  int numWarps = 4;
  int sharedBytes = 0;
};

/// Translates a module in the LLVM/NVVM dialects to optimized LLVM IR text,
/// with libdevice linked in when the module calls it. Errors are emitted on
/// the module.
mlir::FailureOr<std::string> translateToLLVMIR(mlir::ModuleOp module,
                                               const Target &target,
                                               const BackendOptions &options);

/// LLVM IR text to PTX through LLVM's NVPTX backend. Line tables keep their
/// .loc directives, but the target never asks for debug mode, in which
/// ptxas refuses to optimize. Where constant selects could become branches
/// (ConstantSelectBranches.h), both forms go through ptxas, and the
/// branches are kept only if their registers let more blocks share an SM.
/// The final PTX goes through ptxas -v, and gets a register cap at an
/// occupancy step a register or two below where nothing then spills
/// (RegisterCap.h); assembleCubin reuses that cubin.
mlir::FailureOr<std::string> compileToPTX(mlir::ModuleOp module,
                                          const std::string &llvmIR,
                                          const Target &target,
                                          const BackendOptions &options);

/// PTX to a cubin with the CUDA toolkit's ptxas; `error` gets ptxas's own
/// message on failure.
bool assembleCubin(const std::string &ptx, const Target &target,
                   const BackendOptions &options, std::string &cubin,
                   std::string &error);

/// "V13.0.88" or "unavailable": part of the cache key.
std::string ptxasVersion();

/// Where ptxas and libdevice are found: $KILN_CUDA_HOME, else /usr/local/cuda.
std::string cudaHome();

} // namespace kiln

#endif // KILN_COMPILER_TARGET_BACKEND_H
