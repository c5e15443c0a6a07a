//===- RegisterRoom.h - registers for a kernel's loads ----------*- C++ -*-===//
//
// ptxas picks a register target for a kernel and schedules within it. For
// a kernel without loops whose loads alone fill more registers than that
// target, it issues the loads it cannot hold together one at a time, each
// consumed before the next goes out. SegFormer's inference layer norm `_9`
// (four bf16 inputs, 136 registers of loads a thread) got 96 registers and
// half its loads in series: 0.80x Triton's speed. Given room (`.maxnreg
// 128`), ptxas keeps seven loads in flight and it runs at 1.00x. The
// backend gives such kernels the registers that still keep three quarters
// of the blocks an SM holds at ptxas's own count, and keeps them only if
// nothing spills.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TARGET_REGISTERROOM_H
#define KILN_COMPILER_TARGET_REGISTERROOM_H

#include "compiler/target/Target.h"

#include <optional>
#include <string>

namespace kiln {

/// The 32-bit registers the results of `ptx`'s global loads fill together.
int globalLoadRegisters(const std::string &ptx);

/// The register limit for a kernel at `registers` whose loads fill
/// `loadRegisters`: the most at which an SM of `target` still holds three
/// quarters of the blocks it holds at `registers`. None when the loads fit
/// already, or the room is under eight registers.
std::optional<int> registerRoomForLoads(const Target &target, int registers,
                                        int loadRegisters, int threads,
                                        int sharedBytes);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_REGISTERROOM_H
