# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the shell tests (tests/vm/*.sh), sourced by each from beside
# it: in the VM they are /smbd/tests/, and the checkout's tests/vm/ is at
# /src/tests/vm/. The VM's own scripts (scripts/guest/) source this file
# too, so the device and address names below are defined only here. The
# addresses exist only inside the VM, which has no network device of
# QEMU's.

RXE_DEV=rxe0
RXE_NETDEV=smbd-v0
RXE_PEER=smbd-v1
RXE_ADDR=192.0.2.1
SIW_DEV=siw0
SIW_NETDEV=smbd-d0
SIW_ADDR=198.51.100.1
# Stacked interfaces (tests/vm/netdev_stack.sh): a VLAN on rxe's interface,
# and a bond whose port is a second veth with an rxe device of its own.
VLAN_NETDEV=smbd-v0.42
VLAN_ID=42
VLAN_ADDR=198.18.42.1
BOND_NETDEV=smbd-b0
BOND_PORT=smbd-v2
BOND_PORT_PEER=smbd-v3
BOND_RXE_DEV=rxe1
BOND_VLAN_NETDEV=smbd-b0.7
DEV_WAIT_S=60

say() { echo "# $*"; }

# wait_for SECONDS COMMAND...: poll every 0.2 s until COMMAND succeeds.
wait_for() {
	_n=$(( $1 * 5 )); shift
	while [ "$_n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
		_n=$((_n - 1))
	done
	"$@"
}

port_active() {
	grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state"
}

# The IPv4-mapped GID of $2 on rxe device $1 is in its GID table.
rxe_gid_ready() {
	_hex=$(echo "$2" | awk -F. '{printf "%02x%02x:%02x%02x", $1, $2, $3, $4}')
	cat /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null |
		grep -q "0000:0000:0000:0000:0000:ffff:$_hex"
}

# An address is usable once DAD-free IPv4 has it and the route exists.
addr_ready() {
	ip -4 addr show dev "$1" | grep -q "inet $2/" &&
		ip route get "$2" >/dev/null 2>&1
}

# rdma_readd DEV: create rxe0 or siw0 again after `rdma link delete` and
# wait until its port is up (rxe: and its GID) and smbdirect lists it as
# usable.
rdma_readd() {
	case "$1" in
	"$RXE_DEV")
		rdma link add "$RXE_DEV" type rxe netdev "$RXE_NETDEV" || return 1
		wait_for "$DEV_WAIT_S" port_active "$RXE_DEV" || return 1
		wait_for "$DEV_WAIT_S" rxe_gid_ready "$RXE_DEV" "$RXE_ADDR" || return 1
		;;
	"$SIW_DEV")
		rdma link add "$SIW_DEV" type siw netdev "$SIW_NETDEV" || return 1
		wait_for "$DEV_WAIT_S" port_active "$SIW_DEV" || return 1
		;;
	*)
		return 1
		;;
	esac
	wait_for 10 smbd_dev_usable "$1"
}

smbd_dev_usable() {
	grep "^$1 " /sys/kernel/debug/smbdirect/devices | grep "port1=ACTIVE" |
		grep -q "verdict=usable"
}

# Linux's own cifs and ksmbd. Ours (built with shim/, depending on
# smbdirect) are installed under updates/, so `modprobe cifs` and
# `modprobe ksmbd` load them; the kernel's own stay in kernel/fs/smb and
# are loaded by path, as interop peers.
stock_ko() { # stock_ko cifs|ksmbd: path of Linux's own module
	case "$1" in
	cifs) echo "/lib/modules/$(uname -r)/kernel/fs/smb/client/cifs.ko" ;;
	ksmbd) echo "/lib/modules/$(uname -r)/kernel/fs/smb/server/ksmbd.ko" ;;
	*) return 1 ;;
	esac
}

# load_stock cifs|ksmbd: insmod Linux's own module after its dependencies.
load_stock() {
	_ko=$(stock_ko "$1") || return 1
	[ -f "$_ko" ] || { echo "no $_ko"; return 1; }
	for _d in $(modinfo -F depends "$_ko" | tr ',' ' '); do
		modprobe "$_d" || return 1
	done
	insmod "$_ko"
}

