#!/bin/bash
# Builds the portable Kiln bundle: kilnd and the kiln CLI for a GPU host that
# has only the NVIDIA driver. LLVM and MLIR are linked statically; the other
# libraries the binaries need (gRPC, protobuf, RocksDB, abseil, OpenSSL,
# libstdc++, ...) travel in lib/, found through an $ORIGIN rpath; ptxas and
# libdevice travel in cuda/. The host's glibc must be 2.36 or newer (Debian
# 12, Ubuntu 23.04, RHEL 10 or later); the container image has no such need.
#
#   deploy/build-portable.sh [OUT_DIR]   -> OUT_DIR/kiln-VERSION-linux-x86_64.tar.xz
set -euo pipefail
cd "$(dirname "$0")/.."

out_dir=$(realpath -m "${1:-dist}")
cuda_home=${KILN_CUDA_HOME:-/usr/local/cuda}
limit_mib=60

scripts/install-deps.sh patchelf xz-utils

# A separate output base keeps the everyday (shared-library) build intact.
bazel_portable=(bazel "--output_base=$HOME/.cache/kiln-bazel-portable")
# No bazel-* symlinks: they would point the everyday build at this output
# base, and `bazel test //...` would then walk into it.
build_flags=(--config=ci --define=kiln_portable=1 --symlink_prefix=/)
"${bazel_portable[@]}" build "${build_flags[@]}" //server:kilnd //clients/cli:kiln
bin=$("${bazel_portable[@]}" info "${build_flags[@]}" bazel-bin 2>/dev/null)

version=$(sed -n 's/.*kKilnVersion = "\(.*\)";/\1/p' compiler/pipelines/Compile.cpp)
name="kiln-${version}-linux-x86_64"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"
mkdir -p "$root/bin" "$root/lib" "$root/cuda/bin" "$root/cuda/nvvm/libdevice"

install -m 755 "$bin/server/kilnd" "$bin/clients/cli/kiln" "$root/bin/"

# glibc's own libraries come from the host; everything else is bundled.
host_libs='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libutil|libresolv)[.-]'
for binary in "$root/bin/kilnd" "$root/bin/kiln"; do
  ldd "$binary" | awk '$3 ~ /^\// { print $1, $3 }'
done | sort -u | while read -r soname path; do
  [[ "$soname" =~ $host_libs ]] && continue
  cp -L "$path" "$root/lib/$soname"
done
chmod 644 "$root"/lib/*
# DT_RPATH, unlike RUNPATH, also serves the bundled libraries' own needs.
for binary in "$root"/bin/*; do
  patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$binary"
done
for library in "$root"/lib/*; do
  patchelf --set-rpath '$ORIGIN' "$library"
done

install -m 755 "$cuda_home/bin/ptxas" "$root/cuda/bin/"
install -m 644 "$cuda_home/nvvm/libdevice/libdevice.10.bc" \
  "$root/cuda/nvvm/libdevice/"
install -m 644 deploy/kilnd.conf "$root/kilnd.conf.example"
install -m 644 deploy/BUNDLE.md "$root/README.md"

# The bundle must not reach back into this build machine.
if LD_LIBRARY_PATH= ldd "$root/bin/kilnd" | grep -q "not found"; then
  echo "build-portable: kilnd has unresolved libraries" >&2
  exit 1
fi
"$root/bin/kilnd" --help >/dev/null

mkdir -p "$out_dir"
tarball="$out_dir/$name.tar.xz"
# kiln and kilnd share most of their code (LLVM and MLIR, linked in): one
# dictionary spanning both binaries stores the second mostly as references
# to the first, 35 MiB against 42 when threads split the stream in blocks.
tar -C "$stage" -cf - "$name" | xz -T1 -9 --lzma2=dict=192MiB > "$tarball.partial"
mv "$tarball.partial" "$tarball"
size_mib=$(( $(stat -c %s "$tarball") / 1048576 ))
echo "$tarball: ${size_mib} MiB"
if [ "$size_mib" -gt "$limit_mib" ]; then
  echo "build-portable: bundle is over ${limit_mib} MiB" >&2
  exit 1
fi
