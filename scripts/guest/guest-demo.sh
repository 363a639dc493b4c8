#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`, run inside the VM by guest-main.sh.
#
# First Linux's own cifs and ksmbd, built with our shims (shim/6.12) and
# loaded with modprobe: ksmbd-tools serves a share, cifs mounts it with
# `mount -t cifs -o rdma` over rxe and then over siw, a file is copied to
# the server and back and compared, and `mount`, /proc/fs/cifs/DebugData
# and smbdirect's counters of both ends show that the data moved by RDMA
# read and write, each buffer invalidated by the server.
#
# Then Storage QoS (MS-SQOS): a policy of 100 normalized IOPS is set from
# the shell through configfs, sqos-ctl tags its own handle on the rxe mount
# with a logical flow and that policy and runs 8 KiB O_DIRECT reads at
# depth 8 on it, while an untagged handle of the same mount does the same
# side by side; the flow as the server sees it (debugfs) and its status as
# the tool gets it (GET_STATUS) are shown.
#
# Then the transport on its own, with the smbd_test service: start an echo
# listener on rxe and on siw, connect to each, move verified messages of
# several sizes (one byte to the peer's MaxFragmentedSize), and show the
# negotiated parameters and the connection's debugfs counters; then, with
# smbd_rdma_bench, have a server connection RDMA-write into and RDMA-read
# from 1 MiB that a client connection registered with FRWR (Buffer
# Descriptor V1, as SMB2 READ and WRITE use it), and show the totals of
# every counter that moved.
. /smbd/guest-lib.sh

C=/sys/kernel/debug/smbd_test/control
R=/sys/kernel/debug/smbd_test/result
D=/sys/kernel/debug/smbdirect
B=/sys/kernel/debug/smbd_rdma_bench

SMB_DIR=/tmp/demo-ksmbd
SMB_MNT=/mnt/smb
SMB_FILE=/tmp/demo.bin
SMB_SIZE=8388608

show() { # show COMMAND...: print the command, run it, indent its output
	echo "\$ $*"
	"$@" 2>&1 | sed 's/^/    /'
}

# smb_counters CONN KEY...: the named counters of smbdirect connection CONN
smb_counters() {
	_c=$1
	shift
	for _k in "$@"; do
		awk -v k="$_k" '$1 == k { printf "    %-26s %s\n", $1, $2 }' "$D/conn/$_c/counters"
	done
}

smb_start() {
	say "---- cifs and ksmbd over SMB Direct ----"
	mkdir -p "$SMB_DIR/share" "$SMB_MNT" || return 1
	echo "\$ ksmbd.addshare -a share -o 'path = $SMB_DIR/share' ...; ksmbd.adduser -a demo ..."
	ksmbd.addshare -c "$SMB_DIR/ksmbd.conf" -a share -o "path = $SMB_DIR/share
writeable = yes
force user = root" >/dev/null || return 1
	ksmbd.adduser -c "$SMB_DIR/ksmbd.conf" -i "$SMB_DIR/pwd.db" -a demo -p demo-pass \
		>/dev/null 2>&1 || return 1
	echo "\$ modprobe ksmbd; modprobe cifs; ksmbd.mountd ..."
	modprobe ksmbd && modprobe cifs || return 1
	ksmbd.mountd -c "$SMB_DIR/ksmbd.conf" -u "$SMB_DIR/pwd.db" || return 1
	say "ksmbd and cifs are the shim builds (modinfo -n) and hold smbdirect:"
	echo "    $(modinfo -n ksmbd)"
	echo "    $(modinfo -n cifs)"
	echo "    smbdirect holders: $(ls /sys/module/smbdirect/holders | tr '\n' ' ')"
	wait_for 30 grep -q "addr=$SIW_ADDR:5445 " "$D/listeners" || return 1
	say "ksmbd listens on each RDMA device at its port ($D/listeners):"
	sed 's/^/    /' "$D/listeners"
	head -c "$SMB_SIZE" /dev/urandom >"$SMB_FILE"
}

smb_stop() {
	ksmbd.control -s >/dev/null 2>&1
	wait_for 30 sh -c '! pidof ksmbd.mountd'
	wait_for 30 rmmod cifs
	wait_for 30 rmmod ksmbd
	rm -rf "$SMB_DIR" "$SMB_FILE" /tmp/demo-back.bin
}

