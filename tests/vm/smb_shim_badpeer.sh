#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A bad SMB Direct server cannot wedge our cifs (shim/6.12 over
# smbdirect.ko). `mount -t cifs -o rdma` against listeners of smbd_test.ko
# (Documentation/api.rst) that
#  - accept the RDMA connection but never negotiate (listen raw, silent):
#    the mount must fail once smbdirect's active Negotiation Timer expires
#    (negotiate_timeout_active, 4 s here), and with the default of 120 s a
#    kill -9 must end the mount at once;
#  - answer the Negotiate Request with CreditsGranted 0 (listen raw
#    grant=0): the mount must fail at once;
#  - grant one send credit and nothing after (listen raw grant=1): cifs's
#    SMB2 NEGOTIATE waits for a credit that never comes, with cifs's server
#    lock held (where Linux's own cifs waits for good, in D state); ours
#    gives up after its send timeout (15 s) and the mount fails;
#  - negotiate SMB Direct but never answer the SMB2 NEGOTIATE (listen
#    sink): the mount must fail when cifs's own negotiate timer (20 s) ends
#    it, and a kill -9 must end it at once.
# on rxe and on siw. Each mount must exit non-zero within its bound, and
# afterwards nothing may be mounted, no connection left and cifs must
# unload.
# Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

D=/sys/kernel/debug/smbdirect
T=/sys/kernel/debug/smbd_test
MNT=/tmp/smb-badpeer-mnt
P=/sys/module/smbdirect/parameters/negotiate_timeout_active
NEG_TIMEOUT=4
neg_timeout0=

cleanup() {
	[ -n "$neg_timeout0" ] && echo "$neg_timeout0" >"$P"
	umount "$MNT" 2>/dev/null
	echo "unlisten all" >"$T/control" 2>/dev/null
	rmmod smbd_test 2>/dev/null
	wait_for 30 rmmod cifs 2>/dev/null
	rmdir "$MNT" 2>/dev/null
}

fail() {
	echo "FAIL: $*"
	echo "--- smbd_test status"
	cat "$T/status"
	echo "--- connections"
	cat "$D/connections"
	echo "--- kernel log (cifs, smbdirect)"
	dmesg | grep -E 'CIFS|cifs|smbdirect' | tail -n 30
	cleanup
	exit 1
}

up_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

ctl() { # ctl COMMAND...: a command to smbd_test, which must succeed
	echo "$*" >"$T/control" || fail "smbd_test: $*: $(cat "$T/result")"
}

# errors CAUSE: the connections that failed for CAUSE since smbdirect loaded
errors() {
	awk -v k="$1" 'e && $1 == k { print $2 } /^# errors by cause/ { e = 1 }' "$D/stats"
}

# mount_fails ADDR MIN_S MAX_S: mount //ADDR/x over RDMA; it must fail,
# after at least MIN_S and at most MAX_S seconds.
mount_fails() {
	_t0=$(up_ms)
	timeout -s KILL $(($3 + 30)) mount.cifs "//$1/x" "$MNT" \
		-o rdma,vers=3.1.1,username=bad,password=peer >/tmp/smb-badpeer.log 2>&1
	_rc=$?
	_ms=$(($(up_ms) - _t0))
	say "mount //$1 failed with status $_rc after $_ms ms"
	[ "$_rc" -ne 0 ] || fail "the mount of //$1 succeeded"
	[ "$_rc" -ne 137 ] || fail "the mount of //$1 hung until killed ($_ms ms)"
	[ "$_ms" -le $(($3 * 1000)) ] || fail "the mount of //$1 took $_ms ms, more than $3 s"
	[ "$_ms" -ge $(($2 * 1000)) ] ||
		fail "the mount of //$1 failed after $_ms ms, before $2 s: not for the reason tested"
	grep -q " $MNT " /proc/mounts && fail "$MNT is mounted"
}

# mount_killed ADDR WHERE: start a mount of //ADDR/x, check that after 2 s
# it still runs with WHERE (a function name) in its kernel stack, kill -9
# it: it must be gone within 5 s.
mount_killed() {
	mount.cifs "//$1/x" "$MNT" -o rdma,vers=3.1.1,username=bad,password=peer \
		>/tmp/smb-badpeer.log 2>&1 &
	_pid=$!
	sleep 2
	kill -0 "$_pid" 2>/dev/null || fail "the mount of //$1 ended by itself within 2 s"
	grep -q "$2" "/proc/$_pid/stack" ||
		fail "the mount of //$1 is not in $2: $(cat "/proc/$_pid/stack")"
	say "mount //$1 waits in: $(awk '{ print $2 }' "/proc/$_pid/stack" | head -n 3 | tr '\n' ' ')"
	_t0=$(up_ms)
	kill -9 "$_pid"
	wait_for 5 sh -c "! kill -0 $_pid" || fail "kill -9 of the mount of //$1: still there after 5 s"
	wait "$_pid"
	_rc=$?
	say "mount //$1 killed: status $_rc after $(($(up_ms) - _t0)) ms"
	[ "$_rc" -eq 137 ] || fail "the killed mount of //$1 exited with $_rc"
	grep -q " $MNT " /proc/mounts && fail "$MNT is mounted"
}

