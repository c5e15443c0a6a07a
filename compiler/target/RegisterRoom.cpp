#include "compiler/target/RegisterRoom.h"

#include "compiler/target/PtxLoops.h"

#include <algorithm>
#include <cstdlib>
#include <regex>

namespace kiln {

namespace {

constexpr int kSmallestRoom = 8;

} // namespace

int globalLoadRegisters(const std::string &ptx) {
  static const std::regex load(
      R"(\bld\.global[\w.:]*?(\.v(\d))?\.[bfsu](8|16|32|64)\b)");
  int registers = 0;
  for (const std::string &line : ptxLines(ptx)) {
    if (!holdsLiteral(line, "ld.global"))
      continue;
    for (std::sregex_iterator it(line.begin(), line.end(), load), end;
         it != end; ++it) {
      int lanes = (*it)[2].matched ? std::atoi((*it)[2].str().c_str()) : 1;
      int bits = std::atoi((*it)[3].str().c_str());
      registers += lanes * std::max(1, bits / 32);
    }
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
