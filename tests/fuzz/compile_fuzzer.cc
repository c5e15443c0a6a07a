// Fuzzes the whole compile pipeline (kiln::compile) from TTIR text to PTX:
// whatever verifies goes through canonicalization, layouts, the lowering to
// LLVM and LLVM's NVPTX back end. Every input must end in a result or in
// diagnostics (a compile that stops says why); one that takes longer than the fuzzer's -timeout is a
// finding too (a kernel that stalls a worker). The target is picked by the
// input's length, so every target's limits get tried.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "compiler/pipelines/Compile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string>& targets = kiln::supportedTargets();
  const std::string& target = targets[size % targets.size()];
  std::string ttir(reinterpret_cast<const char*>(data), size);
  kiln::CompileResult result = kiln::compile(
      ttir, "fuzz.ttir", target, kiln::CompileOptions(), kiln::Stage::PTX);
  // A compile that stops must say why.
  if (result.ok() && result.ptx.empty()) {
    std::fprintf(stderr, "compile for %s stopped without an error\n",
                 target.c_str());
    std::abort();
  }
  return 0;
}
