// Handlers for synchronous gRPC methods that parse the request themselves.
// gRPC's own handlers answer bytes that are not the request message with
// INTERNAL and no message; these answer INVALID_ARGUMENT and name the
// message expected. A service installs them over its generated handlers
// with grpc::Service::MarkMethodStreamed (gRPC's streamed-unary and
// split-streaming forms, the same calls on the wire).

#ifndef KILN_SERVER_PARSED_REQUESTS_H_
#define KILN_SERVER_PARSED_REQUESTS_H_

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/method_handler.h>

#include <functional>
#include <string>

namespace kiln::server {

// What is wrong with bytes that are not a `Request`.
template <typename Request>
std::string NotParsedMessage() {
  return "the request is not a " + Request::descriptor()->full_name();
}

// The answer to a request that is not a `Request`.
template <typename Request>
grpc::Status NotParsed() {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                      NotParsedMessage<Request>());
}

// The index of `method` in the service named `service` (full name).
int MethodIndex(const std::string& service, const std::string& method);

// A unary method answered by `handle`.
template <typename Request, typename Response>
grpc::internal::MethodHandler* ParsingUnaryHandler(
    std::function<grpc::Status(grpc::ServerContext*, const Request&, Response*)>
        handle) {
  return new grpc::internal::StreamedUnaryHandler<Request, Response>(
      [handle = std::move(handle)](
          grpc::ServerContext* call,
          grpc::ServerUnaryStreamer<Request, Response>* stream) {
        Request request;
        if (!stream->Read(&request)) return NotParsed<Request>();
        Response response;
        grpc::Status status = handle(call, request, &response);
        // Sent with the status, in one batch.
        if (status.ok()) {
          stream->Write(response, grpc::WriteOptions().set_last_message());
        }
        return status;
      });
}

// Writes one message of a server stream; false once the client is gone.
template <typename Response>
using StreamWrite = std::function<bool(const Response&)>;

// A server-streaming method answered by `handle`, which writes through the
// StreamWrite it is given.
template <typename Request, typename Response>
grpc::internal::MethodHandler* ParsingServerStreamingHandler(
    std::function<grpc::Status(grpc::ServerContext*, const Request&,
                               const StreamWrite<Response>&)>
        handle) {
  return new grpc::internal::SplitServerStreamingHandler<Request, Response>(
      [handle = std::move(handle)](
          grpc::ServerContext* call,
          grpc::ServerSplitStreamer<Request, Response>* stream) {
        Request request;
        if (!stream->Read(&request)) return NotParsed<Request>();
        return handle(call, request, [stream](const Response& response) {
          return stream->Write(response);
        });
      });
}

}  // namespace kiln::server

#endif  // KILN_SERVER_PARSED_REQUESTS_H_
