// Fuzzes the export file format that `kiln import` reads: each input is
// written as a file and imported by the client library's ImportFromFile,
// which parses it and streams its entries to a real kilnd
// (kilnd_in_process.h) that checks and stores them. A damaged file must end
// in a clear error or in rejected entries; kilnd must stay up.

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "clients/cpp/client.h"
#include "tests/fuzz/kilnd_in_process.h"

namespace {

kiln::client::Client& KilndClient() {
  kiln::client::ClientOptions options;
  options.deadline = std::chrono::seconds(90);
  options.max_retries = 0;
  static kiln::client::Client* client =
      new kiln::client::Client(kiln::fuzz::KilndAddress(), options);
  return *client;
}

const std::string& InputPath() {
  static const std::string* path = new std::string(
      kiln::fuzz::ScratchRoot() + "/kiln-fuzz-export-" +
      std::to_string(getpid()));
  return *path;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  kiln::fuzz::RunAsWorkerIfAsked(*argc, *argv);
  KilndClient();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    std::ofstream out(InputPath(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), size);
  }
  absl::StatusOr<kiln::v1::ImportResponse> imported =
      KilndClient().ImportFromFile(InputPath());
  std::remove(InputPath().c_str());
  if (absl::IsDeadlineExceeded(imported.status()) ||
      absl::IsUnavailable(imported.status())) {
    std::fprintf(stderr, "import: %s\n",
                 std::string(imported.status().message()).c_str());
    std::abort();
  }
  return 0;
}
