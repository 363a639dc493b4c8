#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Our cifs and ksmbd (shim/6.12 over smbdirect.ko), file I/O beyond
# smb_shim.sh, over rxe and over siw, SMB 3.1.1:
#  - sizes around the negotiated read/write size (rsize and wsize of the
#    mount, /proc/mounts; size-1, size, size+1) and a large file (64 MiB; 4
#    MiB on the debug kernel), buffered and O_DIRECT, checksummed in the
#    share and on the client; single O_DIRECT writes and reads of exactly
#    those sizes must use one registration each and move exactly
#    min(size, wsize or rsize) bytes by RDMA (the 1-byte rest goes inline);
#  - one O_DIRECT write and one read of 1 MiB (wsize, rsize) from and into
#    a user buffer that starts 512 bytes into a page: one SMB2 request,
#    one registration each, in two buffer descriptors on siw (257 pages,
#    its MRs hold 256) and one on rxe (MRs of 257 pages), and the server's
#    RDMA moves all of it;
#  - a tree of many small files created, listed, renamed and removed, seen
#    the same on the server, with no RDMA at all (small I/O goes inline);
#  - a mount with signing (sign): cifs turns RDMA read/write off, the same
#    sizes (around its own rsize/wsize) go in messages, and smbdirect's
#    counters must show no registration and no RDMA read or write;
#  - multichannel (ksmbd with "server multi channel support = yes", cifs
#    with multichannel,max_channels=2): a second channel, on the other RDMA
#    device, must come up and carry part of the I/O by RDMA.
# Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

D=/sys/kernel/debug/smbdirect
K=/tmp/smb-files
MNT=/tmp/smb-files-mnt
SRC=/tmp/smb-files-src
USER=files
PASS=files-pass
THRESHOLD=4096
# The large file: 64 MiB; 4 MiB (five SMB2 READs or WRITEs) on the debug
# kernel, where KASAN makes every byte about twenty times slower: 64 MiB
# would take about 2 minutes per device and direction there.
BIG=67108864
# The tree: DIRS directories of FILES files each.
DIRS=10
FILES=20
case "$(uname -r)" in
*-dbg) BIG=4194304 FILES=8 ;;
esac
FI=$D/fault/post_send

cleanup() {
	[ -e "$FI/probability" ] && echo 0 >"$FI/probability"
	smb_cleanup
}

fail() {
	echo "FAIL: $*"
	echo "--- mounts"
	grep cifs /proc/mounts
	echo "--- connections"
	cat "$D/connections"
	echo "--- kernel log (cifs, ksmbd, smbdirect)"
	dmesg | grep -E 'CIFS|cifs|ksmbd|smbdirect' | tail -n 40
	cleanup
	exit 1
}

# mount_opt NAME: a numeric option of the mount (rsize, wsize)
mount_opt() {
	grep " $MNT cifs " /proc/mounts | tr ',' '\n' | sed -n "s/^$1=//p"
}

start_ksmbd() {
	rm -rf "$K"
	out=$(ksmbd_start "$K" "$USER" "$PASS" "server multi channel support = yes") ||
		fail "$out"
}

# do_mount ADDR DEV [OPTIONS]: mount over RDMA, check the device, find
# the connections.
do_mount() {
	_o=rdma,vers=3.1.1,username=$USER,password=$PASS${3:+,$3}
	smb_mount_try "$1" "$_o" || fail "mount //$1/share -o $_o"
	grep -q "role=active state=ESTABLISHED dev=$2 " /proc/fs/cifs/DebugData ||
		fail "the mount of //$1 is not on $2"
	find_conns
}

# src SIZE: $SRC/SIZE, SIZE random bytes
src() {
	[ -f "$SRC/$1" ] || head -c "$1" /dev/urandom >"$SRC/$1" || fail "make $1"
}

# move NAME SIZE buffered|direct: roundtrip (lib.sh) of a SIZE-byte file
# as NAME, which is removed afterwards.
move() {
	src "$2"
	roundtrip "$@"
	rm -f "$MNT/$1"
}

