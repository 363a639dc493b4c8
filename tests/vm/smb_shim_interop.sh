#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Our cifs and ksmbd (shim/6.12 over smbdirect.ko) against Linux's own, over
# rxe and siw, SMB 3.1.1:
#  1. our cifs (modprobe cifs) with the stock ksmbd (insmod by path from
#     kernel/fs/smb/server), which listens on 5445 on every device while an
#     iWARP device exists;
#  2. the stock cifs (insmod by path from kernel/fs/smb/client) with our
#     ksmbd (modprobe ksmbd);
#  3. the stock cifs with the stock ksmbd, the baseline (smbdirect.ko must
#     carry none of it).
# Where the client is the stock cifs, the server hangs up before the umount
# (server_hangs_up_first in lib.sh says why). Each side checks which module
# is loaded. Files of 4 KiB, 1 MiB and 16 MiB
# (2 MiB on the debug kernel) go both ways, buffered and with O_DIRECT, and
# must come back identical; smbdirect's counters on our side must show RDMA
# read/write (and, for our client, the stock server's remote
# invalidations). On siw our cifs also writes and reads 1 MiB with
# O_DIRECT through a user buffer that starts 512 bytes into a page (257
# pages, siw's MRs hold 256): each must be one SMB2 request (cifs's Stats)
# with two buffer descriptors, which the stock ksmbd must take (it
# invalidates the first descriptor's MR, we the other). The stock cifs is
# not given that I/O: it cannot register it (its MRs hold 256 pages),
# WARNs in smbd_register_mr() and retries for ever in
# netfs_unbuffered_write() (seen with our ksmbd, 2026-11-28; the server
# takes no part in it).
# Pairs 1 and 2 run with smbdirect's cm_caps parameter on (off by default):
# our end sends its capability blob in the CM private data on rxe (none
# on siw), and the stock ends, which never send one, must interoperate
# exactly as without it (Documentation/design.rst, "Capabilities in CM
# private data").
# Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

D=/sys/kernel/debug/smbdirect
CAPS=/sys/module/smbdirect/parameters/cm_caps
K=/tmp/smb-interop
MNT=/tmp/smb-interop-mnt
SRC=/tmp/smb-interop-src
USER=interop
PASS=interop-pass
SIZES="4096 1048576 16777216"
# 2 MiB instead of 16 on the debug kernel (KASAN: about twenty times slower).
case "$(uname -r)" in
*-dbg) SIZES="4096 1048576 2097152" ;;
esac

fail() {
	echo "FAIL: $*"
	echo "--- modules: cifs $(smb_module cifs), ksmbd $(smb_module ksmbd)"
	echo "--- rdma cm_ids"
	rdma res show cm_id
	echo "--- connections"
	cat "$D/connections"
	echo "--- kernel log (cifs, ksmbd, smbdirect)"
	dmesg | grep -E 'CIFS|cifs|ksmbd|smbdirect|smb_direct' | tail -n 40
	smb_cleanup
	echo 0 >"$CAPS"
	exit 1
}

# caps_check ROLE DEV: our connection of ROLE on DEV sent its capability
# blob on rxe only, and found none from the stock peer
caps_check() {
	_c=$(grep " role=$1 state=ESTABLISHED dev=$2 " "$D/connections" | cut -d' ' -f1 | head -n 1)
	[ -n "$_c" ] || fail "no $1 connection of ours on $2"
	_want=0
	[ "$2" = "$RXE_DEV" ] && _want=1
	[ "$(conn_param "$_c" caps_sent)" = "$_want" ] ||
		fail "connection $_c on $2: caps_sent $(conn_param "$_c" caps_sent), want $_want"
	[ "$(conn_param "$_c" caps_peer_blob)" = absent ] ||
		fail "connection $_c on $2: the stock peer's blob is $(conn_param "$_c" caps_peer_blob)"
}

# sum NAME ROLE DEV: NAME summed over our connections of ROLE
# (active/passive) on RDMA device DEV
sum() {
	_t=0
	for _c in $(grep " role=$2 .* dev=$3 " "$D/connections" | cut -d' ' -f1); do
		_t=$((_t + $(conn_counter "$_c" "$1")))
	done
	echo "$_t"
}

start_ksmbd() { # start_ksmbd ours|stock
	rm -rf "$K"
	out=$(ksmbd_conf "$K" "$USER" "$PASS") || fail "$out"
	if [ "$1" = stock ]; then
		load_stock ksmbd || fail "insmod $(stock_ko ksmbd)"
	else
		modprobe ksmbd || fail "modprobe ksmbd"
	fi
	[ "$(smb_module ksmbd)" = "$1" ] ||
		fail "wanted $1 ksmbd, $(smb_module ksmbd) is loaded"
	ksmbd.mountd -c "$K/ksmbd.conf" -u "$K/pwd.db" || fail "ksmbd.mountd"
}

