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
#   4. `dkms add` and `dkms build` of the packaged sources against Debian's
#      headers (scripts/distro-headers.sh), as on a Debian machine with
#      linux-source-6.12, build smbdirect.ko, sqos.ko and our cifs.ko and
#      ksmbd.ko of that version for that kernel, and smbdirect.ko has no
#      test hook (nm). Signing: with a MOK key where DKMS looks for it
#      (/var/lib/dkms/mok.key and mok.pub), all four come out signed with
#      it (modinfo -F signer, sig_key the certificate's serial);
#   5. `dkms install` into a made-up module tree with stand-ins for the
#      kernel's cifs.ko and ksmbd.ko installs all four (DKMS's version check
#      would keep the kernel's: the package overrides it), depmod makes
#      `modprobe cifs`/`ksmbd` find ours, the stock files stay; `dkms remove
#      --all` (apt purge), without the headers, restores the tree exactly.
#      What `dkms install` put there is also packed, as it is, into a
#      binary package out/deb/smbdirect-modules-<release>_<version>_amd64.deb
#      for the VM stage that boots Debian's own kernel (scripts/vm.sh
#      --kernel debian installs it with dpkg: no compiler in that guest);
#   6. `dkms build` for headers of another Debian version than linux-source
#      fails before compiling, with the reason in make.log, building nothing;
#      run without a MOK, it also shows that DKMS makes a key of its own
#      when there is none (before it compiles: no second build of ours).
#   DKMS runs on trees of its own (--dkmstree, --sourcetree, --installtree)
#   and, to build and install, as a copy of this machine's dkms whose fixed
#   paths (framework.conf, the MOK key, sign-file, modules_to_force_install,
#   the kernel's modules.dep) point into the made-up system (dkms_copy):
#   nothing is added to this machine's, and its /etc/dkms does not matter.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	local ver deb got want kdir krel m
	ver=$(cat "$SMBD_TOP/VERSION")
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	# The Debian image VM installs it: never one from an earlier run.
	rm -f "$SMBD_OUT"/deb/smbdirect-modules-*.deb

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
		  echo "usr/share/dkms/modules_to_force_install/smbdirect"
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
	kdir=$("$SMBD_TOP/scripts/distro-headers.sh")
	krel=$(cat "$kdir/include/config/kernel.release")
	mkdir -p "$t/x" "$t/src" "$t/dkms"
	dpkg-deb -x "$SMBD_OUT/deb/smbdirect-dkms_${ver}_all.deb" "$t/x"
	mv "$t/x/usr/src/smbdirect-$ver" "$t/src/"
	dkms_copy "$kdir" "$t"
	# The made-up system's module tree: DKMS compresses what it builds as
	# the kernel's modules.dep shows them (.ko.xz on Debian).
	smbd_stock_tree "$kdir" "$krel" "$t/stock" "$t/root"
	# The admin's own key, enrolled as a MOK (quickstart.rst), where DKMS
	# looks for it.
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=smbdirect test MOK/" \
		-outform DER -keyout "$t/mok/mok.key" -out "$t/mok/mok.pub" >/dev/null 2>&1 ||
		die "openssl could not make a test key"
	local serial
	serial=$(openssl x509 -inform DER -in "$t/mok/mok.pub" -noout -serial | sed 's/^serial=//')
	local dk=(--dkmstree "$t/dkms" --sourcetree "$t/src")
	dkms add -m smbdirect -v "$ver" "${dk[@]}" >"$t/dkms.log" 2>&1 ||
		{ cat "$t/dkms.log"; die "dkms add failed"; }
	if ! bash "$t/dkms.sh" build -m smbdirect -v "$ver" -k "$krel" --kernelsourcedir "$kdir" \
		"${dk[@]}" >>"$t/dkms.log" 2>&1; then
		cat "$t/dkms.log" "$t/dkms/smbdirect/$ver/build/make.log" 2>/dev/null
		die "dkms build failed"
	fi
	# This machine has the kernel's fs/smb sources (linux-source-6.12),
	# so dkms.conf must have added cifs and ksmbd.
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
		[ "$(modinfo -F signer "$ko")" = "smbdirect test MOK" ] &&
			[ "$(modinfo -F sig_key "$ko" | tr -d ':')" = "$serial" ] ||
			{ grep -i sign "$t/dkms.log"; die "$m.ko from dkms is not signed with the MOK" \
				"(signer: '$(modinfo -F signer "$ko")', key $(modinfo -F sig_key "$ko"))"; }
	done
	ko=$(find "$t/dkms/smbdirect/$ver/$krel" -name "smbdirect.ko*" | head -n 1)
	smbd_no_test_hooks "$ko" || die "smbdirect.ko from dkms has test hooks"
	for m in cifs ksmbd; do
		ko=$(find "$t/dkms/smbdirect/$ver/$krel" -name "$m.ko*" | head -n 1)
		modinfo -F depends "$ko" | tr ',' '\n' | grep -qx smbdirect ||
			die "$m.ko from dkms does not depend on smbdirect"
	done
	echo "check-deb: dkms add and dkms build of smbdirect/$ver (smbdirect, sqos, cifs, ksmbd)" \
		"against Debian's headers for $krel, signed ($(modinfo -F sig_hashalgo "$ko"))" \
		"with the MOK in /var/lib/dkms"

	# 5.
	dkms_install "$kdir" "$krel" "$ver" "$t"

	# 6.
	dkms_refuse "$kdir" "$krel" "$ver" "$t"
}