smb_device() { # smb_device DEV ADDR: mount, copy both ways, show
	say "---- $1: mount //$2/share over SMB Direct, copy 8 MiB there and back ----"
	_o="rdma,vers=3.1.1,username=demo,password=demo-pass"
	echo "\$ mount -t cifs //$2/share $SMB_MNT -o $_o"
	# ksmbd hangs up until ksmbd.mountd has configured it: retry.
	wait_for 30 mount.cifs "//$2/share" "$SMB_MNT" -o "$_o" || return 1
	echo "\$ mount | grep cifs"
	mount | grep cifs | sed 's/^/    /'
	_cc=$(sed -n 's/^SMBDirect: smbdirect.ko connection \([0-9]*\).*/\1/p' \
		/proc/fs/cifs/DebugData | head -n 1)
	_l=$(grep "^$_cc role=active " "$D/connections" | sed -n 's/.* local=\([^ ]*\) .*/\1/p')
	_sc=$(grep " role=passive .* peer=$_l " "$D/connections" | cut -d' ' -f1)
	[ -n "$_cc" ] && [ -n "$_sc" ] || return 1
	show cp "$SMB_FILE" "$SMB_MNT/"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	show cp "$SMB_MNT/demo.bin" /tmp/demo-back.bin
	show md5sum "$SMB_FILE" "$SMB_DIR/share/demo.bin" /tmp/demo-back.bin
	[ "$(md5sum </tmp/demo-back.bin)" = "$(md5sum <"$SMB_FILE")" ] || return 1
	[ "$(md5sum <"$SMB_DIR/share/demo.bin")" = "$(md5sum <"$SMB_FILE")" ] || return 1
	if [ "$1" = "$RXE_DEV" ]; then
		say "/proc/fs/cifs/DebugData, up to the server's interfaces (smbdirect's"
		say "parameters, credits and counters left out: the files in $D/conn/$_cc/):"
		grep -Ev '^[a-z_0-9]+ (-?[0-9]+|0x[0-9a-f]+|[A-Z]+)$' /proc/fs/cifs/DebugData |
			sed -n '/^Servers:/,/Server interfaces:/p' | grep -v 'Server interfaces:' |
			sed 's/^/    /'
	else
		say "/proc/fs/cifs/DebugData, the SMB Direct lines:"
		grep -E '^(SMBDirect:|cifs:|conn |RDMA)' /proc/fs/cifs/DebugData | sed 's/^/    /'
	fi
	say "the client's connection $_cc ($D/conn/$_cc/counters): one registration per"
	say "SMB2 READ or WRITE of up to 1044480 bytes, each invalidated by the server:"
	smb_counters "$_cc" mr_registrations mr_registered_bytes mr_remote_invalidations \
		mr_local_invalidations tx_bytes rx_bytes
	say "the server's connection $_sc: the WRITEs' data pulled by RDMA read, the"
	say "READs' data pushed by RDMA write, the replies sent with invalidate:"
	smb_counters "$_sc" rdma_read_bytes rdma_write_bytes tx_send_with_invalidate \
		tx_bytes rx_bytes
	_rd=$(awk '$1 == "rdma_read_bytes" { print $2 }' "$D/conn/$_sc/counters")
	_wr=$(awk '$1 == "rdma_write_bytes" { print $2 }' "$D/conn/$_sc/counters")
	[ "$_rd" -ge "$SMB_SIZE" ] && [ "$_wr" -ge "$SMB_SIZE" ] || return 1
	show umount "$SMB_MNT"
}

SQ_CFG=/sys/kernel/config/sqos
SQ_POLICY=04b4f24e-b3e9-4594-adaa-e327528de54b
SQ_FLOW=5c0e9a3e-1d2b-4f6a-8c11-0a0b0c0d0e02
SQ_SECS=10

