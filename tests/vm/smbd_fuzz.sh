#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The fuzzer (tests/modules/smbd_fuzz.c): a raw verbs peer sends seeded,
# mutated Negotiate and Data Transfer messages to smbdirect at both roles
# (smbdirect listening, and smbdirect connecting) on rxe and on siw, and
# checks that each connection ends as [MS-SMBD] and smbdirect's model say:
# fatal messages end it with the predicted cause, accepted ones are
# delivered intact, the raw peer sees every end within 15 s (the fuzzer's
# FZ_END_MS; a REP left retransmitting once held it for about 70 s),
# nothing hangs, every connection is freed.
#   FUZZ_MSGS   messages per device and role (default 400: make check)
#   FUZZ_SEED   seed of the first run (default 1; the next three runs take
#               the next three); a failure prints the command replaying the
#               failing connection alone
#   FUZZ_DENSE  1: all four runs in the fuzzer's dense mode (every data
#               message mutated, a fatal draw redrawn unless it is the
#               connection's last); 0: the four runs as drawn only;
#               default: the four as drawn, then two dense runs (rxe
#               passive, siw active) of the same size
#   FUZZ_MIN_MUTATED  fail unless the runs mutated at least this many
#               messages in all (default 0)
# The debug kernel's KASAN, lockdep, UBSAN and kmemleak checks run after
# the tests (scripts/guest/guest-check.sh). Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

FUZZ_MSGS=${FUZZ_MSGS:-400}
FUZZ_SEED=${FUZZ_SEED:-1}
FUZZ_DENSE=${FUZZ_DENSE:-}
FUZZ_MIN_MUTATED=${FUZZ_MIN_MUTATED:-0}
C=/sys/kernel/debug/smbd_fuzz/control
R=/sys/kernel/debug/smbd_fuzz/result
S=/sys/kernel/debug/smbdirect/stats

fail() {
	echo "FAIL: $*"
	[ -r "$R" ] && cat "$R"
	rmmod smbd_fuzz 2>/dev/null
	exit 1
}

field() { # field NAME: NAME=VALUE of the result's summary line
	tr ' ' '\n' <"$R" | sed -n "s|^$1=||p" | head -n 1
}

causes() { # the error counters by cause, "NAME COUNT" lines
	sed -n '/^# errors by cause/,$p' "$S" | grep -v '^#'
}

freed() {
	grep -q "^connections_allocated 0$" "$S"
}

