#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's packaged headers of the 6.12 kernel whose source the test kernel
# is built from (linux-source-6.12), for building our modules the way a user
# of the distribution kernel does: the distribution's configuration, with
# MODVERSIONS, BTF, module signing and xz compression on.
#
#   scripts/distro-headers.sh          prints the headers' build directory
#   scripts/distro-headers.sh --image  prints the root of Debian's own kernel
#                                      image of that version, unpacked
#                                      (boot/vmlinuz-<release>, lib/modules/
#                                      <release> indexed by depmod, and the
#                                      package's control fields and file
#                                      list in DEBIAN/), for the VM stage that
#                                      boots it (scripts/vm.sh --kernel debian)
#
# The packages (linux-headers-<abi>-amd64, -common and linux-kbuild-<abi>;
# with --image linux-image-<abi>-amd64, the signed image an `apt install
# linux-image-6.12-amd64` gets) are fetched with apt-get download and
# unpacked under $SMBD_CACHE/headers/<abi> (image/<abi>), not installed:
# installed, the headers would pull in the matching linux-image package, and
# a test run has no business putting a kernel into this machine's /boot. The one absolute path the packages
# hold (the -amd64 tree's Makefile includes the -common tree's) is pointed
# at the unpacked copy.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	"$SMBD_TOP/scripts/setup.sh"
	local ver meta dep abi
	ver=$(smbd_kernel_pkgver)
	[ -n "$ver" ] || die "linux-source-6.12 is not installed"
	meta=linux-headers-6.12-amd64
	dep=$(apt-cache show "$meta=$ver" 2>/dev/null |
		sed -n 's/^Depends: \(linux-headers-[^ ,]*-amd64\).*/\1/p' | head -n 1)
	[ -n "$dep" ] || die "apt knows no $meta $ver (apt-get update?)"
	abi=${dep#linux-headers-}
	abi=${abi%-amd64}
	if [ "${1:-}" = --image ]; then
		image "$ver" "$abi"
	else
		headers "$ver" "$abi"
	fi
}

# fetch DIR VERSION PACKAGE...: apt-get download the packages of VERSION
# into DIR.tmp/debs and unpack each into DIR.tmp/root.
fetch() {
	local dir=$1 ver=$2 tmp p
	shift 2
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp/debs"
	tmp="$dir.tmp/debs"
	# apt's download user must be able to write there.
	chmod 777 "$tmp"
	(cd "$tmp" && apt-get download -q "${@/%/=$ver}") >"$dir.tmp/download.log" 2>&1 ||
		{ cat "$dir.tmp/download.log" >&2; die "apt-get download failed"; }
	for p in "$tmp"/*.deb; do
		dpkg-deb -x "$p" "$dir.tmp/root"
	done
}

headers() {
	local ver=$1 abi=$2 dir="$SMBD_CACHE/headers/$2"
	if [ ! -f "$dir/.smbd-unpacked" ]; then
		say "fetching Debian's headers for $abi ($ver)"
		fetch "$dir" "$ver" "linux-headers-$abi-amd64" "linux-headers-$abi-common" \
			"linux-kbuild-$abi"
		sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" \
			"$dir.tmp/root/usr/src/linux-headers-$abi-amd64/Makefile"
		rm -rf "$dir.tmp/debs"
		touch "$dir.tmp/.smbd-unpacked"
		mv "$dir.tmp" "$dir"
		# The include above names the final directory.
	fi
	[ -f "$dir/root/usr/src/linux-headers-$abi-amd64/include/config/kernel.release" ] ||
		die "$dir is incomplete"
	echo "$dir/root/usr/src/linux-headers-$abi-amd64"
}

# image VERSION ABI: the package's postinst would run depmod; here it runs
# on the unpacked tree (a few seconds, once).
image() {
	local ver=$1 abi=$2 dir="$SMBD_CACHE/image/$2" krel="$2-amd64"
	if [ ! -f "$dir/.smbd-unpacked" ]; then
		say "fetching Debian's kernel image $krel ($ver)"
		fetch "$dir" "$ver" "linux-image-$krel"
		mkdir -p "$dir.tmp/root/DEBIAN"
		dpkg-deb -f "$dir.tmp/debs/linux-image-$krel"_*.deb >"$dir.tmp/root/DEBIAN/control"
		# Its file list, as dpkg keeps it in /var/lib/dpkg/info/<package>.list
		dpkg-deb --fsys-tarfile "$dir.tmp/debs/linux-image-$krel"_*.deb | tar -t |
			sed 's|^\./|/|; s|/$||; s|^$|/.|' >"$dir.tmp/root/DEBIAN/list"
		rm -rf "$dir.tmp/debs"
		depmod -b "$dir.tmp/root" "$krel"
		touch "$dir.tmp/.smbd-unpacked"
		mv "$dir.tmp" "$dir"
	fi
	[ -f "$dir/root/boot/vmlinuz-$krel" ] && [ -f "$dir/root/lib/modules/$krel/modules.dep" ] &&
		[ -s "$dir/root/DEBIAN/list" ] ||
		die "$dir is incomplete"
	echo "$dir/root"
}

main "$@"
