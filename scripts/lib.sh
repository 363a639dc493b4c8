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

# smbd_no_test_hooks KO: the product's smbdirect.ko (make, DKMS, make deb)
# has no test hook: no symbol named smbdx_test_*, none of the functions
# smbdirect/testhooks.c exports (those are built with SMBDX_TESTS=1 only).
# KO may be compressed (.xz, .zst, .gz). Prints the hooks found and fails.
smbd_no_test_hooks() {
	local ko=$1 elf syms names hooks
	elf=$(mktemp)
	case "$ko" in
	*.xz) xz -dc "$ko" >"$elf" ;;
	*.zst) zstd -qdc "$ko" >"$elf" ;;
	*.gz) gzip -dc "$ko" >"$elf" ;;
	*) cat "$ko" >"$elf" ;;
	esac && syms=$(nm "$elf")
	local rc=$?
	rm -f "$elf"
	[ "$rc" -eq 0 ] || { echo "$ko: nm failed"; return 1; }
	[ -n "$syms" ] || { echo "$ko: no symbols"; return 1; }
	# smbdx_test_* and every other function testhooks.c exports (with
	# its __ksymtab_, __kstrtab_, __kstrtabns_ and __pfx_ symbols).
	names=$(sed -n 's/^EXPORT_SYMBOL_IF_KUNIT(\(.*\));$/\1/p' \
		"$SMBD_TOP/smbdirect/testhooks.c" 2>/dev/null | paste -sd '|')
	hooks=$(echo "$syms" | awk '{ print $NF }' |
		grep -E "smbdx_test_${names:+|^(__(ksymtab|kstrtab|kstrtabns|pfx)_)?($names)\$}" ||
		true)
	if [ -n "$hooks" ]; then
		echo "$ko: test hooks in the product build (SMBDX_TESTS=1 only):"
		echo "$hooks" | sed 's/^/  /'
		return 1
	fi
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

# smbd_standin DIR NAME DESCRIPTION [VERSION]: the source of a module NAME
# (for `make M=DIR`) whose description says which build it is, standing in
# for a kernel's own module in a module tree made up for a test.
smbd_standin() {
	mkdir -p "$1"
	cat >"$1/$2.c" <<EOF
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
static int __init standin_init(void) { return 0; }
static void __exit standin_exit(void) { }
module_init(standin_init);
module_exit(standin_exit);
MODULE_DESCRIPTION("$3");
${4:+MODULE_VERSION(\"$4\");}
MODULE_LICENSE("GPL");
EOF
	echo "obj-m += $2.o" >>"$1/Kbuild"
}

# smbd_stock_tree KDIR RELEASE DIR ROOT: a module tree of RELEASE under
# ROOT whose kernel/fs/smb holds stand-ins (built in DIR against KDIR) for
# the kernel's own cifs.ko (version 2.51, as 6.12's) and ksmbd.ko (no
# version, as 6.12's), described "stock", indexed by depmod.
smbd_stock_tree() {
	local kdir=$1 krel=$2 dir=$3 root=$4
	smbd_standin "$dir/client" cifs stock 2.51
	smbd_standin "$dir/server" ksmbd stock
	echo "obj-m += client/ server/" >"$dir/Kbuild"
	make -s -C "$kdir" M="$dir" -j"$SMBD_JOBS" modules >"$dir.log" 2>&1 ||
		{ cat "$dir.log"; die "building the stock stand-ins failed"; }
	make -s -C "$kdir" M="$dir" INSTALL_MOD_PATH="$root" INSTALL_MOD_DIR=kernel/fs/smb \
		DEPMOD=true CONFIG_MODULE_SIG_ALL= modules_install >>"$dir.log" 2>&1 ||
		{ cat "$dir.log"; die "installing the stock stand-ins failed"; }
	# What every installed kernel's tree has besides its modules.
	touch "$root/lib/modules/$krel/"{modules.order,modules.builtin,modules.builtin.modinfo}
	depmod -b "$root" "$krel"
	[ "$(modinfo -b "$root" -k "$krel" -F description cifs)" = stock ] ||
		die "the stock stand-in cifs is not found"
}

# smbd_tree_state ROOT: every file under ROOT with its checksum, sorted.
smbd_tree_state() {
	(cd "$1" && find . -type f -exec sha256sum {} + | LC_ALL=C sort)
}

# smbd_stock_restored ROOT RELEASE BEFORE WHAT: after WHAT (an uninstall),
# modprobe cifs and ksmbd find the stock stand-ins of smbd_stock_tree again
# and the tree under ROOT is BEFORE (smbd_tree_state) again, byte for byte.
smbd_stock_restored() {
	local root=$1 krel=$2 before=$3 what=$4 m
	for m in cifs ksmbd; do
		[ "$(modinfo -b "$root" -k "$krel" -F description "$m")" = stock ] ||
			die "after $what, $m is not the stock one"
	done
	[ "$(smbd_tree_state "$root")" = "$before" ] ||
		die "$what did not leave the module tree as it found it"
	echo "$(basename "$0" .sh): $what restores the stock cifs.ko and ksmbd.ko"
}
