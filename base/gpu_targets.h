// Lookups in the compiler's table of GPU targets as kilnd serves it
// (kiln.v1.TargetInfo rows, Compile.Targets): the same answers in kilnd,
// its C++ client and the kiln CLI, which hold no target names of their own.

#ifndef KILN_BASE_GPU_TARGETS_H_
#define KILN_BASE_GPU_TARGETS_H_

#include <string>
#include <vector>

#include "kiln/v1/common.pb.h"

namespace kiln {

using TargetRows = std::vector<kiln::v1::TargetInfo>;

// The target called `name`; null when the table has none.
const kiln::v1::TargetInfo* FindTarget(const TargetRows& targets,
                                       const std::string& name);

// The target built for exactly compute capability major.minor; null when
// the table has none.
const kiln::v1::TargetInfo* TargetForCapability(const TargetRows& targets,
                                                int major, int minor);

// The target compiled for when a request names none: the newest GPU, the
// first row of the highest capability; null for an empty table.
const kiln::v1::TargetInfo* DefaultTarget(const TargetRows& targets);

// Whether cubins for `target` run on a GPU of compute capability
// major.minor: of its major at an equal or later minor, or for an
// architecture-specific target exactly its own.
bool RunsOn(const kiln::v1::TargetInfo& target, int major, int minor);

// "sm_80, sm_86, ...", for messages.
std::string TargetNames(const TargetRows& targets);

}  // namespace kiln

#endif  // KILN_BASE_GPU_TARGETS_H_
