#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages and DKMS (make check):
#   1. VERSION, dkms.conf's PACKAGE_VERSION and debian/changelog agree;
#   2. `make deb` builds smbdirect-dkms and smbdirect-tools with debhelper
#      and dh_dkms, and lintian reports no error (scripts/deb.sh);
#   3. `dpkg-deb -c`: smbdirect-dkms holds exactly the module sources DKMS
#      needs under /usr/src/smbdirect-<version> (no tests, no tools) and
#      smbdirect-tools holds smbdctl and sqos-ctl with their manual pages;
#   4. `dkms add` and `dkms build` of the packaged sources against the test
#      kernel's build tree (scripts/kernel.sh plain) build smbdirect.ko,
#      sqos.ko and our cifs.ko and ksmbd.ko (the kernel's fs/smb sources are
#      on this machine) of that version for that kernel, and that
#      smbdirect.ko has no test hook (nm). DKMS runs on a
#      tree of its own (--dkmstree, --sourcetree): nothing is added to this
#      machine's.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	local ver deb got want kdir krel m
	ver=$(cat "$SMBD_TOP/VERSION")
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT

	# 1.
	grep -qx "PACKAGE_VERSION=\"$ver\"" "$SMBD_TOP/dkms.conf" ||
		die "dkms.conf's PACKAGE_VERSION is not VERSION ($ver)"
	[ "$(dpkg-parsechangelog -l "$SMBD_TOP/debian/changelog" -S Version)" = "$ver" ] ||
		die "debian/changelog's version is not VERSION ($ver)"

	# 2.
	"$SMBD_TOP/scripts/deb.sh" >"$t/deb.log" 2>&1 || { cat "$t/deb.log"; die "make deb failed"; }
	grep '^lintian: ' "$t/deb.log" || true
	echo "check-deb: make deb built the packages; lintian: no errors"

	# 3.
	deb="$SMBD_OUT/deb/smbdirect-dkms_${ver}_all.deb"
	got=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./||' | LC_ALL=C sort)
	want=$( { cd "$SMBD_TOP" && git ls-files --cached --others --exclude-standard -- \
			Kbuild Makefile VERSION dkms.conf include qos smbdirect shim \
			scripts/build-smb-modules.sh scripts/lib.sh |
			sed "s|^|usr/src/smbdirect-$ver/|"
		  echo "usr/share/doc/smbdirect-dkms/changelog.gz"
		  echo "usr/share/doc/smbdirect-dkms/copyright"; } | LC_ALL=C sort)
	if [ "$got" != "$want" ]; then
		diff <(echo "$want") <(echo "$got") || true
		die "smbdirect-dkms does not hold what it should (< expected, > packaged)"
	fi
	echo "$got" | grep -qE '/(kunit|tests|tools)/' && die "smbdirect-dkms ships tests or tools"
	deb="$SMBD_OUT/deb/smbdirect-tools_${ver}_amd64.deb"
	got=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./||' | LC_ALL=C sort)
	want=$(printf '%s\n' usr/sbin/smbdctl usr/sbin/sqos-ctl usr/share/man/man8/smbdctl.8.gz \
		usr/share/man/man8/sqos-ctl.8.gz \
		usr/share/doc/smbdirect-tools/changelog.gz \
		usr/share/doc/smbdirect-tools/copyright | LC_ALL=C sort)
	if [ "$got" != "$want" ]; then
		diff <(echo "$want") <(echo "$got") || true
		die "smbdirect-tools does not hold what it should (< expected, > packaged)"
	fi
	dpkg-deb -I "$SMBD_OUT/deb/smbdirect-dkms_${ver}_all.deb" postinst |
		grep -q 'common.postinst' || die "smbdirect-dkms has no DKMS postinst (dh_dkms)"
	echo "check-deb: dpkg-deb -c lists the module sources (smbdirect-dkms) and smbdctl (smbdirect-tools)"

	# 4.
	kdir=$("$SMBD_TOP/scripts/kernel.sh" plain)
	krel=$(cat "$kdir/include/config/kernel.release")
	mkdir -p "$t/x" "$t/src" "$t/dkms"
	dpkg-deb -x "$SMBD_OUT/deb/smbdirect-dkms_${ver}_all.deb" "$t/x"
	mv "$t/x/usr/src/smbdirect-$ver" "$t/src/"
	local dk=(--dkmstree "$t/dkms" --sourcetree "$t/src")
	dkms add -m smbdirect -v "$ver" "${dk[@]}" >"$t/dkms.log" 2>&1 ||
		{ cat "$t/dkms.log"; die "dkms add failed"; }
	if ! dkms build -m smbdirect -v "$ver" -k "$krel" --kernelsourcedir "$kdir" "${dk[@]}" \
		>>"$t/dkms.log" 2>&1; then
		cat "$t/dkms.log" "$t/dkms/smbdirect/$ver/build/make.log" 2>/dev/null
		die "dkms build failed"
	fi
	# This machine has the kernel's fs/smb sources (make check's kernel
	# build unpacked them), so dkms.conf must have added cifs and ksmbd.
	"$SMBD_TOP/scripts/build-smb-modules.sh" --kdir "$kdir" --have-src ||
		die "no fs/smb sources for $kdir: cannot check the cifs/ksmbd DKMS build"
	for m in smbdirect sqos cifs ksmbd; do
		local ko
		ko=$(find "$t/dkms/smbdirect/$ver/$krel" -name "$m.ko*" | head -n 1)
		[ -n "$ko" ] || { cat "$t/dkms.log"; die "dkms build made no $m.ko"; }
		# cifs and ksmbd keep the kernel's own module versions.
		[ "$m" = cifs ] || [ "$m" = ksmbd ] || [ "$(modinfo -F version "$ko")" = "$ver" ] ||
			die "$m.ko from dkms is not version $ver"
		modinfo -F vermagic "$ko" | grep -q "^$krel " || die "$m.ko from dkms is not for $krel"
	done
	ko=$(find "$t/dkms/smbdirect/$ver/$krel" -name "smbdirect.ko*" | head -n 1)
	smbd_no_test_hooks "$ko" || die "smbdirect.ko from dkms has test hooks"
	for m in cifs ksmbd; do
		ko=$(find "$t/dkms/smbdirect/$ver/$krel" -name "$m.ko*" | head -n 1)
		modinfo -F depends "$ko" | tr ',' '\n' | grep -qx smbdirect ||
			die "$m.ko from dkms does not depend on smbdirect"
	done
	echo "check-deb: dkms add and dkms build of smbdirect/$ver (smbdirect, sqos, cifs, ksmbd)" \
		"for the test kernel $krel"
}

main "$@"
