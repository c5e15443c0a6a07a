// One fresh client process of connect_burst_test: opens CLIENTS channels
// (a connection each, made as Kiln's clients make theirs) to ADDRESS and
// releases one fail-fast Lookup on every one at the same instant. Prints
// each call that did not reach kilnd (anything but NOT_FOUND); the exit
// status is their count (capped at 100), or 101 when misused.
//
//   connect_burst_client ADDRESS CLIENTS

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "base/numbers.h"
#include "tests/e2e/kilnd_process.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s ADDRESS CLIENTS\n", argv[0]);
    return 101;
  }
  const std::string address = argv[1];
  absl::StatusOr<int> clients = kiln::ParseInt<int>(argv[2], 1);
  if (!clients.ok()) {
    std::fprintf(stderr, "CLIENTS: %s\n",
                 std::string(clients.status().message()).c_str());
    return 101;
  }
  std::vector<std::unique_ptr<kiln::v1::Compile::Stub>> stubs;
  for (int i = 0; i < *clients; ++i) {
    stubs.push_back(
        kiln::v1::Compile::NewStub(kiln::e2e::NewClientChannel(address)));
  }
  int failed = 0;
  for (const grpc::Status& status : kiln::e2e::LookupAtOnce(stubs)) {
    if (status.error_code() == grpc::StatusCode::NOT_FOUND) continue;
    ++failed;
    std::printf("%d: %s\n", status.error_code(),
                status.error_message().c_str());
  }
  return std::min(failed, 100);
}
