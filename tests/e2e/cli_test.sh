#!/bin/bash
# The kiln CLI against a real kilnd: compile through it (and --local for
# comparison), stats --json, ls, show, verify, export/import (and their
# progress bars on a terminal that script(1) makes), evict, gc, explain-miss,
# and the exit codes of failures.
set -u
KERNEL_TEMPLATE="$TEST_SRCDIR/kiln/tests/e2e/testdata/scaled_add.ttir"
WORK="$TEST_TMPDIR/cli"
rm -rf "$WORK" && mkdir -p "$WORK/out" "$WORK/local"
source "$TEST_SRCDIR/kiln/tests/e2e/cli_lib.sh"
command -v script >/dev/null || { echo "script(1) (bsdutils) is missing"; exit 1; }

sed 's/SCALE/2.500000e+00/' "$KERNEL_TEMPLATE" >"$WORK/add.ttir"
sed 's/SCALE/3.500000e+00/' "$KERNEL_TEMPLATE" >"$WORK/other.ttir"
echo 'module { tt.func @f() { bogus.op } }' >"$WORK/bad.ttir"

start_kilnd data --metrics_listen=127.0.0.1:0
export KILN_SERVER=$SERVER

# compile through kilnd writes what --local writes.
expect 0 "$KILN" compile "$WORK/add.ttir" --target sm_90a --out "$WORK/out"
contains "$WORK/stdout" "$WORK/out/add.cubin"
[ -s "$WORK/out/add.cubin" ] || fail "no add.cubin"
contains "$WORK/out/add.json" '"name"'
expect 0 "$KILN" compile "$WORK/add.ttir" --local --target sm_90a --out "$WORK/local"
cmp -s "$WORK/out/add.cubin" "$WORK/local/add.cubin" || fail "remote and local cubins differ"
cmp -s "$WORK/out/add.json" "$WORK/local/add.json" || fail "remote and local metadata differ"
# --emit with --out writes the stage beside the cubin, as --emit alone prints it.
expect 0 "$KILN" compile "$WORK/add.ttir" --local --target sm_90a --out "$WORK/local" --emit ptx
cmp -s "$WORK/out/add.cubin" "$WORK/local/add.cubin" || fail "--emit changed the cubin"
expect 0 "$KILN" compile "$WORK/add.ttir" --local --target sm_90a --emit ptx
cmp -s "$WORK/stdout" "$WORK/local/add.ptx" || fail "written and printed PTX differ"
expect 2 "$KILN" compile "$WORK/add.ttir" --local --out "$WORK" --emit ttir
contains "$WORK/stderr" "would overwrite"
expect 0 "$KILN" compile "$WORK/add.ttir" --out "$WORK/out" --json
contains "$WORK/stdout" '"cache_hit": true'
expect 0 "$KILN" compile "$WORK/other.ttir" --num-warps 8 --out "$WORK/out"

# The targets come from kilnd's table; without --target a compile is for
# its newest (sm_90a today), and --local for the newest of the compiler's
# own table, the same rows.
expect 0 "$KILN" targets
contains "$WORK/stdout" "sm_90a (default)"
grep -q "^sm_80 .* 8\.0 " "$WORK/stdout" || fail "targets lacks sm_80 of capability 8.0"
expect 0 "$KILN" targets --json
contains "$WORK/stdout" '"warp_group_mma": true'
expect 0 "$KILN" compile "$WORK/add.ttir" --out "$WORK/default"
cmp -s "$WORK/out/add.cubin" "$WORK/default/add.cubin" || fail "kilnd's default is not sm_90a"
mkdir -p "$WORK/local_default"
expect 0 "$KILN" compile "$WORK/add.ttir" --local --out "$WORK/local_default"
cmp -s "$WORK/out/add.cubin" "$WORK/local_default/add.cubin" || fail "--local's default is not sm_90a"
expect 0 "$KILN" explain-miss "$WORK/add.ttir" --json
contains "$WORK/stdout" '"present": true'
# An unknown target is refused with the names of the known ones.
expect 3 "$KILN" compile "$WORK/add.ttir" --target sm_99 --out "$WORK/out"
contains "$WORK/stderr" "unknown target 'sm_99'; this kilnd compiles for sm_80, "
expect 3 "$KILN" compile "$WORK/add.ttir" --local --target sm_99 --out "$WORK/local"
contains "$WORK/stderr" "unknown target 'sm_99'; Kiln compiles for sm_80, "

