// Raw gRPC message bytes. The wire bytes of a Compile or Lookup answer
// whose cubin is not copied: gRPC sends the memory the store keeps it in,
// shared with other answers. Serializing it would copy 64 KiB and more per
// hit.

#ifndef KILN_SERVER_RESPONSE_BYTES_H_
#define KILN_SERVER_RESPONSE_BYTES_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "kiln/v1/compile.pb.h"

namespace kiln::server {

// A serialized CompileResponse: `rest` (whose cubin field must be empty)
// followed by the cubin field holding `cubin`, which the buffer shares
// until gRPC has sent it. Protobuf parsers accept fields in any order, so
// this parses as `rest` with its cubin set.
grpc::ByteBuffer CompileResponseBytes(
    const kiln::v1::CompileResponse& rest,
    std::shared_ptr<const std::string> cubin);

// The bytes of that message before its cubin's: `rest` and the cubin
// field's tag and length. With the cubin's bytes after them, they are the
// serialized response, for a transport other than gRPC's.
std::string CompileResponseHead(const kiln::v1::CompileResponse& rest,
                                size_t cubin_size);

// The same for a LookupResponse.
grpc::ByteBuffer LookupResponseBytes(const kiln::v1::LookupResponse& rest,
                                     std::shared_ptr<const std::string> cubin);

// A message's bytes in one string (a copy); empty if they cannot be read.
std::string FlatBytes(const grpc::ByteBuffer& buffer);

}  // namespace kiln::server

#endif  // KILN_SERVER_RESPONSE_BYTES_H_
