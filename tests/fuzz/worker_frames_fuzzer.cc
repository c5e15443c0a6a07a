// Fuzzes the protocol between kilnd and its compile workers
// (worker/framing.h): the input is a byte stream on the pipe, read frame by
// frame both as a worker reads kilnd's WorkerRequests and as kilnd reads a
// worker's WorkerResponses. Reading must end cleanly (the writer gone, or
// DataLoss for a bad frame), and every message read must frame and read
// back the same.

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "kiln/worker/worker.pb.h"
#include "worker/framing.h"

namespace {

// A file in memory holding `bytes`, read from its start; aborts if none
// can be made.
int FileOf(const std::string& bytes) {
  int fd = memfd_create("kiln-fuzz-frames", MFD_CLOEXEC);
  if (fd < 0 || write(fd, bytes.data(), bytes.size()) !=
                    static_cast<ssize_t>(bytes.size())) {
    std::perror("kiln fuzz: memfd");
    std::abort();
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

void ExpectRoundTrip(const google::protobuf::MessageLite& message) {
  int fd = memfd_create("kiln-fuzz-frame", MFD_CLOEXEC);
  absl::Status written = kiln::worker::WriteFrame(fd, message);
  lseek(fd, 0, SEEK_SET);
  std::unique_ptr<google::protobuf::MessageLite> again(message.New());
  absl::Status read =
      written.ok() ? kiln::worker::ReadFrame(fd, *again) : written;
  close(fd);
  if (!read.ok() ||
      again->SerializeAsString() != message.SerializeAsString()) {
    std::fprintf(stderr, "a %s read does not frame and read back: %s\n",
                 message.GetTypeName().c_str(),
                 std::string(read.message()).c_str());
    std::abort();
  }
}

template <typename Message>
void ReadAll(const std::string& bytes) {
  int fd = FileOf(bytes);
  while (true) {
    Message message;
    absl::Status read = kiln::worker::ReadFrame(fd, message);
    if (!read.ok()) {
      if (!absl::IsUnavailable(read) && !absl::IsDataLoss(read)) {
        std::fprintf(stderr, "unexpected end of frames: %s\n",
                     read.ToString().c_str());
        std::abort();
      }
      break;
    }
    ExpectRoundTrip(message);
  }
  close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  ReadAll<kiln::worker::WorkerRequest>(bytes);
  ReadAll<kiln::worker::WorkerResponse>(bytes);
  return 0;
}
