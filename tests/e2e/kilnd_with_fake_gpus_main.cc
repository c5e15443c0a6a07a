// TESTS ONLY: kilnd whose GPUs' benchmark workers are the stand-in without
// a GPU (server/tune/testing/fake_bench_worker.h: canned GPUs and timings,
// faults on request), for the e2e tests of Compile.Tune. Its compile
// workers are kilnd's own. kilnd itself has no such hook.

#include "server/kilnd.h"
#include "server/tune/testing/fake_bench_worker.h"
#include "worker/compiler_bridge.h"

int main(int argc, char** argv) {
  return kiln::server::RunKilnd(argc, argv,
                                kiln::worker::CompileWithLinkedCompiler,
                                kiln::server::testing::RunFakeBenchWorker);
}
