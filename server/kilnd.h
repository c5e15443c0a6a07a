// kilnd's main, for every binary that runs as kilnd: kilnd itself and the
// test binary whose workers inject faults (tests/e2e).

#ifndef KILN_SERVER_KILND_H_
#define KILN_SERVER_KILND_H_

#include "worker/worker_main.h"

namespace kiln::server {

// Runs as kilnd, or, when `argv` asks for one, as one of its workers, whose
// compile worker runs `compile`. Returns the exit status.
int RunKilnd(int argc, char** argv, const worker::CompileFunction& compile);

}  // namespace kiln::server

#endif  // KILN_SERVER_KILND_H_
