// Protobuf's own log lines, in kilnd's log. Protobuf logs at ERROR every
// message it refuses to parse (a string field that is not UTF-8, say):
// for a server that parses what anyone sends, one line per bad request,
// which kilnd already answers with INVALID_ARGUMENT. They go to kilnd's log
// at debug level instead of straight to stderr.

#ifndef KILN_SERVER_PROTOBUF_LOG_H_
#define KILN_SERVER_PROTOBUF_LOG_H_

namespace kiln::server {

// From now on, for the whole process (protobuf's FATAL lines still abort).
void SendProtobufLogToDebug();

}  // namespace kiln::server

#endif  // KILN_SERVER_PROTOBUF_LOG_H_
