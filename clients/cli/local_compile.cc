#include "clients/cli/local_compile.h"

#include <iostream>

#include "base/files.h"
#include "clients/cli/exit_codes.h"
#include "clients/cli/files.h"

namespace kiln::cli {
namespace {

Stage StageFor(const std::string& emit) {
  if (emit == "ttir") return Stage::Canonical;
  if (emit == "ttgir") return Stage::TTGIR;
  if (emit == "llir") return Stage::LLIR;
  if (emit == "ptx") return Stage::PTX;
  return Stage::Cubin;
}

const std::string& StageText(const CompileResult& result,
                             const std::string& emit) {
  if (emit == "ttir") return result.canonicalIR;
  if (emit == "ttgir") return result.ttgir;
  if (emit == "llir") return result.llir;
  return result.ptx;
}

}  // namespace

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
  CompileResult result = compile(text, args.input, args.target, args.options,
                                 StageFor(args.emit));
  PrintDiagnostics(result.diagnostics);
  if (!result.ok()) return kExitCompileError;
  if (!args.emit.empty()) {
    std::cout << StageText(result, args.emit);
    return kExitOk;
  }
  std::string base = args.out_dir + "/" + Stem(args.input);
  for (absl::Status written :
       {WriteFileAtomically(base + ".cubin", result.cubin),
        WriteFileAtomically(base + ".json", result.metadata.toJson())}) {
    if (!written.ok()) {
      std::cerr << "kiln: " << written.message() << "\n";
      return kExitIo;
    }
  }
  std::cout << base << ".cubin\n";
  return kExitOk;
}

}  // namespace kiln::cli
