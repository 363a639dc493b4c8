#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Linux's own cifs and ksmbd built with our shims (shim/6.12) run over
# smbdirect.ko. `modprobe ksmbd` and `modprobe cifs` must load ours (from
# updates/, depending on smbdirect); ksmbd-tools serves a tmpfs share and
# `mount -t cifs -o rdma` mounts it over rxe and over siw, with SMB 3.1.1
# (the server invalidates the client's buffers: Send with Invalidate) and
# 3.0 (the client invalidates them itself). Files of 1 byte, 4095, 4096 and
# 4097 bytes (around cifs's rdma_readwrite_threshold of 4096), 1 MiB and
# 16 MiB (2 MiB on the debug kernel) are written and read back, buffered
# and with O_DIRECT, and compared by checksum in the share and on the
# client (after dropping its caches);
# encrypted mounts (seal), whose I/O goes in messages, too.
# smbdirect's counters (debugfs conn/<n>/counters) must show that the large
# I/O moved by RDMA read and write with the expected invalidations, and that
# I/O below the threshold did not. TCP to the iWARP interface must still
# work. An rxe mount's I/O size is siw's registration size while siw
# exists and rxe's own (1 MiB in one WRITE) without it. Last, under a
# mount, siw is removed and added back (ksmbd must listen on the new
# device, cifs must reconnect to it), then ksmbd is restarted (cifs must
# reconnect again), then an O_DIRECT read's registration is held (a fault
# point of our cifs) while cifs replaces its connection, and the read must
# complete intact (before the fix: KASAN use-after-free in
# smbd_register_mr on the debug kernel).
# Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

D=/sys/kernel/debug/smbdirect
K=/tmp/smb-shim
MNT=/tmp/smb-shim-mnt
SRC=/tmp/smb-shim-src
USER=shim
PASS=shim-pass
THRESHOLD=4096
# The largest file: 16 MiB; 2 MiB (still three SMB2 READs or WRITEs of at
# most 1044480 bytes) on the debug kernel, where KASAN makes every byte
# about twenty times slower and the run must stay within its time limit.
BIG=16777216
case "$(uname -r)" in
*-dbg) BIG=2097152 ;;
esac

fail() {
	echo "FAIL: $*"
	echo "--- mounts"
	grep cifs /proc/mounts
	echo "--- listeners"
	cat "$D/listeners"
	echo "--- connections"
	cat "$D/connections"
	echo "--- kernel log (cifs, ksmbd, smbdirect)"
	dmesg | grep -E 'CIFS|cifs|ksmbd|smbdirect' | tail -n 40
	smb_cleanup
	siw_back
	exit 1
}

siw_back() { # re-create siw if this test removed it
	[ -e "/sys/class/infiniband/$SIW_DEV" ] || rdma_readd "$SIW_DEV"
}

# One listener per device address, each at the device's port (ksmbd_start
# waits for rxe's at 445 and siw's at 5445).
start_ksmbd() {
	rm -rf "$K"
	out=$(ksmbd_start "$K" "$USER" "$PASS") || fail "$out"
	grep -q "addr=$SIW_ADDR:445 " "$D/listeners" &&
		fail "ksmbd listens on $SIW_ADDR:445 (iWARP, taken by TCP)"
}

# do_mount ADDR VERS [OPTIONS]: over RDMA, or TCP if OPTIONS is "tcp".
do_mount() {
	_o=rdma,vers=$2,username=$USER,password=$PASS${3:+,$3}
	[ "$3" = tcp ] && _o=vers=$2,username=$USER,password=$PASS
	smb_mount_try "$1" "$_o" || fail "mount //$1/share -o $_o"
}

# direct_write_size SIZE: one O_DIRECT write of SIZE bytes (one SMB2 WRITE)
# must use RDMA exactly when SIZE >= the threshold.
direct_write_size() {
	conn_snap
	dd if="$SRC/$1" of="$MNT/dw-$1" bs="$1" count=1 oflag=direct 2>/dev/null ||
		fail "O_DIRECT write of $1 bytes"
	_r=$(cdelta mr_registrations)
	_b=$(sdelta rdma_read_bytes)
	if [ "$1" -ge "$THRESHOLD" ]; then
		[ "$_r" -eq 1 ] && [ "$_b" -eq "$1" ] ||
			fail "$1-byte write: $_r registrations, $_b bytes RDMA-read (want 1, $1)"
	else
		[ "$_r" -eq 0 ] && [ "$_b" -eq 0 ] ||
			fail "$1-byte write: $_r registrations, $_b bytes RDMA-read (want 0, 0)"
	fi
	[ "$(md5 "$K/share/dw-$1")" = "$(md5 "$SRC/$1")" ] ||
		fail "$1-byte O_DIRECT write: the server's copy differs"
}

