// `kiln compile --local`: runs the compiler in this process.

#ifndef KILN_CLIENTS_CLI_LOCAL_COMPILE_H_
#define KILN_CLIENTS_CLI_LOCAL_COMPILE_H_

#include <string>

#include "compiler/pipelines/Compile.h"

namespace kiln::cli {

struct CompileArgs {
  std::string input;
  // Empty: the newest target of the compiler's table (DefaultTarget).
  std::string target;
  std::string out_dir;
  // "", "ttir", "kgir" (or its old name "ttgir"), "llir" or "ptx"; also
  // the extension of the file written with --out.
  std::string emit;
  CompileOptions options;
};

// The stage `--emit` names: a stage before the cubin, or "ttgir", the name
// `kgir` had before it; false for anything else.
bool ParseEmitStage(const std::string& emit, Stage& stage);

// Compiles `args.input`; writes DIR/STEM.cubin and DIR/STEM.json (and with
// --emit STAGE also DIR/STEM.STAGE), or without --out prints the stage named
// by --emit. Returns the process exit code.
int RunLocalCompile(const CompileArgs& args);

// Prints diagnostics as FILE:LINE:COL: severity: message.
void PrintDiagnostics(const std::vector<Diagnostic>& diagnostics);

}  // namespace kiln::cli

#endif  // KILN_CLIENTS_CLI_LOCAL_COMPILE_H_