# direct_one SIZE: one O_DIRECT write, then one O_DIRECT read, of SIZE
# bytes; each must register once and move min(SIZE, wsize or rsize) bytes
# by RDMA: cifs splits at wsize/rsize and the 1-byte rest is below the
# threshold.
direct_one() {
	_n=$1
	src "$_n"
	conn_snap
	dd if="$SRC/$_n" of="$MNT/one-$_n" bs="$_n" count=1 oflag=direct 2>/dev/null ||
		fail "O_DIRECT write of $_n bytes"
	_r=$(cdelta mr_registrations)
	_b=$(sdelta rdma_read_bytes)
	_want=$_n
	[ "$_n" -gt "$wsize" ] && _want=$wsize
	[ "$_r" -eq 1 ] && [ "$_b" -eq "$_want" ] ||
		fail "$_n-byte write: $_r registrations, $_b bytes RDMA-read (want 1, $_want)"
	[ "$(md5 "$K/share/one-$_n")" = "$(md5 "$SRC/$_n")" ] ||
		fail "$_n-byte O_DIRECT write: the server's copy differs"
	drop_caches
	conn_snap
	dd if="$MNT/one-$_n" of="$MNT.back" bs="$_n" count=1 iflag=direct 2>/dev/null ||
		fail "O_DIRECT read of $_n bytes"
	_r=$(cdelta mr_registrations)
	_b=$(sdelta rdma_write_bytes)
	_want=$_n
	[ "$_n" -gt "$rsize" ] && _want=$rsize
	[ "$_r" -eq 1 ] && [ "$_b" -eq "$_want" ] ||
		fail "$_n-byte read: $_r registrations, $_b bytes RDMA-written (want 1, $_want)"
	[ "$(md5 "$MNT.back")" = "$(md5 "$SRC/$_n")" ] ||
		fail "$_n-byte O_DIRECT read differs"
	rm -f "$MNT.back" "$MNT/one-$_n"
}

# unaligned_one DEV: one O_DIRECT write and one read of 1 MiB (the mount's
# wsize and rsize on both devices) through a buffer 512 bytes into a page
# (unaligned_io, lib.sh); each must be one
# SMB2 request (cifs's Stats) and one registration, in as many descriptors
# as the device needs (two where one MR does not cover wsize + 1 page),
# and the server must move every byte by RDMA.
unaligned_one() {
	_t0=$(cut -d' ' -f1 /proc/uptime)
	_n=1048576
	src "$_n"
	_rl=$(sed -n "s/^$1 .* reg_len=\([0-9]*\) .*/\1/p" "$D/devices")
	[ -n "$_rl" ] || fail "no reg_len of $1 in $D/devices"
	_want=1
	[ "$_rl" -lt "$_n" ] && _want=2
	for _op in write read; do
		conn_snap
		_s=$(cifs_stat Writes)
		[ "$_op" = read ] && _s=$(cifs_stat Reads)
		if [ "$_op" = write ]; then
			unaligned_io write "$MNT/ua" "$SRC/$_n" "$_n" 512 ||
				fail "unaligned O_DIRECT write of $_n bytes"
			_b=$(sdelta rdma_read_bytes)
			_s=$(($(cifs_stat Writes) - _s))
			[ "$(md5 "$K/share/ua")" = "$(md5 "$SRC/$_n")" ] ||
				fail "unaligned O_DIRECT write: the server's copy differs"
		else
			unaligned_io read "$MNT/ua" "$MNT.back" "$_n" 512 ||
				fail "unaligned O_DIRECT read of $_n bytes"
			_b=$(sdelta rdma_write_bytes)
			_s=$(($(cifs_stat Reads) - _s))
			[ "$(md5 "$MNT.back")" = "$(md5 "$SRC/$_n")" ] ||
				fail "unaligned O_DIRECT read differs"
		fi
		_r=$(cdelta mr_registrations)
		_d=$(cdelta mr_registered_descriptors)
		say "$1: unaligned $_n-byte $_op: $_s SMB2 requests, $_r registrations, $_d descriptors, $_b bytes by RDMA"
		[ "$_s" -eq 1 ] && [ "$_r" -eq 1 ] && [ "$_d" -eq "$_want" ] && [ "$_b" -eq "$_n" ] ||
			fail "$1: unaligned $_n-byte $_op: $_s requests, $_r registrations, $_d descriptors, $_b bytes by RDMA (want 1, 1, $_want, $_n)"
	done
	rm -f "$MNT.back" "$MNT/ua"
	say "$1: unaligned 1 MiB write and read checked in $(since "$_t0") s"
}

