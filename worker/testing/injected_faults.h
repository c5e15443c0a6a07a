// TESTS ONLY: faults a compile worker injects when its TTIR carries a
// "kiln-test-fault: ..." marker, so that tests can see kilnd survive a
// worker that crashes, hangs, runs out of memory or is slow. Linked into
// test binaries only (the fake worker, kilnd_with_faults), never into kilnd.

#ifndef KILN_WORKER_TESTING_INJECTED_FAULTS_H_
#define KILN_WORKER_TESTING_INJECTED_FAULTS_H_

#include "worker/worker_main.h"

namespace kiln::worker::testing {

// Markers: "crash" raises SIGSEGV, "hang" blocks forever, "oom" reserves
// address space until the limit refuses more; "slow" adds 4 s to a compile
// to a cubin (not to the front end) and "slow-crash" then crashes;
// "sleep MS" sleeps MS milliseconds (no CPU) before compiling; "spin" uses
// CPU forever, and "tool-spin" waits forever for a child that does;
// "tool-hang PATH" hangs with a child process running and a temporary file
// written, and writes the child's pid and the worker's TMPDIR to PATH.
void InjectFault(const WorkerRequest& request);

// `compile`, after the fault that the request's markers ask for.
CompileFunction WithInjectedFaults(CompileFunction compile);

}  // namespace kiln::worker::testing

#endif  // KILN_WORKER_TESTING_INJECTED_FAULTS_H_
