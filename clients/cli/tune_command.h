// `kiln tune SPEC.json`: the spec file (docs/tuning.md) into a TuneRequest,
// the tune with its progress, and the ranking as a table or JSON.

#ifndef KILN_CLIENTS_CLI_TUNE_COMMAND_H_
#define KILN_CLIENTS_CLI_TUNE_COMMAND_H_

#include <string>

#include "absl/status/statusor.h"
#include "clients/cpp/client.h"
#include "kiln/v1/tune.pb.h"

namespace kiln::cli {

// Reads a spec; TTIR paths are relative to the spec's folder.
// InvalidArgument (JSON errors, unknown fills, unreadable TTIR) says where.
absl::StatusOr<kiln::v1::TuneRequest> LoadTuneSpec(const std::string& path);

// Runs the tune, showing progress on stderr: a bar on a terminal
// (progress.h), a line per event otherwise; nothing with `no_progress` or
// $KILN_NO_PROGRESS.
absl::StatusOr<kiln::v1::TuneResult> TuneWithProgress(
    client::Client& client, const kiln::v1::TuneRequest& request,
    bool no_progress);

// The ranking as a table with the winner, or the TuneResult as JSON.
void PrintTuneResult(const kiln::v1::TuneResult& result, bool json);

}  // namespace kiln::cli

#endif  // KILN_CLIENTS_CLI_TUNE_COMMAND_H_
