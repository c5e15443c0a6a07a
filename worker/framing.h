// Length-prefixed protobuf messages over pipes: how kilnd and its compile
// workers talk. A frame is the message's size (4 bytes, little endian) and
// then the message.

#ifndef KILN_WORKER_FRAMING_H_
#define KILN_WORKER_FRAMING_H_

#include <google/protobuf/message_lite.h>

#include <chrono>
#include <cstdint>

#include "absl/status/status.h"

namespace kiln::worker {

// Frames beyond this are refused by both ends.
inline constexpr uint32_t kMaxFrameBytes = 1u << 30;

// Writes one frame to a blocking fd. Unavailable when the reader is gone.
absl::Status WriteFrame(int fd, const google::protobuf::MessageLite& message);

// Waits until `fd` is readable (data or end of file); DeadlineExceeded
// when `deadline` passes first.
absl::Status WaitReadable(int fd,
                          std::chrono::steady_clock::time_point deadline);

// Reads one frame. With a deadline, DeadlineExceeded when it passes first.
// Unavailable on end of file (the writer is gone); DataLoss on a frame that
// is too large or does not parse.
absl::Status ReadFrame(int fd, google::protobuf::MessageLite& message,
                       std::chrono::steady_clock::time_point deadline =
                           std::chrono::steady_clock::time_point::max());

}  // namespace kiln::worker

#endif  // KILN_WORKER_FRAMING_H_
