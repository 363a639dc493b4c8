#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Hostile SMB Direct clients against our ksmbd (shim/6.12 over
# smbdirect.ko), with an honest cifs mount doing file I/O beside them
# (issue 34, items 2 and 4). The hostile clients are smbd_test's raw
# clients (rawc, Documentation/api.rst): bare RDMA CM connections that
# negotiate SMB Direct and then misbehave.
#  - On rxe and on siw, a raw client sends an SMB2 NEGOTIATE request and
#    never grants a send credit, but keeps its connection alive with an empty
#    message every 500 ms (each restarts the server's idle timer). ksmbd's
#    response waits for a credit: smbdirect's io_timeout (IO_TIMEOUT s
#    here) must end that connection, counted as send_timeout, while the
#    honest mount's I/O goes on. Linux 6.12's own ksmbd waits for the
#    credit for good (its send has no bound), a ksmbd-io worker parked with
#    the connection's srv_mutex held, and each further request parks
#    another: a few such connections fill the workqueue and stall the
#    server.
#  - ksmbd.conf's "max connections" holds for RDMA connections as it does
#    for TCP: with the mount and MAXCONN - 1 raw clients connected, one
#    more is refused. Stock 6.12 does not apply it to RDMA.
#  - Each raw client sends the first fragment of a 1 MiB message and never
#    the rest: each of ksmbd's connections holds a few pages for it (its
#    held_bytes), not the announced 1 MiB. Everything goes when the
#    clients go.
#  - The MS-SMB2 RDMA transform's NEGOTIATE (issue 31, step E;
#    Documentation/rdma-transform.rst): smbd_test's negotiate command sends
#    a 3.1.1 NEGOTIATE with an SMB2_RDMA_TRANSFORM_CAPABILITIES context.
#    With ksmbd's rdma_transform parameter on, a valid context (ENCRYPTION
#    and SIGNING; SIGNING alone) is answered with the IDs in common, one
#    with TransformCount 0 or DataLength 2 fails the NEGOTIATE with
#    STATUS_INVALID_PARAMETER (3.3.5.4), one of undefined IDs only gets no
#    context back; with the parameter off (the default) no response has
#    the context (valid or malformed: ignored as Linux 6.12's ksmbd ignores
#    it, which knows no type 7).
#    The honest mount below (our cifs, which sends no such context) then
#    runs with the parameter on: nothing of its I/O is transformed.
# Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

D=/sys/kernel/debug/smbdirect
T=/sys/kernel/debug/smbd_test
K=/tmp/ksmbd-hostile
MNT=/tmp/ksmbd-hostile-mnt
P=/sys/module/smbdirect/parameters/io_timeout
XF=/sys/module/ksmbd/parameters/rdma_transform
USER=hostile
PASS=hostile-pass
IO_TIMEOUT=5
MAXCONN=4
# How long after the first request the stalled connection may live: the
# timeout, and the time the emulated machine needs to get there.
SLACK_MS=10000
io_timeout0=
loop=

# stop_io: end the honest client's loop after its current round (killing
# the loop would leave its dd running, and the mount busy).
stop_io() {
	[ -n "$loop" ] || return 0
	touch "$K/stop"
	wait_for 60 sh -c "! kill -0 $loop" || kill "$loop" 2>/dev/null
	wait "$loop" 2>/dev/null
	loop=
}

cleanup() {
	stop_io
	echo "rawc close all" >"$T/control" 2>/dev/null
	umount "$MNT" 2>/dev/null
	rmmod cifs 2>/dev/null
	[ -e "$XF" ] && echo 0 >"$XF"
	ksmbd_stop 2>/dev/null
	rmmod smbd_test 2>/dev/null
	[ -n "$io_timeout0" ] && echo "$io_timeout0" >"$P"
	rm -rf "$K"
	rmdir "$MNT" 2>/dev/null
}

fail() {
	echo "FAIL: $*"
	echo "--- smbd_test result and status"
	cat "$T/result" "$T/status" 2>/dev/null
	echo "--- listeners"
	cat "$D/listeners"
	echo "--- connections"
	cat "$D/connections"
	echo "--- honest I/O"
	tail -n 3 "$K/io.log" 2>/dev/null
	echo "--- kernel log (cifs, ksmbd, smbdirect)"
	dmesg | grep -E 'CIFS|cifs|ksmbd|smbdirect' | tail -n 30
	cleanup
	exit 1
}

ctl() { # ctl COMMAND...: a command to smbd_test, which must succeed
	echo "$*" >"$T/control" || fail "smbd_test: $*: $(cat "$T/result")"
}

up_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# errors CAUSE: connections that ended for CAUSE since smbdirect loaded
errors() {
	awk -v k="$1" 'e && $1 == k { print $2 } /^# errors by cause/ { e = 1 }' "$D/stats"
}

