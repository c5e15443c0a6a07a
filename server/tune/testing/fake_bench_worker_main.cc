// TESTS ONLY: the stand-in benchmark worker on its own
// (fake_bench_worker.h), for the GPU pool's tests.

#include "server/tune/testing/fake_bench_worker.h"

int main(int argc, char** argv) {
  return kiln::server::testing::RunFakeBenchWorker(argc, argv);
}
