#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Device removal during RDMA read/write, on siw and on rxe: smbd_rdma_bench
# moves 1 MiB buffers (4 transfers in flight, each registered and
# deregistered, every byte checked) between a client and a server
# connection on the device; at a random moment `rdma link delete` removes
# the device under them. The run must end (no hang) with an error and no
# corrupt byte, every connection must be freed, and the device, added
# again, must carry a checked run before the next round.
#
#   REMOVALS=N       rounds per device (default 3; make stress: 100)
#   REMOVAL_SEED=S   seed of the random delays (default 1), printed
#
# Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

N=${REMOVALS:-3}
SEED=${REMOVAL_SEED:-1}
B=/sys/kernel/debug/smbd_rdma_bench
D=/sys/kernel/debug/smbdirect
PORT=7461
RUN_TIMEOUT_S=120

fail() {
	echo "FAIL: $*"
	[ -r "$B/result" ] && { echo "--- result"; cat "$B/result"; }
	[ -r "$D/connections" ] && { echo "--- connections"; cat "$D/connections"; }
	# Leave the devices as the next tests expect them.
	for _d in "$RXE_DEV" "$SIW_DEV"; do
		[ -e "/sys/class/infiniband/$_d" ] || rdma_readd "$_d" ||
			echo "--- could not add $_d again"
	done
	exit 1
}

# The next pseudo-random number (a 31-bit LCG, reproducible from SEED).
rnd() {
	SEED=$(( (SEED * 1103515245 + 12345) % 2147483648 ))
}

# field NAME: the value of NAME= in the result line.
field() {
	tr ' ' '\n' <"$B/result" | sed -n "s|^$1=||p"
}

conns_open() {
	[ "$(grep -c . "$D/connections")" -ge 2 ]
}

# run_bg ADDR OP BUF COUNT: start a checked run in the background (PID in
# $bg).
run_bg() {
	echo "run $1 $PORT op=$2 buf=$3 size=1048576 count=$4 depth=4 reg=each verify=1" \
		>"$B/control" 2>/dev/null &
	bg=$!
}

# wait_bg: wait for the background run, at most RUN_TIMEOUT_S; its exit
# status in $bg_rc.
wait_bg() {
	_n=$((RUN_TIMEOUT_S * 5))
	while kill -0 "$bg" 2>/dev/null; do
		_n=$((_n - 1))
		[ "$_n" -gt 0 ] || fail "run did not end ${RUN_TIMEOUT_S} s after the removal"
		sleep 0.2
	done
	wait "$bg"
	bg_rc=$?
}

total_verified=0
removals() { # removals DEV ADDR
	dev=$1 addr=$2 i=0 mid=0 enodev=0 reset=0 eio=0
	while [ "$i" -lt "$N" ]; do
		i=$((i + 1))
		rnd
		if [ $((SEED % 2)) -eq 0 ]; then op=write; else op=read; fi
		rnd
		if [ $((SEED % 2)) -eq 0 ]; then buf=vmalloc; else buf=folio; fi
		rnd
		delay_ms=$((SEED % 1500))
		run_bg "$addr" $op $buf 1000000
		wait_for 30 conns_open || fail "$dev round $i: no connections"
		sleep "$((delay_ms / 1000)).$(printf %03d $((delay_ms % 1000)))"
		rdma link delete "$dev" || fail "$dev round $i: rdma link delete"
		wait_bg
		[ "$bg_rc" -ne 0 ] || fail "$dev round $i: the run survived the removal"
		grep -q "^op=" "$B/result" || fail "$dev round $i: no result line"
		rc=$(field rc)
		[ "$(field corrupt)" = 0 ] || fail "$dev round $i: corrupt bytes"
		# The connection's error: the device is gone (ENODEV = 19),
		# or, when the peer's endpoint (on the same device) was torn
		# down first, the peer disconnected (ECONNRESET = 104). siw
		# may also fail a transfer whose TCP stream broke under it
		# with GENERAL_ERR or LOC_QP_OP_ERR before any flush or CM
		# event: that is the connection's first error, EIO (5). Never
		# a corruption (EILSEQ), never a hang.
		case "$dev:$rc" in
		*:-19) enodev=$((enodev + 1)) ;;
		*:-104) reset=$((reset + 1)) ;;
		"$SIW_DEV":-5) eio=$((eio + 1)) ;;
		*) fail "$dev round $i: the run ended with $rc" ;;
		esac
		v=$(field verified)
		[ "$v" -gt 0 ] && mid=$((mid + 1))
		total_verified=$((total_verified + v))
		echo "# $dev round $i: op=$op buf=$buf removed after ${delay_ms} ms: rc=$rc transfers=$(field count) verified=$v unconfirmed=$(field unconfirmed)"
		wait_for 30 sh -c "[ ! -s $D/connections ]" ||
			fail "$dev round $i: connections left after the removal"
		rdma_readd "$dev" || fail "$dev round $i: could not be added again"
		echo "run $addr $PORT op=$op buf=$buf size=1048576 count=8 depth=4 reg=each verify=1" \
			>"$B/control" || fail "$dev round $i: no checked run after re-adding"
		[ "$(field corrupt)" = 0 ] && [ "$(field verified)" = 8388608 ] ||
			fail "$dev round $i: the run after re-adding was not checked"
	done
	# Most removals must have hit moving data, not a connection setup.
	[ "$mid" -ge $(( (N + 1) / 2 )) ] ||
		fail "$dev: only $mid of $N removals came during transfers"
	echo "$dev: $N removals during RDMA read/write ($mid with data moved before; runs ended with -ENODEV $enodev, -ECONNRESET $reset, -EIO $eio times), every run ended, nothing corrupt"
}

echo "# REMOVALS=$N REMOVAL_SEED=$SEED"
modprobe smbd_rdma_bench || fail "modprobe smbd_rdma_bench"
removals "$SIW_DEV" "$SIW_ADDR"
removals "$RXE_DEV" "$RXE_ADDR"
wait_for 10 sh -c "[ ! -s $D/connections ]" || fail "connections left behind"
grep "sends_reclaimed\|connections" "$D/stats"
rmmod smbd_rdma_bench || fail "rmmod smbd_rdma_bench"
echo "# checked before the removals: $total_verified bytes"