sqos_demo() {
	say "---- Storage QoS (MS-SQOS): a throttled flow beside an untagged handle ----"
	grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
		mount -t configfs none /sys/kernel/config || return 1
	show mkdir "$SQ_CFG/policies/$SQ_POLICY"
	echo "\$ echo 100 >$SQ_CFG/policies/$SQ_POLICY/max_iops"
	echo 100 >"$SQ_CFG/policies/$SQ_POLICY/max_iops" || return 1
	show cat /sys/kernel/debug/sqos/policies
	_o="rdma,vers=3.1.1,username=demo,password=demo-pass"
	wait_for 30 mount.cifs "//$RXE_ADDR/share" "$SMB_MNT" -o "$_o" || return 1
	dd if=/dev/zero of="$SMB_DIR/share/tagged" bs=1M count=64 2>/dev/null || return 1
	dd if=/dev/zero of="$SMB_DIR/share/free" bs=1M count=64 2>/dev/null || return 1
	say "two loads for $SQ_SECS s on the same mount (rxe), 8 KiB O_DIRECT reads at depth 8:"
	echo "\$ sqos-ctl $SMB_MNT/tagged flow $SQ_FLOW + policy $SQ_POLICY + status \\"
	echo "      load read $SQ_SECS 8192 8 status &"
	echo "\$ sqos-ctl $SMB_MNT/free load read $SQ_SECS 8192 8 &"
	sqos-ctl "$SMB_MNT/tagged" flow "$SQ_FLOW" + policy "$SQ_POLICY" + status \
		load read "$SQ_SECS" 8192 8 status >/tmp/demo-tagged.log 2>&1 &
	_t=$!
	sqos-ctl "$SMB_MNT/free" load read "$SQ_SECS" 8192 8 >/tmp/demo-free.log 2>&1 &
	_f=$!
	sleep $((SQ_SECS / 2))
	say "the flow on the server, half-way (/sys/kernel/debug/sqos/flows):"
	sed 's/^/    /' /sys/kernel/debug/sqos/flows
	wait "$_t" || { cat /tmp/demo-tagged.log; return 1; }
	wait "$_f" || { cat /tmp/demo-free.log; return 1; }
	say "the tagged handle (the flow's status from the tool before and after):"
	sed 's/^/    /' /tmp/demo-tagged.log
	say "the untagged handle:"
	sed 's/^/    /' /tmp/demo-free.log
	show umount "$SMB_MNT"
	show rmdir "$SQ_CFG/policies/$SQ_POLICY"
	rm -f /tmp/demo-tagged.log /tmp/demo-free.log
}

run() { # run COMMAND...: send one command to smbd_test, show its result
	echo "\$ echo '$*' >$C"
	echo "$*" >"$C"
	_rc=$?
	sed 's/^/    /' "$R"
	return $_rc
}

demo_device() { # demo_device DEV ADDR
	say "---- SMB Direct over $1 ($2) ----"
	run listen echo "$2" || return 1
	run open "demo-$1" "$2" || return 1
	_id=$(sed -n 's/^connected: conn=\([0-9]*\).*/\1/p' "$R")
	_max=$(sed -n 's/.*max_fragmented_send_size=\([0-9]*\).*/\1/p' "$R")
	for _size in 1 1340 1341 65536 "$_max"; do
		run send "demo-$1" count=10 size="$_size" verify=1 || return 1
	done
	say "$D/conn/$_id/counters (non-zero only; params and credits beside it):"
	awk '$2 != 0 { print "    " $0 }' "$D/conn/$_id/counters"
	say "$D/conn/$_id/errors (non-zero only):"
	awk '$2 != 0 { n++; print "    " $0 } END { if (!n) print "    none" }' \
		"$D/conn/$_id/errors"
	say "$D/connections:"
	sed 's/^/    /' "$D/connections"
	run close "demo-$1"
	run unlisten all
	for _op in write read; do
		_cmd="run $2 7445 op=$_op size=1048576 count=16 reg=each"
		echo "\$ echo '$_cmd' >$B/control"
		echo "$_cmd" >"$B/control" || { sed 's/^/    /' "$B/result"; return 1; }
		sed 's/^/    /' "$B/result"
	done
}

smb_start || { smb_stop; exit 1; }
smb_device "$RXE_DEV" "$RXE_ADDR" || { smb_stop; exit 1; }
smb_device "$SIW_DEV" "$SIW_ADDR" || { smb_stop; exit 1; }
sqos_demo || { umount "$SMB_MNT" 2>/dev/null; rmdir "$SQ_CFG/policies/$SQ_POLICY" 2>/dev/null
	smb_stop; exit 1; }
smb_stop

say "---- the transport alone: smbd_test and smbd_rdma_bench ----"
modprobe smbd_test || exit 1
modprobe smbd_rdma_bench || exit 1
demo_device "$RXE_DEV" "$RXE_ADDR" || exit 1
demo_device "$SIW_DEV" "$SIW_ADDR" || exit 1
say "$D/stats (all connections of this boot):"
grep -v ' 0$' "$D/stats" | sed 's/^/    /'
rmmod smbd_rdma_bench smbd_test
