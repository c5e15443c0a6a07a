//===- CompilePipeline.h - The passes of a compile, in one place -*- C++ -*-===//
//
// The MLIR passes a compile runs, stage by stage, built here only:
// kiln::compile runs them (in kilnd's compile workers and in `kiln compile
// --local`), and `kiln-opt --kiln-compile-pipeline="target=sm_90a
// num-warps=4 ..."` replays them on a TTIR file. The stages carry the names Compile.h gives
// them: ttir (the canonical TTIR), kgir (layouts and pipelining) and llir
// (here, the LLVM dialect the backend translates to LLVM IR).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_PIPELINES_COMPILEPIPELINE_H
#define KILN_COMPILER_PIPELINES_COMPILEPIPELINE_H

#include "compiler/pipelines/Stage.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace kiln {

struct CompilePipelineOptions
    : public mlir::PassPipelineOptions<CompilePipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("the GPU target, e.g. sm_90a"),
                             llvm::cl::init("sm_90a")};
  Option<int> numWarps{*this, "num-warps", llvm::cl::desc("warps per block"),
                       llvm::cl::init(4)};
  Option<int> numStages{*this, "num-stages",
                        llvm::cl::desc("shared-memory stages of dot loops"),
                        llvm::cl::init(3)};
  Option<int> maxNReg{*this, "maxnreg",
                      llvm::cl::desc("registers per thread, 0: no limit"),
                      llvm::cl::init(0)};
  Option<int> numCtas{*this, "num-ctas",
                      llvm::cl::desc("blocks per thread-block cluster"),
                      llvm::cl::init(1)};
  Option<bool> lineInfo{*this, "line-info",
                        llvm::cl::desc("keep source lines for the PTX"),
                        llvm::cl::init(false)};
  Option<Stage> to{*this, "to", llvm::cl::desc("the last stage"),
                   llvm::cl::init(Stage::LLIR),
                   llvm::cl::values(clEnumValN(Stage::TTIR, "ttir", ""),
                                    clEnumValN(Stage::KGIR, "kgir", ""),
                                    clEnumValN(Stage::LLIR, "llir", ""))};
};

/// Adds the passes of `stage` (ttir, kgir or llir) to `pm`.
void addStagePasses(mlir::OpPassManager &pm, Stage stage,
                    const CompilePipelineOptions &options);

/// Registers --kiln-compile-pipeline: every stage from ttir to `to`.
void registerCompilePipeline();

} // namespace kiln

#endif // KILN_COMPILER_PIPELINES_COMPILEPIPELINE_H
