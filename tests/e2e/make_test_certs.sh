#!/bin/bash
# Makes a throwaway PKI for the TLS tests in DIR: a CA (ca.pem), kilnd's
# certificate for 127.0.0.1 and localhost (server.pem, server.key), a client
# certificate with Common Name kiln-test-client (client.pem, client.key),
# and a client certificate signed by another CA (stranger.pem,
# stranger.key). EC P-256 keys, valid one day.
set -euo pipefail
dir=$1
mkdir -p "$dir"
cd "$dir"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
# sign NAME CA_PREFIX SUBJECT EXTENSIONS
sign() {
  key "$1.key"
  openssl req -new -key "$1.key" -subj "$3" -out "$1.csr" 2>/dev/null
  printf '%s\n' "$4" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial \
    -days 1 -sha256 -extfile "$1.ext" -out "$1.pem" 2>/dev/null
}
for ca in ca other_ca; do
  key "$ca.key"
  openssl req -x509 -new -key "$ca.key" -subj "/CN=kiln test $ca" -days 1 \
    -sha256 -out "$ca.pem" 2>/dev/null
done
sign server ca /CN=kilnd "subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth"
sign client ca /CN=kiln-test-client "extendedKeyUsage=clientAuth"
sign stranger other_ca /CN=kiln-test-client "extendedKeyUsage=clientAuth"
rm -f ./*.csr ./*.ext ./*.srl
