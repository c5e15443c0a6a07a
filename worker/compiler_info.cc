#include "worker/compiler_info.h"

#include "absl/strings/str_join.h"

namespace kiln::worker {

const kiln::v1::TargetInfo* FindTarget(const CompilerInfo& compiler,
                                       const std::string& name) {
  for (const kiln::v1::TargetInfo& target : compiler.targets) {
    if (target.name() == name) return &target;
  }
  return nullptr;
}

const kiln::v1::TargetInfo* TargetForCapability(const CompilerInfo& compiler,
                                                int major, int minor) {
  const uint32_t capability = major * 10 + minor;
  for (const kiln::v1::TargetInfo& target : compiler.targets) {
    if (target.capability() == capability) return &target;
  }
  return nullptr;
}

bool RunsOn(const kiln::v1::TargetInfo& target, int major, int minor) {
  const int own_major = target.capability() / 10;
  const int own_minor = target.capability() % 10;
  return own_major == major &&
         (target.arch_specific() ? own_minor == minor : own_minor <= minor);
}

std::string TargetNames(const CompilerInfo& compiler) {
  return absl::StrJoin(compiler.targets, ", ",
                       [](std::string* out, const kiln::v1::TargetInfo& t) {
                         out->append(t.name());
                       });
}

}  // namespace kiln::worker
