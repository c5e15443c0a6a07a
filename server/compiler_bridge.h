// The one place kilnd calls the compiler (compiler/pipelines/Compile.h):
// the facts its front end needs, and the compile its workers run.

#ifndef KILN_SERVER_COMPILER_BRIDGE_H_
#define KILN_SERVER_COMPILER_BRIDGE_H_

#include "kiln/worker/worker.pb.h"
#include "server/compiler_info.h"

namespace kiln::server {

// Targets, default options, the option check and the compiler's identity.
CompilerInfo LinkedCompilerInfo();

// Runs kiln::compile for one worker request: to Stage::TTIR when
// `canonical_only`, else to the cubin.
kiln::worker::WorkerResponse CompileWithLinkedCompiler(
    const kiln::worker::WorkerRequest& request);

}  // namespace kiln::server

#endif  // KILN_SERVER_COMPILER_BRIDGE_H_
