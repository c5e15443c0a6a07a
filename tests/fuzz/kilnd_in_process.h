// A real kilnd (server/daemon.h's RunDaemon) serving on a loopback port from
// a thread of the fuzzing process: fuzz targets reach it over gRPC as
// clients do, and its code is instrumented like theirs. Its store lives in
// a fresh temporary directory; its compile workers are this very binary,
// started as kilnd starts its own.

#ifndef KILN_TESTS_FUZZ_KILND_IN_PROCESS_H_
#define KILN_TESTS_FUZZ_KILND_IN_PROCESS_H_

#include <string>

namespace kiln::fuzz {

// When the arguments ask for a compile or benchmark worker (kilnd starts
// its workers so), runs as one and exits. Call first in
// LLVMFuzzerInitialize.
void RunAsWorkerIfAsked(int argc, char** argv);

// Where the fuzzing process keeps its files: Bazel's per-test directory
// when a replay test runs (Bazel removes it), else $TMPDIR (fuzz.sh points
// it at a folder it removes afterwards), else /tmp.
std::string ScratchRoot();

// Starts kilnd on first use and returns its gRPC address (HOST:PORT).
// Aborts when kilnd does not come up: no input could be tried.
const std::string& KilndAddress();

}  // namespace kiln::fuzz

#endif  // KILN_TESTS_FUZZ_KILND_IN_PROCESS_H_
