#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make install` and `make uninstall`: put the product where modprobe finds
# it for one kernel release, or take all of it away again.
#
#   scripts/install.sh install|uninstall
#
# Settings come from the environment (the Makefile passes its variables):
#   KDIR              configured kernel tree the modules were built against
#                     (default /lib/modules/$(uname -r)/build)
#   KRELEASE          kernel release to uninstall from when KDIR is gone
#                     (default: KDIR's release, else uname -r)
#   INSTALL_MOD_PATH  root of the module tree (default DESTDIR)
#   DESTDIR           staging root of everything else (default /)
#   PREFIX            smbdctl and sqos-ctl go to DESTDIR/PREFIX/sbin (default /usr/local)
#   SMB_MODULES       the external-module tree (M= directory) of our builds of
#                     cifs.ko and ksmbd.ko for this kernel (the shims); default
#                     out/smb-<release>/fs/smb when it holds them
#   SIGN_KEY          private key (PEM) and certificate (DER or PEM) to sign
#   SIGN_CERT         the modules with, e.g. DKMS's MOK for Secure Boot
#   DEPMOD            depmod to run (default depmod; "true" skips it)
#
# Layout, per kernel release (Documentation/quickstart.rst, "Install layout"):
#   lib/modules/<release>/updates/smbdirect/      ours alone, removed whole by
#       smbdirect/smbdirect.ko, qos/sqos.ko       uninstall (compressed and
#       client/cifs.ko, server/ksmbd.ko           signed as the kernel's
#                                                 configuration asks)
#   etc/depmod.d/smbdirect-<release>.conf         only with cifs/ksmbd: depmod
#                                                 "override" lines that rank
#                                                 ours above the kernel's own
#   <PREFIX>/sbin/smbdctl, <PREFIX>/share/man/man8/smbdctl.8
#   <PREFIX>/sbin/sqos-ctl, <PREFIX>/share/man/man8/sqos-ctl.8
# depmod runs when the module tree is an installed kernel's (it has a
# modules.dep): on the running system, or a full root given as DESTDIR. A
# staging DESTDIR of a package gets no module index; its package runs depmod.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

stages=()
trap 'rm -rf "${stages[@]}"' EXIT

