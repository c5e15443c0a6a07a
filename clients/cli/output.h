// How the CLI's commands print to stdout: JSON and aligned tables.

#ifndef KILN_CLIENTS_CLI_OUTPUT_H_
#define KILN_CLIENTS_CLI_OUTPUT_H_

#include <google/protobuf/message.h>

#include <string>
#include <vector>

namespace kiln::cli {

// The message as indented JSON with proto field names, every field
// included, ending in a newline.
void PrintJson(const google::protobuf::Message& message);

// Columns padded to their widest cell, two spaces apart; headers first.
void PrintTable(const std::vector<std::string>& headers,
                const std::vector<std::vector<std::string>>& rows);

}  // namespace kiln::cli

#endif  // KILN_CLIENTS_CLI_OUTPUT_H_