# by_rdma SIZE CHUNK: the bytes of a SIZE-byte transfer, split in CHUNK-byte
# requests, that at least go by RDMA: all but a last request below the
# threshold (cifs may merge or split buffered I/O further, never less)
by_rdma() {
	_rest=$(($1 % $2))
	[ "$_rest" -lt "$THRESHOLD" ] || _rest=0
	echo $(($1 - _rest))
}

# sizes_around: rsize-1, rsize, rsize+1, and the same for wsize if it differs
sizes_around() {
	for _s in "$rsize" "$wsize"; do
		echo $((_s - 1)) "$_s" $((_s + 1))
	done | tr ' ' '\n' | sort -un
}

# tree: many small files created, listed, renamed and removed; the server
# must see each step; no RDMA (every I/O is below the threshold).
tree() {
	conn_snap
	_t=$MNT/tree
	mkdir "$_t" || fail "mkdir $_t"
	_d=0
	while [ "$_d" -lt "$DIRS" ]; do
		mkdir "$_t/d$_d" || fail "mkdir $_t/d$_d"
		_f=0
		while [ "$_f" -lt "$FILES" ]; do
			echo "file $_d/$_f" >"$_t/d$_d/f$_f" || fail "create $_t/d$_d/f$_f"
			_f=$((_f + 1))
		done
		_d=$((_d + 1))
	done
	_n=$((DIRS * FILES))
	[ "$(find "$_t" -type f | wc -l)" -eq "$_n" ] || fail "tree: the client lists $(find "$_t" -type f | wc -l) files, not $_n"
	[ "$(find "$K/share/tree" -type f | wc -l)" -eq "$_n" ] ||
		fail "tree: the server has $(find "$K/share/tree" -type f | wc -l) files, not $_n"
	[ "$(cat "$_t/d3/f5")" = "file 3/5" ] || fail "tree: d3/f5 reads '$(cat "$_t/d3/f5")'"
	for _x in "$_t"/d*/f*; do
		mv "$_x" "${_x%/f*}/g${_x##*/f}" || fail "rename $_x"
	done
	mv "$_t/d0" "$_t/e0" || fail "rename the directory d0"
	drop_caches
	[ "$(ls "$_t"/*/f* 2>/dev/null | wc -l)" -eq 0 ] || fail "tree: old names left after renaming"
	[ "$(ls "$_t"/*/g* | wc -l)" -eq "$_n" ] || fail "tree: the client lists $(ls "$_t"/*/g* | wc -l) renamed files"
	[ "$(ls "$K/share/tree"/*/g* | wc -l)" -eq "$_n" ] || fail "tree: the server has $(ls "$K/share/tree"/*/g* | wc -l) renamed files"
	[ "$(cat "$K/share/tree/e0/g7")" = "file 0/7" ] || fail "tree: e0/g7 on the server reads '$(cat "$K/share/tree/e0/g7")'"
	rm -r "$_t" || fail "rm -r $_t"
	[ ! -e "$K/share/tree" ] || fail "tree: still on the server after rm -r"
	_r=$(cdelta mr_registrations)
	[ "$_r" -eq 0 ] && [ "$(sdelta rdma_read_bytes)" -eq 0 ] && [ "$(sdelta rdma_write_bytes)" -eq 0 ] ||
		fail "tree: small I/O used RDMA ($_r registrations)"
	say "tree of $_n files: created, listed, renamed, removed; $(cdelta tx_bytes) bytes sent and $(cdelta rx_bytes) received in messages, no RDMA"
}

