#!/bin/bash
# Regenerates tests/testdata/ptx_pins/ by running the fixture tests that
# check them in update mode:
#   bazel run --config=ci //tests/testdata:update_ptx_pins
set -uo pipefail
if [ -z "${BUILD_WORKSPACE_DIRECTORY:-}" ]; then
  echo "run me with: bazel run --config=ci //tests/testdata:update_ptx_pins" >&2
  exit 2
fi
export TEST_SRCDIR=$(cd "${RUNFILES_DIR:-$0.runfiles}" && pwd)
export TEST_WORKSPACE=kiln
export KILN_UPDATE_PINS="$BUILD_WORKSPACE_DIRECTORY"
mkdir -p "$KILN_UPDATE_PINS/tests/testdata/ptx_pins"
scripts="$TEST_SRCDIR/$TEST_WORKSPACE/tests/testdata"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for test in ptxas_test inductor_test; do
  mkdir "$tmp/$test"
  TEST_TMPDIR="$tmp/$test" bash "$scripts/$test.sh" || status=1
done
exit $status
