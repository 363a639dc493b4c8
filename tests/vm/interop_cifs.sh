#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Interop with the stock cifs client (fs/smb/client, its own SMB Direct
# code, loaded by path: `modprobe cifs` loads ours, tests/vm/smb_shim.sh):
# `mount -t cifs -o rdma` (mount.cifs) against smbd_test's sink
# listener on rxe, then on siw. SMB Direct negotiation must complete and the
# first message must carry an SMB2 header (the NEGOTIATE request); the sink
# answers it with an SMB2 error, so the mount fails fast, as it must
# (Documentation/interop.rst).
# First, the sink's SMB2 recognition is checked with known messages.
# Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

C=/sys/kernel/debug/smbd_test/control
R=/sys/kernel/debug/smbd_test/result
S=/sys/kernel/debug/smbd_test/status
D=/sys/kernel/debug/smbdirect
MNT=/tmp/interop-cifs

cleanup() {
	umount "$MNT" 2>/dev/null
	echo "unlisten all" >"$C" 2>/dev/null
	rmmod smbd_test 2>/dev/null
	wait_for 30 rmmod cifs
}

fail() {
	echo "FAIL: $*"
	[ -r "$R" ] && { echo "--- result"; cat "$R"; }
	[ -r "$S" ] && { echo "--- status"; cat "$S"; }
	echo "--- kernel log (cifs, smbdirect)"
	dmesg | grep -E 'CIFS|cifs|smbdirect' | tail -n 30
	cleanup
	exit 1
}

cmd() { # cmd COMMAND...: must succeed
	echo "$*" >"$C" || fail "'$*' refused"
	sed 's/^/# /' "$R"
}

# listener_field ADDR PORT KEY: KEY's value on the listener's status line
listener_field() {
	grep "^listener sink $1 port=$2 " "$S" | tr ' ' '\n' | sed -n "s/^$3=//p"
}

modprobe smbd_test || fail "modprobe smbd_test"

# ---- the sink tells SMB2 from anything else
cmd listen sink "$RXE_ADDR" 7446 hangup=1
# A 100-byte message of the send pattern; the sink must see it before the
# client goes (a destroy right after a send may flush it unsent).
cmd open t "$RXE_ADDR" 7446
cmd send t count=1 size=100
wait_for 10 sh -c "grep -q '^listener sink $RXE_ADDR port=7446 .* first=00' $S" ||
	fail "the sink did not record the first message"
cmd close t
# Our own SMB2 NEGOTIATE request; the sink hangs up instead of answering.
echo "negotiate $RXE_ADDR 7446 timeout_ms=10000" >"$C" 2>/dev/null &&
	fail "a sink answered a NEGOTIATE"
sed 's/^/# /' "$R"
wait_for 10 sh -c "grep -q '^listener sink $RXE_ADDR port=7446 accepted=2 smb2=1 ' $S" ||
	fail "the sink did not count one SMB2 message out of two"
# The first message was the run's pattern (byte i = 7 * i), not SMB2.
[ "$(listener_field "$RXE_ADDR" 7446 first)" = 00070e151c232a31383f464d545b6269 ] ||
	fail "the sink recorded the wrong first bytes"
cmd unlisten "$RXE_ADDR" 7446

cifsd_gone() {
	for _c in /proc/[0-9]*/comm; do
		[ "$(cat "$_c" 2>/dev/null)" = cifsd ] && return 1
	done
	return 0
}

# cifs_mount ADDR PORT: mount.cifs -o rdma against a sink with refuse=1 on
# ADDR PORT (already listening). SMB Direct must negotiate, the first
# message must be an SMB2 NEGOTIATE request; the sink answers it with
# STATUS_NOT_SUPPORTED, and the mount must fail, fast. An answer, not a
# hangup: with a hangup the stock cifs (6.12) can leave its receive thread
# waiting forever, holding the module (a mount that fails before that
# thread first ran loses the thread's exit signal), and it retries the
# connection while it goes, which on siw can race the listener's end
# (interop.rst, "What the stock cifs does with a sink").
cifs_mount() {
	_a=$1 _p=$2
	_t0=$(cut -d. -f1 /proc/uptime)
	out=$(timeout -s KILL 120 mount.cifs "//$_a/x" "$MNT" \
		-o rdma,username=interop,password=interop 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# mount.cifs: /'
	say "mount.cifs //$_a/x exited with $rc after $(( $(cut -d. -f1 /proc/uptime) - _t0 )) s"
	[ "$rc" -ne 0 ] || fail "the mount of //$_a/x succeeded against a sink"
	[ "$rc" -ne 137 ] || fail "mount.cifs //$_a/x hung (killed after 120 s)"
	grep -q " $MNT " /proc/mounts && fail "$MNT is mounted"
	grep "^listener sink $_a port=$_p " "$S" | sed 's/^/# /'
	accepted=$(listener_field "$_a" "$_p" accepted)
	[ "${accepted:-0}" -ge 1 ] ||
		fail "$_a: no SMB Direct connection from cifs was negotiated"
	smb2=$(listener_field "$_a" "$_p" smb2)
	[ "${smb2:-0}" -ge 1 ] || fail "$_a: no message from cifs began with an SMB2 header"
	first=$(listener_field "$_a" "$_p" first)
	# ProtocolId 0xfe 'S' 'M' 'B', StructureSize 64; Command (bytes 12-13) 0
	[ "$(echo "$first" | cut -c1-12)" = fe534d424000 ] ||
		fail "$_a: cifs's first message does not begin with an SMB2 header: $first"
	[ "$(echo "$first" | cut -c25-28)" = 0000 ] ||
		fail "$_a: cifs's first message is not an SMB2 NEGOTIATE: $first"
	wait_for 30 cifsd_gone ||
		fail "a cifsd thread is still running 30 s after the mount failed"
}

modref_trace_on cifs
load_stock cifs || fail "insmod $(stock_ko cifs)"
[ "$(smb_module cifs)" = stock ] || fail "wanted the stock cifs, $(smb_module cifs) is loaded"
mkdir -p "$MNT"
# RoCE: cifs tries 5445 first (nothing listens there on rxe), then 445.
cmd listen sink "$RXE_ADDR" 445 refuse=1
cifs_mount "$RXE_ADDR" 445
# iWARP: 5445, cifs's first choice.
cmd listen sink "$SIW_ADDR" 5445 refuse=1
cifs_mount "$SIW_ADDR" 5445
dmesg | grep -E 'CIFS' | tail -n 10 | sed 's/^/# /'

cmd unlisten all
wait_for 20 sh -c "[ ! -s $D/connections ]" || fail "connections left behind"
rmmod smbd_test || fail "rmmod smbd_test"
unload_cifs || fail "cifs could not be unloaded"
rmdir "$MNT"
echo "stock cifs: SMB Direct negotiated with our listener on rxe and siw, first message SMB2 NEGOTIATE"
