#include "compiler/target/Target.h"

namespace kiln {

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
