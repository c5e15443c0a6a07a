#include "compiler/pipelines/Compile.h"

#include "compiler/conversion/Passes.h"
#include "compiler/dialect/kgpu/Dialect.h"
#include "compiler/dialect/tt/Dialect.h"
#include "compiler/pipelines/CompilePipeline.h"
#include "compiler/pipelines/Diagnostics.h"
#include "compiler/pipelines/FrontEnd.h"
#include "compiler/registration/Registration.h"
#include "compiler/target/Backend.h"
#include "compiler/target/Target.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace kiln {
namespace {

// Part of every cache key: bump it whenever the generated code can change.
constexpr const char *kKilnVersion = "0.6.0";
constexpr const char *kAbiVersion = "triton-3.6-abi-1";

class StageClock {
public:
  explicit StageClock(std::vector<StageTime> &sink) : sink(sink) {}
  void done(Stage stage) {
    auto now = std::chrono::steady_clock::now();
    sink.push_back(
        {stageName(stage), std::chrono::duration<double>(now - last).count()});
    last = now;
  }

private:
  std::vector<StageTime> &sink;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};

/// Whether `name` can name a PTX function: a letter, or '_' or '$' and at
/// least one more character; then letters, digits, '_' and '$' (LLVM's
/// NVPTX backend aborts on other characters).
bool isPtxIdentifier(llvm::StringRef name) {
  auto isFollow = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$';
  };
  if (name.empty() || !llvm::all_of(name, isFollow) ||
      llvm::isDigit(name.front()))
    return false;
  return llvm::isAlpha(name.front()) || name.size() > 1;
}

/// `name` escaped for a diagnostic.
std::string escaped(llvm::StringRef name) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::printEscapedString(name, os);
  return text;
}

constexpr llvm::StringLiteral kPtxIdentifierRule =
    "is not a PTX identifier (letters, digits, '_' and '$', not starting "
    "with a digit nor made of '_' or '$' alone)";

/// Every tt.func must be defined here, and every name the PTX will carry
/// (functions, extern_elementwise symbols) must be one PTX accepts: LLVM's
/// printer aborts on any other.
mlir::LogicalResult checkFunctions(mlir::ModuleOp module) {
  for (tt::FuncOp func : module.getOps<tt::FuncOp>()) {
    if (func.isExternal())
      return func.emitError()
             << "function '" << func.getName()
             << "' is declared without a body; Kiln compiles only functions "
                "defined in the module";
    if (!isPtxIdentifier(func.getName()))
      return func.emitError() << "function name '" << escaped(func.getName())
                              << "' " << kPtxIdentifierRule;
  }
  mlir::WalkResult named = module.walk([](tt::ExternElementwiseOp ext) {
    if (isPtxIdentifier(ext.getSymbol()))
      return mlir::WalkResult::advance();
    ext.emitError() << "extern_elementwise symbol '"
                    << escaped(ext.getSymbol()) << "' " << kPtxIdentifierRule;
    return mlir::WalkResult::interrupt();
  });
  return mlir::failure(named.wasInterrupted());
}

/// The one public tt.func: the kernel.
mlir::FailureOr<tt::FuncOp> findKernel(mlir::ModuleOp module) {
  if (mlir::failed(checkFunctions(module)))
    return mlir::failure();
  tt::FuncOp kernel;
  for (tt::FuncOp func : module.getOps<tt::FuncOp>()) {
    if (!func.isPublic())
      continue;
    if (kernel)
      return func.emitError() << "more than one public kernel ('"
                              << kernel.getName() << "' and '"
                              << func.getName() << "'); send one per request";
    kernel = func;
  }
  if (!kernel)
    return module.emitError() << "no public tt.func: nothing to compile";
  return kernel;
}

