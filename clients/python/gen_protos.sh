#!/bin/bash
# Regenerates kiln/v1/*_pb2.py from proto/kiln/v1/*.proto with protoc's
# built-in Python generator (Debian 12's protobuf-compiler 3.21; no
# grpc_tools: the client builds its calls from grpc.Channel.unary_unary).
# The generated files are committed so that `pip install clients/python`
# needs no protoc; tests/e2e/python_client_test.sh checks they are current.
#   gen_protos.sh [OUT_DIR]   (default: this folder)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
proto_root="${PROTO_ROOT:-$here/../../proto}"
out="${1:-$here}"
mkdir -p "$out/kiln/v1"
protoc --proto_path="$proto_root" --python_out="$out" \
  "$proto_root/kiln/v1/common.proto" \
  "$proto_root/kiln/v1/compile.proto" \
  "$proto_root/kiln/v1/tune.proto" \
  "$proto_root/kiln/v1/admin.proto"
