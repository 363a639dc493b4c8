#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The user's build and install, checked without a VM (make check):
#   1. `make KDIR=<Debian's linux-headers for 6.12>` (scripts/distro-headers.sh:
#      the distribution's configuration with MODVERSIONS, BTF and signing),
#      as a user with linux-source-6.12 installed runs it, builds all four
#      modules (smbdirect.ko, sqos.ko, our cifs.ko and ksmbd.ko, whose ASN.1
#      parsers need a host tool Debian's linux-kbuild does not ship) and
#      smbdctl without a warning, with MODULE_VERSION from VERSION, the
#      headers' vermagic and BTF, cifs and ksmbd depending on smbdirect, and
#      that smbdirect.ko has no test hook (nm: smbdirect/testhooks.c is built
#      with SMBDX_TESTS=1 only);
#   2. `make install DESTDIR=...` gives exactly the expected tree (our cifs
#      and ksmbd and their depmod.d file included);
#   3. in a module tree with stand-ins for the kernel's cifs.ko and ksmbd.ko,
#      installing our builds of them (SMB_MODULES=) makes depmod pick ours,
#      and `make uninstall` restores the stock ones and leaves the tree as
#      it was;
#   4. SIGN_KEY/SIGN_CERT sign the installed modules;
#   5. the install refuses a kernel that is not 6.12;
#   6. `make smb-install` refuses, before building anything and leaving
#      nothing behind, kernel sources that are not the kernel's own (a
#      Debian package version or a Linux version other than the headers')
#      and a kernel that is not 6.12, each with what to do.
# Exits non-zero on the first failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	local kdir krel bdir src log root
	kdir=$("$SMBD_TOP/scripts/distro-headers.sh")
	krel=$(cat "$kdir/include/config/kernel.release")
	bdir="$SMBD_OUT/build-distro"
	src="$bdir/src"
	mkdir -p "$bdir"
	smbd_sync_src "$src" "$kdir"
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT

	# 1. The build, as a user runs it.
	log="$bdir/build.log"
	say "make KDIR=$kdir (Debian's headers, $krel)"
	# All four modules, as a user runs it (SMB=auto finds linux-source).
	# cifs's and ksmbd's own sources are built as the kernel builds them,
	# their output in out/smb-<release>/build.log: this log holds ours.
	if ! make -C "$src" KDIR="$kdir" -j"$SMBD_JOBS" >"$log" 2>&1; then
		cat "$log"
		die "make against Debian's headers failed"
	fi
	if grep -E 'warning:|error:|Warning:' "$log"; then
		die "make against Debian's headers printed warnings"
	fi
	local ko want
	want=$(cat "$SMBD_TOP/VERSION")
	for ko in smbdirect/smbdirect.ko qos/sqos.ko; do
		[ "$(modinfo -F version "$src/$ko")" = "$want" ] ||
			die "$ko: MODULE_VERSION is not $want"
		[ -n "$(modinfo -F author "$src/$ko")" ] || die "$ko: no MODULE_AUTHOR"
		modinfo -F vermagic "$src/$ko" | grep -q "^$krel .*modversions" ||
			die "$ko: vermagic is not $krel with modversions"
		readelf -S "$src/$ko" | grep '\.BTF' >/dev/null || die "$ko: no BTF"
	done
	local smb="$src/out/smb-$krel/fs/smb"
	for ko in client/cifs.ko server/ksmbd.ko; do
		[ -f "$smb/$ko" ] || { cat "$log"; die "make did not build $ko"; }
		modinfo -F vermagic "$smb/$ko" | grep -q "^$krel .*modversions" ||
			die "$ko: vermagic is not $krel with modversions"
		modinfo -F depends "$smb/$ko" | tr ',' '\n' | grep -qx smbdirect ||
			die "$ko does not depend on smbdirect"
		readelf -S "$smb/$ko" | grep '\.BTF' >/dev/null || die "$ko: no BTF"
	done
	# Debian's headers have no asn1_compiler: the parsers are ours.
	if [ ! -x "$kdir/scripts/asn1_compiler" ]; then
		[ -x "$src/out/smb-$krel/.host/asn1_compiler" ] &&
			[ -f "$smb/server/ksmbd_spnego_negtokentarg.asn1.c" ] ||
			die "no ASN.1 parsers generated for headers without asn1_compiler"
	fi
	smbd_no_test_hooks "$src/smbdirect/smbdirect.ko" || die "the product has test hooks"
	"$src/tools/smbdctl/smbdctl" version | grep -qx "smbdctl $want" ||
		die "smbdctl version is not $want"
	echo "check-install: built smbdirect, sqos, cifs and ksmbd against $krel: no warnings," \
		"version $want, BTF, modversions, no test hooks"

	# 2. make install DESTDIR=: the expected tree, nothing else.
	root="$t/stage"
	make -s -C "$src" KDIR="$kdir" DESTDIR="$root" install >"$t/install.log" 2>&1 ||
		{ cat "$t/install.log"; die "make install DESTDIR= failed"; }
	expect_tree "$root" "make install DESTDIR=" <<EOF