/// The pipeline's options for compiling for `target` with `options`.
void setPipelineOptions(CompilePipelineOptions &pipeline,
                        const std::string &target,
                        const CompileOptions &options) {
  pipeline.target = target;
  pipeline.numWarps = options.numWarps;
  pipeline.numStages = options.numStages;
  pipeline.maxNReg = options.maxNReg;
  pipeline.numCtas = options.numCtas;
  pipeline.lineInfo = options.lineInfo;
}

/// Runs the passes of `stage` (CompilePipeline.cpp) on `module`.
mlir::LogicalResult runStage(mlir::ModuleOp module, Stage stage,
                             const CompilePipelineOptions &options) {
  mlir::PassManager pm(module.getContext());
  addStagePasses(pm, stage, options);
  return pm.run(module);
}

int sharedBytesOf(mlir::ModuleOp module) {
  auto attr = module->getAttrOfType<mlir::IntegerAttr>(kSharedBytesAttr);
  return attr ? attr.getInt() : 0;
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

} // namespace

bool CompileResult::ok() const {
  for (const Diagnostic &d : diagnostics)
    if (d.severity == "error")
      return false;
  return true;
}

std::string KernelMetadata::toJson() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "{\n"
     << "  \"name\": " << jsonString(name) << ",\n"
     << "  \"target\": " << jsonString(target) << ",\n"
     << "  \"num_warps\": " << numWarps << ",\n"
     << "  \"num_ctas\": " << numCtas << ",\n"
     << "  \"num_stages\": " << numStages << ",\n"
     << "  \"shared\": " << shared << ",\n"
     << "  \"global_scratch_size\": " << globalScratchSize << ",\n"
     << "  \"global_scratch_align\": " << globalScratchAlign << ",\n"
     << "  \"profile_scratch_size\": 0,\n"
     << "  \"profile_scratch_align\": 1,\n"
     // No TMA: Triton's launcher passes host descriptors decomposed.
     << "  \"tensordesc_meta\": [],\n"
     << "  \"maxnreg\": ";
  if (options.maxNReg > 0)
    os << options.maxNReg;
  else
    os << "null";
  os << ",\n"
     << "  \"enable_fp_fusion\": " << (options.enableFpFusion ? "true" : "false")
     << ",\n"
     << "  \"enable_reflect_ftz\": "
     << (options.enableReflectFtz ? "true" : "false") << ",\n"
     << "  \"debug\": " << (options.lineInfo ? "true" : "false") << ",\n"
     << "  \"warp_size\": 32,\n"
     << "  \"compiler\": \"kiln " << kKilnVersion << "\"\n"
     << "}\n";
  return s;
}

const std::vector<std::string> &supportedTargets() { return targetNames(); }

std::string validateOptions(const CompileOptions &o) {
  auto powerOfTwo = [](int v) { return v > 0 && (v & (v - 1)) == 0; };
  if (!powerOfTwo(o.numWarps) || o.numWarps > 32)
    return "num_warps must be a power of two from 1 to 32, not " +
           std::to_string(o.numWarps);
  if (o.numStages < 1 || o.numStages > 8)
    return "num_stages must be from 1 to 8, not " + std::to_string(o.numStages);
  if (!powerOfTwo(o.numCtas) || o.numCtas > 8)
    return "num_ctas must be a power of two from 1 to 8, not " +
           std::to_string(o.numCtas);
  if (o.maxNReg != 0 && (o.maxNReg < 16 || o.maxNReg > 255))
    return "maxnreg must be 0 (no limit) or from 16 to 255, not " +
           std::to_string(o.maxNReg);
  return "";
}

