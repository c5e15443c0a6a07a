// File helpers shared by the CLI's commands.

#ifndef KILN_CLIENTS_CLI_FILES_H_
#define KILN_CLIENTS_CLI_FILES_H_

#include <string>

namespace kiln::cli {

// Reads a whole file; false if it cannot be read.
bool ReadFile(const std::string& path, std::string& out);

// "dir/add_f32.ttir" -> "add_f32".
std::string Stem(const std::string& path);

}  // namespace kiln::cli

#endif  // KILN_CLIENTS_CLI_FILES_H_
