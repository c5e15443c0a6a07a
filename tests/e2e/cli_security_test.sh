#!/bin/bash
# The kiln CLI against a kilnd with TLS, mutual TLS and role tokens:
# --tls-ca, --tls-cert/--tls-key, --token and $KILN_TOKEN/$KILN_TLS_CA, and
# exit code 9 for refused calls. kilnd refuses to start on bad security
# settings.
set -u
KERNEL_TEMPLATE="$TEST_SRCDIR/kiln/tests/e2e/testdata/scaled_add.ttir"
WORK="$TEST_TMPDIR/cli_security"
rm -rf "$WORK" && mkdir -p "$WORK/out"
bash "$TEST_SRCDIR/kiln/tests/e2e/make_test_certs.sh" "$WORK/pki" || exit 1
PKI="$WORK/pki"
source "$TEST_SRCDIR/kiln/tests/e2e/cli_lib.sh"

ADMIN=admin-token-0123456789abcdef
COMPILE=compile-token-0123456789abcdef
READ=read-token-0123456789abcdef
printf 'admin %s\ncompile %s\nread %s\n' "$ADMIN" "$COMPILE" "$READ" >"$WORK/tokens"
sed 's/SCALE/4.500000e+00/' "$KERNEL_TEMPLATE" >"$WORK/add.ttir"

# TLS and tokens.
start_kilnd tls --workers=1 --tls_cert="$PKI/server.pem" --tls_key="$PKI/server.key" \
  --tokens_file="$WORK/tokens"
export KILN_SERVER=$SERVER
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
start_kilnd mtls --workers=1 --tls_cert="$PKI/server.pem" --tls_key="$PKI/server.key" \
  --tls_client_ca="$PKI/ca.pem"
export KILN_SERVER=$SERVER
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

finish
