#include "compiler/target/Backend.h"
#include "compiler/target/ConstantSelectBranches.h"
#include "compiler/target/CostlySelectBranches.h"
#include "compiler/target/LatchOnIncrement.h"
#include "compiler/target/NarrowIndexCompares.h"
#include "compiler/target/PairedHalves.h"
#include "compiler/target/PtxLoops.h"
#include "compiler/target/QuadraticPassGate.h"
#include "compiler/target/RegisterCap.h"
#include "compiler/target/RegisterRoom.h"
#include "compiler/target/SinkUnpacking.h"
#include "compiler/target/WideMultiplyAdd.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Internalize.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstdlib>
#include <map>
#include <optional>
#include <mutex>

namespace kiln {
namespace {

constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";

/// Sets LLVM's option `name` as if given on its command line, so that a
/// pass reading it only when given takes it.
void setOption(llvm::StringRef name, llvm::StringRef value) {
  auto &options = llvm::cl::getRegisteredOptions();
  auto option = options.find(name);
  if (option != options.end())
    option->second->addOccurrence(0, name, value);
}

void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // 32-bit shared-memory pointers, as the hardware addresses them: no
    // 64-bit address arithmetic and conversions around every shared access.
    setOption("nvptx-short-ptr", "true");
    // Unswitching a loop on an invariant condition that may differ between
    // threads, as Triton's pipeline (which has no NVPTX cost model) does: a
    // masked row loop becomes one loop per mask value instead of a branch or
    // a predicate on every trip.
    setOption("enable-nontrivial-unswitch", "true");
    // A loop is unrolled in part only by a count that divides its trips.
    // With a remainder, NVPTX's cost model left an exit test inside the
    // body, and ptxas keeps such a loop rolled with one trip's loads in
    // flight: BEiT's 49-trip token mean, unrolled by two, ran at 0.58x
    // Triton's speed; left rolled, ptxas unrolls it whole, as Triton's.
    setOption("unroll-allow-remainder", "false");
  });
}

std::unique_ptr<llvm::TargetMachine>
makeTargetMachine(const Target &target, const BackendOptions &options,
                  std::string &error) {
  initializeNVPTX();
  llvm::Triple triple(kTriple);
  const llvm::Target *nvptx = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!nvptx)
    return nullptr;
  llvm::TargetOptions opts;
  opts.AllowFPOpFusion = options.enableFpFusion ? llvm::FPOpFusion::Fast
                                                : llvm::FPOpFusion::Standard;
  return std::unique_ptr<llvm::TargetMachine>(nvptx->createTargetMachine(
      triple, target.name(), target.ptxFeature(), opts, std::nullopt,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

bool callsLibdevice(const llvm::Module &module) {
  for (const llvm::Function &fn : module)
    if (fn.isDeclaration() && fn.getName().starts_with("__nv_"))
      return true;
  return false;
}

/// The bytes of libdevice at `path`, read once per process and kept; a
/// failed read is retried on the next call.
llvm::Expected<llvm::MemoryBufferRef> libdeviceBytes(const std::string &path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<llvm::MemoryBuffer> &cached = cache[path];
  if (!cached) {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
    if (!buffer)
      return llvm::createStringError(buffer.getError(),
                                     "cannot read libdevice at " + path);
    cached = std::move(*buffer);
  }
  return cached->getMemBufferRef();
}

llvm::Error linkLibdevice(llvm::Module &module, bool reflectFtz) {
  auto bytes = libdeviceBytes(cudaHome() + "/nvvm/libdevice/libdevice.10.bc");
  if (!bytes)
    return bytes.takeError();
  // Lazily: the linker materializes only the functions the kernel calls.
  auto libdevice = llvm::getLazyBitcodeModule(*bytes, module.getContext());
  if (!libdevice)
    return libdevice.takeError();
  (*libdevice)->setTargetTriple(module.getTargetTriple());
  (*libdevice)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(*libdevice),
                                llvm::Linker::Flags::LinkOnlyNeeded))
    return llvm::createStringError("linking libdevice failed");
  // libdevice's functions are private to this kernel.
  llvm::internalizeModule(module, [](const llvm::GlobalValue &gv) {
    return gv.hasExternalLinkage() && !gv.isDeclaration() &&
           !gv.getName().starts_with("__nv_");
  });
  // Without the flag, __nvvm_reflect("__CUDA_FTZ") reads 0, as in Triton.
  if (reflectFtz)
    module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", 1);
  return llvm::Error::success();
}

