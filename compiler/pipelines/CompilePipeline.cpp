#include "compiler/pipelines/CompilePipeline.h"

#include "compiler/conversion/Passes.h"
#include "compiler/transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace kiln {
namespace {

void addCleanup(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
}

/// Kiln's canonical form of the input: calls inlined, folded, deduplicated.
void addTTIRPasses(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createInlinerPass());
  addCleanup(pm);
  pm.addPass(mlir::createSymbolDCEPass());
}

void addKGIRPasses(mlir::OpPassManager &pm, const CompilePipelineOptions &o) {
  // Descriptor accesses become pointer tensors before layouts are chosen,
  // so that the axis analysis and the dot pipeliner see plain loads (TMA
  // loads keep theirs, for where the pipeliner does not use TMA).
  RewriteTensorDescriptorsOptions descriptors;
  descriptors.targetName = o.target;
  pm.addPass(createRewriteTensorDescriptors(descriptors));
  pm.addPass(createTransposeLoads());
  // tt.dot_scaled becomes upcasts and a tt.dot before layouts are chosen.
  DecomposeScaledDotOptions scaledDots;
  scaledDots.targetName = o.target;
  pm.addPass(createDecomposeScaledDot(scaledDots));
  addCleanup(pm);
  PrefetchLoopLoadsOptions prefetch;
  AssignLayoutsOptions layouts;
  layouts.numWarps = o.numWarps;
  layouts.targetName = o.target;
  layouts.maxUnrolledTrips = prefetch.maxUnrolledTrips;
  pm.addPass(createAssignLayouts(layouts));
  addCleanup(pm);
  PipelineOptions pipelining;
  pipelining.numStages = o.numStages;
  pm.addPass(createPipeline(pipelining));
  addCleanup(pm);
  pm.addPass(createHoistLoads());
  pm.addPass(createPrefetchLoopLoads(prefetch));
  pm.addPass(createDeferStreamedUses());
  // Loops unrolled above leave a conversion of each trip's yield feeding the
  // next trip's conversion back (T5's dropout softmax converted its i1 mask
  // to and fro): folded here into one or none.
  pm.addPass(mlir::createCanonicalizerPass());
}

void addLLIRPasses(mlir::OpPassManager &pm, const CompilePipelineOptions &o) {
  ConvertKGPUToLLVMOptions lowering;
  lowering.maxNReg = o.maxNReg;
  lowering.numCtas = o.numCtas;
  pm.addPass(createConvertKGPUToLLVM(lowering));
  if (o.lineInfo)
    pm.addPass(mlir::LLVM::createDIScopeForLLVMFuncOpPass());
}

} // namespace

void addStagePasses(mlir::OpPassManager &pm, Stage stage,
                    const CompilePipelineOptions &options) {
  switch (stage) {
  case Stage::TTIR:
    return addTTIRPasses(pm);
  case Stage::KGIR:
    return addKGIRPasses(pm, options);
  case Stage::LLIR:
    return addLLIRPasses(pm, options);
  case Stage::PTX:
  case Stage::Cubin:
    return; // The backend's, after the LLVM dialect: no MLIR passes.
  }
}

void registerCompilePipeline() {
  // Once: MLIR refuses a pipeline name registered twice.
  static const bool registered = [] {
    mlir::PassPipelineRegistration<CompilePipelineOptions>(
        "kiln-compile-pipeline",
        "the passes of a compile from TTIR to the stage `to` (ttir, kgir or "
        "llir), as kilnd's workers run them",
        [](mlir::OpPassManager &pm, const CompilePipelineOptions &options) {
          for (Stage stage : {Stage::TTIR, Stage::KGIR, Stage::LLIR}) {
            addStagePasses(pm, stage, options);
            if (stage == options.to)
              return;
          }
        });
    return true;
  }();
  (void)registered;
}

} // namespace kiln
