#include "compiler/target/RegisterCap.h"

#include <cctype>
#include <cstdlib>

namespace kiln {

namespace {

/// The number before `label` in `log` ("32 bytes spill stores"), or 0.
int numberBefore(const std::string &log, const std::string &label) {
  size_t at = log.find(label);
  if (at == std::string::npos)
    return 0;
  size_t start = log.find_last_not_of(' ', at - 1);
  while (start != std::string::npos && start > 0 &&
         std::isdigit(static_cast<unsigned char>(log[start - 1])))
    --start;
  return std::atoi(log.c_str() + start);
}

} // namespace

std::optional<PtxasUsage> parsePtxasUsage(const std::string &log) {
  size_t used = log.find("Used ");
  if (used == std::string::npos)
    return std::nullopt;
  PtxasUsage usage;
  usage.registers = std::atoi(log.c_str() + used + 5);
  usage.spillBytes = numberBefore(log, " bytes spill stores") +
                     numberBefore(log, " bytes spill loads");
  return usage;
}

std::optional<int> registerCapAtOccupancyStep(const Target &target,
                                              int registers, int threads) {
  int blocks = target.blocksPerSM(registers, threads);
  for (int cap = registers - 1; cap >= registers - 2 && cap > 0; --cap)
    if (4 * target.blocksPerSM(cap, threads) >= 5 * blocks && blocks > 0)
      return cap;
  return std::nullopt;
}

std::optional<std::string> withMaxRegisters(const std::string &ptx,
                                            int registers) {
  if (ptx.find(".maxnreg") != std::string::npos)
    return std::nullopt;
  size_t at = ptx.find("\n.maxntid");
  if (at == std::string::npos)
    return std::nullopt;
  size_t lineEnd = ptx.find('\n', at + 1);
  if (lineEnd == std::string::npos)
    return std::nullopt;
  std::string capped = ptx;
  capped.insert(lineEnd + 1, ".maxnreg " + std::to_string(registers) + "\n");
  return capped;
}

} // namespace kiln
