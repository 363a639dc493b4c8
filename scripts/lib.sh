# SPDX-License-Identifier: GPL-2.0
# Shared settings for the smbdirect test scripts. Sourced, not run.

SMBD_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
SMBD_CACHE=${SMBD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/smbdirect}
SMBD_OUT=${SMBD_OUT:-$SMBD_TOP/out}
SMBD_JOBS=${SMBD_JOBS:-$(nproc)}

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Debian's kernel source package version, e.g. 6.12.117-1~deb12u1.
smbd_kernel_pkgver() {
	dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null
}

# smbd_sync_src DIR KDIR: copy the checkout's sources to DIR for an
# out-of-tree build against KDIR, leaving out every build product an in-tree
# `make` may have left behind (a stale .mod file would make kbuild link
# objects built against another kernel). DIR starts afresh whenever KDIR
# changes.
smbd_sync_src() {
	if [ "$(cat "$1/.smbd-kdir" 2>/dev/null)" != "$2" ]; then
		rm -rf "$1"
	fi
	mkdir -p "$1"
	echo "$2" >"$1/.smbd-kdir"
	rsync -a --delete --exclude=/out --exclude=/.git \
		--exclude='*.o' --exclude='*.ko' --exclude='*.a' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='*.order' --exclude=Module.symvers \
		--exclude='.*.cmd' --exclude='*.dwo' --exclude=.tmp_versions \
		--exclude=/.smbd-kdir \
		"$SMBD_TOP/" "$1/"
}
