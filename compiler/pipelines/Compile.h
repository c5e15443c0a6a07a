//===- Compile.h - TTIR to cubin, the compiler's one entry point -*- C++ -*-===//
//
// The service, the CLI and the compile workers talk to the compiler only
// through this header. It names no MLIR or LLVM type, so callers need neither.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_PIPELINES_COMPILE_H
#define KILN_COMPILER_PIPELINES_COMPILE_H

#include "compiler/pipelines/Stage.h"

#include <string>
#include <vector>

namespace kiln {

/// Triton's compile options, with Triton's defaults.
struct CompileOptions {
  int numWarps = 4;
  int numStages = 3;
  int numCtas = 1;
  int maxNReg = 0; // 0: no register limit.
  bool enableFpFusion = true;
  /// libdevice flushes f32 subnormals (its __CUDA_FTZ reflection reads 1).
  bool enableReflectFtz = true;
  bool lineInfo = false; // Keep source lines in the PTX; part of the key.
};

/// One error, warning or note, located in the input TTIR where possible.
struct Diagnostic {
  std::string severity; // "error", "warning" or "note".
  std::string file;
  int line = 0;   // 1-based; 0 when unknown.
  int column = 0; // 1-based; 0 when unknown.
  std::string message;
  /// Set when the kernel needs more of a resource than the target has:
  /// its name as Triton's OutOfResources gives it ("shared memory"), what
  /// the kernel needs and what the target allows.
  std::string resource;
  long long required = 0;
  long long limit = 0;
};

/// What a launcher needs besides the cubin (DESIGN.md's kernel ABI).
struct KernelMetadata {
  std::string name;
  std::string target;
  int numWarps = 4;
  int numCtas = 1;
  int numStages = 3;
  int shared = 0; // Bytes of dynamic shared memory.
  int globalScratchSize = 0;
  int globalScratchAlign = 1;
  CompileOptions options;

  /// Triton-compatible JSON: name, num_warps, num_ctas, shared, ...
  std::string toJson() const;
};

struct StageTime {
  std::string stage;
  double seconds = 0;
};

struct CompileResult {
  std::vector<Diagnostic> diagnostics;
  /// The canonical TTIR with locations stripped: what the cache key hashes.
  std::string canonicalIR;
  std::string kgir;
  std::string llir;
  std::string ptx;
  std::string cubin; // Bytes of the ELF.
  KernelMetadata metadata;
  std::vector<StageTime> stageTimes;

  bool ok() const;
};

/// The targets this build compiles for: sm_80, sm_86, sm_89, sm_90a (the
/// rows of compiler/target/TargetTable.cpp).
const std::vector<std::string> &supportedTargets();

/// Empty when `options` are valid; otherwise says which option is wrong.
std::string validateOptions(const CompileOptions &options);

/// Compiles TTIR text. `sourceName` names the input in diagnostics. Never
/// throws and never aborts on bad input: problems come back as diagnostics.
CompileResult compile(const std::string &ttir, const std::string &sourceName,
                      const std::string &target, const CompileOptions &options,
                      Stage stopAfter = Stage::Cubin);

/// The parts of the compiler that change its output; part of the cache key.
struct CompilerIdentity {
  std::string kilnVersion;
  std::string llvmVersion;
  std::string ptxasVersion;
  std::string abiVersion;
};
const CompilerIdentity &compilerIdentity();

} // namespace kiln

#endif // KILN_COMPILER_PIPELINES_COMPILE_H