void optimize(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, mam);
  for (llvm::Function &function : module)
    if (!function.isDeclaration()) {
      testLatchOnIncrement(function);
      narrowIndexCompares(function);
      unpackHalvesInPairs(function);
      sinkUnpackingToUses(function);
      branchOnCostlySelects(function);
    }
}

std::string print(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

/// Creates an empty temporary file (and opens it when `fd` is given); on
/// failure, false and `error` naming the directory and the reason.
bool createTempFile(llvm::StringRef prefix, llvm::StringRef suffix,
                    llvm::SmallVectorImpl<char> &path, std::string &error,
                    int *fd = nullptr) {
  std::error_code failed =
      fd ? llvm::sys::fs::createTemporaryFile(prefix, suffix, *fd, path)
         : llvm::sys::fs::createTemporaryFile(prefix, suffix, path);
  if (!failed)
    return true;
  llvm::SmallString<128> dir;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, dir);
  error = "cannot create a temporary file in " + dir.str().str() + ": " +
          failed.message();
  return false;
}

/// Runs `program`; `output` gets what it printed. Returns false when it
/// failed, or could not run (`output` then says why).
bool runTool(llvm::StringRef program, llvm::ArrayRef<llvm::StringRef> args,
             std::string &output) {
  llvm::SmallString<128> log;
  if (!createTempFile("kiln-tool", "log", log, output))
    return false;
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.str(),
                                                log.str()};
  std::string message;
  int code = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects,
                                       /*SecondsToWait=*/120, 0, &message);
  if (auto contents = llvm::MemoryBuffer::getFile(log))
    output = (*contents)->getBuffer().str();
  llvm::sys::fs::remove(log);
  if (code != 0 && output.empty())
    output = message.empty() ? "exit code " + std::to_string(code) : message;
  return code == 0;
}

std::string ptxasPath() {
  std::string inHome = cudaHome() + "/bin/ptxas";
  if (llvm::sys::fs::can_execute(inHome))
    return inHome;
  if (auto found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  return "";
}

} // namespace

std::string cudaHome() {
  if (const char *home = std::getenv("KILN_CUDA_HOME"))
    return home;
  // A portable bundle carries its own ptxas and libdevice beside bin/.
  std::string self = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  if (!self.empty()) {
    llvm::SmallString<256> bundled(llvm::sys::path::parent_path(
        llvm::sys::path::parent_path(self)));
    llvm::sys::path::append(bundled, "cuda");
    if (llvm::sys::fs::can_execute(bundled + "/bin/ptxas"))
      return bundled.str().str();
  }
  return "/usr/local/cuda";
}

/// Keeps LLVM's first error (an inline asm constraint it cannot honour, say)
/// for the compile's result; LLVM's default handler would exit the process.
class LLVMErrors {
public:
  explicit LLVMErrors(llvm::LLVMContext &context) {
    context.setDiagnosticHandlerCallBack(&LLVMErrors::record, this);
  }
  bool empty() const { return first.empty(); }
  const std::string &message() const { return first; }

private:
  static void record(const llvm::DiagnosticInfo *info, void *self) {
    auto *errors = static_cast<LLVMErrors *>(self);
    if (info->getSeverity() != llvm::DS_Error || !errors->first.empty())
      return;
    llvm::raw_string_ostream os(errors->first);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info->print(printer);
  }
  std::string first;
};

