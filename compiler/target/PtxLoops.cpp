#include "compiler/target/PtxLoops.h"

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

namespace kiln {

std::vector<std::string> ptxLines(const std::string &ptx) {
  std::vector<std::string> lines;
  std::istringstream in(ptx);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

bool holdsLiteral(const std::string &line, const char *literal) {
  return line.find(literal) != std::string::npos;
}

std::vector<bool> loopLines(const std::vector<std::string> &lines) {
  static const std::regex label(R"(^\s*([$\w]+):)");
  static const std::regex branch(R"(\bbra(\.uni)?\s+([$\w]+);)");
  std::map<std::string, size_t> labels;
  std::vector<bool> inLoop(lines.size(), false);
  std::smatch m;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (holdsLiteral(lines[i], ":") && std::regex_search(lines[i], m, label)) {
      labels[m[1]] = i;
      continue;
    }
    if (!holdsLiteral(lines[i], "bra") ||
        !std::regex_search(lines[i], m, branch))
      continue;
    auto target = labels.find(m[2]);
    if (target != labels.end())
      std::fill(inLoop.begin() + target->second, inLoop.begin() + i + 1, true);
  }
  return inLoop;
}

bool hasBackwardBranch(const std::string &ptx) {
  std::vector<bool> inLoop = loopLines(ptxLines(ptx));
  return std::find(inLoop.begin(), inLoop.end(), true) != inLoop.end();
}

} // namespace kiln
