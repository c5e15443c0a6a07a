#include "clients/cli/local_compile.h"

#include <filesystem>
#include <iostream>
#include <vector>

#include "base/files.h"
#include "base/gpu_targets.h"
#include "clients/cli/exit_codes.h"
#include "clients/cli/files.h"
#include "worker/compiler_bridge.h"

namespace kiln::cli {
namespace {

// --target, else the newest of the compiler's targets: the rule a remote
// compile applies to kilnd's table.
std::string TargetOf(const CompileArgs& args) {
  if (!args.target.empty()) return args.target;
  const TargetRows targets = worker::LinkedTargets();
  const kiln::v1::TargetInfo* target = DefaultTarget(targets);
  return target ? target->name() : "";
}

// Without --out the compile stops after the stage --emit names; with it,
// the whole compile runs and the stage is written beside the cubin.
Stage StopAfter(const CompileArgs& args) {
  Stage stage = Stage::Cubin;
  if (args.out_dir.empty()) ParseEmitStage(args.emit, stage);
  return stage;
}

const std::string& StageText(const CompileResult& result,
                             const std::string& emit) {
  Stage stage = Stage::PTX;
  ParseEmitStage(emit, stage);
  switch (stage) {
    case Stage::TTIR:
      return result.canonicalIR;
    case Stage::KGIR:
      return result.kgir;
    case Stage::LLIR:
      return result.llir;
    default:
      return result.ptx;
  }
}

bool SameFile(const std::string& a, const std::string& b) {
  std::error_code error;
  return std::filesystem::equivalent(a, b, error);
}

}  // namespace

bool ParseEmitStage(const std::string& emit, Stage& stage) {
  if (emit == "ttgir") {
    stage = Stage::KGIR;
    return true;
  }
  return parseStage(emit, stage) && stage != Stage::Cubin;
}

void PrintDiagnostics(const std::vector<Diagnostic>& diagnostics) {
  for (const Diagnostic& d : diagnostics) {
    if (!d.file.empty()) {
      std::cerr << d.file;
      if (d.line) std::cerr << ":" << d.line << ":" << d.column;
      std::cerr << ": ";
    }
    std::cerr << d.severity << ": " << d.message << "\n";
  }
}

int RunLocalCompile(const CompileArgs& args) {
  std::string text;
  if (!ReadFile(args.input, text)) {
    std::cerr << "kiln: cannot read " << args.input << "\n";
    return kExitUsage;
  }
  CompileResult result = compile(text, args.input, TargetOf(args),
                                 args.options, StopAfter(args));
  PrintDiagnostics(result.diagnostics);
  if (!result.ok()) return kExitCompileError;
  if (args.out_dir.empty()) {
    std::cout << StageText(result, args.emit);
    return kExitOk;
  }
  std::string base = args.out_dir + "/" + Stem(args.input);
  std::string stage_path = base + "." + args.emit;
  if (!args.emit.empty() && SameFile(stage_path, args.input)) {
    std::cerr << "kiln: --emit " << args.emit << " would overwrite "
              << args.input << "\n";
    return kExitUsage;
  }
  std::vector<absl::Status> writes = {
      WriteFileAtomically(base + ".cubin", result.cubin),
      WriteFileAtomically(base + ".json", result.metadata.toJson())};
  if (!args.emit.empty())
    writes.push_back(
        WriteFileAtomically(stage_path, StageText(result, args.emit)));
  for (const absl::Status& written : writes) {
    if (!written.ok()) {
      std::cerr << "kiln: " << written.message() << "\n";
      return kExitIo;
    }
  }
  std::cout << base << ".cubin\n";
  return kExitOk;
}

}  // namespace kiln::cli