# session ADDR DEV VERS SIZES...: mount, move the files, check, unmount.
session() {
	_a=$1 _dev=$2 _v=$3
	shift 3
	do_mount "$_a" "$_v"
	grep -q "role=active state=ESTABLISHED dev=$_dev " /proc/fs/cifs/DebugData ||
		fail "the mount of //$_a is not on $_dev"
	find_conns
	say "$_dev vers=$_v: client connection $cc, server connection $sc"
	conn_snap
	_total=0
	for _n in "$@"; do
		roundtrip "b-$_n" "$_n" buffered
		roundtrip "d-$_n" "$_n" direct
		_total=$((_total + 2 * _n))
	done
	_regs=$(cdelta mr_registrations)
	_rd=$(sdelta rdma_read_bytes)
	_wr=$(sdelta rdma_write_bytes)
	_rinv=$(cdelta mr_remote_invalidations)
	_linv=$(cdelta mr_local_invalidations)
	_swi=$(sdelta tx_send_with_invalidate)
	say "$_dev vers=$_v: $_regs registrations, $_rd bytes RDMA-read and $_wr RDMA-written by the server, invalidations remote $_rinv local $_linv"
	# Every file of at least the threshold went by RDMA both ways.
	_big=0
	for _n in "$@"; do
		[ "$_n" -ge "$THRESHOLD" ] && _big=$((_big + 2 * _n))
	done
	[ "$_rd" -ge "$_big" ] || fail "$_dev vers=$_v: $_rd bytes RDMA-read, want >= $_big"
	[ "$_wr" -ge "$_big" ] || fail "$_dev vers=$_v: $_wr bytes RDMA-written, want >= $_big"
	[ "$_regs" -gt 0 ] || fail "$_dev vers=$_v: no buffer registered"
	if [ "$_v" = 3.0 ]; then
		# SMB2_CHANNEL_RDMA_V1: the client invalidates.
		[ "$_rinv" -eq 0 ] && [ "$_swi" -eq 0 ] ||
			fail "$_dev vers=3.0: remote invalidations ($_rinv, $_swi sent)"
		[ "$_linv" -gt 0 ] || fail "$_dev vers=3.0: no local invalidation"
	else
		# SMB2_CHANNEL_RDMA_V1_INVALIDATE: the server invalidates.
		[ "$_rinv" -eq "$_regs" ] && [ "$_swi" -ge "$_regs" ] ||
			fail "$_dev vers=$_v: $_rinv of $_regs registrations invalidated remotely ($_swi sent)"
		[ "$_linv" -eq 0 ] || fail "$_dev vers=$_v: $_linv local invalidations"
	fi
	[ "$_dev" = "$RXE_DEV" ] && [ "$_v" = 3.1.1 ] && {
		for _n in 4095 4096 4097; do
			direct_write_size "$_n"
		done
	}
	umount "$MNT" || fail "umount $MNT"
}

for dev in "$RXE_DEV" "$SIW_DEV"; do
	[ -e "/sys/class/infiniband/$dev" ] || fail "no RDMA device $dev"
done
case "$(modinfo -n cifs)" in
*/updates/cifs.ko) ;;
*) fail "modprobe cifs would load $(modinfo -n cifs)" ;;
esac
case "$(modinfo -n ksmbd)" in
*/updates/ksmbd.ko) ;;
*) fail "modprobe ksmbd would load $(modinfo -n ksmbd)" ;;
esac
modinfo -F import_ns cifs | grep -qx SMBDX || fail "cifs does not import SMBDX"

mkdir -p "$MNT" "$SRC"
for n in 1 4095 4096 4097 1048576 "$BIG"; do
	head -c "$n" /dev/urandom >"$SRC/$n" || fail "make $n"
done

start_ksmbd
modprobe cifs || fail "modprobe cifs"
[ "$(smb_module cifs)" = ours ] || fail "modprobe cifs loaded $(smb_module cifs), not ours"

session "$RXE_ADDR" "$RXE_DEV" 3.1.1 1 4095 4096 4097 1048576 "$BIG"
session "$SIW_ADDR" "$SIW_DEV" 3.1.1 1 4095 4096 4097 1048576 "$BIG"
session "$RXE_ADDR" "$RXE_DEV" 3.0 4096 1048576
session "$SIW_ADDR" "$SIW_DEV" 3.0 4096 1048576

