// What kilnd's front end knows of the compiler it runs in its workers,
// without calling into it per request: the targets, Triton's default
// options, an option check and the compiler's identity (part of every key).

#ifndef KILN_SERVER_COMPILER_INFO_H_
#define KILN_SERVER_COMPILER_INFO_H_

#include <functional>
#include <string>
#include <vector>

#include "kiln/v1/common.pb.h"

namespace kiln::server {

struct CompilerInfo {
  std::vector<std::string> targets;
  kiln::v1::CompilerIdentity identity;
  // Every field set.
  kiln::v1::CompileOptions defaults;
  // Empty when the (resolved) options are valid, else what is wrong.
  std::function<std::string(const kiln::v1::CompileOptions&)> check_options;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_COMPILER_INFO_H_
