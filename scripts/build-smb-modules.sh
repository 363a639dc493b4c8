#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build Linux's own cifs.ko and ksmbd.ko as external modules whose SMB Direct
# transport is smbdirect.ko: the kernel's fs/smb/{client,server,common}
# sources are copied, our shims (shim/<version>/) replace
# fs/smb/client/smbdirect.{c,h} and fs/smb/server/transport_rdma.{c,h}, the
# shim's patches are applied, and the result is built against KDIR with
# CONFIG_CIFS_SMB_DIRECT and CONFIG_SMB_SERVER_SMBDIRECT on, resolving
# smbdirect.ko's symbols from its Module.symvers.
#
#   scripts/build-smb-modules.sh [--kdir DIR] [--symvers FILE] [--src DIR]
#                                [--out DIR] [--install] [--have-src]
#
#   --kdir DIR      configured kernel build tree (default: the project's
#                   plain test kernel, scripts/kernel.sh plain)
#   --symvers FILE  Module.symvers of smbdirect.ko built against DIR
#                   (default: ./Module.symvers of an in-tree `make`)
#   --src DIR       kernel source tree holding fs/smb (default: DIR/source,
#                   DIR itself, Debian's linux-source-6.12 unpacked under
#                   the project cache, or fs/smb taken from
#                   /usr/src/linux-source-6.12.tar.xz)
#   --out DIR       build directory (default: out/smb-<kernel release>);
#                   the modules end up in DIR/fs/smb/{client,server}
#   --have-src      only say (exit status 0 or 1) whether the kernel's fs/smb
#                   sources can be found; `make` builds cifs/ksmbd when so
#   --check         only find the sources and check that they are the
#                   kernel's own (below); `make` runs this before it builds
#                   anything, so that a refusal costs no build
#   --install       also install them under /lib/modules/<release>/updates
#                   and smbdirect.ko (smbdirect/smbdirect.ko next to the
#                   Module.symvers given) under extra/, then run depmod
#                   (INSTALL_MOD_PATH is honoured), so `modprobe cifs` and
#                   `modprobe ksmbd` load ours and pull in smbdirect; the
#                   kernel's own stay in kernel/fs/smb, loadable by path
#
# The sources must be DIR's kernel's own: their version (the top Makefile)
# must be DIR's release's, and where DIR says which Debian package it is
# (include/generated/package.h) and the sources are linux-source-6.12's,
# the two package versions must be the same. Anything else is refused with
# what to install, before anything is built: cifs.ko and ksmbd.ko are never
# built from another kernel's sources.
#
# The shims are compiled with W=1 (and checked with sparse, if installed)
# first, and any warning fails the build;
# cifs's and ksmbd's own sources are built as the kernel builds them. The
# built modules are checked with modinfo: they must depend on smbdirect and
# import its namespace.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	local kdir="" symvers="" ksrc="" out="" install=0 have_src=0 check=0 src_pkg=0

	while [ $# -gt 0 ]; do
		case "$1" in
		--kdir) kdir=$2; shift 2 ;;
		--symvers) symvers=$2; shift 2 ;;
		--src) ksrc=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--install) install=1; shift ;;
		--have-src) have_src=1; shift ;;
		--check) check=1; shift ;;
		-h|--help) sed -n '3,/^set -e/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) die "unknown argument: $1" ;;
		esac
	done
	[ -n "$kdir" ] || kdir=$("$SMBD_TOP/scripts/kernel.sh" plain)
	kdir=$(readlink -f "$kdir")
	[ -f "$kdir/include/config/kernel.release" ] ||
		die "$kdir is not a configured kernel build tree"
	local krel kver
	krel=$(cat "$kdir/include/config/kernel.release")
	kver=$(echo "$krel" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
	local shim="$SMBD_TOP/shim/$kver"
	[ -d "$shim" ] || die "$kdir is Linux $krel: our cifs.ko and ksmbd.ko exist for" \
		"Linux 6.12.x only (shim/$kver does not exist; have: $(ls "$SMBD_TOP/shim"))"

	if [ "$have_src" -eq 1 ]; then
		# Would a build find fs/smb (the places searched below)?
		local c
		for c in "$ksrc" "$kdir/source" "$kdir" \
			 "$SMBD_CACHE/src/linux-source-6.12-$(smbd_kernel_pkgver)"; do
			[ -n "$c" ] && [ -f "$c/fs/smb/client/smbdirect.c" ] && exit 0
		done
		[ -f /usr/src/linux-source-6.12.tar.xz ]
		exit
	fi

	if [ "$check" -eq 0 ]; then
		[ -n "$symvers" ] || symvers="$SMBD_TOP/Module.symvers"
		[ -f "$symvers" ] || die "no $symvers: build smbdirect.ko against $kdir first"
		grep -q '[[:space:]]smbdx_connect[[:space:]]' "$symvers" ||
			die "$symvers does not list smbdirect.ko's symbols"
		symvers=$(readlink -f "$symvers")
	fi

	if [ -z "$ksrc" ]; then
		local c
		for c in "$kdir/source" "$kdir" \
			 "$SMBD_CACHE/src/linux-source-6.12-$(smbd_kernel_pkgver)"; do
			if [ -f "$c/fs/smb/client/smbdirect.c" ]; then
				ksrc=$c
				break
			fi
		done
		# The project's unpacked copy of linux-source-6.12.
		[ "$ksrc" != "$SMBD_CACHE/src/linux-source-6.12-$(smbd_kernel_pkgver)" ] || src_pkg=1
	fi
	local tarball=/usr/src/linux-source-6.12.tar.xz
	if [ -z "$ksrc" ] && [ -f "$tarball" ]; then
		# Only what the build needs: fs/smb, two fs/nls headers, the
		# top Makefile (for the version), the ASN.1 compiler (below).
		src_pkg=1
		ksrc="$SMBD_CACHE/src/fs-smb-$(smbd_kernel_pkgver)"
		if [ ! -f "$ksrc/fs/smb/client/smbdirect.c" ] ||
			[ ! -f "$ksrc/scripts/asn1_compiler.c" ]; then
			say "taking fs/smb from $tarball"
			rm -rf "$ksrc"
			mkdir -p "$ksrc"
			tar -xf "$tarball" -C "$ksrc" --strip-components=1 --wildcards \
				--no-wildcards-match-slash \
				'*/Makefile' '*/fs/smb' '*/fs/nls/nls_ucs2_*.h' \
				'*/scripts/asn1_compiler.c' '*/include/linux/asn1.h' \
				'*/include/linux/asn1_ber_bytecode.h' ||
				die "cannot unpack $tarball"
		fi
	fi
	[ -n "$ksrc" ] && [ -f "$ksrc/fs/smb/client/smbdirect.c" ] ||
		die "no kernel source with fs/smb found; give --src (Debian: apt-get install linux-source-6.12)"
	ksrc=$(readlink -f "$ksrc")
	own_sources "$kdir" "$krel" "$ksrc" "$src_pkg"
	[ "$check" -eq 0 ] || exit 0

	[ -n "$out" ] || out="$SMBD_OUT/smb-$krel"
	mkdir -p "$out"
	out=$(readlink -f "$out")

	# Stage the tree, then update the build directory only where files
	# changed (content, not time), so that a rebuild recompiles only what
	# changed.
	local stage
	stage=$(mktemp -d)
	trap 'rm -rf "$stage"' RETURN
	mkdir -p "$stage/fs/smb"
	cp -a "$ksrc/fs/smb/client" "$ksrc/fs/smb/server" "$ksrc/fs/smb/common" \
		"$stage/fs/smb/"
	# The headers outside fs/smb that cifs and ksmbd include by path.
	mkdir -p "$stage/fs/nls"
	cp "$ksrc/fs/nls/nls_ucs2_utils.h" "$ksrc/fs/nls/nls_ucs2_data.h" \
		"$stage/fs/nls/"
	# The shims, and the files of our own they add (the Storage QoS glue,
	# ksmbd_sqos.c and cifs_sqos.c, called from the patches below).
	cp "$shim"/client/*.[ch] "$stage/fs/smb/client/"
	cp "$shim"/server/*.[ch] "$stage/fs/smb/server/"
	local p
	for p in "$shim"/*.patch; do
		[ -e "$p" ] || continue
		(cd "$stage" && patch -p1 --quiet --no-backup-if-mismatch <"$p") ||
			die "$(basename "$p") does not apply to $ksrc"
	done
	# The kernel's fs/smb/common modules (cifs_arc4, cifs_md4) are used as
	# they are: build only the client and the server.
	cat >"$stage/fs/smb/Kbuild" <<EOF
# Generated by scripts/build-smb-modules.sh: cifs.ko and ksmbd.ko with the
# SMB Direct transport of smbdirect.ko ($shim).
subdir-ccflags-y += -I$SMBD_TOP/include
subdir-ccflags-y += -DCONFIG_CIFS_SMB_DIRECT=1 -DCONFIG_SMB_SERVER_SMBDIRECT=1
obj-m += client/ server/
EOF
	rsync -rlpgoD --checksum --delete \
		--exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude='*.order' --exclude=Module.symvers \
		--exclude='*.asn1.[ch]' --exclude='.*.d' --exclude='*.a' --exclude=/.host \
		"$stage/" "$out/"
	asn1_parsers "$kdir" "$ksrc" "$out"

	local kmake=(make -C "$kdir" M="$out/fs/smb" -j"$SMBD_JOBS"
		KBUILD_EXTRA_SYMBOLS="$symvers"
		CONFIG_CIFS=m CONFIG_SMB_SERVER=m
		CONFIG_CIFS_SMB_DIRECT=y CONFIG_SMB_SERVER_SMBDIRECT=y)
	local log="$out/build.log"
	# Our files alone with W=1, and sparse if installed (cifs's and ksmbd's
	# own sources are not W=1 clean, and the kernel may turn warnings into
	# errors)... make's own note about a forced -j under DKMS's make is
	# not a compiler warning.
	local check=()
	command -v sparse >/dev/null && check=(C=1)
	say "checking the $kver shims with W=1${check:+ and sparse} against $krel"
	local own=() f
	for f in "$shim"/client/*.c "$shim"/server/*.c; do
		own+=("$(basename "$(dirname "$f")")/$(basename "$f" .c).o")
	done
	if ! "${kmake[@]}" W=1 "${check[@]}" "${own[@]}" \
		>"$log" 2>&1 || grep -E 'warning:|error:' "$log" |
		grep -v '^make\[[0-9]*\]: warning: -j' >&2; then
		cat "$log" >&2
		die "the shims do not compile cleanly with W=1"
	fi
	# ...then the two modules as the kernel builds them.
	say "building cifs.ko and ksmbd.ko against $krel"
	if ! "${kmake[@]}" modules >>"$log" 2>&1; then
		cat "$log" >&2
		die "cifs/ksmbd build failed"
	fi

	local m
	for m in client/cifs.ko server/ksmbd.ko; do
		[ -f "$out/fs/smb/$m" ] || die "$m was not built"
		modinfo -F depends "$out/fs/smb/$m" | tr ',' '\n' | grep -qx smbdirect ||
			die "$m does not depend on smbdirect"
		modinfo -F import_ns "$out/fs/smb/$m" | grep -qx SMBDX ||
			die "$m does not import the SMBDX namespace"
	done
	say "built $out/fs/smb/client/cifs.ko and $out/fs/smb/server/ksmbd.ko"

	if [ "$install" -eq 1 ]; then
		local sko mdir="${INSTALL_MOD_PATH:-}/lib/modules/$krel"
		sko="$(dirname "$symvers")/smbdirect/smbdirect.ko"
		[ -f "$sko" ] || die "no $sko to install"
		install -D -m 644 "$sko" "$mdir/extra/smbdirect.ko"
		"${kmake[@]}" INSTALL_MOD_DIR=updates modules_install
		depmod ${INSTALL_MOD_PATH:+-b "$INSTALL_MOD_PATH"} "$krel"
		say "installed $mdir/extra/smbdirect.ko, $mdir/updates/{client/cifs,server/ksmbd}.ko"
		say "modprobe cifs now loads $(modinfo ${INSTALL_MOD_PATH:+-b "$INSTALL_MOD_PATH"} -k "$krel" -n cifs)"
	fi
}

# own_sources KDIR RELEASE KSRC SRC_PKG: refuse sources that are not the
# kernel's own (SRC_PKG=1: KSRC is linux-source-6.12's).
own_sources() {
	local kdir=$1 krel=$2 ksrc=$3 src_pkg=$4 sver kpkg spkg
	sver=$(awk '/^VERSION =/ { v = $3 } /^PATCHLEVEL =/ { p = $3 }
		/^SUBLEVEL =/ { s = $3 } END { print v "." p "." s }' "$ksrc/Makefile")
	case "$krel" in
	"$sver"|"$sver"[!0-9]*) ;;
	*) die "the kernel sources in $ksrc are Linux $sver, the kernel $krel:" \
		"cifs.ko and ksmbd.ko are built from the kernel's own sources only." \
		"Install the sources of $krel (Debian: the linux-source-6.12 of the" \
		"same version as linux-image-$krel), or build without them (make SMB=0)" ;;
	esac
	kpkg=$(sed -n 's/^#define LINUX_PACKAGE_ID " *Debian \([^" ]*\)".*/\1/p' \
		"$kdir/include/generated/package.h" 2>/dev/null)
	[ -n "$kpkg" ] && [ "$src_pkg" -eq 1 ] || return 0
	spkg=$(smbd_kernel_pkgver)
	[ "$spkg" = "$kpkg" ] ||
		die "linux-source-6.12 is version $spkg, the kernel $krel is Debian's $kpkg:" \
			"cifs.ko and ksmbd.ko are built from the kernel's own sources only." \
			"Install the same version (apt install linux-source-6.12=$kpkg) or a" \
			"kernel of linux-source's version, or build without them (make SMB=0)"
}

