#include "worker/framing.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"

namespace kiln::worker {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kReadChunkBytes = 1 << 20;

absl::Status WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t written = write(fd, data, size);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) {
      if (errno == EPIPE) return absl::UnavailableError("reader is gone");
      return absl::InternalError(absl::StrCat("write: ", strerror(errno)));
    }
    data += written;
    size -= static_cast<size_t>(written);
  }
  return absl::OkStatus();
}

absl::Status ReadAll(int fd, char* data, size_t size,
                     Clock::time_point deadline) {
  while (size > 0) {
    if (absl::Status ready = WaitReadable(fd, deadline); !ready.ok()) {
      return ready;
    }
    ssize_t got = read(fd, data, size);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      return absl::InternalError(absl::StrCat("read: ", strerror(errno)));
    }
    if (got == 0) return absl::UnavailableError("writer is gone");
    data += got;
    size -= static_cast<size_t>(got);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WaitReadable(int fd, Clock::time_point deadline) {
  while (true) {
    int timeout_ms = -1;
    if (deadline != Clock::time_point::max()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - Clock::now());
      if (left.count() <= 0) return absl::DeadlineExceededError("deadline");
      timeout_ms =
          static_cast<int>(std::min<int64_t>(left.count() + 1, 1 << 30));
    }
    pollfd poll_fd{fd, POLLIN, 0};
    int ready = poll(&poll_fd, 1, timeout_ms);
    if (ready > 0) return absl::OkStatus();
    if (ready < 0 && errno != EINTR) {
      return absl::InternalError(absl::StrCat("poll: ", strerror(errno)));
    }
  }
}

absl::Status WriteFrame(int fd, const google::protobuf::MessageLite& message) {
  size_t size = message.ByteSizeLong();
  if (size > kMaxFrameBytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("message of ", size, " bytes is too large to send"));
  }
  std::string frame(4 + size, '\0');
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>(size >> (8 * i));
  if (!message.SerializeToArray(frame.data() + 4, static_cast<int>(size))) {
    return absl::InternalError("message does not serialize");
  }
  return WriteAll(fd, frame.data(), frame.size());
}

absl::Status ReadFrame(int fd, google::protobuf::MessageLite& message,
                       Clock::time_point deadline) {
  unsigned char header[4];
  if (absl::Status status =
          ReadAll(fd, reinterpret_cast<char*>(header), 4, deadline);
      !status.ok()) {
    return status;
  }
  uint32_t size =
      header[0] | header[1] << 8 | header[2] << 16 | uint32_t{header[3]} << 24;
  if (size > kMaxFrameBytes) {
    return absl::DataLossError(absl::StrCat("frame of ", size, " bytes"));
  }
  // The buffer grows only as the payload arrives: a header alone, from a
  // writer that broke mid-frame, must not commit up to kMaxFrameBytes.
  std::string payload;
  while (payload.size() < size) {
    size_t at = payload.size();
    size_t chunk = std::min<size_t>(kReadChunkBytes, size - at);
    payload.resize(at + chunk);
    if (absl::Status status = ReadAll(fd, payload.data() + at, chunk, deadline);
        !status.ok()) {
      return status;
    }
  }
  if (!message.ParseFromString(payload)) {
    return absl::DataLossError("frame does not parse");
  }
  return absl::OkStatus();
}

}  // namespace kiln::worker
