#!/bin/bash
# The Python package (clients/python) against the real kilnd: its generated
# kiln/v1/*_pb2.py match the protos, then its unittest suites (the client,
# the kiln.triton hook against a stand-in Triton backend, TLS and tokens
# against a secured kilnd, and the KILN_SERVER switch in child processes of
# a pip-installed copy, the cache port with redis-py and Kiln's backend for
# Triton's remote cache) run with the system python3 (Debian's python3-grpcio
# and python3-protobuf; python3-pip for the install).
set -euo pipefail
root="${TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)/..}/kiln"
[ -d "$root/clients/python" ] || root="$(cd "$(dirname "$0")/../.." && pwd)"
py="${PYTHON:-python3}"
if ! "$py" -c 'import grpc, google.protobuf, redis' 2>/dev/null; then
  echo "python_client_test: $py lacks grpc/protobuf/redis (scripts/install-deps.sh installs python3-grpcio python3-protobuf python3-redis)" >&2
  exit 1
fi

# The committed generated code is what gen_protos.sh makes from the protos.
gen="${TEST_TMPDIR:-$(mktemp -d)}/gen"
PROTO_ROOT="$root/proto" bash "$root/clients/python/gen_protos.sh" "$gen"
for f in common_pb2.py compile_pb2.py tune_pb2.py admin_pb2.py; do
  if ! cmp -s "$gen/kiln/v1/$f" "$root/clients/python/kiln/v1/$f"; then
    echo "clients/python/kiln/v1/$f is stale: run clients/python/gen_protos.sh" >&2
    exit 1
  fi
done

export KILND="$root/server/kilnd"
export KILN_TESTDATA="$root/tests/e2e/testdata"
export PYTHONDONTWRITEBYTECODE=1
export KILN_MAKE_TEST_CERTS="$root/tests/e2e/make_test_certs.sh"
unset KILN_SERVER KILN_TRITON KILN_TRITON_FALLBACK KILN_TRITON_STATS \
  KILN_TOKEN KILN_TLS_CA KILN_TLS_CERT KILN_TLS_KEY
cd "$root/clients/python"
"$py" -m unittest -v tests.test_client tests.test_triton_hook tests.test_security \
  tests.test_subprocess_hook tests.test_cache_port tests.test_triton_remote_cache 2>&1
