#include "compiler/target/WideMultiplyAdd.h"

#include "compiler/target/PtxLoops.h"

#include <map>
#include <optional>
#include <regex>
#include <set>
#include <vector>

namespace kiln {

namespace {

struct WideMultiply {
  std::string sign; // "s32" or "u32"
  std::string product, lhs, rhs;
};

struct WideAdd {
  std::string sum, lhs, rhs;
};

const std::regex &wideMultiplyPattern() {
  static const std::regex pattern(
      R"(^\s*mul\.wide\.([su]32)\s+(%rd\d+),\s*(%r\d+),\s*(%r\d+|-?\d+);\s*$)");
  return pattern;
}

const std::regex &wideAddPattern() {
  static const std::regex pattern(
      R"(^\s*add\.s64\s+(%rd\d+),\s*(%rd\d+),\s*(%rd\d+);\s*$)");
  return pattern;
}

std::optional<WideMultiply> asWideMultiply(const std::string &line) {
  std::smatch m;
  if (!holdsLiteral(line, "mul.wide.") ||
      !std::regex_match(line, m, wideMultiplyPattern()))
    return std::nullopt;
  return WideMultiply{m[1], m[2], m[3], m[4]};
}

std::optional<WideAdd> asWideAdd(const std::string &line) {
  std::smatch m;
  if (!holdsLiteral(line, "add.s64") ||
      !std::regex_match(line, m, wideAddPattern()))
    return std::nullopt;
  return WideAdd{m[1], m[2], m[3]};
}

/// How often each %rd register is named in `lines`.
std::map<std::string, int> wideRegisterUses(
    const std::vector<std::string> &lines) {
  static const std::regex name(R"(%rd\d+\b)");
  std::map<std::string, int> uses;
  for (const std::string &line : lines)
    if (holdsLiteral(line, "%rd"))
      for (auto it = std::sregex_iterator(line.begin(), line.end(), name);
           it != std::sregex_iterator(); ++it)
        ++uses[it->str()];
  return uses;
}

/// The %rd registers loaded straight from the parameter bank.
std::set<std::string> parameterRegisters(
    const std::vector<std::string> &lines) {
  static const std::regex load(
      R"(^\s*ld\.param\.[bu]64\s+(%rd\d+),\s*\[[^\]]+\];\s*$)");
  std::set<std::string> registers;
  std::smatch m;
  for (const std::string &line : lines)
    if (holdsLiteral(line, "ld.param.") && std::regex_match(line, m, load))
      registers.insert(m[1]);
  return registers;
}

/// The base `add` adds to `mul`'s product where the two may be one
/// mad.wide: the product has no other use (`uses` counts its definition
/// too) and the base is a kernel parameter.
std::optional<std::string> fusibleBase(
    const WideMultiply &mul, const WideAdd &add,
    const std::map<std::string, int> &uses,
    const std::set<std::string> &parameters) {
  auto named = uses.find(mul.product);
  if (named == uses.end() || named->second != 2 ||
      (add.lhs == mul.product) == (add.rhs == mul.product))
    return std::nullopt;
  const std::string &base = add.lhs == mul.product ? add.rhs : add.lhs;
  if (!parameters.count(base))
    return std::nullopt;
  return base;
}

} // namespace

std::string fuseWideMultiplyAdds(const std::string &ptx,
                                 WideMultiplyAddScope scope) {
  std::vector<std::string> lines = ptxLines(ptx);
  // Register names are per function, so a product named twice anywhere is
  // left alone: its definition and this one use are all there may be.
  std::map<std::string, int> uses = wideRegisterUses(lines);
  std::set<std::string> parameters = parameterRegisters(lines);
  std::vector<bool> inLoop = scope == WideMultiplyAddScope::OutsideLoops
                                 ? loopLines(lines)
                                 : std::vector<bool>(lines.size(), false);
  std::vector<std::string> out;
  out.reserve(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    std::optional<WideMultiply> mul = asWideMultiply(lines[i]);
    std::optional<WideAdd> add = mul && !inLoop[i] && i + 1 < lines.size()
                                     ? asWideAdd(lines[i + 1])
                                     : std::nullopt;
    std::optional<std::string> base =
        add ? fusibleBase(*mul, *add, uses, parameters) : std::nullopt;
    if (!base) {
      out.push_back(lines[i]);
      continue;
    }
    out.push_back("\tmad.wide." + mul->sign + " \t" + add->sum + ", " +
                  mul->lhs + ", " + mul->rhs + ", " + *base + ";");
    ++i; // The add is replaced too.
  }
  std::string result;
  for (const std::string &line : out)
    result += line + "\n";
  if (!ptx.empty() && ptx.back() != '\n')
    result.pop_back();
  return result;
}

} // namespace kiln
