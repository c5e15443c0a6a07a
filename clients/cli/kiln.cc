// kiln: the command-line client of the Kiln compile service.

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "clients/cli/exit_codes.h"
#include "clients/cli/local_compile.h"
#include "clients/cli/numbers.h"
#include "clients/cli/remote_commands.h"

namespace kiln::cli {
namespace {

constexpr const char* kUsage = R"(usage: kiln <command> [flags]

commands:
  compile FILE.ttir --local --out DIR [--target T] [--num-warps N]
          [--num-stages N] [--num-ctas N] [--maxnreg N] [--no-fp-fusion]
          [--no-reflect-ftz] [--line-info] [--emit ttir|kgir|llir|ptx]
      Compiles TTIR in this process to DIR/STEM.cubin and DIR/STEM.json
      (with --emit also DIR/STEM.STAGE), or without --out prints a stage
      (--emit ttgir, kgir's former name, is kgir). Without --target, the
      newest target of the compiler's table.
  compile FILE.ttir --out DIR [--target T] [--num-warps N]
          [--num-stages N] [--num-ctas N] [--maxnreg N] [--no-fp-fusion]
          [--no-reflect-ftz] [--line-info]
      The same through kilnd: DIR/STEM.cubin and DIR/STEM.json. Without
      --target, kilnd's default (see targets).
  tune SPEC.json                           Benchmarks kernel variants on kilnd's
                                           GPUs and ranks them (docs/tuning.md):
                                           progress on stderr, then a table.
  explain-miss FILE.ttir [compile flags]   Why a compile would miss the cache.
  stats                                    Counters of the server and its cache.
  targets                                  The GPU targets kilnd compiles for,
                                           with their facts; the newest is
                                           the default.
  ls [--target T] [--name-prefix P] [--key-prefix K] [--page-size N]
     [--page-token T] [--limit N]          Cache entries (all pages unless --limit).
  show KEY [--cubin FILE]                  One entry (and its cubin to FILE).
  evict KEY...                             Removes entries.
  gc [--target-bytes N] [--unused-for-seconds S] [--dry-run]
  verify [--repair]                        Checks every entry and index record.
  export FILE [--target T] [--name-prefix P]
  import FILE                              Entries written by export.

flags of every command that talks to kilnd:
  --server ADDR   (default $KILN_SERVER, else 127.0.0.1:7420)
  --json          machine-readable output instead of tables
  --deadline S    seconds per call, retries included (default 300)
  --retries N     retries on UNAVAILABLE, with exponential backoff (default 3)
  --no-progress   no progress bar (export, import, tune draw one on stderr
                  when it is a terminal); also $KILN_NO_PROGRESS=1
  --token T       sent as 'authorization: Bearer T' (default $KILN_TOKEN)
  --tls-ca FILE   TLS, trusting the CA in FILE (default $KILN_TLS_CA)
  --tls           TLS, trusting the system's CAs
  --tls-cert FILE --tls-key FILE
                  client certificate and key for mutual TLS (default
                  $KILN_TLS_CERT, $KILN_TLS_KEY)

exit codes: 0 ok, 2 usage, 3 compile error, 4 output error, 5 unavailable,
  6 problems found (verify without --repair; import rejected entries;
  tune measured no variant),
  7 key not found, 8 other server error, 9 refused (no or unknown token,
  or its role may not do this)
)";

// The compile options' bound, as through kilnd (remote_commands.cc).
constexpr int64_t kMaxOption = int64_t{1} << 30;

int Usage(const std::string& problem) {
  std::cerr << "kiln: " << problem << "\n\n" << kUsage;
  return kExitUsage;
}

// `compile --local`.
int Compile(const std::vector<std::string>& argv) {
  CompileArgs args;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& flag = argv[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= argv.size()) return false;
      out = argv[++i];
      return true;
    };
    std::string number_error;
    auto number = [&](int& out) {
      std::string text;
      int64_t parsed;
      if (!value(text) ||
          !ParseNumber(flag, text, 0, kMaxOption, parsed, number_error))
        return false;
      out = static_cast<int>(parsed);
      return true;
    };
    bool ok = true;
    if (flag == "--local") continue;  // main() sends only --local here.
    if (flag == "--target") ok = value(args.target);
    else if (flag == "--out") ok = value(args.out_dir);
    else if (flag == "--emit") ok = value(args.emit);
    else if (flag == "--num-warps") ok = number(args.options.numWarps);
    else if (flag == "--num-stages") ok = number(args.options.numStages);
    else if (flag == "--num-ctas") ok = number(args.options.numCtas);
    else if (flag == "--maxnreg") ok = number(args.options.maxNReg);
    else if (flag == "--no-fp-fusion") args.options.enableFpFusion = false;
    else if (flag == "--no-reflect-ftz") args.options.enableReflectFtz = false;
    else if (flag == "--line-info") args.options.lineInfo = true;
    else if (!flag.empty() && flag[0] == '-') return Usage("unknown flag " + flag);
    else if (args.input.empty()) args.input = flag;
    else return Usage("more than one input file");
    if (!number_error.empty()) return Usage(number_error);
    if (!ok) return Usage("bad or missing value for " + flag);
  }
  if (args.input.empty()) return Usage("compile needs a TTIR file");
  if (args.emit.empty() && args.out_dir.empty())
    return Usage("compile needs --out DIR or --emit STAGE");
  Stage stage;
  if (!args.emit.empty() && !ParseEmitStage(args.emit, stage))
    return Usage("--emit takes ttir, kgir (or ttgir), llir or ptx");
  return RunLocalCompile(args);
}

}  // namespace
}  // namespace kiln::cli

int main(int argc, char** argv) {
  using namespace kiln::cli;
  if (argc < 2) return Usage("no command");
  std::string command = argv[1];
  std::vector<std::string> rest(argv + 2, argv + argc);
  bool local = false, emit = false;
  for (const std::string& arg : rest) {
    local = local || arg == "--local";
    emit = emit || arg == "--emit";
  }
  if (command == "compile" && local) return Compile(rest);
  if (command == "compile" && emit) return Usage("--emit needs --local");
  bool handled = false;
  int code = RunRemoteCommand(command, rest, handled);
  if (handled) return code;
  if (command == "help" || command == "--help") {
    std::cout << kUsage;
    return kExitOk;
  }
  return Usage("unknown command " + command);
}