# no_conns: every connection the mounts made is gone
no_conns() {
	wait_for 30 sh -c "[ ! -s $D/connections ]" ||
		fail "connections left behind: $(cat "$D/connections")"
}

# raw_status ADDR PORT FIELD: a field of the raw listener on ADDR PORT
raw_status() {
	sed -n "s/^listener raw $1 port=$2 .*$3=\([0-9a-z]*\).*/\1/p" "$T/status"
}

# device ADDR DEV PORT: the raw listeners' cases on one device, PORT being
# the one cifs reaches there (it tries 5445, then 445).
device() {
	_a=$1 _d=$2 _p=$3
	say "---- $_d ($_a port $_p)"

	# Silent: the Negotiation Timer ends the connection, and the mount.
	ctl listen raw "$_a" "$_p"
	_e=$(errors negotiation_timeout)
	echo "$NEG_TIMEOUT" >"$P"
	mount_fails "$_a" $((NEG_TIMEOUT - 1)) $((NEG_TIMEOUT + 20))
	[ "$(raw_status "$_a" "$_p" received)" -ge 1 ] ||
		fail "$_d: the silent listener got no Negotiate Request"
	[ "$(errors negotiation_timeout)" -gt "$_e" ] ||
		fail "$_d: no connection failed by its Negotiation Timer"
	# The default timer (120 s): kill -9 ends the wait.
	echo "$neg_timeout0" >"$P"
	mount_killed "$_a" smbd_get_connection
	ctl unlisten all
	no_conns

	# CreditsGranted 0: refused at once.
	ctl listen raw "$_a" "$_p" grant=0
	_e=$(errors neg_resp_credits_granted)
	mount_fails "$_a" 0 10
	[ "$(raw_status "$_a" "$_p" answered)" -ge 1 ] ||
		fail "$_d: the listener sent no Negotiate Response"
	[ "$(errors neg_resp_credits_granted)" -gt "$_e" ] ||
		fail "$_d: no connection refused for CreditsGranted 0"
	ctl unlisten all
	no_conns
}

[ -e "/sys/class/infiniband/$RXE_DEV" ] || fail "no RDMA device $RXE_DEV"
[ -e "/sys/class/infiniband/$SIW_DEV" ] || fail "no RDMA device $SIW_DEV"
mkdir -p "$MNT"
modprobe smbd_test || fail "modprobe smbd_test"
modprobe cifs || fail "modprobe cifs"
[ "$(smb_module cifs)" = ours ] || fail "modprobe cifs loaded $(smb_module cifs), not ours"
neg_timeout0=$(cat "$P")
[ -n "$(errors negotiation_timeout)" ] || fail "no errors by cause in $D/stats"

device "$RXE_ADDR" "$RXE_DEV" 445
device "$SIW_ADDR" "$SIW_DEV" 5445

# One credit, then none: the SMB2 NEGOTIATE cannot be sent; cifs's send
# gives up after 15 s (our shim; on TCP the socket's send timeout).
ctl listen raw "$RXE_ADDR" 445 grant=1
mount_fails "$RXE_ADDR" 10 40
dmesg | grep -q 'SMB Direct send stuck' || fail "cifs did not log the stuck send"
ctl unlisten all
no_conns

# SMB Direct works, SMB2 gets no answer: cifs's negotiate timer (20 s).
ctl listen sink "$RXE_ADDR" 445
mount_fails "$RXE_ADDR" 15 60
ctl unlisten all
no_conns
ctl listen sink "$SIW_ADDR" 5445
mount_killed "$SIW_ADDR" cifs_negotiate_protocol
ctl unlisten all
no_conns

unload_cifs || fail "rmmod cifs (still in use after 30 s)"
rmmod smbd_test || fail "rmmod smbd_test"
rmdir "$MNT"
echo "bad peers: silent, CreditsGranted 0, one credit only, no SMB2 answer: every mount failed in time or was killed, nothing left behind"