# smb_module cifs|ksmbd: which one is loaded: "ours" (out of tree, uses
# smbdirect), "stock" (in tree, does not), "none", or "unknown".
smb_module() {
	if [ ! -d "/sys/module/$1" ]; then
		echo none
		return
	fi
	_o=no
	grep -q O "/sys/module/$1/taint" 2>/dev/null && _o=yes
	if [ -e "/sys/module/smbdirect/holders/$1" ] && [ $_o = yes ]; then
		echo ours
	elif [ ! -e "/sys/module/smbdirect/holders/$1" ] && [ $_o = no ]; then
		echo stock
	else
		echo unknown
	fi
}

# server_hangs_up_first: before a stock cifs unmounts, stop the ksmbd
# server (ours or stock) and wait until no RDMA connection of cifs is
# still up. The stock cifs of 6.12.117 can oops when it is the side that
# ends an SMB Direct connection: umount reaches smbd_destroy() with
# SIGKILL pending, so its wait for the disconnection returns at once, and
# the disconnect work queued by the flushed receives can run after
# rdma_destroy_id() ("BUG: kernel NULL pointer dereference, address:
# 0000000000000528", RIP rdma_disconnect, from a kworker). After the
# server's hangup that work finds the connection disconnected and does
# nothing (Documentation/interop.rst). Returns non-zero if the server or
# the connection stays.
server_hangs_up_first() {
	ksmbd.control -s >/dev/null 2>&1
	wait_for 30 sh -c '! pidof ksmbd.mountd' || return 1
	wait_for 30 stock_cifs_gone
}

# stock_cifs_connected: some RDMA CM id of the stock cifs (the RDMA CM
# names a kernel id after the module that created it; ours are
# smbdirect's) is connected.
stock_cifs_connected() {
	rdma res show cm_id | grep 'comm \[cifs\]' | grep -q 'state CONNECT '
}

stock_cifs_gone() {
	! stock_cifs_connected
}

# unload_cifs: rmmod cifs, retrying for 30 s (cifs holds itself until its
# sessions' threads are gone, interop.rst); if it stays, print every cifsd
# thread's state and kernel stack, so that the report says where one is
# stuck, and fail.
unload_cifs() {
	wait_for 30 rmmod cifs && { modref_trace_off; return 0; }
	echo "# cifs refcnt $(cat /sys/module/cifs/refcnt 2>/dev/null)"
	for _c in /proc/[0-9]*/comm; do
		[ "$(cat "$_c" 2>/dev/null)" = cifsd ] || continue
		_d=${_c%/comm}
		echo "# cifsd ${_d#/proc/}: $(grep '^State' "$_d/status" 2>/dev/null)"
		sed 's/^/#   /' "$_d/stack" 2>/dev/null
	done
	[ -r /proc/fs/cifs/DebugData ] && sed 's/^/# DebugData: /' /proc/fs/cifs/DebugData
	modref_trace_dump
	return 1
}

# modref_trace_on MODULE: record every reference taken on or dropped from
# MODULE (the module_get/module_put tracepoints) with the kernel stack
# that did it, so that a module that cannot be unloaded names who holds
# it; modref_trace_dump prints the record, modref_trace_off stops it.
# Best effort: without tracefs they do nothing.
MODREF_T=/sys/kernel/tracing
modref_trace_on() {
	[ -d $MODREF_T/events/module ] ||
		mount -t tracefs nodev $MODREF_T 2>/dev/null || return 0
	[ -d $MODREF_T/events/module ] || return 0
	echo 0 >$MODREF_T/tracing_on
	echo >$MODREF_T/trace
	echo 4096 >$MODREF_T/buffer_size_kb
	for _e in module_get module_put; do
		echo "name == \"$1\"" >$MODREF_T/events/module/$_e/filter
		echo "stacktrace if name == \"$1\"" >$MODREF_T/events/module/$_e/trigger
		echo 1 >$MODREF_T/events/module/$_e/enable
	done
	echo 1 >$MODREF_T/tracing_on
	MODREF_ON=1
}

