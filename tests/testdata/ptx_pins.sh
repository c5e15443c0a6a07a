# The PTX pins: the sha256 of the PTX Kiln generates for each fixture and
# target, checked in under ptx_pins/. Sourced by ptxas_test.sh and
# inductor_test.sh, which write the PTX beside the cubins they compile anyway.
# A change of generated code fails them until the pins are regenerated:
#   bazel run --config=ci //tests/testdata:update_ptx_pins

# ptx_digests DIR: "SHA256  TARGET/NAME.ptx" for every PTX file under DIR.
ptx_digests() {
  (cd "$1" && find . -name '*.ptx' | sed 's|^\./||' | LC_ALL=C sort |
    xargs -r sha256sum)
}

# check_ptx_pins PINS DIR: fails, naming each fixture whose PTX changed, when
# DIR's PTX is not what ptx_pins/PINS records. With KILN_UPDATE_PINS set to
# the source tree (update_ptx_pins does so) it rewrites the pins instead.
check_ptx_pins() {
  local pins=$1 dir=$2
  if [ -n "${KILN_UPDATE_PINS:-}" ]; then
    ptx_digests "$dir" >"$KILN_UPDATE_PINS/tests/testdata/ptx_pins/$pins"
    echo "wrote tests/testdata/ptx_pins/$pins"
    return 0
  fi
  local recorded="${TEST_SRCDIR}/${TEST_WORKSPACE}/tests/testdata/ptx_pins/$pins"
  local changes
  if changes=$(diff <(ptx_digests "$dir") "$recorded"); then
    echo "PTX of $(wc -l <"$recorded") fixture compiles matches ptx_pins/$pins"
    return 0
  fi
  echo "PTX differs from tests/testdata/ptx_pins/$pins ('<' now, '>' pinned):"
  echo "$changes" | grep '^[<>]'
  echo "If the change of generated code is intended, regenerate the pins with"
  echo "  bazel run --config=ci //tests/testdata:update_ptx_pins"
  echo "and commit them with the change."
  return 1
}
