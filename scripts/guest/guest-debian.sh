# SPDX-License-Identifier: GPL-2.0
#
# The run inside the VM that boots Debian's own kernel image with its own
# modules (scripts/vm.sh --kernel debian; sourced by guest-main.sh after
# guest-check.sh, whose KTAP helpers it uses): what our packages give a
# Debian admin, over rxe on the veth pair (Debian's kernel has no siw).
# Each step is one top-level test, run in a subshell of its own: what a
# step needs of an earlier one it finds again in the kernel's state.
#
#  1. Debian's kernel: no module signature enforcement (sig_enforce=N, so
#     a module signed with a key the kernel does not know loads and only
#     taints), rxe up.
#  2. Without our packages: the stock cifs refuses `mount -o rdma` (ENOENT,
#     "CONFIG_CIFS_SMB_DIRECT is not enabled") where the same mount over
#     TCP works, and the stock ksmbd has no RDMA listener at all.
#  3. dpkg -i of our packages, as the admin's apt would: the modules as
#     DKMS built them (smbdirect-modules-<release>, prebuilt on the host by
#     scripts/check-deb.sh from smbdirect-dkms: DKMS in this guest would
#     compile cifs.ko and ksmbd.ko under TCG) and smbdirect-tools; modinfo
#     finds ours in updates/dkms, cifs and ksmbd depending on smbdirect,
#     signed with the host's test MOK, the stock modules still on disk.
#  4. modprobe loads ours: smbdirect, sqos, ksmbd and cifs.
#  5. Our ksmbd serves a share over rxe; our cifs mounts it with -o rdma;
#     files of 1 B, 4 KiB -1/+0/+1, the mount's rsize and wsize -1/+0/+1
#     and 64 MiB go both ways, buffered and O_DIRECT, checksummed on both
#     sides; the server's counters show at least the 64 MiB files' bytes
#     moved by RDMA read and by RDMA write.
#  6. smbdctl connections shows the mount's connection, RDMA in use.
#  7. sqos-ctl against a file of the share: a flow with a policy of 100
#     IOPS set through configfs, GET_STATUS answered Ok with that rate.
#  8. Unmount and unload: no connection left, none of our modules loaded.
#  9. dpkg --purge: our files gone, modprobe cifs and ksmbd load the stock
#     modules again.
# 10. Under lockdown (integrity, as Secure Boot turns on), our smbdirect.ko,
#     signed with a MOK the kernel does not know, is refused; Debian's own
#     cifs.ko, signed by Debian, still loads.

DEB_K=/tmp/deb-smb
DEB_MNT=/tmp/deb-smb-mnt
DEB_SRC=/tmp/deb-smb-src
DEB_USER=debian
DEB_PASS=debian-pass
DEB_POLICY=5c0e9a3e-1d2b-4f6a-8c11-0a0b0c0d0e11
DEB_FLOW=5c0e9a3e-1d2b-4f6a-8c11-0a0b0c0d0e12
DEB_BIG=67108864
# lib.sh's SMB helpers use these names
K=$DEB_K MNT=$DEB_MNT SRC=$DEB_SRC

fail() {
	echo "FAIL: $*"
	echo "--- kernel log (cifs, ksmbd, smbdirect, sqos)"
	dmesg | grep -E 'CIFS|cifs|ksmbd|smbdirect|sqos' | tail -n 20
	exit 1
}

krel() { uname -r; }

deb_kernel() {
	grep -q 'Debian' /proc/version || fail "not Debian's kernel: $(cat /proc/version)"
	[ -e "/lib/modules/$(krel)/kernel/fs/smb/client/cifs.ko.xz" ] ||
		fail "no stock cifs.ko.xz in Debian's module tree"
	[ "$(cat /sys/module/module/parameters/sig_enforce)" = N ] ||
		fail "module signatures are enforced"
	say "$(cat /proc/version)"
	say "sig_enforce=N: a module whose key the kernel does not know only taints it"
}

deb_rxe() {
	modprobe veth && modprobe rdma_rxe || fail "modprobe veth rdma_rxe"
	rxe_setup || fail "rxe on $RXE_NETDEV"
}