etc/depmod.d/smbdirect-$krel.conf
lib/modules/$krel/updates/smbdirect/client/cifs.ko.xz
lib/modules/$krel/updates/smbdirect/server/ksmbd.ko.xz
lib/modules/$krel/updates/smbdirect/qos/sqos.ko.xz
lib/modules/$krel/updates/smbdirect/smbdirect/smbdirect.ko.xz
usr/local/sbin/smbdctl
usr/local/sbin/sqos-ctl
usr/local/share/man/man8/smbdctl.8
usr/local/share/man/man8/sqos-ctl.8
EOF
	xz -dc "$root/lib/modules/$krel/updates/smbdirect/smbdirect/smbdirect.ko.xz" \
		>"$t/installed.ko"
	cmp -s "$t/installed.ko" "$src/smbdirect/smbdirect.ko" ||
		die "the installed smbdirect.ko is not the one built"
	make -s -C "$src" KDIR="$kdir" DESTDIR="$root" uninstall >>"$t/install.log" 2>&1 ||
		{ cat "$t/install.log"; die "make uninstall DESTDIR= failed"; }
	expect_tree "$root" "make uninstall DESTDIR=" </dev/null
	echo "check-install: make install DESTDIR= gives the expected tree; uninstall removes it"

	# 3. Ranking of our cifs.ko/ksmbd.ko over the kernel's, and back.
	ranking "$kdir" "$krel" "$src" "$t"

	# 4. Signing with a key of one's own (a MOK).
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=smbdirect test MOK/" \
		-outform DER -keyout "$t/mok.priv" -out "$t/mok.der" >/dev/null 2>&1 ||
		die "openssl could not make a test key"
	root="$t/signed"
	make -s -C "$src" KDIR="$kdir" DESTDIR="$root" SIGN_KEY="$t/mok.priv" \
		SIGN_CERT="$t/mok.der" install >"$t/sign.log" 2>&1 ||
		{ cat "$t/sign.log"; die "make install SIGN_KEY= failed"; }
	for ko in smbdirect/smbdirect.ko qos/sqos.ko; do
		modinfo -F signer "$root/lib/modules/$krel/updates/smbdirect/$ko.xz" |
			grep -qx 'smbdirect test MOK' || die "$ko was not signed with SIGN_KEY"
		[ -z "$(modinfo -F signer "$src/$ko")" ] ||
			die "signing changed the built $ko"
	done
	echo "check-install: SIGN_KEY/SIGN_CERT sign the installed modules, not the built ones"

	# 5. Only 6.12.
	mkdir -p "$t/k613/include/config"
	echo 6.13.1 >"$t/k613/include/config/kernel.release"
	if KDIR="$t/k613" DESTDIR="$t/k613root" "$src/scripts/install.sh" install \
		>"$t/k613.log" 2>&1; then
		die "install accepted a 6.13 kernel"
	fi
	grep -q 'Linux 6.12.x only' "$t/k613.log" || { cat "$t/k613.log"; die "no reason given"; }
	echo "check-install: install refuses a 6.13 kernel: $(tail -n 1 "$t/k613.log")"

	# 6. cifs/ksmbd from sources that are not the kernel's, or not 6.12.
	refuse "$kdir" "$src" "$t" "Debian 6.12.117-99" "$krel" "apt install linux-source-6.12="
	refuse "$kdir" "$src" "$t" "" "6.12.9999+deb12-amd64" "Install the sources of"
	refuse "$kdir" "$src" "$t" "" "6.13.1-amd64" "Linux 6.12.x only"
}