modref_trace_off() {
	[ -n "$MODREF_ON" ] || return 0
	MODREF_ON=
	for _e in module_get module_put; do
		echo 0 >$MODREF_T/events/module/$_e/enable
		echo '!stacktrace' >$MODREF_T/events/module/$_e/trigger 2>/dev/null
		echo 0 >$MODREF_T/events/module/$_e/filter
	done
	echo >$MODREF_T/trace
}

modref_trace_dump() {
	[ -n "$MODREF_ON" ] || return 0
	echo "# module references (get/put with their stacks):"
	grep -v '^#' $MODREF_T/trace | tail -n 600 | sed 's/^/#   /'
	modref_trace_off
}

# fault_once DIR: arm smbdirect's fault point DIR (a directory of
# /sys/kernel/debug/smbdirect/fault) to fail its next pass, once;
# fault_off DIR disarms it.
fault_once() {
	echo 1 >"$1/times" && echo 100 >"$1/probability"
}

fault_off() {
	echo 0 >"$1/probability"
}

# ksmbd_conf DIR USER PASS [GLOBAL...]: ksmbd-tools' configuration in
# DIR/ksmbd.conf, with GLOBAL lines (e.g. "max connections = 4") in
# [global] and a share "share" of DIR/share (tmpfs, force user = root),
# and USER with PASS in DIR/pwd.db. Non-zero with a message on failure.
ksmbd_conf() {
	_kd=$1 _ku=$2 _kp=$3
	shift 3
	mkdir -p "$_kd/share" || { echo "mkdir $_kd"; return 1; }
	{
		echo "[global]"
		for _g in "$@"; do
			echo "	$_g"
		done
		echo "[share]"
		echo "	path = $_kd/share"
		echo "	writeable = yes"
		echo "	force user = root"
	} >"$_kd/ksmbd.conf"
	ksmbd.adduser -c "$_kd/ksmbd.conf" -i "$_kd/pwd.db" -a "$_ku" -p "$_kp" \
		>/dev/null 2>&1 || { echo "ksmbd.adduser failed"; return 1; }
}

# ksmbd_start DIR USER PASS [GLOBAL...]: our ksmbd (modprobe ksmbd) with
# ksmbd-tools serving DIR/share to USER (ksmbd_conf); returns once ksmbd
# listens on rxe's and siw's addresses (at 445 and 5445). Non-zero with a
# message on failure: use it as `out=$(ksmbd_start ...) || fail "$out"`.
ksmbd_start() {
	ksmbd_conf "$@" || return 1
	_kd=$1
	modprobe ksmbd || { echo "modprobe ksmbd failed"; return 1; }
	[ "$(smb_module ksmbd)" = ours ] ||
		{ echo "modprobe ksmbd loaded $(smb_module ksmbd), not ours"; return 1; }
	ksmbd.mountd -c "$_kd/ksmbd.conf" -u "$_kd/pwd.db" ||
		{ echo "ksmbd.mountd failed"; return 1; }
	wait_for 30 grep -q "addr=$RXE_ADDR:445 dev=$RXE_DEV " /sys/kernel/debug/smbdirect/listeners ||
		{ echo "ksmbd does not listen on $RXE_ADDR:445"; return 1; }
	wait_for 30 grep -q "addr=$SIW_ADDR:5445 dev=$SIW_DEV " /sys/kernel/debug/smbdirect/listeners ||
		{ echo "ksmbd does not listen on $SIW_ADDR:5445"; return 1; }
}

# ksmbd_stop: stop ksmbd-tools' daemon and unload ksmbd (ours or stock).
# Non-zero with a message on failure.
ksmbd_stop() {
	ksmbd.control -s >/dev/null 2>&1
	wait_for 30 sh -c '! pidof ksmbd.mountd' ||
		{ echo "ksmbd.mountd did not stop"; return 1; }
	wait_for 30 rmmod ksmbd || { echo "rmmod ksmbd"; return 1; }
}

