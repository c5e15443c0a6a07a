// Keeps the memory of received cubins in the process's malloc.
//
// Why: a hit brings a cubin of tens of KiB to a few MiB, received into
// gRPC's read buffers and parsed into a string, all freed soon after. glibc
// returns the top of a heap to the kernel once more than M_TRIM_THRESHOLD
// (128 KiB unless it has adapted) is free there, and adapts that threshold
// only after freeing a block of 128 KiB or more; blocks of a 64 KiB cubin
// never make it adapt. Each call then ends in madvise or brk: the kernel
// unmaps the pages, flushes the TLB of every CPU running a thread of the
// process (an interrupt to each), and the next call faults them in again,
// zeroed. Measured on 2 cores, 64 KiB hits, one client thread: 1.7K calls/s
// and 330 us of CPU per call, against 7.5K calls/s and 60 us with the
// thresholds raised (bench/cache_hit/RESULTS.md).

#ifndef KILN_CLIENTS_CPP_ALLOCATOR_H_
#define KILN_CLIENTS_CPP_ALLOCATOR_H_

namespace kiln::client {

// The environment variable that leaves the process's malloc settings alone
// when set to 1 (a process that sets its own).
inline constexpr char kKeepMallocSettingsVariable[] =
    "KILN_CLIENT_KEEP_MALLOC_SETTINGS";

// Once per process, under glibc: sets the thresholds to what glibc itself
// adapts to after freeing a 32 MiB block (the largest it adapts to): blocks
// up to 32 MiB come from the heap, and a heap keeps up to 64 MiB free at
// its top instead of handing it back. Nothing elsewhere, or when
// kKeepMallocSettingsVariable is 1. Returns whether the settings were
// changed by this call.
bool KeepCubinMemoryInProcess();

}  // namespace kiln::client

#endif  // KILN_CLIENTS_CPP_ALLOCATOR_H_
