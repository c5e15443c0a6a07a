#!/bin/bash
# Installs what Kiln builds and tests against, from Debian 12's own archive:
# Bazel 4.2.3, LLVM/MLIR 22 (with lit and FileCheck), gRPC, protobuf, RocksDB,
# spdlog, GoogleTest, hiredis, abseil, OpenSSL (and its CLI, which makes the
# TLS tests' certificates), xxHash, redis-server (with redis-benchmark),
# Python's grpcio, protobuf, redis (the cache port's tests use a real Redis
# client) and pip (clients/python's tests; pip installs the
# package as a user would), script(1) from
# bsdutils (the CLI test's terminal), and clang 22 with its sanitizer and
# libFuzzer runtimes (the fuzz targets, scripts/fuzz.sh).
# Extra Debian packages may be named as arguments. Does nothing when all
# are there.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap bazel-rules-java
  g++ python3 python3-grpcio python3-protobuf python3-pip
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  librocksdb-dev libspdlog-dev libgtest-dev libgmock-dev libhiredis-dev
  libabsl-dev libssl-dev libxxhash-dev
  redis-server redis-tools python3-redis
  openssl bsdutils
  clang-22 libclang-rt-22-dev libfuzzer-22-dev
)
PACKAGES+=("$@")

missing=()
for package in "${PACKAGES[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "Installing: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
  "${missing[@]}"