# ---- Helpers of the SMB tests over our shims (smb_shim*.sh).
# They use the test's variables K (ksmbd_conf's DIR: the share is
# $K/share), MNT (the mount point) and SRC (source files, $SRC/SIZE is
# SIZE random bytes), and the helpers that check call the test's fail().

SMBD_DBG=/sys/kernel/debug/smbdirect

# smbd_no_conns: smbdirect has no connection (wait_for 20 smbd_no_conns).
smbd_no_conns() {
	[ ! -s "$SMBD_DBG/connections" ]
}

# conn_counter CONN NAME: counter NAME of smbdirect connection CONN.
conn_counter() {
	awk -v k="$2" '$1 == k { print $2 }' "$SMBD_DBG/conn/$1/counters"
}

# conn_param N KEY: a value of connection N's params file
conn_param() {
	awk -v k="$2" '$1 == k { print $2 }' "$SMBD_DBG/conn/$1/params"
}

# cifs_conn: the smbdirect connection of our cifs's first mount
# (/proc/fs/cifs/DebugData).
cifs_conn() {
	sed -n 's/^SMBDirect: smbdirect.ko connection \([0-9]*\).*/\1/p' \
		/proc/fs/cifs/DebugData | head -n 1
}

# find_conns: cc, the client's smbdirect connection (cifs_conn), and sc,
# the server's connection on its other end (its peer is the client's
# address).
find_conns() {
	cc=$(cifs_conn)
	[ -n "$cc" ] || fail "no smbdirect connection in /proc/fs/cifs/DebugData"
	_l=$(grep "^$cc role=active " "$SMBD_DBG/connections" | sed -n 's/.* local=\([^ ]*\) .*/\1/p')
	[ -n "$_l" ] || fail "client connection $cc not in $SMBD_DBG/connections"
	sc=$(grep " role=passive .* peer=$_l " "$SMBD_DBG/connections" | cut -d' ' -f1)
	[ -n "$sc" ] || fail "no server connection with peer $_l"
}

# conn_snap: remember every counter of connections $cc and $sc (find_conns);
# cdelta NAME and sdelta NAME: how much NAME of $cc or $sc grew since.
conn_snap() {
	eval "$(awk '$1 ~ /^[a-z_][a-z0-9_]*$/ { print "s_c_" $1 "=" $2 }' \
		"$SMBD_DBG/conn/$cc/counters")"
	eval "$(awk '$1 ~ /^[a-z_][a-z0-9_]*$/ { print "s_s_" $1 "=" $2 }' \
		"$SMBD_DBG/conn/$sc/counters")"
}
cdelta() { eval "echo \$(( $(conn_counter "$cc" "$1") - s_c_$1 ))"; }
sdelta() { eval "echo \$(( $(conn_counter "$sc" "$1") - s_s_$1 ))"; }

md5() { md5sum "$1" | cut -d' ' -f1; }

# smb_cleanup: after a failure, take away what the test may have left:
# the mount at $MNT, ksmbd, cifs, $K and $SRC.
smb_cleanup() {
	umount "$MNT" 2>/dev/null
	ksmbd_stop >/dev/null 2>&1
	wait_for 30 rmmod cifs 2>/dev/null
	rm -rf "$K" "$SRC"
}

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# smb_mount_try ADDR OPTIONS: mount //ADDR/share at $MNT with OPTIONS, trying
# ten times (ksmbd hangs up until ksmbd.mountd has configured it, so the
# first attempts may fail); after the last, print mount's output and
# return non-zero.
smb_mount_try() {
	_i=1
	while :; do
		timeout -s KILL 180 mount.cifs "//$1/share" "$MNT" -o "$2" \
			>"$MNT.log" 2>&1 && return 0
		[ "$_i" -lt 10 ] || break
		_i=$((_i + 1))
		sleep 2
	done
	cat "$MNT.log"
	return 1
}

