#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's packaged headers of the 6.12 kernel whose source the test kernel
# is built from (linux-source-6.12), for building our modules the way a user
# of the distribution kernel does: the distribution's configuration, with
# MODVERSIONS, BTF, module signing and xz compression on.
#
#   scripts/distro-headers.sh        prints the headers' build directory
#
# The packages (linux-headers-<abi>-amd64, -common and linux-kbuild-<abi>)
# are fetched with apt-get download and unpacked under
# $SMBD_CACHE/headers/<abi>, not installed: installed, they would pull in
# the matching linux-image package, and a test run has no business putting
# a kernel into this machine's /boot. The one absolute path the packages
# hold (the -amd64 tree's Makefile includes the -common tree's) is pointed
# at the unpacked copy.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	"$SMBD_TOP/scripts/setup.sh"
	local ver meta dep abi dir tmp p
	ver=$(smbd_kernel_pkgver)
	[ -n "$ver" ] || die "linux-source-6.12 is not installed"
	meta=linux-headers-6.12-amd64
	dep=$(apt-cache show "$meta=$ver" 2>/dev/null |
		sed -n 's/^Depends: \(linux-headers-[^ ,]*-amd64\).*/\1/p' | head -n 1)
	[ -n "$dep" ] || die "apt knows no $meta $ver (apt-get update?)"
	abi=${dep#linux-headers-}
	abi=${abi%-amd64}
	dir="$SMBD_CACHE/headers/$abi"
	if [ ! -f "$dir/.smbd-unpacked" ]; then
		say "fetching Debian's headers for $abi ($ver)"
		rm -rf "$dir" "$dir.tmp"
		mkdir -p "$dir.tmp/debs"
		tmp="$dir.tmp/debs"
		# apt's download user must be able to write there.
		chmod 777 "$tmp"
		(cd "$tmp" && apt-get download -q "linux-headers-$abi-amd64=$ver" \
			"linux-headers-$abi-common=$ver" "linux-kbuild-$abi=$ver") \
			>"$dir.tmp/download.log" 2>&1 ||
			{ cat "$dir.tmp/download.log" >&2; die "apt-get download failed"; }
		for p in "$tmp"/*.deb; do
			dpkg-deb -x "$p" "$dir.tmp/root"
		done
		sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" \
			"$dir.tmp/root/usr/src/linux-headers-$abi-amd64/Makefile"
		rm -rf "$tmp"
		touch "$dir.tmp/.smbd-unpacked"
		mv "$dir.tmp" "$dir"
		# The include above names the final directory.
	fi
	[ -f "$dir/root/usr/src/linux-headers-$abi-amd64/include/config/kernel.release" ] ||
		die "$dir is incomplete"
	echo "$dir/root/usr/src/linux-headers-$abi-amd64"
}

main "$@"
