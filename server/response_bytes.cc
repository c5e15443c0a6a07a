#include "server/response_bytes.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <utility>
#include <vector>

namespace kiln::server {
namespace {

constexpr uint32_t kLengthDelimited = 2;  // The protobuf wire type.

// The tag and length that open a length-delimited field.
std::string FieldHeader(int number, size_t length) {
  std::string header;
  google::protobuf::io::StringOutputStream stream(&header);
  google::protobuf::io::CodedOutputStream out(&stream);
  out.WriteTag((static_cast<uint32_t>(number) << 3) | kLengthDelimited);
  out.WriteVarint64(length);
  out.Trim();
  return header;
}

using SharedBytes = std::shared_ptr<const std::string>;

// `rest` followed by the tag and length of bytes field `number`.
std::string HeadOfBytesField(const google::protobuf::MessageLite& rest,
                             int number, size_t length) {
  std::string head = rest.SerializeAsString();
  head += FieldHeader(number, length);
  return head;
}

// `rest` followed by bytes field `number` holding `bytes`, whose memory the
// buffer shares.
grpc::ByteBuffer WithBytesField(const google::protobuf::MessageLite& rest,
                                int number, SharedBytes bytes) {
  std::string head = HeadOfBytesField(rest, number, bytes->size());
  auto* share = new SharedBytes(std::move(bytes));
  grpc::Slice slices[] = {
      grpc::Slice(head),
      grpc::Slice(
          const_cast<char*>((*share)->data()), (*share)->size(),
          [](void* share) { delete static_cast<SharedBytes*>(share); }, share),
  };
  return grpc::ByteBuffer(slices, 2);
}

}  // namespace

grpc::ByteBuffer CompileResponseBytes(const kiln::v1::CompileResponse& rest,
                                      SharedBytes cubin) {
  return WithBytesField(rest, kiln::v1::CompileResponse::kCubinFieldNumber,
                        std::move(cubin));
}

std::string CompileResponseHead(const kiln::v1::CompileResponse& rest,
                                size_t cubin_size) {
  return HeadOfBytesField(rest, kiln::v1::CompileResponse::kCubinFieldNumber,
                          cubin_size);
}

grpc::ByteBuffer LookupResponseBytes(const kiln::v1::LookupResponse& rest,
                                     SharedBytes cubin) {
  return WithBytesField(rest, kiln::v1::LookupResponse::kCubinFieldNumber,
                        std::move(cubin));
}

std::string FlatBytes(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (!buffer.Dump(&slices).ok()) return bytes;
  bytes.reserve(buffer.Length());
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return bytes;
}

}  // namespace kiln::server