# A mount's I/O size is what its registrations cover on every usable
# device (smbdx_reg_len_floor(); cifs sizes a mount from its first channel
# and may add channels on other devices): one MR of rxe covers 1 MiB at any
# offset (257 pages), one of siw a page less, but siw's covers 1 MiB when
# the buffer is page-aligned and cifs may send two buffer descriptors
# (max_descriptors 2, ksmbd offers 8 MiB): a mount gets 1 MiB beside siw
# and with siw gone, and a 1 MiB O_DIRECT write is one SMB2 WRITE (one
# registration).
reg_len() { sed -n "s/^$1 .* reg_len=\([0-9]*\) .*/\1/p" "$D/devices"; }
rw_size() {
	sed -n 's/.*max_readwrite_size: \([0-9]*\) .*/\1/p' /proc/fs/cifs/DebugData |
		head -n 1
}
rl=$(reg_len "$RXE_DEV") sl=$(reg_len "$SIW_DEV")
[ "$rl" = 1048576 ] && [ "$sl" = 1044480 ] ||
	fail "reg_len: $RXE_DEV '$rl', $SIW_DEV '$sl' (want 1048576, 1044480)"
do_mount "$RXE_ADDR" 3.1.1
rw=$(rw_size)
[ "$rw" = 1048576 ] || fail "$RXE_DEV mount beside $SIW_DEV: max_readwrite_size '$rw', want 1048576"
grep -q '^cifs: max_readwrite_size: .* max_descriptors: 2$' /proc/fs/cifs/DebugData ||
	fail "DebugData: not max_descriptors 2: $(grep '^cifs: ' /proc/fs/cifs/DebugData)"
umount "$MNT" || fail "umount $MNT"
rdma link delete "$SIW_DEV" || fail "rdma link delete $SIW_DEV"
wait_for 10 sh -c "! grep -q '^$SIW_DEV ' $D/devices" ||
	fail "$SIW_DEV is still in $D/devices"
do_mount "$RXE_ADDR" 3.1.1
rw=$(rw_size)
[ "$rw" = "$rl" ] || fail "$RXE_DEV mount alone: max_readwrite_size '$rw', want $rl"
say "max_readwrite_size of an $RXE_DEV mount: 1048576 beside $SIW_DEV, $rw alone"
find_conns
_dev=$RXE_DEV _v=3.1.1
direct_write_size 1048576
umount "$MNT" || fail "umount $MNT"
siw_back || fail "$SIW_DEV could not be re-created"
wait_for 30 grep -q "addr=$SIW_ADDR:5445 dev=$SIW_DEV " "$D/listeners" ||
	fail "ksmbd does not listen on the re-created $SIW_DEV"

