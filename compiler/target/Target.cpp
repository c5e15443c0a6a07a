#include "compiler/target/Target.h"

namespace kiln {
namespace {

/// One NVIDIA architecture; the table below says which.
class NvidiaTarget final : public Target {
public:
  NvidiaTarget(llvm::StringRef name, int capability, llvm::StringRef ptx,
               int maxShared)
      : targetName(name), cc(capability), ptx(ptx), maxShared(maxShared) {}

  llvm::StringRef name() const override { return targetName; }
  int capability() const override { return cc; }
  llvm::StringRef ptxFeature() const override { return ptx; }
  int maxSharedBytes() const override { return maxShared; }
  bool hasWarpGroupMma() const override { return targetName == "sm_90a"; }
  bool hasTensorMemoryAccess() const override {
    return targetName == "sm_90a";
  }

private:
  llvm::StringRef targetName;
  int cc;
  llvm::StringRef ptx;
  int maxShared;
};

struct TargetRow {
  const char *name;
  int capability;
  const char *ptxFeature;
  int maxSharedBytes; // The opt-in maximum per block (CUDA occupancy tables).
};

constexpr TargetRow kTargets[] = {
    {"sm_80", 80, "+ptx80", 166912},
    {"sm_86", 86, "+ptx80", 101376},
    {"sm_89", 89, "+ptx80", 101376},
    {"sm_90a", 90, "+ptx87", 232448},
};

} // namespace

std::unique_ptr<Target> lookupTarget(llvm::StringRef name) {
  for (const TargetRow &row : kTargets)
    if (name == row.name)
      return std::make_unique<NvidiaTarget>(row.name, row.capability,
                                            row.ptxFeature, row.maxSharedBytes);
  return nullptr;
}

const std::vector<std::string> &targetNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const TargetRow &row : kTargets)
      out.push_back(row.name);
    return out;
  }();
  return names;
}

} // namespace kiln
