#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `make install` and `make uninstall` on a 6.12 system: the host ran
# `make install DESTDIR=/smbd/install-root PREFIX=/usr` against the test
# kernel (scripts/vm.sh). Copy that tree into the VM's root as a package
# would, run depmod, and check that modprobe now loads the installed
# smbdirect.ko and sqos.ko (updates/smbdirect/, which depmod ranks above the
# copies the VM already has in extra/), of the checkout's VERSION, that
# modprobe cifs and ksmbd would load the installed builds of ours (the
# depmod.d override ranks them above the VM's own copies), that the
# installed smbdctl runs, and that uninstall (scripts/install.sh, which
# `make uninstall` runs) hands everything back. Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

R=/smbd/install-root
krel=$(uname -r)
ours=/lib/modules/$krel/updates/smbdirect

fail() {
	echo "FAIL: $*"
	exit 1
}

# unload MODULE: unload it and whatever holds it (test modules).
unload() {
	[ -d "/sys/module/$1" ] || return 0
	for _h in $(ls "/sys/module/$1/holders" 2>/dev/null); do
		unload "$_h"
	done
	rmmod "$1" || fail "rmmod $1"
}

ls "$R$ours"/smbdirect/smbdirect.ko* >/dev/null 2>&1 || fail "nothing staged in $R$ours"
[ -x "$R/usr/sbin/smbdctl" ] || fail "no staged smbdctl"
[ -x "$R/usr/sbin/sqos-ctl" ] || fail "no staged sqos-ctl"
find "$R" -type f | sed "s|^$R||" | sort | sed 's/^/# staged: /'
find "$R" -name '*kunit*' | grep -q . && fail "test modules were installed"

unload sqos
unload smbdirect
cp -a "$R/." / || fail "copying the installed tree"
depmod -a || fail "depmod -a"
m=$(modinfo -n smbdirect)
case "$m" in
"$ours"/smbdirect/smbdirect.ko*) ;;
*) fail "modprobe would load $m, not the installed module" ;;
esac
modprobe smbdirect || fail "modprobe smbdirect"
modprobe sqos || fail "modprobe sqos"
v=$(cat /src/VERSION)
[ "$(cat /sys/module/smbdirect/version)" = "$v" ] || fail "smbdirect version is not $v"
[ "$(cat /sys/module/sqos/version)" = "$v" ] || fail "sqos version is not $v"
echo "# modprobe loaded $m, version $v"
# Our cifs and ksmbd (shim/) came with it: ranked above the ones the VM
# already has in updates/ by the depmod.d override, and above the kernel's.
[ -f "/etc/depmod.d/smbdirect-$krel.conf" ] || fail "no depmod.d file for $krel"
for m in client/cifs server/ksmbd; do
	case "$(modinfo -n "${m#*/}")" in
	"$ours/$m".ko*) ;;
	*) fail "modprobe ${m#*/} would load $(modinfo -n "${m#*/}"), not $ours/$m.ko" ;;
	esac
done
echo "# modprobe cifs would load $(modinfo -n cifs)"
wait_for "$DEV_WAIT_S" grep -q "^$RXE_DEV " /sys/kernel/debug/smbdirect/devices ||
	fail "the reloaded smbdirect does not see $RXE_DEV"
smbdctl version | grep -qx "smbdctl $v" || fail "smbdctl version"
smbdctl devices | sed 's/^/# /'
smbdctl devices | grep -q "^$RXE_DEV: RoCE, SMB Direct port 445: usable" ||
	fail "smbdctl devices does not show $RXE_DEV usable"

# Uninstall: the modules go, depmod falls back to the VM's own copies.
KRELEASE=$krel PREFIX=/usr bash /src/scripts/install.sh uninstall || fail "uninstall"
[ ! -e "$ours" ] || fail "$ours is still there"
[ ! -e /usr/sbin/smbdctl ] || fail "smbdctl is still there"
[ ! -e /usr/sbin/sqos-ctl ] || fail "sqos-ctl is still there"
case "$(modinfo -n smbdirect)" in
/lib/modules/$krel/extra/smbdirect.ko*) ;;
*) fail "after uninstall modprobe would load $(modinfo -n smbdirect)" ;;
esac
[ ! -e "/etc/depmod.d/smbdirect-$krel.conf" ] || fail "the depmod.d file is still there"
case "$(modinfo -n cifs)" in
"$ours"/*) fail "after uninstall modprobe cifs would load $(modinfo -n cifs)" ;;
esac
# Later tests use smbdctl and sqos-ctl: put them back (the module stays
# loaded).
cp "$R/usr/sbin/smbdctl" "$R/usr/sbin/sqos-ctl" /usr/sbin/
echo "# install, modprobe, uninstall: ok"