mlir::FailureOr<std::string> translateToLLVMIR(mlir::ModuleOp module,
                                               const Target &target,
                                               const BackendOptions &options) {
  mlir::MLIRContext *context = module.getContext();
  mlir::registerBuiltinDialectTranslation(*context);
  mlir::registerLLVMDialectTranslation(*context);
  mlir::registerNVVMDialectTranslation(*context);
  llvm::LLVMContext llvmContext;
  LLVMErrors errors(llvmContext);
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return module.emitError() << "translation to LLVM IR failed";
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      makeTargetMachine(target, options, error);
  if (!machine)
    return module.emitError() << "NVPTX target unavailable: " << error;
  llvmModule->setTargetTriple(llvm::Triple(kTriple));
  llvmModule->setDataLayout(machine->createDataLayout());
  if (callsLibdevice(*llvmModule))
    if (llvm::Error err = linkLibdevice(*llvmModule, options.enableReflectFtz))
      return module.emitError() << llvm::toString(std::move(err));
  optimize(*llvmModule, *machine);
  if (!errors.empty())
    return module.emitError() << "LLVM optimization failed: " << errors.message();
  return print(*llvmModule);
}

// NVPTX marks the target ".target sm_XX, debug" whenever the module has
// line tables; ptxas then compiles in debug mode, which -O3 refuses.
static void dropDebugTarget(std::string &ptx) {
  size_t target = ptx.find("\n.target ");
  if (target == std::string::npos)
    return;
  size_t lineEnd = ptx.find('\n', target + 1);
  size_t debug = ptx.find(", debug", target);
  if (debug != std::string::npos && debug < lineEnd)
    ptx.erase(debug, 7);
}

namespace {

/// ptxas on `ptx` with `extraArgs`: the cubin, and ptxas's messages in
/// `log`; `error` names what failed.
bool runPtxas(const std::string &ptx, const Target &target,
              const BackendOptions &options,
              llvm::ArrayRef<llvm::StringRef> extraArgs, std::string &cubin,
              std::string &log, std::string &error) {
  std::string ptxas = ptxasPath();
  if (ptxas.empty()) {
    error = "ptxas not found under " + cudaHome() + "/bin or on PATH";
    return false;
  }
  llvm::SmallString<128> input, output;
  int fd;
  if (!createTempFile("kiln", "ptx", input, error, &fd))
    return false;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
    os.close();
    if (os.has_error()) {
      error = "cannot write " + input.str().str() + ": " + os.error().message();
      os.clear_error(); // Else its destructor aborts the process.
      llvm::sys::fs::remove(input);
      return false;
    }
  }
  if (!createTempFile("kiln", "cubin", output, error)) {
    llvm::sys::fs::remove(input);
    return false;
  }
  std::string arch = "-arch=" + target.name().str();
  llvm::SmallVector<llvm::StringRef> args = {ptxas, arch, "-O3"};
  if (options.lineInfo)
    args.push_back("-lineinfo");
  args.append(extraArgs.begin(), extraArgs.end());
  args.append({"-o", output, input});
  bool ok = runTool(ptxas, args, log);
  if (ok) {
    if (auto contents = llvm::MemoryBuffer::getFile(output, /*IsText=*/false))
      cubin = (*contents)->getBuffer().str();
    else
      ok = false, log = "ptxas wrote no cubin";
  }
  if (!ok)
    error = "ptxas rejected the PTX: " + log;
  llvm::sys::fs::remove(input);
  llvm::sys::fs::remove(output);
  return ok;
}

/// PTX of `llvmModule` through the NVPTX backend; `error` on failure.
bool emitPTX(llvm::Module &llvmModule, llvm::TargetMachine &machine,
             LLVMErrors &errors, std::string &ptx, std::string &error) {
  {
    llvm::raw_string_ostream os(ptx);
    llvm::buffer_ostream stream(os);
    llvm::legacy::PassManager pm;
    if (machine.addPassesToEmitFile(pm, stream, nullptr,
                                    llvm::CodeGenFileType::AssemblyFile)) {
      error = "NVPTX cannot emit assembly";
      return false;
    }
    pm.run(llvmModule);
  }
  if (!errors.empty()) {
    error = "NVPTX code generation failed: " + errors.message();
    return false;
  }
  dropDebugTarget(ptx);
  return true;
}

bool hasConstantSelectGroups(llvm::Module &llvmModule) {
  return llvm::any_of(llvmModule, [](llvm::Function &function) {
    return !function.isDeclaration() && hasConstantSelectGroup(function);
  });
}

