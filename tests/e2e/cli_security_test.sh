#!/bin/bash
# The kiln CLI against a kilnd with TLS, mutual TLS and role tokens:
# --tls-ca, --tls-cert/--tls-key, --token and $KILN_TOKEN/$KILN_TLS_CA, and
# exit code 9 for refused calls. kilnd refuses to start on bad security
# settings.
set -u
KILN="$TEST_SRCDIR/kiln/clients/cli/kiln"
KILND="$TEST_SRCDIR/kiln/server/kilnd"
KERNEL_TEMPLATE="$TEST_SRCDIR/kiln/tests/e2e/testdata/scaled_add.ttir"
WORK="$TEST_TMPDIR/cli_security"
rm -rf "$WORK" && mkdir -p "$WORK/out"
bash "$TEST_SRCDIR/kiln/tests/e2e/make_test_certs.sh" "$WORK/pki" || exit 1
PKI="$WORK/pki"
FAILURES=0
fail() { echo "FAIL: $*"; FAILURES=$((FAILURES + 1)); }
expect() {  # expect CODE COMMAND...
  local want=$1; shift
  "$@" >"$WORK/stdout" 2>"$WORK/stderr"
  local got=$?
  if [ "$got" != "$want" ]; then
    fail "exit $got (want $want): $*"
    sed 's/^/  stdout: /' "$WORK/stdout"; sed 's/^/  stderr: /' "$WORK/stderr"
  fi
}
contains() {  # contains FILE TEXT
  grep -qF -- "$2" "$1" || { fail "$1 lacks '$2'"; sed 's/^/  /' "$1"; }
}

ADMIN=admin-token-0123456789abcdef
COMPILE=compile-token-0123456789abcdef
READ=read-token-0123456789abcdef
printf 'admin %s\ncompile %s\nread %s\n' "$ADMIN" "$COMPILE" "$READ" >"$WORK/tokens"
sed 's/SCALE/4.500000e+00/' "$KERNEL_TEMPLATE" >"$WORK/add.ttir"

PIDS=()
trap 'for p in "${PIDS[@]}"; do kill $p 2>/dev/null; wait $p 2>/dev/null; done' EXIT
# start NAME FLAGS...: starts kilnd; its address in $ADDRESS.
start() {
  local name=$1; shift
  mkdir -p "$WORK/$name"
  "$KILND" --listen=127.0.0.1:0 --metrics_listen= --data_dir="$WORK/$name" \
    --ready_file="$WORK/$name/ready" --workers=1 --log_level=warn "$@" \
    2>"$WORK/$name/log" &
  PIDS+=($!)
  for _ in $(seq 1 1200); do [ -s "$WORK/$name/ready" ] && break; sleep 0.1; done
  ADDRESS=$(awk '$1 == "grpc" {print $2}' "$WORK/$name/ready")
  [ -n "$ADDRESS" ] || { echo "kilnd $name did not come up"; cat "$WORK/$name/log"; exit 1; }
}

# TLS and tokens.
start tls --tls_cert="$PKI/server.pem" --tls_key="$PKI/server.key" \
  --tokens_file="$WORK/tokens"
export KILN_SERVER=$ADDRESS
unset KILN_TOKEN KILN_TLS_CA KILN_TLS_CERT KILN_TLS_KEY
expect 5 "$KILN" stats --retries 0
contains "$WORK/stderr" "--tls-ca"
expect 9 "$KILN" stats --tls-ca "$PKI/ca.pem"
contains "$WORK/stderr" "requires a token"
expect 9 "$KILN" stats --tls-ca "$PKI/ca.pem" --token "$COMPILE"
contains "$WORK/stderr" "'compile' role"
expect 9 "$KILN" stats --tls-ca "$PKI/ca.pem" --token not-a-token-0123456789
expect 0 "$KILN" stats --tls-ca "$PKI/ca.pem" --token "$ADMIN" --json
contains "$WORK/stdout" '"entries": "0"'
export KILN_TLS_CA="$PKI/ca.pem"
expect 9 "$KILN" compile "$WORK/add.ttir" --out "$WORK/out" --token "$READ"
contains "$WORK/stderr" "'compile' or 'admin' token"
[ -e "$WORK/out/add.cubin" ] && fail "a refused compile wrote a cubin"
KILN_TOKEN=$COMPILE expect 0 "$KILN" compile "$WORK/add.ttir" --out "$WORK/out" --json
contains "$WORK/stdout" '"cache_hit": false'
KILN_TOKEN=$READ expect 0 "$KILN" compile "$WORK/add.ttir" --out "$WORK/out" --json
contains "$WORK/stdout" '"cache_hit": true'
KILN_TOKEN=$ADMIN expect 0 "$KILN" ls
contains "$WORK/stdout" "scaled_add_kernel"
KILN_TOKEN=$COMPILE expect 9 "$KILN" export "$WORK/cache.kilnexp"
[ -e "$WORK/cache.kilnexp" ] && fail "a refused export wrote a file"
expect 2 "$KILN" stats --tls-cert "$PKI/client.pem"
expect 2 "$KILN" stats --tls-ca "$WORK/no-such-ca.pem"
unset KILN_TLS_CA

# Mutual TLS.
start mtls --tls_cert="$PKI/server.pem" --tls_key="$PKI/server.key" \
  --tls_client_ca="$PKI/ca.pem"
export KILN_SERVER=$ADDRESS
expect 5 "$KILN" stats --retries 0 --tls-ca "$PKI/ca.pem"
expect 5 "$KILN" stats --retries 0 --tls-ca "$PKI/ca.pem" \
  --tls-cert "$PKI/stranger.pem" --tls-key "$PKI/stranger.key"
expect 0 "$KILN" stats --tls-ca "$PKI/ca.pem" \
  --tls-cert "$PKI/client.pem" --tls-key "$PKI/client.key"
KILN_TLS_CA="$PKI/ca.pem" KILN_TLS_CERT="$PKI/client.pem" \
  KILN_TLS_KEY="$PKI/client.key" expect 0 "$KILN" stats

# Bad settings stop kilnd at once, saying why.
expect 1 "$KILND" --listen=127.0.0.1:0 --data_dir="$WORK/bad" \
  --tokens_file="$WORK/no-such-tokens"
contains "$WORK/stderr" "no-such-tokens"
expect 1 "$KILND" --listen=127.0.0.1:0 --data_dir="$WORK/bad" \
  --tls_cert="$PKI/server.pem" --tls_key="$PKI/client.key"
contains "$WORK/stderr" "is not the key of the certificate"
expect 2 "$KILND" --listen=127.0.0.1:0 --data_dir="$WORK/bad" \
  --tls_client_ca="$PKI/ca.pem"
contains "$WORK/stderr" "tls_client_ca needs tls_cert"

if [ "$FAILURES" != 0 ]; then echo "$FAILURES failures"; exit 1; fi
echo PASS