# refuse KDIR SRC T PACKAGE_ID RELEASE HINT: `make smb-install` against a copy
# of KDIR (symbolic links) that says it is Debian's PACKAGE_ID (when given)
# of RELEASE fails before anything is built, naming HINT, and writes no
# file: nothing under DESTDIR, nothing in the build tree.
refuse() {
	local kdir=$1 src=$2 t=$3 id=$4 rel=$5 hint=$6 fake="$3/fake"
	rm -rf "$fake" "$t/refused"
	mkdir -p "$fake"
	cp -as "$kdir/." "$fake/"
	rm -f "$fake/include/config/kernel.release" "$fake/include/generated/package.h"
	echo "$rel" >"$fake/include/config/kernel.release"
	[ -z "$id" ] || echo "#define LINUX_PACKAGE_ID \" $id\"" >"$fake/include/generated/package.h"
	if make -C "$src" KDIR="$fake" DESTDIR="$t/refused" smb-install >"$t/refuse.log" 2>&1; then
		cat "$t/refuse.log"
		die "make smb-install accepted ${id:-Linux $rel} with linux-source $(smbd_kernel_pkgver)"
	fi
	grep -q "^error: .*$hint" "$t/refuse.log" || { cat "$t/refuse.log"; die "no reason given"; }
	grep -qE '  (CC|LD) ' "$t/refuse.log" && die "the refusal came after a build"
	[ ! -e "$t/refused" ] &&
		[ -z "$(find "$src" -newer "$fake/include/config/kernel.release" -print -quit)" ] ||
		die "the refused make smb-install left something behind"
	echo "check-install: make smb-install refuses ${id:-Linux $rel}: $(grep '^error: ' "$t/refuse.log" |
		cut -c1-150)..."
}

# expect_tree ROOT WHAT: the files under ROOT are the lines of stdin.
expect_tree() {
	local got want
	got=$(cd "$1" 2>/dev/null && find . -type f -o -type l | sed 's|^\./||' | LC_ALL=C sort)
	want=$(LC_ALL=C sort)
	if [ "$got" != "$want" ]; then
		echo "$2: the tree differs from the expected one (-expected +actual):"
		diff <(echo "$want") <(echo "$got") | sed -n 's/^[<>]/&/p' |
			sed 's/^</-/; s/^>/+/'
		die "$2"
	fi
}

ranking() {
	local kdir=$1 krel=$2 src=$3 t=$4 root m before
	root="$t/ranked"
	# The "kernel's own" cifs.ko and ksmbd.ko, where Linux installs them.
	smbd_stock_tree "$kdir" "$krel" "$t/stock" "$root"
	# "Ours", laid out as scripts/build-smb-modules.sh builds them (fs/smb).
	smbd_standin "$t/ours/client" cifs ours
	smbd_standin "$t/ours/server" ksmbd ours
	echo "obj-m += client/ server/" >"$t/ours/Kbuild"
	make -s -C "$kdir" M="$t/ours" -j"$SMBD_JOBS" modules >"$t/ours.log" 2>&1 ||
		{ cat "$t/ours.log"; die "building the ours stand-ins failed"; }
	before=$(smbd_tree_state "$root")

	make -s -C "$src" KDIR="$kdir" DESTDIR="$root" SMB_MODULES="$t/ours" install \
		>"$t/ranked.log" 2>&1 || { cat "$t/ranked.log"; die "make install SMB_MODULES= failed"; }
	for m in cifs ksmbd; do
		[ "$(modinfo -b "$root" -k "$krel" -F description "$m")" = ours ] ||
			die "after make install, modprobe $m does not find ours: $(modinfo -b "$root" -k "$krel" -n "$m")"
	done
	grep -qx "override cifs $krel updates/smbdirect/client" \
		"$root/etc/depmod.d/smbdirect-$krel.conf" || die "no depmod override for cifs"
	modinfo -b "$root" -k "$krel" -n smbdirect | grep -q "/updates/smbdirect/smbdirect/smbdirect.ko.xz$" ||
		die "depmod does not index smbdirect"
	echo "check-install: our cifs.ko and ksmbd.ko rank above the kernel's: $(modinfo -b "$root" -k "$krel" -n cifs | sed "s|^$root||")"

	make -s -C "$src" KDIR="$kdir" DESTDIR="$root" uninstall >>"$t/ranked.log" 2>&1 ||
		{ cat "$t/ranked.log"; die "make uninstall failed"; }
	smbd_stock_restored "$root" "$krel" "$before" "make uninstall"
}

main "$@"
