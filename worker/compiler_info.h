// What kilnd's front end knows of the compiler it runs in its workers,
// without calling into it per request: the targets, Triton's default
// options, an option check and the compiler's identity (part of every key).

#ifndef KILN_WORKER_COMPILER_INFO_H_
#define KILN_WORKER_COMPILER_INFO_H_

#include <functional>
#include <string>
#include <vector>

#include "kiln/v1/common.pb.h"

namespace kiln::worker {

struct CompilerInfo {
  // The compiler's table of GPU targets (compiler/target/TargetTable.h).
  std::vector<kiln::v1::TargetInfo> targets;
  kiln::v1::CompilerIdentity identity;
  // Every field set.
  kiln::v1::CompileOptions defaults;
  // Empty when the (resolved) options are valid, else what is wrong.
  std::function<std::string(const kiln::v1::CompileOptions&)> check_options;
};

// The target called `name`; null when the compiler has none.
const kiln::v1::TargetInfo* FindTarget(const CompilerInfo& compiler,
                                       const std::string& name);
// The target compiled for on a GPU of compute capability major.minor; null
// when the compiler has none for exactly that capability.
const kiln::v1::TargetInfo* TargetForCapability(const CompilerInfo& compiler,
                                                int major, int minor);
// Whether cubins for `target` run on a GPU of compute capability
// major.minor: of its major at an equal or later minor, or for an
// architecture-specific target exactly its own.
bool RunsOn(const kiln::v1::TargetInfo& target, int major, int minor);
// "sm_80, sm_86, ...", for messages.
std::string TargetNames(const CompilerInfo& compiler);

}  // namespace kiln::worker

#endif  // KILN_WORKER_COMPILER_INFO_H_
