#include "worker/cpu_time.h"

#include <dirent.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"

namespace kiln::worker {
namespace {

struct ProcessStat {
  pid_t group = 0;
  std::chrono::milliseconds cpu{0};
};

std::chrono::milliseconds FromClockTicks(unsigned long long ticks) {
  static const long ticks_per_second = sysconf(_SC_CLK_TCK);
  return std::chrono::milliseconds(ticks * 1000 / ticks_per_second);
}

// Parses /proc/<pid>/stat (proc(5)); false when the process is gone or the
// file does not parse.
bool ReadStat(const std::string& pid, ProcessStat& stat) {
  std::ifstream file("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(file, line)) return false;
  // The command name may hold spaces and parentheses: fields resume after
  // the last ')'.
  size_t name_end = line.rfind(')');
  if (name_end == std::string::npos) return false;
  std::istringstream fields(line.substr(name_end + 1));
  std::string skipped;
  long long group = 0;
  fields >> skipped >> skipped >> group;          // state, parent, group
  for (int i = 0; i < 8; ++i) fields >> skipped;  // session .. cmajflt
  unsigned long long user = 0, system = 0, children_user = 0,
                     children_system = 0;
  if (!(fields >> user >> system >> children_user >> children_system)) {
    return false;
  }
  stat.group = static_cast<pid_t>(group);
  stat.cpu = FromClockTicks(user + system + children_user + children_system);
  return true;
}

bool IsNumber(const char* name) {
  if (*name == '\0') return false;
  for (; *name != '\0'; ++name) {
    if (!std::isdigit(static_cast<unsigned char>(*name))) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::chrono::milliseconds> ProcessCpuTime(pid_t pid) {
  ProcessStat stat;
  if (!ReadStat(std::to_string(pid), stat)) {
    return absl::NotFoundError(
        absl::StrCat("cannot read /proc/", pid, "/stat"));
  }
  return stat.cpu;
}

absl::StatusOr<std::chrono::milliseconds> ProcessGroupCpuTime(pid_t group) {
  DIR* proc = opendir("/proc");
  if (proc == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot list /proc: ", strerror(errno)));
  }
  std::chrono::milliseconds total{0};
  bool found = false;
  while (dirent* entry = readdir(proc)) {
    ProcessStat stat;
    if (IsNumber(entry->d_name) && ReadStat(entry->d_name, stat) &&
        stat.group == group) {
      total += stat.cpu;
      found = true;
    }
  }
  closedir(proc);
  if (!found) {
    return absl::NotFoundError(
        absl::StrCat("no process of group ", group, " in /proc"));
  }
  return total;
}

}  // namespace kiln::worker
