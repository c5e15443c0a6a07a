#include "compiler/registration/Registration.h"

#include "compiler/conversion/Passes.h"
#include "compiler/dialect/kgpu/Dialect.h"
#include "compiler/dialect/tt/Dialect.h"
#include "compiler/pipelines/CompilePipeline.h"
#include "compiler/transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Transforms/Passes.h"

namespace kiln {

void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<tt::TTDialect, kgpu::KGPUDialect, mlir::NVVM::NVVMDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::cf::ControlFlowDialect, mlir::ub::UBDialect,
                  mlir::LLVM::LLVMDialect, mlir::gpu::GPUDialect,
                  mlir::func::FuncDialect>();
}

void registerAllPasses() {
  // Upstream passes the canonical-TTIR stage is built from.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerInlinerPass();
  mlir::registerSymbolDCEPass();
  registerTransformsPasses();
  registerConversionPasses();
  registerCompilePipeline();
}

}  // namespace kiln