# The honest client: O_DIRECT writes and reads of 64 KiB (RDMA both
# ways), a line in io.log each, until $K/stop exists; "bad" ends it.
honest_io() {
	_i=0
	while [ ! -e "$K/stop" ]; do
		dd if="$K/src" of="$MNT/honest" bs=64k count=1 oflag=direct \
			2>/dev/null || { echo bad write >>"$K/io.log"; return; }
		dd if="$MNT/honest" of=/dev/null bs=64k count=1 iflag=direct \
			2>/dev/null || { echo bad read >>"$K/io.log"; return; }
		_i=$((_i + 1))
		echo "ok $_i" >>"$K/io.log"
	done
}

io_count() { grep -c '^ok' "$K/io.log"; }
io_bad() { grep -q '^bad' "$K/io.log"; }

# stall ADDR PORT: a raw client that never grants a credit must be ended
# within IO_TIMEOUT + slack, while the honest I/O goes on.
stall() {
	_e0=$(errors send_timeout)
	_n0=$(io_count)
	ctl rawc open stall "$1" "$2"
	ctl rawc stall stall requests=1 interval_ms=500 \
		hold_ms=$((IO_TIMEOUT * 1000 + SLACK_MS + 5000))
	_r=$(cat "$T/result")
	say "$1:$2: $_r"
	ctl rawc close stall
	case "$_r" in
	*"ended=1 "*) ;;
	*) fail "$1:$2: ksmbd kept a connection that grants no credit alive: $_r" ;;
	esac
	_ms=$(echo "$_r" | sed -n 's/.* after_ms=\([0-9]*\) .*/\1/p')
	[ "$_ms" -le $((IO_TIMEOUT * 1000 + SLACK_MS)) ] ||
		fail "$1:$2: the connection ended after $_ms ms"
	[ "$(errors send_timeout)" -gt "$_e0" ] ||
		fail "$1:$2: no send_timeout counted"
	io_bad && fail "the honest client's I/O failed"
	_n=$(( $(io_count) - _n0 ))
	say "$1:$2: the honest client did $_n rounds of I/O meanwhile"
	[ "$_n" -ge 2 ] || fail "$1:$2: the honest client's I/O stalled ($_n rounds)"
}

# xneg XFORM WANT: smbd_test's 3.1.1 NEGOTIATE with xform=XFORM to our
# ksmbd over rxe; WANT is "agreed=0xN" (the response's RDMA transform
# context agrees those IDs), "none" (a valid response without one) or
# "refused" (STATUS_INVALID_PARAMETER).
xneg() {
	# each in turn: "max connections" counts the last one until it is gone
	wait_for 10 sh -c "! grep -q ' role=passive ' $D/connections" ||
		fail "ksmbd keeps the last negotiate's connection"
	if echo "negotiate $RXE_ADDR 445 smb311=1 xform=$1 timeout_ms=10000" \
		>"$T/control" 2>/dev/null; then
		_r=ok
	else
		_r=refused
	fi
	case "$2" in
	refused)
		[ "$_r" = refused ] && grep -q 'status 0xc000000d' "$T/result" ||
			fail "xform=$1: want STATUS_INVALID_PARAMETER" ;;
	none)
		[ "$_r" = ok ] && grep -q '^rdma_transform: none' "$T/result" ||
			fail "xform=$1: want a response without the RDMA transform context" ;;
	*)
		[ "$_r" = ok ] && grep -q "^rdma_transform: .* $2\$" "$T/result" ||
			fail "xform=$1: want the RDMA transform context with $2" ;;
	esac
	say "rdma_transform=$(cat "$XF") xform=$1: $(grep -E '^rdma_transform|refused' "$T/result")"
}

# held CONN: held_bytes of smbdirect connection CONN
held() { awk '$1 == "held_bytes" { print $2 }' "$D/conn/$1/credits"; }

# passive connections of ksmbd on $RXE_ADDR:445
server_conns() {
	grep " role=passive state=ESTABLISHED .* local=$RXE_ADDR:445 " "$D/connections" |
		cut -d' ' -f1
}

for dev in "$RXE_DEV" "$SIW_DEV"; do
	[ -e "/sys/class/infiniband/$dev" ] || fail "no RDMA device $dev"
done
modprobe smbd_test || fail "modprobe smbd_test"
io_timeout0=$(cat "$P") || fail "no io_timeout parameter"
# ksmbd's listeners take the parameter when they start.
echo "$IO_TIMEOUT" >"$P"

rm -rf "$K"
mkdir -p "$K" "$MNT" || fail "mkdir"
head -c 65536 /dev/urandom >"$K/src"
out=$(ksmbd_start "$K" "$USER" "$PASS" "max connections = $MAXCONN") || fail "$out"

