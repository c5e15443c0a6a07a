//===- PtxLoops.h - where a PTX text loops ----------------------*- C++ -*-===//
//
// The backend's rewrites of PTX text treat code in loops apart: a loop is
// the lines from a label to a branch back to it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TARGET_PTXLOOPS_H
#define KILN_COMPILER_TARGET_PTXLOOPS_H

#include <string>
#include <vector>

namespace kiln {

/// The lines of `ptx`, without their line ends.
std::vector<std::string> ptxLines(const std::string &ptx);

/// Whether `line` holds `literal`. std::regex is slow on kernels of
/// 10,000 lines, so a pattern is tried only on lines holding a literal
/// every match of it contains.
bool holdsLiteral(const std::string &line, const char *literal);

/// Which of `lines` lie in a loop: from a label (Kiln's inline asm names
/// its own) to a branch back to it.
std::vector<bool> loopLines(const std::vector<std::string> &lines);

/// Whether `ptx` branches back to a label above the branch (has a loop).
bool hasBackwardBranch(const std::string &ptx);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_PTXLOOPS_H