# dkms_copy KDIR T: T/dkms.sh, this machine's dkms reading its fixed paths
# from the made-up system under T: framework.conf (none there: DKMS's
# defaults), the MOK key and certificate /var/lib/dkms/mok.key and mok.pub
# (in T/mok), the package's modules_to_force_install (T/x, unpacked from
# smbdirect-dkms), the kernel's modules.dep (from which DKMS takes the
# modules' suffix, .ko.xz on Debian: with the wrong one it finds no module
# of the kernel's to compare with; T/root), and sign-file, which on Debian
# it finds at /lib/modules/<release>/build/scripts/sign-file: the headers'
# (KDIR; they are not installed here).
dkms_copy() {
	local kdir=$1 t=$2
	mkdir -p "$t/mok"
	sed -e "s|/etc/dkms/framework.conf|$t&|g" \
		-e "s|/var/lib/dkms/mok\.|$t/mok/mok.|g" \
		-e "s|/usr/share/dkms/modules_to_force_install|$t/x&|" \
		-e "s|/lib/modules/\$kernel_test/modules.dep|$t/root&|" \
		-e "s|\"/lib/modules/\$kernelver/build/scripts/sign-file\"|\"$kdir/scripts/sign-file\"|" \
		"$(command -v dkms)" >"$t/dkms.sh"
	grep -qF "\"$kdir/scripts/sign-file\"" "$t/dkms.sh" && grep -qF "$t/mok/mok.key" "$t/dkms.sh" ||
		die "this dkms does not look for sign-file or its MOK where dkms 3.0 does"
}

