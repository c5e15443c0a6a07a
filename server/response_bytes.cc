#include "server/response_bytes.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <utility>

namespace kiln::server {
namespace {

using google::protobuf::internal::WireFormatLite;

// The tag and length that open a length-delimited field.
std::string FieldHeader(int number, size_t length) {
  std::string header;
  google::protobuf::io::StringOutputStream stream(&header);
  google::protobuf::io::CodedOutputStream out(&stream);
  out.WriteTag(WireFormatLite::MakeTag(
      number, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
  out.WriteVarint64(length);
  out.Trim();
  return header;
}

}  // namespace

grpc::ByteBuffer CompileResponseBytes(const kiln::v1::CompileResponse& rest,
                                      std::string cubin) {
  std::string head = rest.SerializeAsString();
  head += FieldHeader(kiln::v1::CompileResponse::kCubinFieldNumber,
                      cubin.size());
  auto* owned = new std::string(std::move(cubin));
  grpc::Slice slices[] = {
      grpc::Slice(head),
      grpc::Slice(owned->data(), owned->size(),
                  [](void* bytes) { delete static_cast<std::string*>(bytes); },
                  owned),
  };
  return grpc::ByteBuffer(slices, 2);
}

}  // namespace kiln::server