# asn1_parsers KDIR KSRC OUT: cifs and ksmbd decode SPNEGO with parsers that
# kbuild generates from their *.asn1 grammars with the host tool
# KDIR/scripts/asn1_compiler. A kernel built from source has that tool; a
# distribution's headers may not (Debian's linux-kbuild-6.12 ships none),
# and kbuild then has no rule for the *.asn1.[ch] files. In that case the
# tool is built from the kernel's own scripts/asn1_compiler.c (KSRC, the
# same sources as fs/smb) into OUT/.host, never into KDIR, and it generates
# the parsers beside their grammars in OUT, as kbuild would have; a file is
# replaced only when its content changes, so a rebuild recompiles nothing.
asn1_parsers() {
	local kdir=$1 ksrc=$2 out=$3 host="$3/.host" cc=${HOSTCC:-cc} g base
	[ ! -x "$kdir/scripts/asn1_compiler" ] || return 0
	[ -f "$ksrc/scripts/asn1_compiler.c" ] &&
		[ -f "$ksrc/include/linux/asn1_ber_bytecode.h" ] ||
		die "$kdir has no scripts/asn1_compiler and $ksrc no scripts/asn1_compiler.c" \
			"to build it from: cifs's and ksmbd's ASN.1 parsers cannot be generated" \
			"(give --src a full kernel source tree of the same version)"
	mkdir -p "$host/include/linux" "$host/gen"
	if ! cmp -s "$ksrc/scripts/asn1_compiler.c" "$host/asn1_compiler.c" ||
		[ ! -x "$host/asn1_compiler" ]; then
		say "building the host tool asn1_compiler from $ksrc/scripts"
		rm -f "$host/asn1_compiler"
		cp "$ksrc/include/linux/asn1.h" "$ksrc/include/linux/asn1_ber_bytecode.h" \
			"$host/include/linux/"
		"$cc" -O2 -I"$host/include" -o "$host/asn1_compiler" \
			"$ksrc/scripts/asn1_compiler.c" >"$host/cc.log" 2>&1 ||
			{ cat "$host/cc.log" >&2; die "cannot build asn1_compiler with $cc"; }
		cp "$ksrc/scripts/asn1_compiler.c" "$host/asn1_compiler.c"
	fi
	for g in "$out"/fs/smb/client/*.asn1 "$out"/fs/smb/server/*.asn1; do
		[ -e "$g" ] || continue
		base=$(basename "$g")
		"$host/asn1_compiler" "$g" "$host/gen/$base.c" "$host/gen/$base.h" ||
			die "asn1_compiler failed on $g"
		cmp -s "$host/gen/$base.c" "$g.c" || cp "$host/gen/$base.c" "$g.c"
		cmp -s "$host/gen/$base.h" "$g.h" || cp "$host/gen/$base.h" "$g.h"
	done
}

main "$@"