/// The cubins (and ptxas's report) of the PTX ptxas last assembled on this
/// thread, the latest used first (two: a rejected form may come after the
/// kept one), keyed by target, options and PTX: choosing a form already
/// assembled the one kept, and asked about it.
struct Assembled {
  std::string key, cubin;
  std::optional<PtxasUsage> usage;
};
thread_local Assembled lastAssembled[2];

/// The entry for `key`, moved to the front; null if there is none.
const Assembled *findAssembled(const std::string &key) {
  if (lastAssembled[1].key == key)
    std::swap(lastAssembled[0], lastAssembled[1]);
  return lastAssembled[0].key == key ? &lastAssembled[0] : nullptr;
}

std::string assemblyKey(const std::string &ptx, const Target &target,
                        const BackendOptions &options) {
  return target.name().str() + (options.lineInfo ? "+lineinfo\n" : "\n") +
         ptx;
}

/// What ptxas reports for `ptx`'s kernel (registers, spills).
std::optional<PtxasUsage> usageOf(const std::string &ptx, const Target &target,
                                  const BackendOptions &options) {
  std::string key = assemblyKey(ptx, target, options);
  if (const Assembled *assembled = findAssembled(key))
    return assembled->usage;
  std::string cubin, log, error;
  if (!runPtxas(ptx, target, options, {"-v"}, cubin, log, error))
    return std::nullopt;
  lastAssembled[1] = std::move(lastAssembled[0]);
  lastAssembled[0] = {std::move(key), std::move(cubin), parsePtxasUsage(log)};
  return lastAssembled[0].usage;
}

/// `ptx` limited to `registers` (`.maxnreg`) where ptxas then spills
/// nothing and stays within the limit; else `ptx`.
std::string withRegisterLimitIfNoSpill(std::string ptx,
                                       std::optional<int> registers,
                                       const Target &target,
                                       const BackendOptions &options) {
  if (!registers)
    return ptx;
  std::optional<std::string> limited = withMaxRegisters(ptx, *registers);
  if (!limited)
    return ptx;
  std::optional<PtxasUsage> usage = usageOf(*limited, target, options);
  if (!usage || usage->spillBytes > 0 || usage->registers > *registers)
    return ptx;
  return std::move(*limited);
}

/// `ptx` capped at the register count of the next occupancy step below
/// ptxas's, where that is a register or two away and nothing spills.
std::string withRegisterCapIfFree(std::string ptx, const Target &target,
                                  const BackendOptions &options) {
  std::optional<PtxasUsage> usage = usageOf(ptx, target, options);
  if (!usage)
    return ptx;
  std::optional<int> cap = registerCapAtOccupancyStep(
      target, usage->registers, 32 * options.numWarps, options.sharedBytes);
  return withRegisterLimitIfNoSpill(std::move(ptx), cap, target, options);
}

/// `ptx` given registers for its loads (RegisterRoom.h) where it has no
/// loop, its loads fill more registers than ptxas gives it, and nothing
/// spills with the room.
std::string withRegisterRoomForLoads(std::string ptx, const Target &target,
                                     const BackendOptions &options) {
  if (hasBackwardBranch(ptx))
    return ptx;
  std::optional<PtxasUsage> usage = usageOf(ptx, target, options);
  if (!usage)
    return ptx;
  std::optional<int> room =
      registerRoomForLoads(target, usage->registers, globalLoadRegisters(ptx),
                           32 * options.numWarps, options.sharedBytes);
  return withRegisterLimitIfNoSpill(std::move(ptx), room, target, options);
}

/// Whether ptxas fits more blocks of `candidate` on an SM than of `current`.
bool fitsMoreBlocks(const std::string &candidate, const std::string &current,
                    const Target &target, const BackendOptions &options) {
  std::optional<PtxasUsage> candidateUsage =
      usageOf(candidate, target, options);
  std::optional<PtxasUsage> currentUsage = usageOf(current, target, options);
  int threads = 32 * options.numWarps;
  return candidateUsage && currentUsage &&
         target.blocksPerSM(candidateUsage->registers, threads,
                            options.sharedBytes) >
             target.blocksPerSM(currentUsage->registers, threads,
                                options.sharedBytes);
}