# dkms_install KDIR RELEASE VERSION T: `dkms install` of the build above
# into T/root, the module tree of RELEASE (--installtree) whose kernel/fs/smb
# holds stand-ins for Debian's cifs.ko and ksmbd.ko (smbd_stock_tree). DKMS
# refuses to put a module beside the kernel's own when its version is not
# newer ("exactly matches ... DKMS will not replace this module"), and ours
# keep the kernel's versions: the package ships
# /usr/share/dkms/modules_to_force_install/smbdirect, which tells DKMS to
# skip that comparison for this package alone (T/dkms.sh reads the
# package's copy). Then depmod must make `modprobe cifs` and `modprobe
# ksmbd` find ours, with the stock files untouched; what DKMS installed is
# packed for the Debian image VM (module_deb); `dkms remove --all` (what
# apt purge runs, dh_dkms's prerm) must give the stock ones back and leave
# the tree as it was.
dkms_install() {
	local kdir=$1 krel=$2 ver=$3 t=$4 root="$4/root" m before dk
	dk=(--dkmstree "$t/dkms" --sourcetree "$t/src" --installtree "$root/lib/modules")
	grep -qx "smbdirect_version-override" \
		"$t/x/usr/share/dkms/modules_to_force_install/smbdirect" 2>/dev/null ||
		die "smbdirect-dkms has no usr/share/dkms/modules_to_force_install/smbdirect:" \
			"dkms install would keep the kernel's cifs.ko and ksmbd.ko"
	before=$(smbd_tree_state "$root")

	bash "$t/dkms.sh" install -m smbdirect -v "$ver" -k "$krel" --kernelsourcedir "$kdir" \
		--no-depmod "${dk[@]}" \
		>"$t/install.log" 2>&1 || { cat "$t/install.log"; die "dkms install failed"; }
	grep -A3 -E '^(cifs|ksmbd)\.ko' "$t/install.log" | sed 's/^/dkms install: /'
	depmod -b "$root" "$krel"
	for m in cifs ksmbd; do
		modinfo -b "$root" -k "$krel" -F depends "$m" | tr ',' '\n' | grep -qx smbdirect ||
			{ cat "$t/install.log"; die "after dkms install, modprobe $m does not find ours:" \
				"$(modinfo -b "$root" -k "$krel" -n "$m" | sed "s|^$root||")"; }
		[ -n "$(find "$root/lib/modules/$krel/kernel/fs/smb" -name "$m.ko*")" ] ||
			die "dkms install removed the kernel's own $m.ko"
	done
	for m in smbdirect sqos; do
		modinfo -b "$root" -k "$krel" -n "$m" | grep -q "/updates/dkms/$m.ko" ||
			die "depmod does not index $m in updates/dkms"
	done
	echo "check-deb: dkms install: modprobe cifs/ksmbd find ours," \
		"$(modinfo -b "$root" -k "$krel" -n cifs | sed "s|^$root||"); the kernel's stay"
	module_deb "$root/lib/modules/$krel/updates/dkms" "$krel" "$ver" "$t"

	# No --kernelsourcedir: the headers and linux-source may be gone by
	# the time the package is purged; what dkms.conf lists must not
	# depend on them.
	bash "$t/dkms.sh" remove -m smbdirect -v "$ver" --all --no-depmod "${dk[@]}" \
		>"$t/remove.log" 2>&1 ||
		{ cat "$t/remove.log"; die "dkms remove failed"; }
	depmod -b "$root" "$krel"
	smbd_stock_restored "$root" "$krel" "$before" "dkms remove --all (apt purge)"
}

# module_deb DIR RELEASE VERSION T: DIR (the modules `dkms install` put in
# updates/dkms, as they are: signed, compressed) as a binary package
# smbdirect-modules-RELEASE that installs them where DKMS does and runs
# depmod, as DKMS does after an install and a removal. It stands in for
# smbdirect-dkms inside the VM that boots Debian's kernel image, where
# compiling cifs.ko and ksmbd.ko under TCG would take far too long.
module_deb() {
	local dir=$1 krel=$2 ver=$3 t=$4 pkg="$4/modpkg" name deb s
	name="smbdirect-modules-$krel"
	deb="$SMBD_OUT/deb/${name}_${ver}_amd64.deb"
	rm -rf "$pkg" "$deb"
	mkdir -p "$pkg/DEBIAN" "$pkg/lib/modules/$krel/updates"
	cp -a "$dir" "$pkg/lib/modules/$krel/updates/"
	{
		echo "Package: $name"
		echo "Source: smbdirect"
		echo "Version: $ver"
		echo "Architecture: amd64"
		grep '^Maintainer: ' "$SMBD_TOP/debian/control"
		echo "Depends: linux-image-$krel"
		echo "Section: kernel"
		echo "Priority: optional"
		echo "Description: smbdirect, sqos, cifs and ksmbd as DKMS built them for $krel"
		echo " What smbdirect-dkms's DKMS build installs for Linux $krel, prebuilt"
		echo " by make check (scripts/check-deb.sh) for its VM that boots Debian's"
		echo " own kernel image, where a compiler is too slow for DKMS."
		echo " Not for distribution."
	} >"$pkg/DEBIAN/control"
	for s in postinst postrm; do
		printf '#!/bin/sh\nset -e\ndepmod -a %s\n' "$krel" >"$pkg/DEBIAN/$s"
		chmod 755 "$pkg/DEBIAN/$s"
	done
	dpkg-deb --root-owner-group -b "$pkg" "$deb" >"$t/module-deb.log" 2>&1 ||
		{ cat "$t/module-deb.log"; die "dpkg-deb -b $name failed"; }
	[ "$(dpkg-deb -c "$deb" | grep -c '\.ko\.xz$')" -eq 4 ] ||
		die "$deb does not hold the four modules"
	echo "check-deb: what dkms install put in updates/dkms, packed as ${deb#"$SMBD_TOP"/}"
}

