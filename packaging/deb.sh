#!/usr/bin/env bash
# deb.sh - a Debian package of cuk from an installed tree, for `make deb`:
#
#   packaging/deb.sh STAGE VERSION MAINTAINER OUT.deb
#
# STAGE holds what `make install DESTDIR=STAGE PREFIX=/usr` put there. This
# strips the binary's debugging sections, adds the copyright file, md5sums
# and DEBIAN/control, and builds OUT.deb with dpkg-deb. The dependencies are
# read from the binary: each shared library it links, by the package that
# holds it here, libc6 at least at the newest GLIBC_ symbol version it uses.
set -euo pipefail
stage=$1 version=$2 maintainer=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
bin="$stage/usr/bin/cuk"

# The package that holds library file $1 (merged /usr or not), or nothing.
package_of() {
    local p
    for p in "$1" "$(readlink -f "$1")" "/usr$1" "${1#/usr}"; do
        dpkg -S "$p" 2>/dev/null | head -n 1 | sed 's/:.*//' && return 0
    done
    return 1
}

depends() {
    local lib path pkg glibc
    local -A seen=()
    glibc=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
    for lib in $(objdump -p "$bin" | awk '$1 == "NEEDED" { print $2 }'); do
        path=$(ldd "$bin" | awk -v l="$lib" '$1 == l && $3 ~ /^\// { print $3 }')
        [ -n "$path" ] || continue
        pkg=$(package_of "$path") || { echo "deb.sh: no package holds $path ($lib)" >&2; exit 1; }
        [ -n "${seen[$pkg]:-}" ] && continue
        seen[$pkg]=1
        if [ "$pkg" = libc6 ] && [ -n "$glibc" ]; then
            printf '%s (>= %s)\n' "$pkg" "$glibc"
        else
            printf '%s\n' "$pkg"
        fi
    done | sort | paste -sd, - | sed 's/,/, /g'
}

strip --strip-debug --remove-section=.comment "$bin"
install -D -m 644 "$here/copyright" "$stage/usr/share/doc/cuk/copyright"
mkdir -p "$stage/DEBIAN"
(cd "$stage" && find usr -type f -exec md5sum {} + | sort -k 2) >"$stage/DEBIAN/md5sums"

deps=$(depends)
suggests="libcuda1 | cuda-drivers, libcublas-13-0, libnccl2"
"$bin" --version | grep -q 'no CUDA' && suggests=""
{
    echo "Package: cuk"
    echo "Version: $version"
    echo "Architecture: $(dpkg --print-architecture)"
    echo "Maintainer: $maintainer"
    echo "Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)"
    echo "Depends: $deps"
    echo "Recommends: libopenblas0 | libblas3"
    [ -n "$suggests" ] && echo "Suggests: $suggests"
    echo "Section: math"
    echo "Priority: optional"
    echo "Description: interactive matrix calculator whose matrices live on the GPU"
    echo " cuk reads statements like C = A @ B and runs each on the kernel of the"
    echo " chosen mode: the textbook loop on the host, the system BLAS, or a ladder"
    echo " of GPU kernels up to cuBLAS and tensor cores, timing them honestly. It"
    echo " ships the lessons of a CUDA lecture (/usr/share/cuk/scripts), which run"
    echo " or rehearse without a GPU too."
} >"$stage/DEBIAN/control"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
echo "$out"