# fuzz ADDR PORT ROLE SEED [dense=1]
fuzz() {
	t0=$(cut -d. -f1 /proc/uptime)
	causes >/tmp/fuzz.before
	echo "run $1 $2 role=$3 msgs=$FUZZ_MSGS seed=$4 $5" >"$C" ||
		fail "$1 role=$3 seed=$4 $5"
	grep -q "result=pass" "$R" || fail "$1 role=$3 seed=$4"
	# Each connection ended by the cause the fuzzer predicted: the change
	# of every counter is the fuzzer's count for it (0 if it has none).
	causes >/tmp/fuzz.after
	# An RDMA connection that did not come up (setup_failures, retried) may
	# have been counted as rejected, cm_error, negotiation_timeout or
	# peer_disconnect, at most once each.
	bad=$(awk -v setup="$(field setup_failures)" '
		FILENAME == ARGV[1] { if ($1 == "cause") want[$2] = $3; next }
		FILENAME == ARGV[2] { before[$1] = $2; next }
		{
			d = $2 - before[$1]; w = want[$1] + 0
			if (d > w && $1 ~ /^(rejected|cm_error|negotiation_timeout|peer_disconnect)$/)
				extra += d - w
			else if (d != w)
				print $1 ": " d " counted, " w " expected"
		}
		END { if (extra > setup) print extra " setup causes for " setup " setup failures" }' \
		"$R" /tmp/fuzz.before /tmp/fuzz.after)
	[ -z "$bad" ] || fail "$1 role=$3 seed=$4: causes differ from the prediction: $bad"
	[ "$(field messages)" -ge "$FUZZ_MSGS" ] || fail "$1 role=$3: too few messages"
	# The run must have exercised both outcomes.
	[ "$(field fatal)" -gt 0 ] && [ "$(field accepted)" -gt 0 ] ||
		fail "$1 role=$3: no fatal or no accepted message"
	[ -z "$5" ] || [ "$(field dense)" = 1 ] || fail "$1 role=$3: not a dense run"
	say "$1 role=$3 seed=$4${5:+ $5}: $(field messages) messages ($(field negotiate) negotiate, $(field data) data), $(field mutated) mutated, $(field connections) connections, $(field fatal) fatal, $(field delivered) delivered, $(field setup_failures) set-up failures retried, slowest end $(field end_max_ms) ms, in $(( $(cut -d. -f1 /proc/uptime) - t0 )) s"
	say "causes: $(grep '^cause ' "$R" | cut -d' ' -f2- | tr '\n' ',' | sed 's/,$//')"
	total=$((total + $(field messages)))
	mutated=$((mutated + $(field mutated)))
	conns=$((conns + $(field connections)))
}

counter() { # counter NAME: smbdirect's global counter NAME
	sed -n "s/^$1 //p" "$S" | head -n 1
}

# The IB CM's complaint that destroying a cm_id waits for a reference
# still held (10 s per line): a REP left retransmitting by a disconnect
# sent before the CM had finished establishing the connection.
cm_waits() {
	dmesg | grep -c cm_destroy_id_wait_timeout
}

total=0
mutated=0
conns=0
modprobe smbd_fuzz || fail "modprobe smbd_fuzz"
waits0=$(cm_waits)
est0=$(counter cm_established_by_data)
estto0=$(counter cm_established_wait_timeouts)
t_start=$(cut -d. -f1 /proc/uptime)
dense=
[ "$FUZZ_DENSE" = 1 ] && dense=dense=1
fuzz "$RXE_ADDR" 7471 passive "$FUZZ_SEED" $dense
fuzz "$RXE_ADDR" 7472 active "$((FUZZ_SEED + 1))" $dense
fuzz "$SIW_ADDR" 7473 passive "$((FUZZ_SEED + 2))" $dense
fuzz "$SIW_ADDR" 7474 active "$((FUZZ_SEED + 3))" $dense
if [ -z "$FUZZ_DENSE" ]; then
	fuzz "$RXE_ADDR" 7475 passive "$((FUZZ_SEED + 4))" dense=1
	fuzz "$SIW_ADDR" 7476 active "$((FUZZ_SEED + 5))" dense=1
fi
# Connections are released in the background; rxe's IB CM can hold one
# for a minute.
wait_for 150 freed || fail "connections not freed: $(grep connections "$S")"
# Releasing a case (our smbdx_destroy(), the raw peer's cm_id) must not
# wait on the CM either: the 73 s seed 5 once took was a cm_id held that long.
reap=$(cat /sys/kernel/debug/smbd_fuzz/reap_max_ms)
rmmod smbd_fuzz || fail "rmmod smbd_fuzz"
# Disconnects of ours before the peer's RTU was processed: the CM was told
# first, and each waited for the CM's ESTABLISHED (connection.c).
say "rdma_notify(COMM_EST) $(( $(counter cm_established_by_data) - est0 )) times, $(( $(counter cm_established_wait_timeouts) - estto0 )) waits for ESTABLISHED timed out"
[ "$(counter cm_established_wait_timeouts)" = "$estto0" ] ||
	fail "a disconnect did not see the CM's ESTABLISHED after rdma_notify()"
say "the slowest release of a connection took $reap ms"
[ "$reap" -le 15000 ] || fail "releasing a connection took $reap ms (at most 15000)"
[ "$(cm_waits)" = "$waits0" ] ||
	fail "the IB CM held a destroyed cm_id: $(dmesg | grep cm_destroy_id_wait_timeout | tail -n 3)"
echo "fuzzed $total messages ($mutated mutated) on $conns connections (rxe, siw; passive, active) in $(( $(cut -d. -f1 /proc/uptime) - t_start )) s, seed $FUZZ_SEED${dense:+, dense}"
[ "$mutated" -ge "$FUZZ_MIN_MUTATED" ] ||
	fail "only $mutated messages mutated, want at least $FUZZ_MIN_MUTATED"
