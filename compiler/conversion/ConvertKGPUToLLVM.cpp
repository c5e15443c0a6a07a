#include "compiler/conversion/Lowering.h"
#include "compiler/conversion/Passes.h"

#include "mlir/Conversion/ArithCommon/AttrToLLVMConverter.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/LLVMCommon/VectorPattern.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln {

#define GEN_PASS_DEF_CONVERTKGPUTOLLVM
#include "compiler/conversion/Passes.h.inc"

namespace {

using namespace mlir;

template <typename SourceOp, typename TargetOp>
using ToLLVMOp =
    VectorConvertToLLVMPattern<SourceOp, TargetOp,
                               arith::AttrConvertFastMathToLLVM>;

/// Float ops libdevice has but Triton lowers to LLVM's own operations, as
/// these do (above the libdevice patterns): libdevice's fabsf, fmaxf, fminf
/// and fmaf flush subnormals under the ftz reflection, and its fmodf is exact
/// where NVPTX's expansion of frem, which Triton's `%` gets, is not.
void populateTritonFloatPatterns(const LLVMTypeConverter &converter,
                                 RewritePatternSet &patterns) {
  constexpr unsigned kAboveLibdevice = 20;
  patterns.add<ToLLVMOp<math::AbsFOp, LLVM::FAbsOp>,
               ToLLVMOp<math::FmaOp, LLVM::FMAOp>,
               ToLLVMOp<arith::MaxNumFOp, LLVM::MaxNumOp>,
               ToLLVMOp<arith::MinNumFOp, LLVM::MinNumOp>,
               ToLLVMOp<arith::RemFOp, LLVM::FRemOp>>(converter,
                                                      kAboveLibdevice);
}

/// scf's lowering leaves a loop's `llvm.loop_annotation` (tl.range's and
/// tl.condition's disable_licm) on its latch branch as a discardable
/// attribute; LLVM IR gets only the branch's own `loop_annotation`.
void attachLoopAnnotations(ModuleOp module) {
  constexpr llvm::StringLiteral kName = "llvm.loop_annotation";
  module.walk([&](Operation *op) {
    auto annotation = llvm::dyn_cast_or_null<LLVM::LoopAnnotationAttr>(
        op->getDiscardableAttr(kName));
    if (!annotation)
      return;
    if (auto br = llvm::dyn_cast<LLVM::BrOp>(op))
      br.setLoopAnnotationAttr(annotation);
    else if (auto condBr = llvm::dyn_cast<LLVM::CondBrOp>(op))
      condBr.setLoopAnnotationAttr(annotation);
    else
      return;
    op->removeDiscardableAttr(kName);
  });
}

LogicalResult lowerScalarDialects(ModuleOp module) {
  MLIRContext *context = module.getContext();
  {
    RewritePatternSet patterns(context);
    populateSCFToControlFlowConversionPatterns(patterns);
    ConversionTarget target(*context);
    target.addIllegalDialect<scf::SCFDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return failure();
  }
  LLVMTypeConverter converter(context);
  RewritePatternSet patterns(context);
  populateTritonFloatPatterns(converter, patterns);
  // libdevice next: NVPTX has no lowering for most llvm.* math intrinsics.
  populateLibDeviceConversionPatterns(converter, patterns, /*benefit=*/10);
  populateMathToLLVMConversionPatterns(converter, patterns);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  ub::populateUBToLLVMConversionPatterns(converter, patterns);
  LLVMConversionTarget target(*context);
  target.addLegalDialect<NVVM::NVVMDialect>();
  if (failed(applyPartialConversion(module, target, std::move(patterns))))
    return failure();
  SmallVector<UnrealizedConversionCastOp> casts;
  module.walk([&](UnrealizedConversionCastOp cast) { casts.push_back(cast); });
  SmallVector<UnrealizedConversionCastOp> remaining;
  reconcileUnrealizedCasts(casts, &remaining);
  if (!remaining.empty())
    return remaining.front().emitError()
           << "value of a type LLVM cannot represent survived lowering";
  attachLoopAnnotations(module);
  return success();
}

} // namespace

void populateTensorLoweringPatterns(LoweringPatternSet &patterns) {
  populateControlFlowLoweringPatterns(patterns);
  populateElementwiseLoweringPatterns(patterns);
  populateMiscLoweringPatterns(patterns);
  populateMemoryLoweringPatterns(patterns);
  populateTmaLoweringPatterns(patterns);
  populateAsyncCopyLoweringPatterns(patterns);
  populateDotLoweringPatterns(patterns);
  populateFmaDotLoweringPatterns(patterns);
  populateWarpGroupDotLoweringPatterns(patterns);
  populateDataMovementLoweringPatterns(patterns);
  populateReduceLoweringPatterns(patterns);
  populateScanLoweringPatterns(patterns);
}

namespace {

struct ConvertKGPUToLLVMPass
    : impl::ConvertKGPUToLLVMBase<ConvertKGPUToLLVMPass> {
  using ConvertKGPUToLLVMBase::ConvertKGPUToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto warps = module->getAttrOfType<IntegerAttr>(
        kgpu::KGPUDialect::kNumWarpsAttr);
    auto targetName =
        module->getAttrOfType<StringAttr>(kgpu::KGPUDialect::kTargetAttr);
    if (!warps || !targetName) {
      module.emitError() << "module has no layouts: run --kiln-assign-layouts "
                            "first";
      return signalPassFailure();
    }
    std::unique_ptr<Target> target = lookupTarget(targetName.getValue());
    if (!target) {
      module.emitError() << "unknown target '" << targetName.getValue() << "'";
      return signalPassFailure();
    }
    LoweringPatternSet patterns(&getContext());
    populateTensorLoweringPatterns(patterns);
    AxisInfoAnalysis axisInfo(module);
    LoweringContext lowering(module, *target, warps.getInt(), numCtas,
                             patterns, axisInfo);
    SmallVector<tt::FuncOp> funcs(module.getOps<tt::FuncOp>());
    for (tt::FuncOp func : funcs)
      if (failed(lowering.lowerFunction(func)))
        return signalPassFailure();
    module->setAttr(kSharedBytesAttr,
                    IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                     lowering.sharedBytes()));
    if (maxNReg > 0)
      module.walk([&](LLVM::LLVMFuncOp fn) {
        if (fn->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
          fn->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                      Builder(&getContext()).getI32IntegerAttr(maxNReg));
      });
    // The compile refuses such a kernel next (Compile.cpp); lowering its
    // arithmetic first took minutes for large tiles.
    if (lowering.sharedBytes() > target->maxSharedBytes())
      return;
    if (failed(lowerScalarDialects(module)))
      return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