# Encrypted (seal): cifs does not offload encrypted I/O, so 1 MiB READs and
# WRITEs go as SMB Direct messages, which fit our 1 MiB
# MaxFragmentedRecvSize on both sides.
for a in "$RXE_ADDR:$RXE_DEV" "$SIW_ADDR:$SIW_DEV"; do
	addr=${a%:*} dev=${a#*:}
	do_mount "$addr" 3.1.1 seal
	find_conns
	conn_snap
	roundtrip "seal-b-$dev" 1048576 buffered
	roundtrip "seal-d-$dev" 1048576 direct
	[ "$(cdelta mr_registrations)" -eq 0 ] ||
		fail "$dev seal: encrypted I/O used RDMA registrations"
	tx=$(cdelta tx_bytes)
	rx=$(cdelta rx_bytes)
	say "$dev seal: $tx bytes sent and $rx received in messages"
	[ "$tx" -ge $((2 * 1048576)) ] && [ "$rx" -ge $((2 * 1048576)) ] ||
		fail "$dev seal: only $tx bytes sent, $rx received in messages"
	umount "$MNT" || fail "umount $MNT"
done

# ksmbd's own TCP listener on the iWARP interface is untouched.
do_mount "$SIW_ADDR" 3.1.1 tcp
grep " $MNT cifs " /proc/mounts | grep -q ',rdma' && fail "the TCP mount uses RDMA"
roundtrip tcp-4096 4096 buffered
umount "$MNT" || fail "umount $MNT"

# siw goes away and comes back under a mount and a running ksmbd: the
# listener follows the device, and cifs reconnects (smbd_reconnect()).
do_mount "$SIW_ADDR" 3.1.1
cp "$SRC/1048576" "$MNT/reconnect" || fail "write before the device removal"
sync
rdma link delete "$SIW_DEV" || fail "rdma link delete $SIW_DEV"
wait_for 10 sh -c "! grep -q 'addr=$SIW_ADDR:5445 ' $D/listeners" ||
	fail "the listener on the removed $SIW_DEV stays"
siw_back || fail "$SIW_DEV could not be re-created"
wait_for 30 grep -q "addr=$SIW_ADDR:5445 dev=$SIW_DEV " "$D/listeners" ||
	fail "ksmbd does not listen on the re-created $SIW_DEV"
drop_caches
[ "$(timeout 120 md5sum "$MNT/reconnect" | cut -d' ' -f1)" = "$(md5 "$SRC/1048576")" ] ||
	fail "read after $SIW_DEV came back (cifs did not reconnect?)"
grep -q "role=active state=ESTABLISHED dev=$SIW_DEV " /proc/fs/cifs/DebugData ||
	fail "no new SMB Direct connection on $SIW_DEV after the reconnection"
# ksmbd restarted under the mount.
ksmbd.control -s >/dev/null || fail "ksmbd.control -s"
wait_for 30 sh -c '! pidof ksmbd.mountd' || fail "ksmbd.mountd did not stop"
wait_for 30 rmmod ksmbd || fail "rmmod ksmbd under a mount"
modprobe ksmbd || fail "modprobe ksmbd again"
ksmbd.mountd -c "$K/ksmbd.conf" -u "$K/pwd.db" || fail "ksmbd.mountd again"
drop_caches
[ "$(timeout 120 md5sum "$MNT/reconnect" | cut -d' ' -f1)" = "$(md5 "$SRC/1048576")" ] ||
	fail "read after ksmbd restarted (cifs did not reconnect?)"
roundtrip after-restart 4096 direct

# A registration across a reconnection: the fault point
# cifs.smbd_fault_hold_register holds an O_DIRECT read's registration
# before it looks at the connection; meanwhile one failed Send
# (smbdirect's post_send fault point) ends the connection and cifs makes a
# new one; then the registration goes on and the read must complete with
# the file's data. cifs passes smbd_register_mr() server->smbd_conn as it
# read it, without its server lock; before the fix the held registration
# then took its reference on the connection the reconnection had freed
# (KASAN: slab-use-after-free in smbd_register_mr; on the plain kernel the
# freed memory is mostly the new connection's, and nothing shows). Stock
# 6.12 has the same race (smb2pdu.c, smbd_destroy()).
H=/sys/module/cifs/parameters/smbd_fault_hold_register
FI=$D/fault/post_send
[ -e "$H" ] || fail "our cifs has no fault point $H"
[ -e "$FI/probability" ] || fail "no fault point $FI (CONFIG_FAULT_INJECTION_DEBUG_FS)"
# replaced OLD: an active connection other than OLD is established on
# siw (smbdirect's list: DebugData is not read while cifs reconnects)
replaced() {
	grep " role=active state=ESTABLISHED dev=$SIW_DEV " "$D/connections" |
		cut -d' ' -f1 | grep -qvx "$1"
}
drop_caches
c0=$(cifs_conn)
echo 1 >"$H"
dd if="$MNT/reconnect" of=/tmp/smb-shim-held bs=1M iflag=direct \
	>/tmp/smb-shim-held.log 2>&1 &
dd_pid=$!
wait_for 60 grep -qx 2 "$H" || fail "no registration reached the fault point"
fault_once "$FI"
# A request of its own (any Send fails now): the connection ends.
timeout 120 sh -c ": >'$MNT/held-reconnect'" 2>/dev/null &
wait_for 60 replaced "$c0" || fail "cifs did not replace connection $c0"
fault_off "$FI"
echo 0 >"$H"
wait "$dd_pid" || {
	# cifs may fail the read it issued before the reconnection: read again.
	cat /tmp/smb-shim-held.log
	dd if="$MNT/reconnect" of=/tmp/smb-shim-held bs=1M iflag=direct 2>/dev/null ||
		fail "O_DIRECT read after the held registration"
}
wait
[ "$(md5 /tmp/smb-shim-held)" = "$(md5 "$SRC/1048576")" ] ||
	fail "the read whose registration was held returned other data"
say "a registration held across the reconnection of $c0 to $(cifs_conn): read intact"
rm -f /tmp/smb-shim-held "$MNT/held-reconnect"
umount "$MNT" || fail "umount $MNT"
session "$SIW_ADDR" "$SIW_DEV" 3.1.1 4096 1048576

unload_cifs || fail "rmmod cifs (still in use after 30 s)"
ksmbd.control -s >/dev/null || fail "ksmbd.control -s"
wait_for 30 rmmod ksmbd || fail "rmmod ksmbd"
wait_for 20 smbd_no_conns || fail "connections left behind"
[ ! -s "$D/listeners" ] || fail "listeners left behind"
rm -rf "$K" "$SRC"
rmdir "$MNT"
echo "our cifs and ksmbd over smbdirect: rxe and siw, SMB 3.1.1 and 3.0, buffered and O_DIRECT, files identical, RDMA read/write and invalidations as expected"