main() {
	local action=${1:-}
	case "$action" in
	install|uninstall) ;;
	*) die "usage: $0 install|uninstall" ;;
	esac

	local kdir=${KDIR:-/lib/modules/$(uname -r)/build}
	local krel=${KRELEASE:-}
	if [ -z "$krel" ]; then
		if [ -f "$kdir/include/config/kernel.release" ]; then
			krel=$(cat "$kdir/include/config/kernel.release")
		elif [ "$action" = uninstall ]; then
			krel=$(uname -r)
		else
			die "$kdir is not a configured kernel build tree (give KDIR=)"
		fi
	fi
	local destdir=${DESTDIR:-}
	local modroot=${INSTALL_MOD_PATH:-$destdir}
	local prefix=${PREFIX:-/usr/local}
	local moddir="$modroot/lib/modules/$krel"
	local ourdir="$moddir/updates/smbdirect"
	local conf="$destdir/etc/depmod.d/smbdirect-$krel.conf"
	local tool="$destdir$prefix/sbin/smbdctl"
	local man="$destdir$prefix/share/man/man8/smbdctl.8"
	local sqosctl="$destdir$prefix/sbin/sqos-ctl"
	local sqosman="$destdir$prefix/share/man/man8/sqos-ctl.8"

	if [ "$action" = uninstall ]; then
		say "removing smbdirect from $moddir"
		rm -rf "$ourdir"
		rmdir "$moddir/updates" 2>/dev/null || true
		rm -f "$conf" "$tool" "$man" "$sqosctl" "$sqosman"
		run_depmod "$modroot" "$krel" "$destdir"
		return 0
	fi

	# The build gate (Kbuild) refuses unsupported trees unless
	# SMBDX_UNSUPPORTED_KERNEL=1; installing is refused outright.
	case "$krel" in
	6.12|6.12.*|6.12-*|6.12+*) ;;
	*) die "kernel $krel: smbdirect installs on Linux 6.12.x only (Documentation/design.rst)" ;;
	esac
	if [ -d "$moddir/kernel" ] &&
		find "$moddir/kernel" -name 'smbdirect.ko*' -print -quit | grep -q .; then
		die "$moddir/kernel has an in-tree smbdirect module; ours would shadow it"
	fi
	local m
	for m in smbdirect/smbdirect.ko qos/sqos.ko tools/smbdctl/smbdctl tools/sqos-ctl/sqos-ctl; do
		[ -f "$SMBD_TOP/$m" ] || die "$m is not built: run make first"
	done
	local vermagic
	vermagic=$(modinfo -F vermagic "$SMBD_TOP/smbdirect/smbdirect.ko" | cut -d' ' -f1)
	[ "$vermagic" = "$krel" ] ||
		die "smbdirect.ko was built for $vermagic, not $krel: run make clean; make KDIR=$kdir"

	local smb=${SMB_MODULES:-}
	if [ -z "$smb" ] && [ -f "$SMBD_OUT/smb-$krel/fs/smb/client/cifs.ko" ]; then
		smb="$SMBD_OUT/smb-$krel/fs/smb"
	fi

	# Start from nothing: a module a previous install left behind must not
	# outlive this one.
	rm -rf "$ourdir"
	modules_install "$kdir" "$SMBD_TOP" "$modroot" smbdirect/smbdirect qos/sqos
	local ranked=() smbmods=()
	if [ -n "$smb" ]; then
		for m in client/cifs server/ksmbd; do
			[ ! -f "$smb/$m.ko" ] || smbmods+=("$m")
		done
		[ ${#smbmods[@]} -gt 0 ] || die "SMB_MODULES=$smb holds neither cifs.ko nor ksmbd.ko"
		modules_install "$kdir" "$smb" "$modroot" "${smbmods[@]}"
		for m in "${smbmods[@]}"; do
			ranked+=("${m#*/} $(dirname "$m")")
		done
	fi

	rm -f "$conf"
	if [ ${#ranked[@]} -gt 0 ]; then
		mkdir -p "$(dirname "$conf")"
		{
			echo "# smbdirect: our cifs/ksmbd (on smbdirect.ko) before the kernel's own,"
			echo "# for $krel only. Written by make install; make uninstall removes it."
			local name sub
			for m in "${ranked[@]}"; do
				read -r name sub <<<"$m"
				echo "override $name $krel updates/smbdirect/$sub"
			done
		} >"$conf"
	fi

	install -D -m 755 "$SMBD_TOP/tools/smbdctl/smbdctl" "$tool"
	install -D -m 644 "$SMBD_TOP/tools/smbdctl/smbdctl.8" "$man"
	install -D -m 755 "$SMBD_TOP/tools/sqos-ctl/sqos-ctl" "$sqosctl"
	install -D -m 644 "$SMBD_TOP/tools/sqos-ctl/sqos-ctl.8" "$sqosman"
	run_depmod "$modroot" "$krel" "$destdir"
	say "installed for $krel:"
	(cd "$moddir" && find updates/smbdirect -type f | LC_ALL=C sort | sed 's/^/    /') >&2
	[ ${#ranked[@]} -eq 0 ] || echo "    $conf" >&2
	echo "    $tool" >&2
	echo "    $man" >&2
	echo "    $sqosctl" >&2
	echo "    $sqosman" >&2
}

# modules_install KDIR M ROOT MODULE...: kbuild's modules_install of the
# named modules (paths under M without .ko: smbdirect/smbdirect) into
# ROOT/lib/modules/<release>/updates/smbdirect. Only those: a tree built
# with SMBDX_TESTS=1 also holds test modules, which are never installed.
# They are installed from copies, which SIGN_KEY/SIGN_CERT sign (the build
# tree keeps unsigned modules: signing twice would append a second
# signature). kbuild compresses them as the kernel's configuration asks and
# signs them with that kernel's own key only when the key is in its tree (a
# kernel built here); a distribution's headers have none.
modules_install() {
	local kdir=$1 mdir=$2 root=$3 args=() key stage hash m abs=0
	shift 3
	key=$(conf_str "$kdir" CONFIG_MODULE_SIG_KEY)
	case "$key" in
	""|pkcs11:*) ;;
	/*) [ -e "$key" ] || args+=(CONFIG_MODULE_SIG_ALL=) ;;
	*) [ -e "$kdir/$key" ] || args+=(CONFIG_MODULE_SIG_ALL=) ;;
	esac
	if [ -n "${SIGN_KEY:-}" ]; then
		[ -f "$SIGN_KEY" ] && [ -f "${SIGN_CERT:-}" ] ||
			die "SIGN_KEY and SIGN_CERT must both name files"
		hash=$(conf_str "$kdir" CONFIG_MODULE_SIG_HASH)
		args+=(CONFIG_MODULE_SIG_ALL=)
	fi
	stage=$(mktemp -d)
	stages+=("$stage")
	# modules.order names modules relative to M, or (6.12) by absolute
	# path under it; the copy's follows the build's.
	head -n 1 "$mdir/modules.order" 2>/dev/null | grep -q '^/' && abs=1
	for m in "$@"; do
		mkdir -p "$stage/$(dirname "$m")"
		cp "$mdir/$m.ko" "$stage/$m.ko"
		if [ -n "${SIGN_KEY:-}" ]; then
			"$kdir/scripts/sign-file" "${hash:-sha256}" "$SIGN_KEY" "$SIGN_CERT" \
				"$stage/$m.ko"
		fi
		if [ "$abs" -eq 1 ]; then
			echo "$stage/$m.o"
		else
			echo "$m.o"
		fi
	done >"$stage/modules.order"
	# kbuild's depmod step only complains that a distribution's headers
	# have no System.map: depmod runs afterwards, with the whole tree.
	make -s -C "$kdir" M="$stage" INSTALL_MOD_PATH="$root" \
		INSTALL_MOD_DIR=updates/smbdirect DEPMOD=true "${args[@]}" modules_install \
		2> >(grep -v "missing 'System.map' file" >&2)
}

# conf_str KDIR OPTION: a string option of the tree's configuration
# (auto.conf has it with or without quotes, by kernel version).
conf_str() {
	sed -n "s/^$2=\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p" "$1/include/config/auto.conf"
}

# run_depmod ROOT RELEASE DESTDIR
run_depmod() {
	local root=$1 krel=$2 destdir=$3 args=() d
	if [ ! -f "$root/lib/modules/$krel/modules.dep" ]; then
		say "no modules.dep in $root/lib/modules/$krel: not an installed kernel's tree, depmod not run"
		return 0
	fi
	if [ -n "$root" ]; then
		args+=(-b "$root")
		# A whole root elsewhere: its own depmod configuration.
		if [ -n "$destdir" ]; then
			for d in "$destdir"/etc/depmod.d "$destdir"/lib/depmod.d; do
				[ ! -d "$d" ] || args+=(-C "$d")
			done
		fi
	fi
	${DEPMOD:-depmod} "${args[@]}" "$krel"
}

main "$@"
