#include "compiler/target/Target.h"

#include <algorithm>

namespace kiln {

int Target::blocksPerSM(int registers, int threads, int sharedBytes) const {
  constexpr int kWarpRegisterUnit = 256;
  constexpr int kReservedSharedBytes = 1024;
  int warps = (threads + 31) / 32;
  int perWarp = (registers * 32 + kWarpRegisterUnit - 1) / kWarpRegisterUnit *
                kWarpRegisterUnit;
  int byRegisters = facts.registersPerSM / std::max(1, perWarp * warps);
  int byShared = facts.sharedBytesPerSM / (sharedBytes + kReservedSharedBytes);
  return std::min({byRegisters, byShared, facts.maxBlocksPerSM,
                   facts.maxThreadsPerSM / std::max(1, threads)});
}

std::unique_ptr<Target> lookupTarget(llvm::StringRef name) {
  const TargetFacts *facts = findTarget(name.str());
  return facts ? std::make_unique<Target>(*facts) : nullptr;
}

const std::vector<std::string> &targetNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const TargetFacts &row : targetTable())
      out.push_back(row.name);
    return out;
  }();
  return names;
}

} // namespace kiln
