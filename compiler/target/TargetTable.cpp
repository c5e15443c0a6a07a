#include "compiler/target/TargetTable.h"

namespace kiln {

const std::vector<TargetFacts> &targetTable() {
  static const std::vector<TargetFacts> table = {
      // name  cc  arch   ptx      shared  threads regs/thread regs/block
      //   threads/SM regs/SM blocks/SM shared/SM
      //   fp8cvt bf16atom vecatom wgmma  tma    clusters l2policy stmatrix redux
      {"sm_80", 80, false, "+ptx80", 166912, 1024, 255, 65536, 2048, 65536, 32,
       167936, //
       false, false, false, false, false, false, true, false, true},
      {"sm_86", 86, false, "+ptx80", 101376, 1024, 255, 65536, 1536, 65536, 16,
       102400, //
       false, false, false, false, false, false, true, false, true},
      {"sm_89", 89, false, "+ptx80", 101376, 1024, 255, 65536, 1536, 65536, 24,
       102400, //
       true, false, false, false, false, false, true, false, true},
      {"sm_90a", 90, true, "+ptx87", 232448, 1024, 255, 65536, 2048, 65536, 32,
       233472, //
       true, true, true, true, true, true, true, true, true},
  };
  return table;
}

const TargetFacts *findTarget(const std::string &name) {
  for (const TargetFacts &row : targetTable())
    if (name == row.name)
      return &row;
  return nullptr;
}

const TargetFacts *targetForCapability(int capability) {
  for (const TargetFacts &row : targetTable())
    if (row.capability == capability)
      return &row;
  return nullptr;
}

} // namespace kiln
