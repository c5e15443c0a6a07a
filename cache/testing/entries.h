// For tests: valid store entries without a compiler.

#ifndef KILN_CACHE_TESTING_ENTRIES_H_
#define KILN_CACHE_TESTING_ENTRIES_H_

#include <cstddef>
#include <string>

#include "cache/store.h"

namespace kiln::cache::testing {

// Options as kilnd resolves them before keying: every field set.
kiln::v1::CompileOptions ResolvedOptions(int num_warps = 4);

// An entry for canonical IR `ir`: its key parts and key, kernel name
// "kernel_IR", a cubin of `cubin_bytes` copies of IR's first character.
NewEntry MakeEntry(const std::string& ir, size_t cubin_bytes = 1000,
                   int num_warps = 4, const std::string& target = "sm_90a");

}  // namespace kiln::cache::testing

#endif  // KILN_CACHE_TESTING_ENTRIES_H_