# session ADDR DEV: plain RDMA mount
session() {
	do_mount "$1" "$2"
	rsize=$(mount_opt rsize)
	wsize=$(mount_opt wsize)
	_max=$(sed -n 's/^cifs: max_readwrite_size: \([0-9]*\) .*/\1/p' /proc/fs/cifs/DebugData | head -n 1)
	say "$2: client connection $cc, server connection $sc, rsize $rsize wsize $wsize, max_readwrite_size $_max"
	[ -n "$rsize" ] && [ -n "$wsize" ] || fail "$2: no rsize/wsize in /proc/mounts"
	[ "$rsize" -le "$_max" ] && [ "$wsize" -le "$_max" ] ||
		fail "$2: rsize $rsize or wsize $wsize above max_readwrite_size $_max"
	conn_snap
	_total=0 _wmin=0 _rmin=0
	for _n in $(sizes_around) "$BIG"; do
		move "b-$_n" "$_n" buffered
		move "d-$_n" "$_n" direct
		_total=$((_total + 2 * _n))
		_wmin=$((_wmin + 2 * $(by_rdma "$_n" "$wsize")))
		_rmin=$((_rmin + 2 * $(by_rdma "$_n" "$rsize")))
	done
	_rd=$(sdelta rdma_read_bytes)
	_wr=$(sdelta rdma_write_bytes)
	say "$2: $_total bytes each way, $(cdelta mr_registrations) registrations, $_rd bytes RDMA-read and $_wr RDMA-written by the server"
	[ "$_rd" -ge "$_wmin" ] && [ "$_rd" -le "$_total" ] ||
		fail "$2: $_rd bytes RDMA-read, want $_wmin to $_total"
	[ "$_wr" -ge "$_rmin" ] && [ "$_wr" -le "$_total" ] ||
		fail "$2: $_wr bytes RDMA-written, want $_rmin to $_total"
	for _n in $(sizes_around); do
		direct_one "$_n"
	done
	unaligned_one "$2"
	tree
	umount "$MNT" || fail "umount $MNT"
}

# signed ADDR DEV: with signing every READ and WRITE goes in messages.
signed() {
	do_mount "$1" "$2" sign
	rsize=$(mount_opt rsize)
	wsize=$(mount_opt wsize)
	say "$2 sign: rsize $rsize wsize $wsize"
	conn_snap
	_total=0
	for _n in $(sizes_around); do
		move "s-$_n" "$_n" direct
		_total=$((_total + _n))
	done
	move s-1048576 1048576 buffered
	_total=$((_total + 1048576))
	_tx=$(cdelta tx_bytes)
	_rx=$(cdelta rx_bytes)
	say "$2 sign: $_tx bytes sent and $_rx received in messages, $(cdelta mr_registrations) registrations, RDMA read $(sdelta rdma_read_bytes) write $(sdelta rdma_write_bytes)"
	[ "$(cdelta mr_registrations)" -eq 0 ] || fail "$2 sign: the client registered buffers"
	[ "$(sdelta rdma_read_bytes)" -eq 0 ] && [ "$(sdelta rdma_write_bytes)" -eq 0 ] ||
		fail "$2 sign: the server used RDMA read/write"
	[ "$_tx" -ge "$_total" ] && [ "$_rx" -ge "$_total" ] ||
		fail "$2 sign: only $_tx bytes sent and $_rx received in messages, want >= $_total"
	umount "$MNT" || fail "umount $MNT"
}