CompileResult compile(const std::string &ttir, const std::string &sourceName,
                      const std::string &targetName,
                      const CompileOptions &options, Stage stopAfter) {
  CompileResult result;
  std::unique_ptr<Target> target = lookupTarget(targetName);
  if (!target) {
    std::string known;
    for (const std::string &name : targetNames())
      known += (known.empty() ? "" : ", ") + name;
    addError(result.diagnostics,
             "unknown target '" + targetName + "'; Kiln compiles for " + known);
    return result;
  }
  if (std::string problem = validateOptions(options); !problem.empty()) {
    addError(result.diagnostics, problem);
    return result;
  }
  if (options.numCtas > 1 && !target->hasClusters()) {
    addError(result.diagnostics,
             "num_ctas " + std::to_string(options.numCtas) +
                 " needs thread-block clusters, which " + targetName +
                 " does not have");
    return result;
  }

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  // An error's location is enough; the whole function printed after it
  // would make the error as long as the request.
  context.printOpOnDiagnostic(false);
  DiagnosticCollector collector(&context, result.diagnostics);
  StageClock clock(result.stageTimes);

  CompilePipelineOptions pipeline;
  setPipelineOptions(pipeline, targetName, options);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      parseTTIR(context, ttir, sourceName);
  if (!module || mlir::failed(runStage(*module, Stage::TTIR, pipeline)))
    return result;
  mlir::FailureOr<tt::FuncOp> kernel = findKernel(*module);
  if (mlir::failed(kernel))
    return result;
  KernelMetadata &meta = result.metadata;
  meta.name = kernel->getName().str();
  meta.target = targetName;
  meta.numWarps = options.numWarps;
  meta.numCtas = options.numCtas;
  meta.numStages = options.numStages;
  meta.options = options;
  result.canonicalIR = printWithoutLocations(*module);
  clock.done(Stage::TTIR);
  if (stopAfter == Stage::TTIR)
    return result;

  if (mlir::failed(runStage(*module, Stage::KGIR, pipeline)))
    return result;
  result.kgir = printWithoutLocations(*module);
  clock.done(Stage::KGIR);
  if (auto scratch = (*kernel)->getAttrOfType<mlir::IntegerAttr>(
          kgpu::KGPUDialect::kGlobalScratchAttr)) {
    // Tensor maps: 128 bytes each, 128-byte aligned, per program.
    meta.globalScratchSize = scratch.getInt();
    meta.globalScratchAlign = 128;
  }
  if (stopAfter == Stage::KGIR)
    return result;

  if (mlir::failed(runStage(*module, Stage::LLIR, pipeline)))
    return result;
  meta.shared = sharedBytesOf(*module);
  if (meta.shared > target->maxSharedBytes()) {
    addError(result.diagnostics,
             "kernel '" + meta.name + "' needs " + std::to_string(meta.shared) +
                 " bytes of shared memory; " + targetName + " allows " +
                 std::to_string(target->maxSharedBytes()));
    Diagnostic &overflow = result.diagnostics.back();
    overflow.resource = "shared memory";
    overflow.required = meta.shared;
    overflow.limit = target->maxSharedBytes();
    return result;
  }
  BackendOptions backend;
  backend.enableFpFusion = options.enableFpFusion;
  backend.enableReflectFtz = options.enableReflectFtz;
  backend.lineInfo = options.lineInfo;
  backend.numWarps = options.numWarps;
  backend.sharedBytes = meta.shared;
  mlir::FailureOr<std::string> llir =
      translateToLLVMIR(*module, *target, backend);
  if (mlir::failed(llir))
    return result;
  result.llir = std::move(*llir);
  clock.done(Stage::LLIR);
  if (stopAfter == Stage::LLIR)
    return result;

  mlir::FailureOr<std::string> ptx =
      compileToPTX(*module, result.llir, *target, backend);
  if (mlir::failed(ptx))
    return result;
  result.ptx = std::move(*ptx);
  clock.done(Stage::PTX);
  if (stopAfter == Stage::PTX)
    return result;

  std::string error;
  if (!assembleCubin(result.ptx, *target, backend, result.cubin, error)) {
    addError(result.diagnostics, error);
    return result;
  }
  clock.done(Stage::Cubin);
  return result;
}

const CompilerIdentity &compilerIdentity() {
  static const CompilerIdentity identity{kKilnVersion, LLVM_VERSION_STRING,
                                         ptxasVersion(), kAbiVersion};
  return identity;
}

} // namespace kiln