# ksmbd_tcp_listening: ksmbd's TCP listener (port 445 = 0x01BD, LISTEN 0A)
ksmbd_tcp_listening() {
	grep -q ':01BD [0-9A-F]*:0000 0A ' /proc/net/tcp6 /proc/net/tcp
}

deb_stock() {
	modprobe cifs && modprobe ksmbd || fail "modprobe cifs ksmbd (stock)"
	[ "$(smb_module cifs)" = stock ] && [ "$(smb_module ksmbd)" = stock ] ||
		fail "cifs is $(smb_module cifs), ksmbd $(smb_module ksmbd), not stock"
	out=$(ksmbd_conf "$K" "$DEB_USER" "$DEB_PASS") || fail "$out"
	ksmbd.mountd -c "$K/ksmbd.conf" -u "$K/pwd.db" || fail "ksmbd.mountd"
	wait_for 30 ksmbd_tcp_listening || fail "the stock ksmbd does not listen on TCP 445"
	[ -z "$(rdma res show cm_id)" ] ||
		fail "an RDMA CM id exists with the stock modules: $(rdma res show cm_id)"
	say "stock ksmbd: listening on TCP 445, no RDMA CM id (no SMB Direct listener)"
	mkdir -p "$MNT"
	opts=vers=3.1.1,username=$DEB_USER,password=$DEB_PASS
	if mount.cifs "//$RXE_ADDR/share" "$MNT" -o "rdma,$opts" >"$MNT.log" 2>&1; then
		umount "$MNT"
		fail "the stock cifs mounted with -o rdma"
	fi
	say "stock cifs, mount -o rdma: $(cat "$MNT.log")"
	dmesg | grep -q 'CONFIG_CIFS_SMB_DIRECT is not enabled' ||
		fail "the stock cifs did not say why"
	say "kernel: $(dmesg | grep 'CONFIG_CIFS_SMB_DIRECT is not enabled' | tail -n 1)"
	smb_mount_try "$RXE_ADDR" "$opts" || fail "the same mount over TCP"
	echo stock >"$MNT/tcp" && [ "$(cat "$K/share/tcp")" = stock ] ||
		fail "a file written over TCP"
	umount "$MNT" || fail "umount"
	say "the same mount without -o rdma (TCP) works"
	ksmbd_stop || fail "stop the stock ksmbd"
	unload_cifs || fail "rmmod the stock cifs"
	rm -rf "$K"
}

# deb_ko NAME: where modprobe finds NAME
deb_ko() { modinfo -n "$1"; }