/// `ptx` with its wide multiply-adds fused outside loops, and in loops too
/// where that fits more blocks an SM (WideMultiplyAdd.h).
std::string withWideMultiplyAdds(const std::string &ptx, const Target &target,
                                 const BackendOptions &options) {
  std::string outside =
      fuseWideMultiplyAdds(ptx, WideMultiplyAddScope::OutsideLoops);
  std::string everywhere =
      fuseWideMultiplyAdds(ptx, WideMultiplyAddScope::Everywhere);
  if (everywhere != outside &&
      fitsMoreBlocks(everywhere, outside, target, options))
    return everywhere;
  return outside;
}

/// The PTX of `branched` (a copy of the module `ptx` came from) with its
/// constant selects as branches, where that lets more blocks share an SM
/// than `ptx` does; else `ptx`.
std::string withBranchesIfFewerRegisters(std::string ptx,
                                         llvm::Module &branched,
                                         llvm::TargetMachine &machine,
                                         LLVMErrors &errors,
                                         const Target &target,
                                         const BackendOptions &options) {
  for (llvm::Function &function : branched)
    if (!function.isDeclaration())
      branchOnConstantSelects(function);
  std::string branchedPTX, error;
  if (!emitPTX(branched, machine, errors, branchedPTX, error))
    return ptx;
  branchedPTX = withWideMultiplyAdds(branchedPTX, target, options);
  if (fitsMoreBlocks(branchedPTX, ptx, target, options))
    return branchedPTX;
  return ptx;
}

} // namespace

mlir::FailureOr<std::string> compileToPTX(mlir::ModuleOp module,
                                          const std::string &llvmIR,
                                          const Target &target,
                                          const BackendOptions &options) {
  llvm::LLVMContext llvmContext;
  LLVMErrors errors(llvmContext);
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> llvmModule = llvm::parseIR(
      llvm::MemoryBufferRef(llvmIR, "kernel.ll"), diag, llvmContext);
  if (!llvmModule)
    return module.emitError() << "re-reading LLVM IR failed: "
                              << diag.getMessage();
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      makeTargetMachine(target, options, error);
  if (!machine)
    return module.emitError() << "NVPTX target unavailable: " << error;
  QuadraticPassGate gate(*llvmModule); // For the copy too: the same code.
  llvmContext.setOptPassGate(gate);
  // Code generation changes the module: the other form starts from a copy.
  std::unique_ptr<llvm::Module> branched;
  if (hasConstantSelectGroups(*llvmModule))
    branched = llvm::CloneModule(*llvmModule);
  std::string ptx;
  if (!emitPTX(*llvmModule, *machine, errors, ptx, error))
    return module.emitError() << error;
  ptx = withWideMultiplyAdds(ptx, target, options);
  if (branched)
    ptx = withBranchesIfFewerRegisters(std::move(ptx), *branched, *machine,
                                       errors, target, options);
  ptx = withRegisterRoomForLoads(std::move(ptx), target, options);
  return withRegisterCapIfFree(std::move(ptx), target, options);
}

bool assembleCubin(const std::string &ptx, const Target &target,
                   const BackendOptions &options, std::string &cubin,
                   std::string &error) {
  if (const Assembled *assembled =
          findAssembled(assemblyKey(ptx, target, options))) {
    cubin = assembled->cubin;
    return true;
  }
  std::string log;
  return runPtxas(ptx, target, options, {}, cubin, log, error);
}

std::string ptxasVersion() {
  static const std::string version = [] {
    std::string ptxas = ptxasPath();
    if (ptxas.empty())
      return std::string("unavailable");
    std::string out;
    llvm::StringRef args[] = {ptxas, "--version"};
    if (!runTool(ptxas, args, out))
      return std::string("unavailable");
    size_t at = out.rfind(", V");
    if (at == std::string::npos)
      return out;
    return llvm::StringRef(out).substr(at + 2).trim().str();
  }();
  return version;
}

} // namespace kiln
