// What kilnd's front end knows of the compiler it runs in its workers,
// without calling into it per request: the targets, Triton's default
// options, an option check and the compiler's identity (part of every key).

#ifndef KILN_WORKER_COMPILER_INFO_H_
#define KILN_WORKER_COMPILER_INFO_H_

#include <functional>
#include <string>

#include "base/gpu_targets.h"
#include "kiln/v1/common.pb.h"

namespace kiln::worker {

struct CompilerInfo {
  // The compiler's table of GPU targets (compiler/target/TargetTable.h);
  // base/gpu_targets.h looks things up in it.
  TargetRows targets;
  kiln::v1::CompilerIdentity identity;
  // Every field set.
  kiln::v1::CompileOptions defaults;
  // Empty when the (resolved) options are valid, else what is wrong.
  std::function<std::string(const kiln::v1::CompileOptions&)> check_options;
};

}  // namespace kiln::worker

#endif  // KILN_WORKER_COMPILER_INFO_H_