deb_install() {
	dpkg -i /smbd/debs/*.deb || fail "dpkg -i"
	dpkg-query -W -f '${Package} ${Version} ${Status}\n' 'smbdirect-*' | sed 's/^/# /'
	for m in smbdirect sqos cifs ksmbd; do
		[ "$(deb_ko "$m")" = "/lib/modules/$(krel)/updates/dkms/$m.ko.xz" ] ||
			fail "modprobe $m would load $(deb_ko "$m"), not updates/dkms/$m.ko.xz"
		say "$m: $(deb_ko "$m"), signer: $(modinfo -F signer "$m")"
	done
	for m in cifs ksmbd; do
		modinfo -F depends "$m" | tr ',' '\n' | grep -qx smbdirect ||
			fail "$m does not depend on smbdirect: $(modinfo -F depends "$m")"
	done
	say "modinfo -F depends cifs: $(modinfo -F depends cifs)"
	[ -e "/lib/modules/$(krel)/kernel/fs/smb/client/cifs.ko.xz" ] &&
		[ -e "/lib/modules/$(krel)/kernel/fs/smb/server/ksmbd.ko.xz" ] ||
		fail "the stock modules are gone from disk"
	smbdctl version | sed 's/^/# /'
	command -v sqos-ctl >/dev/null || fail "no sqos-ctl"
}

deb_load() {
	modprobe smbdirect && modprobe sqos || fail "modprobe smbdirect sqos"
	modprobe ksmbd && modprobe cifs || fail "modprobe ksmbd cifs"
	[ "$(smb_module cifs)" = ours ] && [ "$(smb_module ksmbd)" = ours ] ||
		fail "cifs is $(smb_module cifs), ksmbd $(smb_module ksmbd), not ours"
	wait_for 10 smbd_dev_usable "$RXE_DEV" || fail "smbdirect does not see $RXE_DEV usable"
	say "smbdirect taint flags: $(cat /sys/module/smbdirect/taint)" \
		"(O out of tree, E signed with a key the kernel does not know)"
	dmesg | grep -m1 'module verification failed' | sed 's/^/# kernel: /'
}

deb_serve() {
	out=$(ksmbd_conf "$K" "$DEB_USER" "$DEB_PASS") || fail "$out"
	ksmbd.mountd -c "$K/ksmbd.conf" -u "$K/pwd.db" || fail "ksmbd.mountd"
	wait_for 30 grep -q "addr=$RXE_ADDR:445 dev=$RXE_DEV " "$SMBD_DBG/listeners" ||
		fail "our ksmbd does not listen on $RXE_ADDR:445 over $RXE_DEV"
	rdma res show cm_id | grep 'state LISTEN' | sed 's/^/# /'
}

mount_opt() {
	grep " $MNT cifs " /proc/mounts | tr ',' '\n' | sed -n "s/^$1=//p"
}

deb_files() {
	mkdir -p "$MNT" "$SRC"
	smb_mount_try "$RXE_ADDR" "rdma,vers=3.1.1,username=$DEB_USER,password=$DEB_PASS" ||
		fail "mount -o rdma"
	grep -q "role=active state=ESTABLISHED dev=$RXE_DEV " /proc/fs/cifs/DebugData ||
		fail "the mount is not on $RXE_DEV"
	find_conns
	rs=$(mount_opt rsize)
	ws=$(mount_opt wsize)
	[ -n "$rs" ] && [ -n "$ws" ] || fail "no rsize/wsize in /proc/mounts"
	say "mounted over $RXE_DEV: client connection $cc, server connection $sc, rsize $rs wsize $ws"
	conn_snap
	sizes=$(echo 1 4095 4096 4097 $((rs - 1)) "$rs" $((rs + 1)) $((ws - 1)) "$ws" $((ws + 1)) \
		"$DEB_BIG" | tr ' ' '\n' | sort -un)
	for n in $sizes; do
		head -c "$n" /dev/urandom >"$SRC/$n" || fail "make $n bytes"
		for how in buffered direct; do
			roundtrip "$how-$n" "$n" "$how"
			rm -f "$MNT/$how-$n"
		done
	done
	rd=$(sdelta rdma_read_bytes)
	wr=$(sdelta rdma_write_bytes)
	say "sizes $(echo "$sizes" | paste -sd ' '), each buffered and O_DIRECT, both ways:" \
		"the server RDMA-read $rd bytes and RDMA-wrote $wr, $(cdelta mr_registrations)" \
		"registrations by the client"
	[ "$rd" -ge $((2 * DEB_BIG)) ] && [ "$wr" -ge $((2 * DEB_BIG)) ] ||
		fail "less than the 64 MiB files moved by RDMA read ($rd) or write ($wr)"
	rm -rf "$SRC"
}

deb_smbdctl() {
	find_conns
	smbdctl connections "$cc" >/tmp/deb-conn || fail "smbdctl connections $cc"
	sed 's/^/# /' /tmp/deb-conn
	grep -q "^connection $cc: active ESTABLISHED on $RXE_DEV (RoCE), $RXE_ADDR:[0-9]* -> $RXE_ADDR:445$" \
		/tmp/deb-conn || fail "smbdctl does not show the mount's connection"
	grep -q "RDMA in use: yes" /tmp/deb-conn || fail "smbdctl: RDMA not in use"
}

deb_sqos() {
	C=/sys/kernel/config/sqos
	grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
		mount -t configfs none /sys/kernel/config || fail "mount configfs"
	mkdir "$C/policies/$DEB_POLICY" || fail "mkdir the policy"
	echo 100 >"$C/policies/$DEB_POLICY/max_iops" || fail "max_iops"
	: >"$K/share/q" || fail "touch q"
	sqos-ctl "$MNT/q" flow "$DEB_FLOW" + policy "$DEB_POLICY" + status >/tmp/deb-sqos 2>&1 ||
		{ cat /tmp/deb-sqos; fail "sqos-ctl"; }
	sed 's/^/# /' /tmp/deb-sqos
	grep -q "status=0 (Ok) max_rate=100 " /tmp/deb-sqos || fail "no Ok with max_rate=100"
}

deb_unload() {
	umount "$MNT" || fail "umount"
	unload_cifs || fail "rmmod cifs"
	ksmbd_stop || fail "stop ksmbd"
	wait_for 20 smbd_no_conns || fail "connections left: $(cat "$SMBD_DBG/connections")"
	rmdir "/sys/kernel/config/sqos/policies/$DEB_POLICY" || fail "rmdir the policy"
	rmmod sqos && rmmod smbdirect || fail "rmmod sqos smbdirect"
	! lsmod | grep -E '^(smbdirect|sqos|cifs|ksmbd) ' || fail "modules left"
	rm -rf "$K" "$MNT"
}

deb_purge() {
	# For deb_lockdown: the packaged smbdirect.ko, signed with the MOK.
	cp "/lib/modules/$(krel)/updates/dkms/smbdirect.ko.xz" /tmp/deb-mok-signed.ko.xz ||
		fail "no installed smbdirect.ko.xz"
	dpkg --purge "smbdirect-modules-$(krel)" smbdirect-tools || fail "dpkg --purge"
	[ -z "$(ls "/lib/modules/$(krel)/updates/dkms" 2>/dev/null)" ] ||
		fail "left in updates/dkms: $(ls "/lib/modules/$(krel)/updates/dkms")"
	! command -v smbdctl >/dev/null || fail "smbdctl is still there"
	for m in cifs ksmbd; do
		case "$(deb_ko "$m")" in
		/lib/modules/*/kernel/fs/smb/*/"$m".ko.xz) ;;
		*) fail "after purge modprobe $m would load $(deb_ko "$m")" ;;
		esac
	done
	modprobe cifs && modprobe ksmbd || fail "modprobe cifs ksmbd"
	[ "$(smb_module cifs)" = stock ] && [ "$(smb_module ksmbd)" = stock ] ||
		fail "after purge cifs is $(smb_module cifs), ksmbd $(smb_module ksmbd)"
	say "after dpkg --purge: modprobe loads $(deb_ko cifs) and $(deb_ko ksmbd)"
	rmmod ksmbd && unload_cifs || fail "rmmod the stock modules"
}

deb_lockdown() {
	L=/sys/kernel/security/lockdown
	[ -e "$L" ] || mount -t securityfs securityfs /sys/kernel/security || fail "securityfs"
	echo integrity >"$L" || fail "lockdown=integrity"
	say "lockdown: $(cat "$L")"
	modprobe rdma_cm || fail "modprobe rdma_cm"
	if insmod /tmp/deb-mok-signed.ko.xz >/tmp/deb-insmod 2>&1; then
		rmmod smbdirect
		fail "under lockdown, smbdirect.ko signed with an unknown MOK was loaded"
	fi
	say "insmod: $(cat /tmp/deb-insmod)"
	dmesg | grep -q 'Lockdown: insmod: unsigned module loading is restricted' ||
		fail "the kernel did not say why"
	say "kernel: $(dmesg | grep 'Lockdown: insmod: ' | tail -n 1)"
	modprobe cifs || fail "Debian's own cifs.ko does not load under lockdown"
	unload_cifs || fail "rmmod cifs"
	say "Debian's own cifs.ko, signed by Debian, loads under lockdown"
}

run_debian() {
	echo "KTAP version 1"
	kt_run "debian: Debian's kernel, signatures not enforced" deb_kernel
	kt_run "debian: rxe up" deb_rxe
	kt_run "debian: the stock cifs refuses mount -o rdma" deb_stock
	kt_run "debian: dpkg -i our packages" deb_install
	kt_run "debian: modprobe loads ours" deb_load
	kt_run "debian: our ksmbd serves over rxe" deb_serve
	kt_run "debian: our cifs mounts -o rdma, files both ways by RDMA" deb_files
	kt_run "debian: smbdctl connections shows the mount" deb_smbdctl
	kt_run "debian: sqos-ctl against the share" deb_sqos
	kt_run "debian: unmount and unload, nothing left" deb_unload
	kt_run "debian: dpkg --purge gives back the stock modules" deb_purge
	kt_run "debian: lockdown refuses a module signed with an unenrolled MOK" deb_lockdown
	echo "1..$KT_N"
}
