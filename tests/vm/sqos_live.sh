#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Live MS-SQOS test inside the VM: configure a policy from the shell through
# /sys/kernel/debug/sqos/policies, load sqos_api_live_kunit with that policy
# so it drives the real exported API of sqos.ko (open, control requests,
# throttled I/O, counters), then read the flow and its counters back from
# /sys/kernel/debug/sqos/flows, change the policy at run time, and check
# that removing the last open removes the flow. Exit 0 = pass.

D=/sys/kernel/debug/sqos
MOD=sqos_api_live_kunit
SUITE=/sys/kernel/debug/kunit/sqos_api_live
POLICY=7a3c9e10-4b2d-4c1e-9f00-5e5e5e5e5e01
FLOW=7a3c9e10-4b2d-4c1e-9f00-5e5e5e5e5e02

cleanup() {
	rmmod "$MOD" 2>/dev/null
	echo "del $POLICY" >"$D/policies" 2>/dev/null
}

fail() {
	echo "FAIL: $*"
	[ -r "$D/flows" ] && { echo "--- $D/flows"; cat "$D/flows"; }
	[ -r "$D/stats" ] && { echo "--- $D/stats"; cat "$D/stats"; }
	cleanup
	exit 1
}

flow_block() { # the lines of $D/flows that describe flow $1
	awk -v want="flow $1" '$0 == want { p = 1; print; next } /^flow / { p = 0 } p' "$D/flows"
}

expect_in_flow() { # expect_in_flow PATTERN: the flow's block has PATTERN
	echo "$block" | grep -q -- "$1" || fail "flow $FLOW lacks '$1'"
}

[ -d "$D" ] || modprobe sqos || fail "sqos not loaded"
[ -d "$D" ] || fail "no $D"
grep -q '^enabled=1 ' "$D/stats" || fail "sqos is not enabled"

# 1. Policy from the shell, checked by the parser
echo "set $POLICY 200 0" >"$D/policies" || fail "policy write refused"
grep -qx "$POLICY max_iops=200 min_iops=0" "$D/policies" || fail "policy not listed"
if echo "set $POLICY 10 11" >"$D/policies" 2>/dev/null; then
	fail "a minimum above the maximum was accepted"
fi
if echo "bogus" >"$D/policies" 2>/dev/null; then
	fail "a bogus command was accepted"
fi
grep -qx "$POLICY max_iops=200 min_iops=0" "$D/policies" || fail "policy changed by a refused write"

# 2. Kernel code drives the exported API with that policy
rmmod "$MOD" 2>/dev/null
modprobe "$MOD" policy="$POLICY" expect_max=200 flow="$FLOW" keep=1 || fail "modprobe $MOD"
[ -r "$SUITE/results" ] || fail "no KUnit results for sqos_api_live"
cat "$SUITE/results"
grep -q '^[[:space:]]*not ok' "$SUITE/results" && fail "sqos_api_live failed"
grep -q '^ok' "$SUITE/results" || fail "sqos_api_live did not finish"

# 3. The flow and its counters in debugfs
block=$(flow_block "$FLOW")
[ -n "$block" ] || fail "flow $FLOW not in $D/flows"
echo "$block"
expect_in_flow "policy_id=$POLICY "
expect_in_flow 'initiator_name="LIVE-VM"'
expect_in_flow " max_iops=200 "
expect_in_flow " status=0 "
expect_in_flow " opens=1 "
expect_in_flow " started=100 "
expect_in_flow " completed=100 "
expect_in_flow " inflight_units=0"
expect_in_flow "client_updates=1 "
expect_in_flow " client_io_count=100 "
expect_in_flow " client_latency=1000 "
delayed=$(echo "$block" | sed -n 's/^ *delayed=\([0-9]*\) .*/\1/p')
# 200 IOPS with a 50-unit burst: about 50 of the 100 I/Os wait (fewer when
# sleeps overshoot and the bucket refills a little meanwhile)
[ -n "$delayed" ] && [ "$delayed" -ge 10 ] || fail "only '$delayed' I/Os were held back"

# 4. A policy change reaches the live flow
echo "set $POLICY 500 0" >"$D/policies" || fail "policy update refused"
block=$(flow_block "$FLOW")
expect_in_flow " max_iops=500 "
echo "del $POLICY" >"$D/policies" || fail "policy delete refused"
block=$(flow_block "$FLOW")
expect_in_flow " status=2 "
expect_in_flow " max_iops=0 "
grep -q "^$POLICY" "$D/policies" && fail "policy still listed after del"

# 5. The last open goes with the module: so does the flow
rmmod "$MOD" || fail "rmmod $MOD"
grep -q "^flow $FLOW\$" "$D/flows" && fail "flow left after its last open"
grep -q ' flows=0 opens=0 ' "$D/stats" || fail "objects left behind"
cat "$D/stats"
echo "PASS"
exit 0