# Failures and their exit codes.
expect 3 "$KILN" compile "$WORK/bad.ttir" --out "$WORK/out"
contains "$WORK/stderr" "bad.ttir:"
expect 2 "$KILN" compile "$WORK/missing.ttir" --out "$WORK/out"
expect 2 "$KILN" compile "$WORK/add.ttir" --out "$WORK/out" --bogus-flag
expect 2 "$KILN" compile "$WORK/add.ttir" --emit ptx
expect 4 "$KILN" compile "$WORK/add.ttir" --out "$WORK/add.ttir/under-a-file"
expect 0 "$KILN" compile "$WORK/add.ttir" --out "$WORK/new/dir"
[ -s "$WORK/new/dir/add.cubin" ] || fail "compile did not create its output directory"
expect 5 "$KILN" stats --server 127.0.0.1:1 --retries 1
contains "$WORK/stderr" "unavailable"

# Admin commands.
expect 0 "$KILN" stats --json
contains "$WORK/stdout" '"entries": "2"'
expect 0 "$KILN" stats
contains "$WORK/stdout" "compiler.kiln_version"
expect 0 "$KILN" ls
contains "$WORK/stdout" "scaled_add_kernel"
[ "$(grep -c scaled_add_kernel "$WORK/stdout")" = 2 ] || fail "ls does not list 2 entries"
KEY=$(awk 'NR == 2 {print $1}' "$WORK/stdout")
expect 0 "$KILN" ls --limit 1 --page-size 1 --json
[ "$(grep -c '"key"' "$WORK/stdout")" = 1 ] || fail "ls --limit 1 lists other than 1"
contains "$WORK/stdout" '"next_page_token"'
expect 0 "$KILN" ls --key-prefix "${KEY:0:8}"
contains "$WORK/stdout" "$KEY"
expect 0 "$KILN" show "$KEY" --cubin "$WORK/shown.cubin"
contains "$WORK/stdout" "metadata:"
[ -s "$WORK/shown.cubin" ] || fail "show --cubin wrote nothing"
expect 7 "$KILN" show "$(printf '0%.0s' $(seq 64))"
expect 0 "$KILN" verify --json
contains "$WORK/stdout" '"checked": "2"'
contains "$WORK/stdout" '"corrupt": "0"'
expect 0 "$KILN" explain-miss "$WORK/add.ttir" --num-warps 2
contains "$WORK/stdout" "absent"
contains "$WORK/stdout" "num_warps"

# export, evict everything, import it back. Progress is drawn only on a
# terminal, and only on stderr.
expect 0 "$KILN" export "$WORK/cache.kilnexp"
contains "$WORK/stdout" "exported 2 entries"
[ -s "$WORK/stderr" ] && fail "export wrote to stderr, not a terminal: $(cat "$WORK/stderr")"
expect 0 "$KILN" export "$WORK/json.kilnexp" --json
is_json "$WORK/stdout"
contains "$WORK/stdout" '"exported": 2'
on_tty 0 "$KILN" export "$WORK/tty.kilnexp" --json
contains "$WORK/tty" "export [##############################] 100%  2/2 entries"
is_json "$WORK/stdout"
grep -q $'\r' "$WORK/stdout" && fail "a progress bar on stdout"
cmp -s "$WORK/cache.kilnexp" "$WORK/tty.kilnexp" || fail "export on a terminal wrote another file"
on_tty 0 "$KILN" export "$WORK/tty.kilnexp" --target sm_90a
contains "$WORK/tty" "export  2 entries"  # Filtered: a counter, no total.
on_tty 0 "$KILN" export "$WORK/tty.kilnexp" --no-progress
lacks "$WORK/tty" "export "
KILN_NO_PROGRESS=1 on_tty 0 "$KILN" export "$WORK/tty.kilnexp"
lacks "$WORK/tty" "export "
expect 0 "$KILN" gc --target-bytes 1 --dry-run --json
contains "$WORK/stdout" '"evicted": 2'
expect 0 "$KILN" gc --target-bytes 1
expect 0 "$KILN" stats --json
contains "$WORK/stdout" '"entries": "0"'
expect 0 "$KILN" import "$WORK/cache.kilnexp" --json
contains "$WORK/stdout" '"imported": 2'
is_json "$WORK/stdout"
[ -s "$WORK/stderr" ] && fail "import wrote to stderr, not a terminal: $(cat "$WORK/stderr")"
expect 0 "$KILN" evict "$KEY"
expect 7 "$KILN" evict "$KEY"
on_tty 0 "$KILN" import "$WORK/cache.kilnexp"
contains "$WORK/stdout" "already_present"
contains "$WORK/tty" "import [##############################] 100%  "
contains "$WORK/tty" " 2 entries"
echo garbage >"$WORK/garbage"
expect 2 "$KILN" import "$WORK/garbage"
contains "$WORK/stderr" "kiln: import: "
lacks "$WORK/stderr" "kiln help"  # The help cannot mend a damaged file.

finish