# roundtrip NAME SIZE buffered|direct: write $SRC/SIZE to the share as
# NAME, check the server's copy, drop the client's caches, read it back
# the same way and check it.
roundtrip() {
	_f=$1 _n=$2 _m=$3
	if [ "$_m" = direct ]; then
		dd if="$SRC/$_n" of="$MNT/$_f" bs=16M oflag=direct 2>/dev/null ||
			fail "O_DIRECT write of $_n bytes"
	else
		cp "$SRC/$_n" "$MNT/$_f" || fail "write of $_n bytes"
	fi
	drop_caches
	[ "$(md5 "$K/share/$_f")" = "$(md5 "$SRC/$_n")" ] ||
		fail "$_f ($_n bytes, $_m): the server's copy differs"
	if [ "$_m" = direct ]; then
		dd if="$MNT/$_f" of="$MNT.back" bs=16M iflag=direct 2>/dev/null ||
			fail "O_DIRECT read of $_n bytes"
	else
		cat "$MNT/$_f" >"$MNT.back" || fail "read of $_n bytes"
	fi
	[ "$(md5 "$MNT.back")" = "$(md5 "$SRC/$_n")" ] ||
		fail "$_f ($_n bytes, $_m): read back differs"
	rm -f "$MNT.back"
}

# unaligned_io write|read FILE DATA SIZE OFF: one O_DIRECT write of the
# first SIZE bytes of DATA to FILE (or one O_DIRECT read of SIZE bytes of
# FILE into DATA) through a user buffer that starts OFF bytes into a page,
# so that cifs's buffer spans one page more than a page-aligned one. Fails
# if the call moves fewer bytes.
unaligned_io() {
	python3 - "$@" <<'EOF_PY'
import mmap, os, sys
op, path, data = sys.argv[1:4]
n, off = int(sys.argv[4]), int(sys.argv[5])
buf = mmap.mmap(-1, n + off + mmap.PAGESIZE)
view = memoryview(buf)[off:off + n]
if op == "write":
    with open(data, "rb") as f:
        view[:] = f.read(n)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_DIRECT, 0o644)
    done = os.write(fd, view)
else:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    done = os.readv(fd, [view])
    with open(data, "wb") as f:
        f.write(view[:done])
os.close(fd)
sys.exit(0 if done == n else 1)
EOF_PY
}

# since T0: seconds since T0 (a first field of /proc/uptime), two decimals
since() {
	awk -v a="$1" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.2f", b - a }'
}

# cifs_stat Reads|Writes: SMB2 READs or WRITEs cifs sent, over every share
# in /proc/fs/cifs/Stats (ours and the stock cifs print it alike).
cifs_stat() {
	awk -v k="$1:" '$1 == k { s += $2 } END { print s + 0 }' /proc/fs/cifs/Stats
}

# ---- Helpers of the tests that drive the smbd_test module
# (tests/modules/smbd_test) through its debugfs files: commands to ST_C,
# the last command's result in ST_R, connections and listeners in ST_S.
ST_C=/sys/kernel/debug/smbd_test/control
ST_R=/sys/kernel/debug/smbd_test/result
ST_S=/sys/kernel/debug/smbd_test/status

# smbd_test_fail MESSAGE: print MESSAGE, smbd_test's result and status and
# smbdirect's connections and listeners, close smbd_test's connections
# and listeners, unload it and exit 1.
smbd_test_fail() {
	echo "FAIL: $*"
	[ -r "$ST_R" ] && { echo "--- result"; cat "$ST_R"; }
	[ -r "$ST_S" ] && { echo "--- status"; cat "$ST_S"; }
	[ -r "$SMBD_DBG/connections" ] && { echo "--- connections"; cat "$SMBD_DBG/connections"; }
	[ -r "$SMBD_DBG/listeners" ] && { echo "--- listeners"; cat "$SMBD_DBG/listeners"; }
	echo "close all" >"$ST_C" 2>/dev/null
	echo "unlisten all" >"$ST_C" 2>/dev/null
	rmmod smbd_test 2>/dev/null
	exit 1
}

# st_cmd COMMAND...: give smbd_test COMMAND, which must succeed.
st_cmd() {
	echo "$*" >"$ST_C" || smbd_test_fail "'$*' refused"
}
