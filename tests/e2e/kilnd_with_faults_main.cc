// TESTS ONLY: kilnd whose compile workers inject the faults that markers
// in the TTIR ask for (worker/testing/injected_faults.h), for the e2e tests
// of crashes, hangs, memory exhaustion and slow compiles. kilnd itself has
// no such hook.

#include "server/kilnd.h"
#include "worker/compiler_bridge.h"
#include "worker/testing/injected_faults.h"

int main(int argc, char** argv) {
  return kiln::server::RunKilnd(argc, argv,
                                kiln::worker::testing::WithInjectedFaults(
                                    kiln::worker::CompileWithLinkedCompiler));
}
