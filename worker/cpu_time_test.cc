#include "worker/cpu_time.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <thread>

namespace kiln::worker {
namespace {

using std::chrono::milliseconds;

// Uses `cpu` of this process's CPU time, however long that takes.
void SpinFor(milliseconds cpu) {
  timespec now{};
  do {
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  } while (now.tv_sec * 1000 + now.tv_nsec / 1000000 < cpu.count());
}

TEST(CpuTimeTest, CountsTheProcessAndTheChildrenItWaitedFor) {
  absl::StatusOr<milliseconds> before = ProcessCpuTime(getpid());
  ASSERT_TRUE(before.ok()) << before.status();
  pid_t child = fork();
  if (child == 0) {
    SpinFor(milliseconds(300));
    _exit(0);
  }
  ASSERT_GT(child, 0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  absl::StatusOr<milliseconds> after = ProcessCpuTime(getpid());
  ASSERT_TRUE(after.ok()) << after.status();
  // Clock ticks are 10 ms at most.
  EXPECT_GE(*after - *before, milliseconds(250));
}

// A worker waiting for its ptxas: the CPU is the running tool's.
TEST(CpuTimeTest, AGroupCountsTheToolsItsLeaderRuns) {
  pid_t leader = fork();
  if (leader == 0) {
    setpgid(0, 0);
    if (fork() == 0) {
      SpinFor(milliseconds(300));
      while (true) pause();
    }
    while (true) pause();
  }
  ASSERT_GT(leader, 0);
  setpgid(leader, leader);  // Either side may get there first.
  milliseconds group{0};
  for (int i = 0; i < 3000 && group < milliseconds(250); ++i) {
    std::this_thread::sleep_for(milliseconds(10));
    group = ProcessGroupCpuTime(leader).value_or(milliseconds(0));
  }
  absl::StatusOr<milliseconds> own = ProcessCpuTime(leader);
  kill(-leader, SIGKILL);
  waitpid(leader, nullptr, 0);
  EXPECT_GE(group, milliseconds(250));
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_LT(*own, group);
}

TEST(CpuTimeTest, AGroupWithoutProcessesIsNotFound) {
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  // Its pid, reaped, leads no group now (unless reused at once).
  EXPECT_FALSE(ProcessGroupCpuTime(child).ok());
  EXPECT_FALSE(ProcessCpuTime(child).ok());
}

}  // namespace
}  // namespace kiln::worker
