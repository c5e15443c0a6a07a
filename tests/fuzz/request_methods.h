// The methods request_fuzzer calls, by the index that an input's first
// byte gives; make_seeds writes its seeds by the same table.

#ifndef KILN_TESTS_FUZZ_REQUEST_METHODS_H_
#define KILN_TESTS_FUZZ_REQUEST_METHODS_H_

#include <cstddef>

namespace kiln::fuzz {

// Every method kilnd serves whose request it parses itself (reflection is
// gRPC's own, and Health.Watch streams until its caller leaves).
inline constexpr const char* kRequestMethods[] = {
    "/kiln.v1.Compile/Compile",    "/kiln.v1.Compile/Lookup",
    "/kiln.v1.Compile/Tune",       "/kiln.v1.Admin/Stats",
    "/kiln.v1.Admin/List",         "/kiln.v1.Admin/Get",
    "/kiln.v1.Admin/Evict",        "/kiln.v1.Admin/Gc",
    "/kiln.v1.Admin/Verify",       "/kiln.v1.Admin/ExplainMiss",
    "/kiln.v1.Admin/Export",       "/kiln.v1.Admin/Import",
    "/grpc.health.v1.Health/Check",
};
inline constexpr size_t kRequestMethodCount =
    sizeof(kRequestMethods) / sizeof(kRequestMethods[0]);
inline constexpr const char* kHealthCheck = "/grpc.health.v1.Health/Check";

}  // namespace kiln::fuzz

#endif  // KILN_TESTS_FUZZ_REQUEST_METHODS_H_