# The RDMA transform's NEGOTIATE, before any other connection.
xt0=$(up_ms)
[ "$(cat "$XF")" = N ] || fail "ksmbd's rdma_transform is not off by default"
for x in 1 2 3; do
	xneg "$x" none
done
echo 1 >"$XF" || fail "cannot set $XF"
xneg 1 agreed=0x3
xneg 5 agreed=0x2
xneg 2 refused
xneg 3 refused
xneg 4 none
wait_for 20 sh -c "[ ! -s $D/connections ]" || fail "negotiate connections left behind"
# Still on for the rest: our cifs sends no such context, and is served as
# today.
say "RDMA transform NEGOTIATE checks: $(( $(up_ms) - xt0 )) ms"
modprobe cifs || fail "modprobe cifs"
ok=
for i in 1 2 3 4 5 6 7 8 9 10; do
	timeout -s KILL 120 mount.cifs "//$RXE_ADDR/share" "$MNT" \
		-o "rdma,vers=3.1.1,username=$USER,password=$PASS,cache=none" \
		>"$K/mount.log" 2>&1 && { ok=1; break; }
	sleep 2
done
[ -n "$ok" ] || fail "mount: $(cat "$K/mount.log")"

: >"$K/io.log"
honest_io &
loop=$!
wait_for 30 sh -c "grep -q '^ok' $K/io.log" || fail "the honest client's I/O does not start"

stall "$RXE_ADDR" 445
stall "$SIW_ADDR" 5445

# max connections, and half-sent messages: the mount's connection and
# MAXCONN - 1 raw clients fill the limit, once the stalled connections
# are gone.
wait_for 20 sh -c "[ \$(grep -c ' role=passive ' $D/connections) -eq 1 ]" ||
	fail "ksmbd has $(grep -c ' role=passive ' "$D/connections") connections, want the mount's"
i=1
while [ $i -lt $MAXCONN ]; do
	ctl rawc open h$i "$RXE_ADDR" 445
	ctl rawc half h$i size=1048576
	i=$((i + 1))
done
wait_for 10 sh -c "[ \$(grep -c ' role=passive state=ESTABLISHED .* local=$RXE_ADDR:445 ' $D/connections) -eq $MAXCONN ]" ||
	fail "ksmbd does not have $MAXCONN connections"
for c in $(server_conns); do
	wait_for 10 sh -c "[ \$(awk '\$1 == \"held_bytes\" { print \$2 }' $D/conn/$c/credits) -lt 16384 ]" ||
		fail "connection $c holds $(held "$c") bytes (a half-sent 1 MiB message?)"
done
hb=0
for c in $(server_conns); do
	hb=$((hb + $(held "$c")))
done
say "$MAXCONN connections, $((MAXCONN - 1)) with a half-sent 1 MiB message: $hb bytes held in all"
[ "$hb" -gt 0 ] || fail "no connection holds the fragments it received"
# One more is refused: smbdirect disconnects it after the hand-over, so
# the raw client negotiates and then loses its connection (or already
# loses it while negotiating).
refused0=$(sed -n "s/.* addr=$RXE_ADDR:445 .* refused=\([0-9]*\) .*/\1/p" "$D/listeners")
if echo "rawc open over $RXE_ADDR 445" >"$T/control"; then
	wait_for 10 sh -c "grep -q '^rawc over .* gone=1' $T/status" ||
		fail "a connection over ksmbd's max connections ($MAXCONN) was accepted"
fi
refused=$(sed -n "s/.* addr=$RXE_ADDR:445 .* refused=\([0-9]*\) .*/\1/p" "$D/listeners")
[ "$refused" -gt "$refused0" ] || fail "the listener did not count the refusal"
ctl rawc close all
wait_for 20 sh -c "[ \$(grep -c ' role=passive .* local=$RXE_ADDR:445 ' $D/connections) -eq 1 ]" ||
	fail "ksmbd's connections of the raw clients stay"
io_bad && fail "the honest client's I/O failed"
n0=$(io_count)
wait_for 30 sh -c "[ \$(grep -c '^ok' $K/io.log) -gt $((n0 + 1)) ]" ||
	fail "the honest client's I/O stopped"

stop_io
umount "$MNT" || fail "umount"
xs=$(cat /sys/module/ksmbd/parameters/rdma_transform_stats)
say "ksmbd's RDMA transform: $xs"
[ "$xs" = "sealed=0 signed=0 opened=0 verified=0 rejected=0" ] ||
	fail "ksmbd transformed I/O of a mount that did not negotiate it: $xs"
cleanup
wait_for 20 sh -c "[ ! -s $D/connections ]" || fail "connections left behind"
echo "hostile clients against our ksmbd: no-credit peers ended by io_timeout (rxe, siw), max connections held, half-sent messages cost pages, the honest mount's I/O went on"
