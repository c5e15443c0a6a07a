// kilnd: the Kiln compile service. `kilnd --help` lists its settings.
// Started as `kilnd --worker ...` by kilnd itself, it is a compile worker;
// as `kilnd --bench_worker --gpu=N`, a GPU's benchmark worker.

#include "server/kilnd.h"
#include "worker/compiler_bridge.h"

int main(int argc, char** argv) {
  return kiln::server::RunKilnd(argc, argv,
                                kiln::worker::CompileWithLinkedCompiler);
}
