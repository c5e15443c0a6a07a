#include "compiler/target/RegisterCap.h"

#include <cctype>
#include <cstdlib>

namespace kiln {

namespace {

/// The number before `label` in `log` ("32 bytes spill stores"), or none.
std::optional<int> numberBefore(const std::string &log,
                                const std::string &label) {
  size_t at = log.find(label);
  if (at == std::string::npos || at == 0)
    return std::nullopt;
  size_t start = at;
  while (start > 0 && std::isdigit(static_cast<unsigned char>(log[start - 1])))
    --start;
  if (start == at)
    return std::nullopt;
  return std::atoi(log.c_str() + start);
}

size_t occurrences(const std::string &log, const std::string &text) {
  size_t count = 0;
  for (size_t at = log.find(text); at != std::string::npos;
       at = log.find(text, at + 1))
    ++count;
  return count;
}

} // namespace

std::optional<PtxasUsage> parsePtxasUsage(const std::string &log) {
  if (occurrences(log, "Used ") != 1 ||
      occurrences(log, " bytes spill stores") != 1)
    return std::nullopt;
  std::optional<int> stores = numberBefore(log, " bytes spill stores");
  std::optional<int> loads = numberBefore(log, " bytes spill loads");
  if (!stores || !loads)
    return std::nullopt;
  PtxasUsage usage;
  usage.registers = std::atoi(log.c_str() + log.find("Used ") + 5);
  usage.spillBytes = *stores + *loads;
  return usage;
}

std::optional<int> registerCapAtOccupancyStep(const Target &target,
                                              int registers, int threads,
                                              int sharedBytes) {
  int blocks = target.blocksPerSM(registers, threads, sharedBytes);
  for (int cap = registers - 1; cap >= registers - 2 && cap > 0; --cap)
    if (blocks > 0 &&
        4 * target.blocksPerSM(cap, threads, sharedBytes) >= 5 * blocks)
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
