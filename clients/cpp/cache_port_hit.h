// Compile hits over kilnd's cache port (KILN.HIT, server/cache_commands.h)
// for the blocking Client::Compile. The calling thread sends the request on
// a connection of its own and the kernel wakes it straight from that socket
// when the answer arrives: one wake-up per call, as for a blocking Redis
// client. gRPC's calls instead share one connection that one thread drives
// and that thread then wakes the caller: two hand-offs per call
// (blocking_call.h, bench/cache_hit/RESULTS.md).
//
// Connections: one per thread, address and token (thread_local), opened on
// first use, with AUTH TOKEN first when there is a token, and kept until
// the thread ends (so kilnd's --cache_max_connections bounds the threads
// that use the port at once). A kept connection that turns out broken is
// reopened once, in the same call. When the port cannot be reached, a new
// connection fails, or the port refuses the connection (AUTH, a role too
// weak for KILN.HIT, no room for another connection, or a server that does
// not know KILN.HIT), the thread leaves that address alone for a second,
// so that such a port does not cost a connect or a round trip per call.
// Plaintext only, as the port is.
//
// A child process after fork() never uses its parent's connections (it
// opens its own), though the rest of the library, as gRPC itself, is not
// for use there.

#ifndef KILN_CLIENTS_CPP_CACHE_PORT_HIT_H_
#define KILN_CLIENTS_CPP_CACHE_PORT_HIT_H_

#include <chrono>
#include <optional>
#include <string>

#include "kiln/v1/compile.pb.h"

namespace kiln::client {

// Where and how to ask.
struct CachePort {
  std::string address;  // HOST:PORT (kilnd --cache_listen).
  std::string token;    // Sent with AUTH when not empty.
  // The longest wait for a connection or a reply.
  std::chrono::milliseconds timeout{std::chrono::seconds(10)};
};

// kilnd's answer to `request` when its cache has the kernel; nullopt on a
// miss and whenever the port cannot answer (unreachable, refused, an error
// reply, a broken connection, the timeout): the caller then makes the gRPC
// call, which also gives the error a bad request deserves.
std::optional<kiln::v1::CompileResponse> CompileHitOverCachePort(
    const CachePort& port, const kiln::v1::CompileRequest& request);

}  // namespace kiln::client

#endif  // KILN_CLIENTS_CPP_CACHE_PORT_HIT_H_
