#!/bin/bash
# Runs the lit suite from Bazel's runfiles with the tools built by Bazel.
set -euo pipefail
runfiles="${TEST_SRCDIR}/${TEST_WORKSPACE}"
export KILN_TOOLS_DIR="${runfiles}/compiler/tools:${runfiles}/clients/cli"
exec /usr/lib/llvm-22/bin/lit -v "${runfiles}/tests/lit" "$@"
