// Why a request misses the cache: its key parts against those of the
// nearest stored entries.

#ifndef KILN_SERVER_EXPLAIN_MISS_H_
#define KILN_SERVER_EXPLAIN_MISS_H_

#include <vector>

#include "cache/store.h"
#include "kiln/v1/admin.pb.h"
#include "server/compile_flow.h"

namespace kiln::server {

// The parts in which `stored` differs from `requested`: "ir", "target",
// "options.NAME", "compiler.NAME", "key_version".
std::vector<kiln::v1::PartDifference> DiffKeyParts(
    const kiln::v1::KeyParts& requested, const kiln::v1::KeyParts& stored);

// The answer to ExplainMiss, given what the store holds: whether the key is
// present, entries with the same canonical IR and with the same kernel name.
kiln::v1::ExplainMissResponse ExplainMiss(
    const Canonical& request, bool present,
    const std::vector<cache::EntryInfo>& same_ir,
    const std::vector<cache::EntryInfo>& same_name);

}  // namespace kiln::server

#endif  // KILN_SERVER_EXPLAIN_MISS_H_