# dkms_refuse KDIR RELEASE VERSION T: a dkms build for a kernel whose headers
# say they are another Debian package version than linux-source-6.12 fails
# with the reason in make.log, before compiling anything, and leaves no
# module built for that kernel. It runs with no MOK in place: DKMS makes one
# first (CN "DKMS module signing key"), as on a machine where it builds for
# the first time; what it then signs with it, the build above shows with
# a key in place.
dkms_refuse() {
	local kdir=$1 krel=$2 ver=$3 t=$4 fake="$4/fake" dk
	dk=(--dkmstree "$t/dkms" --sourcetree "$t/src")
	dkms add -m smbdirect -v "$ver" "${dk[@]}" >"$t/add.log" 2>&1 ||
		{ cat "$t/add.log"; die "dkms add (again, after dkms remove --all) failed"; }
	mkdir -p "$fake"
	cp -as "$kdir/." "$fake/"
	rm -f "$fake/include/generated/package.h"
	echo '#define LINUX_PACKAGE_ID " Debian 6.12.117-99"' >"$fake/include/generated/package.h"
	rm -f "$t/mok/mok.key" "$t/mok/mok.pub"
	if bash "$t/dkms.sh" build -m smbdirect -v "$ver" -k "$krel" --kernelsourcedir "$fake" \
		"${dk[@]}" >"$t/refuse.log" 2>&1; then
		die "dkms build accepted linux-source $(smbd_kernel_pkgver) for Debian's 6.12.117-99"
	fi
	grep -q "^error: linux-source-6.12 is version .*apt install linux-source-6.12=6.12.117-99" \
		"$t/dkms/smbdirect/$ver/build/make.log" ||
		{ cat "$t/refuse.log" "$t/dkms/smbdirect/$ver/build/make.log"; die "no reason in make.log"; }
	! grep -qE '  (CC|LD) ' "$t/dkms/smbdirect/$ver/build/make.log" ||
		die "the refusal came after a build"
	[ -z "$(find "$t/dkms/smbdirect/$ver/$krel" -name '*.ko*' 2>/dev/null)" ] ||
		die "the refused dkms build left modules for $krel"
	echo "check-deb: dkms build refuses linux-source $(smbd_kernel_pkgver) for Debian's 6.12.117-99:" \
		"$(grep '^error: ' "$t/dkms/smbdirect/$ver/build/make.log" | cut -c1-100)..."
	# DKMS prepared the signing before the build: with no MOK it made one.
	grep -q 'Certificate or key are missing, generating self signed certificate' "$t/refuse.log" &&
		openssl x509 -inform DER -in "$t/mok/mok.pub" -noout -subject 2>/dev/null |
		grep -q 'CN *= *DKMS module signing key' ||
		{ cat "$t/refuse.log"; die "without a MOK, dkms build did not make one"; }
	echo "check-deb: without a MOK, dkms build makes one:" \
		"$(openssl x509 -inform DER -in "$t/mok/mok.pub" -noout -subject)"
}

main "$@"
