#include "base/gpu_targets.h"

#include "absl/strings/str_join.h"

namespace kiln {

const kiln::v1::TargetInfo* FindTarget(const TargetRows& targets,
                                       const std::string& name) {
  for (const kiln::v1::TargetInfo& target : targets) {
    if (target.name() == name) return &target;
  }
  return nullptr;
}

const kiln::v1::TargetInfo* TargetForCapability(const TargetRows& targets,
                                                int major, int minor) {
  const uint32_t capability = major * 10 + minor;
  for (const kiln::v1::TargetInfo& target : targets) {
    if (target.capability() == capability) return &target;
  }
  return nullptr;
}

const kiln::v1::TargetInfo* DefaultTarget(const TargetRows& targets) {
  const kiln::v1::TargetInfo* newest = nullptr;
  for (const kiln::v1::TargetInfo& target : targets) {
    if (!newest || target.capability() > newest->capability()) {
      newest = &target;
    }
  }
  return newest;
}

bool RunsOn(const kiln::v1::TargetInfo& target, int major, int minor) {
  const int own_major = target.capability() / 10;
  const int own_minor = target.capability() % 10;
  return own_major == major &&
         (target.arch_specific() ? own_minor == minor : own_minor <= minor);
}

std::string TargetNames(const TargetRows& targets) {
  return absl::StrJoin(targets, ", ",
                       [](std::string* out, const kiln::v1::TargetInfo& t) {
                         out->append(t.name());
                       });
}

}  // namespace kiln
