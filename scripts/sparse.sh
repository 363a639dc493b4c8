#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build every module (the product, the KUnit suites and the test modules:
# SMBDX_TESTS=1) with sparse (C=2) and W=1 against the plain test kernel (or
# $KDIR), in a copy of the sources. Exits non-zero on any warning.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kdir=${KDIR:-$("$SMBD_TOP/scripts/kernel.sh" plain)}
bdir="$SMBD_OUT/build-sparse"
mkdir -p "$bdir"
smbd_sync_src "$bdir/src" "$kdir"
# sqos.ko's configfs tree too, on a kernel without configfs
# (scripts/build-configfs.sh).
cfs=$("$SMBD_TOP/scripts/build-configfs.sh" "$kdir" "$bdir/configfs")
cfs_args=()
[ -z "$cfs" ] || cfs_args=(SQOS_CONFIGFS=1 KBUILD_EXTRA_SYMBOLS="$cfs/Module.symvers")
log="$bdir/sparse.log"
if ! make -C "$kdir" M="$bdir/src" W=1 C=2 SMBDX_TESTS=1 "${cfs_args[@]}" -j"$SMBD_JOBS" modules \
	>"$log" 2>&1; then
	cat "$log"
	die "build with sparse failed"
fi
if grep -E 'warning:|error:' "$log"; then
	echo "sparse/W=1: $(grep -cE 'warning:|error:' "$log") warnings"
	exit 1
fi
echo "sparse/W=1: clean"
