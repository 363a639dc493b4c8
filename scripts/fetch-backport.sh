#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Download one package of Debian 12's backports archive (once) and print the
# path of its .deb. The host's own APT configuration is left alone: the
# backports index goes to a private state directory in the cache, and APT
# checks the package against that index (signed by the Debian archive key)
# as for any download.
#
#   scripts/fetch-backport.sh PACKAGE VERSION
#
# Used for ksmbd-tools 3.5.2 (VM userland, scripts/mkinitramfs.sh): Debian
# 12's own 3.4.7 cannot turn on ksmbd's durable handles, which
# tests/vm/sqos_durable.sh needs.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: $0 PACKAGE VERSION"
pkg=$1
ver=$2
dir="$SMBD_CACHE/backports"
deb="$dir/${pkg}_${ver//:/%3a}_amd64.deb"
if [ -s "$deb" ]; then
	echo "$deb"
	exit 0
fi

say "downloading $pkg $ver from bookworm-backports"
mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
printf 'deb http://deb.debian.org/debian bookworm-backports main\n' >"$dir/sources.list"
apt_opts=(-q -o "Dir::Etc::sourcelist=$dir/sources.list" -o Dir::Etc::sourceparts=-
	  -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache"
	  -o APT::Get::List-Cleanup=0 -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" update >/dev/null || die "apt-get update (bookworm-backports) failed"
(cd "$dir" && apt-get "${apt_opts[@]}" download "$pkg=$ver" >/dev/null) ||
	die "cannot download $pkg=$ver from bookworm-backports"
[ -s "$deb" ] || die "no $deb after the download"
echo "$deb"
