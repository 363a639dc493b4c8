#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The smbd_test service from the shell (Documentation/api.rst): an echo
# listener on rxe, a sink listener on siw, clients that run verified echo
# rounds and sink streams of several sizes, a named connection used for
# several sends, a message one byte over the peer's limit (refused, the
# connection stays up), and clean-up: nothing of ours may stay behind.
# Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

D=$SMBD_DBG

fail() { smbd_test_fail "$*"; }

cmd() { # cmd COMMAND...: must succeed; its result is printed
	st_cmd "$@"
	sed 's/^/# /' "$ST_R"
}

result_has() {
	grep -q -- "$1" "$ST_R" || fail "result lacks '$1'"
}

modprobe smbd_test || fail "modprobe smbd_test"
[ -w "$ST_C" ] || fail "no $ST_C"

cmd listen echo "$RXE_ADDR"
result_has "port 445"
cmd listen sink "$SIW_ADDR"
result_has "port 5445"
cmd listen echo "$SIW_ADDR" 7445
grep -q "^listener echo $SIW_ADDR port=7445" "$ST_S" || fail "listener on 7445 not listed"

# Verified echo rounds over rxe, sizes from 1 byte to several fragments.
for size in 1 1340 1341 4000 65536; do
	cmd run "$RXE_ADDR" count=20 size=$size verify=1
	result_has "verified 20 echoes, 0 mismatched"
done
# The same over siw on an explicit port, with a small credit window.
cmd run "$SIW_ADDR" 7445 count=50 size=3000 verify=1 credits=4
result_has "verified 50 echoes, 0 mismatched"
result_has "iwarp=1"

# A sink stream over siw.
cmd run "$SIW_ADDR" count=30 size=100000
result_has "sent 30 messages of 100000 bytes"
wait_for 10 grep -q "listener sink .* accepted=1" "$ST_S" || fail "sink did not count"

# A named connection, several sends, one byte over MaxFragmentedSize.
cmd open c1 "$RXE_ADDR"
max=$(sed -n 's/.*max_fragmented_send_size=\([0-9]*\).*/\1/p' "$ST_R")
[ -n "$max" ] || fail "no max_fragmented_send_size in the result"
id=$(sed -n 's/^connected: conn=\([0-9]*\).*/\1/p' "$ST_R")
[ -d "$D/conn/$id" ] || fail "no debugfs directory for connection $id"
cmd send c1 count=3 size=$max verify=1
result_has "verified 3 echoes, 0 mismatched"
if echo "send c1 count=1 size=$((max + 1))" >"$ST_C" 2>/dev/null; then
	fail "a message over the peer's MaxFragmentedSize was sent"
fi
grep -q "^local_message_too_big 1$" "$D/conn/$id/counters" || fail "too-big not counted"
cmd send c1 count=5 size=10 verify=1
result_has "verified 5 echoes, 0 mismatched"
grep -q "^client c1 .* error=0$" "$ST_S" || fail "c1 not healthy"
grep -q "^keepalive NONE$" "$D/conn/$id/credits" || fail "credits file"
grep -q "^max_send_size 1364$" "$D/conn/$id/params" || fail "params file"
cmd close c1

cmd unlisten all
wait_for 10 smbd_no_conns || fail "connections left behind"
[ ! -s "$D/listeners" ] || fail "listeners left behind"
rmmod smbd_test || fail "rmmod smbd_test"
echo "smbd_test service: echo, sink, named connections and limits work"