# do_mount ADDR
do_mount() {
	smb_mount_try "$1" "rdma,vers=3.1.1,username=$USER,password=$PASS" ||
		fail "mount //$1/share -o rdma"
}

files() { # files TAG: every size, both ways
	for _n in $SIZES; do
		roundtrip "$1-b-$_n" "$_n" buffered
		roundtrip "$1-d-$_n" "$_n" direct
	done
}

# unaligned TAG: 1 MiB written with O_DIRECT from a buffer 512 bytes into a
# page, checked on the server, read back the same way (unaligned_io,
# lib.sh; O_DIRECT needs no cache dropped); ua_w and ua_r are the SMB2
# WRITEs and READs it took.
unaligned() {
	ua_w=$(cifs_stat Writes)
	unaligned_io write "$MNT/$1" "$SRC/1048576" 1048576 512 ||
		fail "$1: unaligned O_DIRECT write of 1 MiB"
	ua_w=$(($(cifs_stat Writes) - ua_w))
	[ "$(md5 "$K/share/$1")" = "$(md5 "$SRC/1048576")" ] ||
		fail "$1: unaligned O_DIRECT write: the server's copy differs"
	ua_r=$(cifs_stat Reads)
	unaligned_io read "$MNT/$1" "$MNT.back" 1048576 512 ||
		fail "$1: unaligned O_DIRECT read of 1 MiB"
	ua_r=$(($(cifs_stat Reads) - ua_r))
	[ "$(md5 "$MNT.back")" = "$(md5 "$SRC/1048576")" ] ||
		fail "$1: unaligned O_DIRECT read differs"
	rm -f "$MNT.back"
}

for dev in "$RXE_DEV" "$SIW_DEV"; do
	[ -e "/sys/class/infiniband/$dev" ] || fail "no RDMA device $dev"
done
mkdir -p "$MNT" "$SRC"
for n in $SIZES; do
	head -c "$n" /dev/urandom >"$SRC/$n" || fail "make $n"
done
total=0
for n in $SIZES; do
	total=$((total + 2 * n))
done

[ -w "$CAPS" ] || fail "smbdirect has no parameter cm_caps"
echo 1 >"$CAPS"

