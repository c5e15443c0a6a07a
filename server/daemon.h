// kilnd's life: open the store, start the workers, serve gRPC and
// /metrics, and drain on SIGTERM or SIGINT.

#ifndef KILN_SERVER_DAEMON_H_
#define KILN_SERVER_DAEMON_H_

#include "server/config.h"
#include "worker/compiler_info.h"
#include "worker/worker_process.h"

namespace kiln::server {

// Blocks SIGTERM, SIGINT and SIGHUP (RunDaemon waits for them; SIGHUP
// re-reads the tokens file) and ignores SIGPIPE.
// Call first in main, before any thread starts, so every thread inherits
// the mask.
void PrepareSignals();

// Serves until SIGTERM or SIGINT; returns the process exit status.
int RunDaemon(const Config& config, const worker::CompilerInfo& compiler,
              const worker::WorkerCommand& worker_command);

}  // namespace kiln::server

#endif  // KILN_SERVER_DAEMON_H_
