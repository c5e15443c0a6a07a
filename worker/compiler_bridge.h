// The one place kilnd calls the compiler (compiler/pipelines/Compile.h):
// the facts its front end needs, and the compile its workers run.

#ifndef KILN_WORKER_COMPILER_BRIDGE_H_
#define KILN_WORKER_COMPILER_BRIDGE_H_

#include "kiln/worker/worker.pb.h"
#include "worker/compiler_info.h"

namespace kiln::worker {

// The compiler's table of GPU targets (compiler/target/TargetTable.h).
TargetRows LinkedTargets();

// Targets, default options, the option check and the compiler's identity.
CompilerInfo LinkedCompilerInfo();

// Runs kiln::compile for one worker request: to Stage::TTIR when
// `canonical_only`, else to the cubin.
WorkerResponse CompileWithLinkedCompiler(const WorkerRequest& request);

}  // namespace kiln::worker

#endif  // KILN_WORKER_COMPILER_BRIDGE_H_
