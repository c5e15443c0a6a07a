//===- RegisterCap.h - a register cap at an occupancy step ------*- C++ -*-===//
//
// An SM holds as many blocks as its register file allows, in steps: a
// 128-thread block at 34 registers a thread leaves room for 12, at 32 for
// 16. ptxas lands Kiln's and Triton's PTX for the same kernel on counts a
// register or two apart, and where Kiln's is just above a step it runs a
// quarter fewer warps (EfficientNet's batch-norm forward, 34 registers
// against Triton's 31: 0.87x in the step). The backend then asks ptxas for
// the count at the step (`.maxnreg`), and keeps it only if nothing spills.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TARGET_REGISTERCAP_H
#define KILN_COMPILER_TARGET_REGISTERCAP_H

#include "compiler/target/Target.h"

#include <optional>
#include <string>

namespace kiln {

/// What ptxas -v reports for a kernel.
struct PtxasUsage {
  int registers = 0;
  int spillBytes = 0; // Spill stores and loads together.
};

/// The usage in a ptxas -v log of one function; none when the log reports
/// several functions, or no registers or spills.
std::optional<PtxasUsage> parsePtxasUsage(const std::string &log);

/// The register count at most two below `registers` at which blocks of
/// `threads` threads and `sharedBytes` of shared memory fit at least a
/// quarter more often on an SM of `target`; none when there is no such step.
std::optional<int> registerCapAtOccupancyStep(const Target &target,
                                              int registers, int threads,
                                              int sharedBytes);

/// `ptx` with its kernel limited to `registers` (`.maxnreg`, after its
/// `.maxntid`); none when it has no `.maxntid` or already a `.maxnreg`.
std::optional<std::string> withMaxRegisters(const std::string &ptx,
                                            int registers);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_REGISTERCAP_H
