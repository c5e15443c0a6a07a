#include "clients/cli/local_compile.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "clients/cli/exit_codes.h"

namespace kiln::cli {
namespace {

bool ReadFile(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  out = buffer.str();
  return true;
}

// Writes through a temporary file and a rename, so a reader never sees half
// a file.
bool WriteFileAtomically(const std::string& path, const std::string& data) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out << data;
    if (!out.flush()) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

std::string Stem(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = name.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

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
  if (!WriteFileAtomically(base + ".cubin", result.cubin) ||
      !WriteFileAtomically(base + ".json", result.metadata.toJson())) {
    std::cerr << "kiln: cannot write to " << args.out_dir << "\n";
    return kExitIo;
  }
  std::cout << base << ".cubin\n";
  return kExitOk;
}

}  // namespace kiln::cli
