#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smbdctl against what smbdirect exposes: devices and netdevs (rxe and siw
# usable, their interfaces listed, others not RDMA capable), connections
# and stats (every counter of the debugfs files appears with the same
# value in --json, the human view names the connection's role, state,
# device and counts, and the RDMA transform: none for smbd_test), tracing (the smbdirect tracepoints follow one
# message of c1 from its Sends' posts on one side to its delivery on the
# other and back: same connection ids, same message number, the receive
# completions polled from the receiver's CQ by the RDMA core, the
# fragments reassembled in order), and check (a listener of smbd_test on rxe and on siw
# answers, negotiated sizes reported; a port without a listener fails at
# CONNECTING as rejected; an address no RDMA device reaches fails before
# connecting; the failures are counted in stats; a generic netlink family
# can be registered and unregistered while a check waits for its peer).
# Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

C=/sys/kernel/debug/smbd_test/control
R=/sys/kernel/debug/smbd_test/result
D=/sys/kernel/debug/smbdirect
T=/tmp/smbdctl-test

fail() {
	echo "FAIL: $*"
	for _f in "$T"/*; do
		[ -f "$_f" ] && { echo "--- $_f"; cat "$_f"; }
	done
	echo "close all" >"$C" 2>/dev/null
	echo "unlisten all" >"$C" 2>/dev/null
	rmmod smbd_test 2>/dev/null
	exit 1
}

cmd() { # cmd COMMAND...: an smbd_test command that must succeed
	echo "$*" >"$C" || fail "smbd_test: '$*' refused"
}

# same_values FILE JSON: every "key value" line of FILE is "key": value in JSON
same_values() {
	while read -r _k _v; do
		case "$_k" in "#"*) continue ;; esac
		case "$_v" in
		*[!0-9-]*) _j="\"$_v\"" ;;
		*) _j=$_v ;;
		esac
		grep -q "^ *\"$_k\": $_j,\{0,1\}\$" "$2" ||
			fail "$1: $_k $_v is not in $2"
	done <"$1"
}

rm -rf "$T"
mkdir -p "$T"
command -v smbdctl >/dev/null || fail "smbdctl is not installed"

# devices
smbdctl devices >"$T/devices" || fail "smbdctl devices"
grep -q "^$RXE_DEV: RoCE, SMB Direct port 445: usable$" "$T/devices" || fail "rxe line"
grep -q "^$SIW_DEV: iWARP, SMB Direct port 5445: usable$" "$T/devices" || fail "siw line"
grep -q "port 1: ACTIVE, netdevs $RXE_NETDEV$" "$T/devices" || fail "rxe netdevs"
grep -q "port 1: ACTIVE, netdevs $SIW_NETDEV$" "$T/devices" || fail "siw netdevs"
smbdctl --json devices >"$T/devices.json" || fail "smbdctl --json devices"
for dev in "$RXE_DEV" "$SIW_DEV"; do
	line=$(grep "^$dev " "$D/devices")
	for kv in $(echo "$line" | cut -d' ' -f2-); do
		k=${kv%%=*}
		v=${kv#*=}
		case "$k" in port[0-9]*) continue ;; esac
		echo "$k $v"
	done >"$T/$dev.attrs"
	sed -n "/\"name\": \"$dev\"/,/^    }/p" "$T/devices.json" >"$T/$dev.json"
	grep -q '"usable": true' "$T/$dev.json" || fail "$dev not usable in JSON"
	same_values "$T/$dev.attrs" "$T/$dev.json"
done
grep -q "\"$RXE_NETDEV\"" "$T/$RXE_DEV.json" || fail "rxe netdev in JSON"

# netdevs: the interfaces and the ports they reach
grep -q "^$RXE_NETDEV rdma_capable=1 device=$RXE_DEV port=1 through=$RXE_NETDEV verdict=usable$" \
	"$D/netdevs" || fail "netdevs: $RXE_NETDEV"
grep -q "^$SIW_NETDEV rdma_capable=1 device=$SIW_DEV port=1 " "$D/netdevs" ||
	fail "netdevs: $SIW_NETDEV"
grep -q "^$RXE_PEER rdma_capable=0$" "$D/netdevs" || fail "netdevs: $RXE_PEER"
grep -q "^lo rdma_capable=0$" "$D/netdevs" || fail "netdevs: lo"

# trace_follow FROM TO MSG: in $T/trace, message MSG sent on connection
# FROM is followed to its delivery on connection TO: FROM posts its
# fragments as Sends (smbdx_post_send ... msg=MSG), TO's Receives complete
# (smbdx_recv_done, after an rdma_core cq_poll of TO's CQ that returned
# them), each is placed at the next offset of TO's message MSG
# (smbdx_reasm, the last one "complete"), which is then ready
# (smbdx_msg_ready) and delivered (smbdx_msg_deliver), in this order, with
# as many fragments and bytes on both sides.
trace_follow() {
	awk -v s="$1" -v r="$2" -v m="$3" '
	function kv(k,	i) {
		for (i = 1; i <= NF; i++)
			if (index($i, k "=") == 1)
				return substr($i, length(k) + 2)
		return ""
	}
	function bad(why) { if (!err) err = why }
	{
		ev = ""
		for (i = 1; i <= NF; i++)
			if ($i ~ /^(smbdx_[a-z_]+|cq_poll):$/) {
				ev = substr($i, 1, length($i) - 1)
				break
			}
	}
	ev == "cq_poll" && $NF + 0 > 0 { poll[kv("cq.id")] = NR }
	ev == "smbdx_post_send" && kv("conn") == s && kv("msg") == m && / data / {
		if (!post) post = NR
		nsend++
		sent += kv("data_len")
	}
	ev == "smbdx_recv_done" && kv("conn") == r && kv("status") == "SUCCESS" {
		rdone[kv("cid")] = NR
		rpoll[kv("cid")] = poll[kv("cq.id")]
	}
	ev == "smbdx_reasm" && kv("conn") == r && kv("msg") == m {
		c = kv("cid")
		if (!(c in rdone)) bad("fragment of cid " c " placed without its receive completion")
		else if (rdone[c] < post) bad("receive of cid " c " completed before the first post")
		else if (!rpoll[c] || rpoll[c] < post) bad("no cq_poll of the receiver CQ before cid " c)
		if (kv("offset") != got + 0) bad("fragment at " kv("offset") ", expected " got + 0)
		got += kv("length")
		nrecv++
		total = kv("total")
		if ($NF == "complete") complete = NR
	}
	ev == "smbdx_msg_ready" && kv("conn") == r && kv("msg") == m { ready = NR; len = kv("len") }
	ev == "smbdx_msg_deliver" && kv("conn") == r && kv("msg") == m { deliver = NR }
	END {
		if (!post) bad("no Send posted for it")
		else if (!nrecv) bad("no fragment reassembled")
		else if (nrecv != nsend || got != sent || total != sent)
			bad(nsend " fragments of " sent " bytes sent, " nrecv " of " got " (total " total ") received")
		else if (!complete) bad("reassembly never complete")
		else if (!ready || ready < complete) bad("not ready after its reassembly")
		else if (len != sent) bad("ready with " len " bytes, " sent " sent")
		else if (!deliver || deliver < ready) bad("not delivered after ready")
		if (err) { print "message " m " of conn " s " to conn " r ": " err; exit 1 }
		print nsend " fragments, " sent " bytes"
	}' "$T/trace"
}

# connections: a named client of an echo listener, with some traffic,
# traced
TR=/sys/kernel/tracing
[ -d $TR/events ] || mount -t tracefs nodev $TR || fail "no tracefs"
modprobe smbd_test || fail "modprobe smbd_test"
cmd listen echo "$RXE_ADDR"
cmd listen echo "$SIW_ADDR"
ts=$(cut -d' ' -f1 /proc/uptime)
echo 0 >$TR/tracing_on
echo >$TR/trace
for e in smbdirect/smbdx_cm_event smbdirect/smbdx_post_send \
	smbdirect/smbdx_recv_done smbdirect/smbdx_reasm \
	smbdirect/smbdx_msg_ready smbdirect/smbdx_msg_deliver rdma_core/cq_poll; do
	echo 1 >$TR/events/$e/enable || fail "no trace event $e"
done
echo 1 >$TR/tracing_on
cmd open c1 "$RXE_ADDR"
id=$(sed -n 's/^connected: conn=\([0-9]*\).*/\1/p' "$R")
[ -n "$id" ] || fail "no connection number"
cmd send c1 count=7 size=3000 verify=1
echo 0 >$TR/tracing_on
for e in smbdirect rdma_core; do
	echo 0 >$TR/events/$e/enable
done
grep -v '^#' $TR/trace >"$T/trace"
echo >$TR/trace
echo 1 >$TR/tracing_on
# the two ends of c1, paired by their addresses
ends=$(sed -n "s/.* smbdx_cm_event: conn=$id ESTABLISHED status=0 src=\([^ ]*\) dst=\([^ ]*\)\$/\1 \2/p" "$T/trace")
[ -n "$ends" ] || fail "trace: no ESTABLISHED event of connection $id"
sid=$(sed -n "s/.* smbdx_cm_event: conn=\([0-9]*\) ESTABLISHED status=0 src=${ends#* } dst=${ends% *}\$/\1/p" "$T/trace")
[ -n "$sid" ] || fail "trace: no ESTABLISHED event of the server side of $ends"
f1=$(trace_follow "$id" "$sid" 1) || fail "trace: $f1"
f7=$(trace_follow "$sid" "$id" 7) || fail "trace: $f7"
say "traced: message 1 of conn $id followed to conn $sid ($f1), the echo of message 7 back ($f7): $(awk -v a="$ts" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { print b - a }') s with the connection and the send"
smbdctl connections "$id" >"$T/conn" || fail "smbdctl connections $id"
grep -q "^connection $id: active ESTABLISHED on $RXE_DEV (RoCE), $RXE_ADDR:[0-9]* -> $RXE_ADDR:445$" \
	"$T/conn" || fail "connection line"
tx=$(sed -n 's/^tx_messages //p' "$D/conn/$id/counters")
grep -q "sent: $tx messages, " "$T/conn" || fail "sent messages ($tx)"
grep -q "RDMA in use: no, only send/receive so far" "$T/conn" || fail "RDMA in use"
grep -q "errors: none" "$T/conn" || fail "errors"
grep -qx "    capabilities (CM private data): ours not sent; peer's not sent" "$T/conn" ||
	fail "capabilities (cm_caps is off)"
grep -qx "    RDMA transform: none; payloads sealed 0, signed 0, rejected 0" "$T/conn" ||
	fail "RDMA transform (smbd_test negotiates none)"
grep -q "^rdma_transform none$" "$D/conn/$id/params" || fail "debugfs rdma_transform"
smbdctl --json connections "$id" >"$T/conn.json" || fail "smbdctl --json connections"
grep -q "\"id\": $id," "$T/conn.json" || fail "JSON id"
grep -q '"rdma_in_use": false' "$T/conn.json" || fail "JSON rdma_in_use"
sed -n '/"rdma_transform": {/,/}/p' "$T/conn.json" | tr -d ' \n' >"$T/conn.xform.json"
grep -q '"rdma_transform":{"negotiated":\[\],"sealed":0,"signed":0,"rejected":0}' \
	"$T/conn.xform.json" || fail "JSON rdma_transform: $(cat "$T/conn.xform.json")"
for f in params credits mr counters; do
	sed -n "/\"$f\": {/,/}/p" "$T/conn.json" >"$T/conn.$f.json"
	same_values "$D/conn/$id/$f" "$T/conn.$f.json"
done
smbdctl connections >"$T/all" || fail "smbdctl connections"
grep -q "^connection [0-9]*: passive ESTABLISHED on $RXE_DEV" "$T/all" ||
	fail "the server side is not listed"
if smbdctl connections 999999 >/dev/null; then
	fail "a connection that does not exist was found"
fi

# check: connect and negotiate through the module's netlink family
smbdctl check "$RXE_ADDR" >"$T/check" || fail "smbdctl check $RXE_ADDR"
grep -q "^$RXE_ADDR: SMB Direct OK over $RXE_DEV (RoCE)" "$T/check" || fail "check rxe"
grep -q "negotiated: max send 1364, max receive 1364" "$T/check" || fail "check sizes"
smbdctl --json check "$SIW_ADDR" >"$T/check.json" || fail "smbdctl check $SIW_ADDR"
for kv in '"ok": true' '"device": "siw0"' '"iwarp": 1' '"port": 5445' \
	'"step": "ESTABLISHED"' '"max_send_size": 1364'; do
	grep -q "$kv" "$T/check.json" || fail "check siw: no $kv"
done
rejected=$(sed -n 's/^rejected //p' "$D/stats")
if smbdctl check "$RXE_ADDR" --port 7777 >"$T/check.refused"; then
	fail "a check of a port without a listener passed"
fi
grep -q "FAILED at CONNECTING: Connection refused" "$T/check.refused" || fail "refused: step"
grep -q "cause: rejected" "$T/check.refused" || fail "refused: cause"
[ "$(sed -n 's/^rejected //p' "$D/stats")" -eq $((rejected + 1)) ] ||
	fail "the rejected check is not counted"
if smbdctl --json check 203.0.113.9 --timeout 3 >"$T/check.unreach"; then
	fail "a check of an address no RDMA device reaches passed"
fi
grep -q '"ok": false' "$T/check.unreach" || fail "unreachable: ok"
grep -q '"step": "RESOLVE_ADDR"' "$T/check.unreach" || fail "unreachable: step"

# check waits outside genetlink's locks: while a check waits for a peer
# that accepted the connection but never negotiates (smbd_test's raw
# listener, silent), ksmbd.ko is loaded and unloaded, which registers and
# unregisters its generic netlink family; both must be done while the
# check still waits. The check fails at NEGOTIATING once the listener
# goes. Before the fix the check held genetlink's cb_lock for its whole
# wait and genl_register_family() waited for the check's timeout. The
# timeout is the longest (30 s): loading ksmbd.ko takes about 6 s on the
# debug kernel.
[ ! -d /sys/module/ksmbd ] || fail "ksmbd is loaded already"
ts=$(cut -d' ' -f1 /proc/uptime)
cmd listen raw "$RXE_ADDR" 4455
smbdctl check "$RXE_ADDR" --port 4455 --timeout 30 >"$T/check.held" 2>&1 &
held=$!
wait_for 20 grep -q " role=active state=NEGOTIATING .* peer=$RXE_ADDR:4455 " \
	"$D/connections" || fail "the check did not reach NEGOTIATING"
t0=$(cut -d' ' -f1 /proc/uptime)
modprobe ksmbd || fail "modprobe ksmbd"
rmmod ksmbd || fail "rmmod ksmbd"
t1=$(cut -d' ' -f1 /proc/uptime)
kill -0 "$held" 2>/dev/null ||
	fail "a genetlink family came and went only after the check had ended ($t0 -> $t1 s)"
say "ksmbd's genetlink family registered and unregistered in $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s during a check"
cmd unlisten "$RXE_ADDR" 4455
if wait "$held"; then
	fail "a check of a peer that never negotiates passed"
fi
grep -q "FAILED at NEGOTIATING" "$T/check.held" || fail "held check: step"
say "a check beside a genetlink (un)registration: $(awk -v a="$ts" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { print b - a }') s in all"

# stats: every counter and every non-zero error of debugfs, same values
smbdctl --json stats >"$T/stats.json" || fail "smbdctl --json stats"
sed -n '/# errors by cause/q;p' "$D/stats" >"$T/stats.counters"
sed -n '/# errors by cause/,$p' "$D/stats" | grep -v '^#' | grep -v ' 0$' >"$T/stats.errors"
sed -n '/"counters": {/,/}/p' "$T/stats.json" >"$T/stats.counters.json"
sed -n '/"errors": {/,/}/p' "$T/stats.json" >"$T/stats.errors.json"
same_values "$T/stats.counters" "$T/stats.counters.json"
same_values "$T/stats.errors" "$T/stats.errors.json"
grep -q '"rejected": ' "$T/stats.errors.json" || fail "stats: rejected not listed"
smbdctl stats | grep -q "connections ended by:.* rejected " || fail "stats human"

cmd close c1
echo "unlisten all" >"$C"
rmmod smbd_test || fail "rmmod smbd_test"
echo "# smbdctl devices, connections, stats, check: ok"
