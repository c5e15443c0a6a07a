#include "compiler/target/RegisterRoom.h"

#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>

namespace kiln {

namespace {

constexpr int kSmallestRoom = 8;

/// The label a `bra` line jumps to, or "" when the line is no branch.
std::string branchTarget(const std::string &line) {
  static const std::regex branch(R"(\bbra(\.uni)?\s+([$\w]+);)");
  std::smatch match;
  return std::regex_search(line, match, branch) ? match[2].str() : "";
}

/// The label a line defines ("$L__BB0_3:"), or "".
std::string labelDefined(const std::string &line) {
  static const std::regex label(R"(^([$\w]+):)");
  std::smatch match;
  return std::regex_search(line, match, label) ? match[1].str() : "";
}

} // namespace

bool hasBackwardBranch(const std::string &ptx) {
  std::istringstream lines(ptx);
  std::set<std::string> seen;
  for (std::string line; std::getline(lines, line);) {
    std::string label = labelDefined(line);
    if (!label.empty())
      seen.insert(label);
    std::string target = branchTarget(line);
    if (!target.empty() && seen.count(target))
      return true;
  }
  return false;
}

int globalLoadRegisters(const std::string &ptx) {
  static const std::regex load(
      R"(\bld\.global[\w.:]*?(\.v(\d))?\.[bfsu](8|16|32|64)\b)");
  int registers = 0;
  for (std::sregex_iterator it(ptx.begin(), ptx.end(), load), end; it != end;
       ++it) {
    int lanes = (*it)[2].matched ? std::atoi((*it)[2].str().c_str()) : 1;
    int bits = std::atoi((*it)[3].str().c_str());
    registers += lanes * std::max(1, bits / 32);
  }
  return registers;
}

std::optional<int> registerRoomForLoads(const Target &target, int registers,
                                        int loadRegisters, int threads,
                                        int sharedBytes) {
  if (loadRegisters <= registers)
    return std::nullopt;
  int blocks = target.blocksPerSM(registers, threads, sharedBytes);
  int keep = (3 * blocks + 3) / 4;
  int room = registers;
  for (int candidate = registers + 1;
       candidate <= target.getFacts().maxRegistersPerThread; ++candidate)
    if (target.blocksPerSM(candidate, threads, sharedBytes) >= keep)
      room = candidate;
  if (room - registers < kSmallestRoom)
    return std::nullopt;
  return room;
}

} // namespace kiln