# ---- 1. our cifs, the stock ksmbd
start_ksmbd stock
modprobe cifs || fail "modprobe cifs"
[ "$(smb_module cifs)" = ours ] || fail "wanted our cifs, $(smb_module cifs) is loaded"
for a in "$RXE_ADDR:$RXE_DEV" "$SIW_ADDR:$SIW_DEV"; do
	addr=${a%:*} dev=${a#*:}
	do_mount "$addr"
	grep -q "role=active state=ESTABLISHED dev=$dev " /proc/fs/cifs/DebugData ||
		fail "our cifs's mount of //$addr is not on $dev"
	caps_check active "$dev"
	regs0=$(sum mr_registrations active "$dev")
	rinv0=$(sum mr_remote_invalidations active "$dev")
	files "our-cifs-$dev"
	regs=$(( $(sum mr_registrations active "$dev") - regs0 ))
	rinv=$(( $(sum mr_remote_invalidations active "$dev") - rinv0 ))
	say "our cifs, stock ksmbd on $dev: $regs registrations, $rinv invalidated by the server"
	[ "$regs" -gt 0 ] || fail "our cifs registered no buffer on $dev"
	[ "$rinv" -eq "$regs" ] ||
		fail "the stock ksmbd invalidated $rinv of $regs registrations on $dev"
	# Two descriptors on siw (rxe's MRs hold the 257 pages:
	# smb_shim_files.sh covers one there): one request, one registration,
	# and the MR the stock ksmbd did not invalidate invalidated by us.
	if [ "$dev" = "$SIW_DEV" ]; then
		t0=$(cut -d' ' -f1 /proc/uptime)
		regs0=$(sum mr_registrations active "$dev")
		descs0=$(sum mr_registered_descriptors active "$dev")
		linv0=$(sum mr_local_invalidations active "$dev")
		unaligned "our-cifs-ua-$dev"
		regs=$(( $(sum mr_registrations active "$dev") - regs0 ))
		descs=$(( $(sum mr_registered_descriptors active "$dev") - descs0 ))
		linv=$(( $(sum mr_local_invalidations active "$dev") - linv0 ))
		say "our cifs, stock ksmbd on $dev, unaligned 1 MiB: $ua_w WRITE and $ua_r READ, $regs registrations, $descs descriptors, $linv invalidated locally ($(since "$t0") s)"
		[ "$ua_w" -eq 1 ] && [ "$ua_r" -eq 1 ] && [ "$regs" -eq 2 ] &&
			[ "$descs" -eq 4 ] && [ "$linv" -eq 2 ] ||
			fail "unaligned 1 MiB on $dev: $ua_w WRITEs, $ua_r READs, $regs registrations, $descs descriptors, $linv local invalidations (want 1, 1, 2, 4, 2)"
	fi
	umount "$MNT" || fail "umount"
done
unload_cifs || fail "rmmod cifs (still in use after 30 s)"
out=$(ksmbd_stop) || fail "$out"

# ---- 2. the stock cifs, our ksmbd. Our server hangs up before each umount
# (server_hangs_up_first, lib.sh: the stock cifs must not end the
# connection itself), so it is started again for each device.
load_stock cifs || fail "insmod $(stock_ko cifs)"
[ "$(smb_module cifs)" = stock ] || fail "wanted the stock cifs, $(smb_module cifs) is loaded"
for a in "$RXE_ADDR:$RXE_DEV" "$SIW_ADDR:$SIW_DEV"; do
	addr=${a%:*} dev=${a#*:}
	start_ksmbd ours
	rd0=$(sum rdma_read_bytes passive "$dev")
	wr0=$(sum rdma_write_bytes passive "$dev")
	do_mount "$addr"
	# The stock client's own DebugData, and our server's connection.
	grep -q "SMBDirect (in hex) protocol version" /proc/fs/cifs/DebugData ||
		fail "the stock cifs's DebugData shows no SMB Direct transport"
	grep -q "role=passive state=ESTABLISHED dev=$dev " "$D/connections" ||
		fail "our ksmbd has no connection on $dev"
	caps_check passive "$dev"
	files "stock-cifs-$dev"
	rd=$(( $(sum rdma_read_bytes passive "$dev") - rd0 ))
	wr=$(( $(sum rdma_write_bytes passive "$dev") - wr0 ))
	say "stock cifs, our ksmbd on $dev: $rd bytes RDMA-read, $wr RDMA-written by the server"
	[ "$rd" -ge "$total" ] || fail "our ksmbd RDMA-read $rd bytes on $dev, want >= $total"
	[ "$wr" -ge "$total" ] || fail "our ksmbd RDMA-wrote $wr bytes on $dev, want >= $total"
	stock_cifs_connected ||
		fail "rdma res shows no connected cm_id of the stock cifs on $dev"
	server_hangs_up_first || fail "our ksmbd did not hang up on $dev"
	umount "$MNT" || fail "umount"
	wait_for 30 rmmod ksmbd || fail "rmmod ksmbd"
done
unload_cifs || fail "rmmod cifs (still in use after 30 s)"

echo 0 >"$CAPS"

# ---- 3. the stock cifs, the stock ksmbd: the baseline of the pairs above
# (smbdirect.ko stays loaded but carries nothing). The server hangs up
# first here too.
wait_for 20 smbd_no_conns || fail "connections left behind"
load_stock cifs || fail "insmod $(stock_ko cifs)"
[ "$(smb_module cifs)" = stock ] || fail "wanted the stock cifs, $(smb_module cifs) is loaded"
for a in "$RXE_ADDR:$RXE_DEV" "$SIW_ADDR:$SIW_DEV"; do
	addr=${a%:*} dev=${a#*:}
	start_ksmbd stock
	do_mount "$addr"
	grep -q "SMBDirect (in hex) protocol version" /proc/fs/cifs/DebugData ||
		fail "the stock cifs's DebugData shows no SMB Direct transport"
	files "stock-stock-$dev"
	[ ! -s "$D/connections" ] || fail "stock with stock on $dev went through smbdirect"
	say "stock cifs, stock ksmbd on $dev: files identical"
	stock_cifs_connected ||
		fail "rdma res shows no connected cm_id of the stock cifs on $dev"
	server_hangs_up_first || fail "the stock ksmbd did not hang up on $dev"
	umount "$MNT" || fail "umount"
	wait_for 30 rmmod ksmbd || fail "rmmod ksmbd"
done
unload_cifs || fail "rmmod cifs (still in use after 30 s)"

wait_for 20 smbd_no_conns || fail "connections left behind"
rm -rf "$K" "$SRC"
rmdir "$MNT"
echo "interop: our cifs with the stock ksmbd, the stock cifs with our ksmbd, stock with stock, on rxe and siw: files identical"
