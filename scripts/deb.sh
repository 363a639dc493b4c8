#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: the Debian packages smbdirect-dkms (module sources for DKMS)
# and smbdirect-tools (smbdctl), built with debhelper and dh_dkms from a
# copy of the checkout (uncommitted changes included), then checked with
# lintian (no errors allowed). Results in out/deb/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	"$SMBD_TOP/scripts/setup.sh"
	local ver out dir log
	ver=$(cat "$SMBD_TOP/VERSION")
	out="$SMBD_OUT/deb"
	dir="$out/smbdirect-$ver"
	rm -rf "$out"
	mkdir -p "$dir"
	rsync -a --exclude=/out --exclude=/.git --exclude='*.o' --exclude='*.ko' \
		--exclude='*.a' --exclude='*.mod' --exclude='*.mod.c' --exclude='*.order' \
		--exclude=Module.symvers --exclude='.*.cmd' --exclude='.*.d' \
		--exclude=/tools/smbdctl/smbdctl "$SMBD_TOP/" "$dir/"
	log="$out/build.log"
	say "dpkg-buildpackage in $dir"
	if ! (cd "$dir" && dpkg-buildpackage -us -uc) >"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "dpkg-buildpackage failed; full log in $log"
	fi
	say "lintian"
	if ! lintian --fail-on error --tag-display-limit 0 --allow-root "$out"/smbdirect_"$ver"_*.changes \
		>"$out/lintian.log" 2>&1; then
		cat "$out/lintian.log" >&2
		die "lintian found errors"
	fi
	sed 's/^/lintian: /' "$out/lintian.log" >&2
	ls "$out"/*.deb
}

main "$@"
