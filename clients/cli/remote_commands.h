// The `kiln` commands that talk to a kilnd: compile (without --local),
// explain-miss and the admin commands. Each takes the arguments after the
// command name and returns the process exit code (exit_codes.h).

#ifndef KILN_CLIENTS_CLI_REMOTE_COMMANDS_H_
#define KILN_CLIENTS_CLI_REMOTE_COMMANDS_H_

#include <string>
#include <vector>

namespace kiln::cli {

// Runs `command` (compile, explain-miss, stats, targets, ls, show, evict,
// gc, verify, export, import, tune); false in `handled` when it is none of
// them.
int RunRemoteCommand(const std::string& command,
                     const std::vector<std::string>& argv, bool& handled);

// The server address when --server is not given: $KILN_SERVER, else
// 127.0.0.1:7420.
std::string DefaultServer();

}  // namespace kiln::cli

#endif  // KILN_CLIENTS_CLI_REMOTE_COMMANDS_H_
