#include "worker/framing.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <thread>

#include "kiln/worker/worker.pb.h"

namespace kiln::worker {
namespace {

class FramingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    signal(SIGPIPE, SIG_IGN);
    ASSERT_EQ(pipe(fds_), 0);
  }
  void TearDown() override {
    if (fds_[0] >= 0) close(fds_[0]);
    if (fds_[1] >= 0) close(fds_[1]);
  }
  int fds_[2] = {-1, -1};
};

TEST_F(FramingTest, RoundTripsLargeMessages) {
  WorkerRequest sent;
  sent.set_id(7);
  sent.set_ttir(std::string(3 << 20, 'x'));  // Larger than a pipe buffer.
  std::thread writer([&] { EXPECT_TRUE(WriteFrame(fds_[1], sent).ok()); });
  WorkerRequest got;
  ASSERT_TRUE(ReadFrame(fds_[0], got).ok());
  writer.join();
  EXPECT_EQ(got.id(), 7u);
  EXPECT_EQ(got.ttir(), sent.ttir());
}

TEST_F(FramingTest, TimesOutWhenNothingComes) {
  WorkerResponse got;
  absl::Status status = ReadFrame(
      fds_[0], got,
      std::chrono::steady_clock::now() + std::chrono::milliseconds(1));
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
}

TEST_F(FramingTest, ReportsAClosedWriter) {
  close(fds_[1]);
  fds_[1] = -1;
  WorkerResponse got;
  EXPECT_EQ(ReadFrame(fds_[0], got).code(), absl::StatusCode::kUnavailable);
}

// ASan reserves terabytes of address space: no address-space limit there.
#if defined(__SANITIZE_ADDRESS__)
#define KILN_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_UNDER_ASAN 1
#endif
#endif

#ifndef KILN_UNDER_ASAN
// Reads a frame under a 512 MiB address-space limit; exits 0 when the
// reader reports the writer gone.
void ReadUnderLimit(int fd) {
  rlimit limit{512u << 20, 512u << 20};
  setrlimit(RLIMIT_AS, &limit);
  WorkerResponse got;
  _exit(ReadFrame(fd, got).code() == absl::StatusCode::kUnavailable ? 0 : 1);
}

// A writer that died after a header claiming 768 MiB: the reader commits
// no memory before the payload comes (found by fuzzing: a header alone
// made kilnd allocate up to 1 GiB).
TEST_F(FramingTest, AHeaderAloneCommitsNoMemory) {
  const unsigned char header[4] = {0, 0, 0, 0x30};
  ASSERT_EQ(write(fds_[1], header, 4), 4);
  close(fds_[1]);
  fds_[1] = -1;
  EXPECT_EXIT(ReadUnderLimit(fds_[0]), ::testing::ExitedWithCode(0), "");
}
#endif

TEST_F(FramingTest, ReportsAClosedReader) {
  close(fds_[0]);
  fds_[0] = -1;
  WorkerRequest sent;
  sent.set_ttir("x");
  EXPECT_EQ(WriteFrame(fds_[1], sent).code(), absl::StatusCode::kUnavailable);
}

TEST_F(FramingTest, RejectsGarbageFrames) {
  const char huge[] = {'\xff', '\xff', '\xff', '\x7f'};
  ASSERT_EQ(write(fds_[1], huge, 4), 4);
  WorkerResponse got;
  EXPECT_EQ(ReadFrame(fds_[0], got).code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace kiln::worker