# multichannel: the primary channel on siw; Linux 6.12's cifs adds channels
# at mount time only when built with CONFIG_CIFS_DFS_UPCALL (the test
# kernels are not), otherwise after a reconnection: a failed Send
# (smbdirect's post_send fault point) makes one. cifs weighs interfaces by
# the speed ksmbd reports (veth 10 Gb/s, dummy 1 Gb/s): from siw it picks
# rxe's address, from rxe none (interop.rst).
multichannel() {
	[ -e "$FI/probability" ] || fail "no fault point $FI (CONFIG_FAULT_INJECTION_DEBUG_FS)"
	do_mount "$SIW_ADDR" "$SIW_DEV" multichannel,max_channels=2
	grep -q ',multichannel' /proc/mounts || fail "multichannel: not in the mount options"
	fault_once "$FI"
	ls "$MNT" >/dev/null 2>&1
	wait_for 60 sh -c "ls $MNT >/dev/null && grep -q 'Extra Channels: 1' /proc/fs/cifs/DebugData" ||
		fail "multichannel: no second channel after the reconnection"
	fault_off "$FI"
	_c1=$(grep " role=active state=ESTABLISHED dev=$SIW_DEV " "$D/connections" | cut -d' ' -f1)
	_c2=$(grep " role=active state=ESTABLISHED dev=$RXE_DEV " "$D/connections" | cut -d' ' -f1)
	[ -n "$_c1" ] && [ -n "$_c2" ] || fail "multichannel: want a client connection on each device: $(cat "$D/connections")"
	say "multichannel: channels on $SIW_DEV (connection $_c1) and $RXE_DEV (connection $_c2)"
	_r1=$(conn_counter "$_c1" mr_registrations)
	_r2=$(conn_counter "$_c2" mr_registrations)
	# Several READs and WRITEs at once (one O_DIRECT request of 8 rsize),
	# which cifs spreads over the channels.
	_n=$((8 * 1048576))
	src "$_n"
	dd if="$SRC/$_n" of="$MNT/mc" bs="$_n" count=1 oflag=direct 2>/dev/null ||
		fail "multichannel: O_DIRECT write"
	drop_caches
	[ "$(md5 "$K/share/mc")" = "$(md5 "$SRC/$_n")" ] || fail "multichannel: the server's copy differs"
	dd if="$MNT/mc" of="$MNT.back" bs="$_n" count=1 iflag=direct 2>/dev/null ||
		fail "multichannel: O_DIRECT read"
	[ "$(md5 "$MNT.back")" = "$(md5 "$SRC/$_n")" ] || fail "multichannel: read back differs"
	rm -f "$MNT.back" "$MNT/mc"
	_r1=$(($(conn_counter "$_c1" mr_registrations) - _r1))
	_r2=$(($(conn_counter "$_c2" mr_registrations) - _r2))
	say "multichannel: registrations $_r1 on $SIW_DEV, $_r2 on $RXE_DEV"
	[ "$_r1" -gt 0 ] && [ "$_r2" -gt 0 ] ||
		fail "multichannel: not both channels moved data by RDMA ($_r1, $_r2)"
	umount "$MNT" || fail "umount $MNT"
}

for dev in "$RXE_DEV" "$SIW_DEV"; do
	[ -e "/sys/class/infiniband/$dev" ] || fail "no RDMA device $dev"
done
mkdir -p "$MNT" "$SRC"
start_ksmbd
modprobe cifs || fail "modprobe cifs"
[ "$(smb_module cifs)" = ours ] || fail "modprobe cifs loaded $(smb_module cifs), not ours"

session "$RXE_ADDR" "$RXE_DEV"
session "$SIW_ADDR" "$SIW_DEV"
signed "$RXE_ADDR" "$RXE_DEV"
signed "$SIW_ADDR" "$SIW_DEV"
multichannel

unload_cifs || fail "rmmod cifs (still in use after 30 s)"
ksmbd.control -s >/dev/null || fail "ksmbd.control -s"
wait_for 30 rmmod ksmbd || fail "rmmod ksmbd"
wait_for 20 smbd_no_conns || fail "connections left behind"
rm -rf "$K" "$SRC"
rmdir "$MNT"
echo "our cifs and ksmbd: sizes around rsize/wsize and $BIG bytes, a tree of $((DIRS * FILES)) files, signing without RDMA, two channels, on rxe and siw"
