#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# MS-SQOS state of a durable handle: it outlives its connection and goes
# when ksmbd's scavenger expires the handle (Documentation/sqos.rst,
# "ksmbd", drop points).
#
# Our ksmbd runs with ksmbd-tools 3.5.2 (/opt/ksmbd-tools-3.5, the first
# Debian version with the `durable handles` option) over TCP. An
# independent SMB2 client (smb2_durable.py, impacket) opens two files with
# batch oplocks, one with a durable handle v2 request of DURABLE_MS, tags
# each with its own logical flow and a policy (FSCTL_STORAGE_QOS_CONTROL:
# STATUS_SUCCESS, status Ok, MaximumIoRate 100) and then drops the
# connection without closing anything:
#  - the plain open and its flow go with the connection;
#  - the durable open and its flow stay (opens=1 flows=1), for at least
#    most of DURABLE_MS after the plain one went, then go (scavenger);
#  - ksmbd unloads, and once the policy is removed sqos.ko has no flow,
#    open, policy or reference left.
# Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

Q=/sys/kernel/debug/sqos
C=/sys/kernel/config/sqos
K=/tmp/sqos-durable
KT=/opt/ksmbd-tools-3.5
USER=sqos
PASS=sqos-pass
POLICY=5c0e9a3e-1d2b-4f6a-8c11-0a0b0c0d0e11
FLOW=5c0e9a3e-1d2b-4f6a-8c11-0a0b0c0d0e12
FLOW2=5c0e9a3e-1d2b-4f6a-8c11-0a0b0c0d0e13
DURABLE_MS=8000

cleanup() {
	touch "$K/drop" 2>/dev/null
	[ -z "$CLIENT" ] || kill "$CLIENT" 2>/dev/null
	"$KT/ksmbd.control" -s >/dev/null 2>&1
	wait_for 30 sh -c '! pidof ksmbd.mountd'
	wait_for 30 rmmod ksmbd 2>/dev/null
	rmdir "$C/policies/$POLICY" 2>/dev/null
	rm -rf "$K"
}

fail() {
	echo "FAIL: $*"
	echo "--- client"
	cat "$K/client.log" 2>/dev/null
	echo "--- sqos stats and flows"
	cat "$Q/stats" "$Q/flows" 2>/dev/null
	echo "--- kernel log (ksmbd, sqos)"
	dmesg | grep -E 'ksmbd|sqos' | tail -n 30
	cleanup
	exit 1
}

stats_are() { grep -q "^enabled=1 flows=$1 opens=$2 " "$Q/stats"; }
has_flow() { grep -q "^flow $1" "$Q/flows"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
# ksmbd's TCP listener (port 445 = 0x01BD, state 0A = LISTEN)
listening() { grep -q ':01BD [0-9A-F]*:0000 0A ' /proc/net/tcp6 /proc/net/tcp; }

CLIENT=
[ -x "$KT/ksmbd.mountd" ] || fail "no ksmbd-tools 3.5 in $KT"
command -v python3 >/dev/null || fail "no python3 in the VM"
[ -d "$Q" ] || modprobe sqos || fail "sqos not loaded"
grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
	mount -t configfs none /sys/kernel/config || fail "cannot mount configfs"
stats_are 0 0 || fail "flows or opens before the test: $(head -n 1 "$Q/stats")"
mkdir "$C/policies/$POLICY" || fail "mkdir policy"
echo 100 >"$C/policies/$POLICY/max_iops" || fail "max_iops"

rm -rf "$K"
mkdir -p "$K/share" || fail "mkdir $K"
cat >"$K/ksmbd.conf" <<EOF
[global]
	durable handles = yes
[share]
	path = $K/share
	writeable = yes
	force user = root
EOF
"$KT/ksmbd.adduser" -C "$K/ksmbd.conf" -P "$K/pwd.db" -a "$USER" -p "$PASS" \
	>/dev/null 2>&1 || fail "ksmbd.adduser (3.5)"
modprobe ksmbd || fail "modprobe ksmbd"
[ "$(smb_module ksmbd)" = ours ] || fail "ksmbd is $(smb_module ksmbd), not ours"
"$KT/ksmbd.mountd" -C "$K/ksmbd.conf" -P "$K/pwd.db" || fail "ksmbd.mountd (3.5)"
wait_for 30 listening || fail "ksmbd does not listen on TCP port 445"

python3 "$(dirname "$0")/smb2_durable.py" "$RXE_ADDR" share "$USER" "$PASS" \
	"$K/drop" "durable:$FLOW:$POLICY:$DURABLE_MS" "plain:$FLOW2:$POLICY:0" \
	>"$K/client.log" 2>&1 &
CLIENT=$!
wait_for 120 grep -q '^holding' "$K/client.log" || fail "the client did not get its opens tagged"
cat "$K/client.log"
for f in "$FLOW" "$FLOW2"; do
	grep -q "flow=$f status=0 max_rate=100 " "$K/client.log" ||
		fail "no status Ok with MaximumIoRate 100 for flow $f"
done
stats_are 2 2 || fail "want 2 flows and 2 opens: $(head -n 1 "$Q/stats")"

# The connection ends; the plain open goes with it, the durable one stays.
touch "$K/drop"
wait "$CLIENT" || fail "the client failed"
CLIENT=
wait_for 30 sh -c "! grep -q '^flow $FLOW2' $Q/flows" ||
	fail "the plain open's flow outlived its connection"
t0=$(uptime_s)
has_flow "$FLOW" || fail "the durable open's flow went with the connection"
stats_are 1 1 || fail "want the durable open and its flow: $(head -n 1 "$Q/stats")"
say "connection gone at ${t0}s: durable open and flow $FLOW kept"

# The scavenger closes the durable open DURABLE_MS after the disconnect.
wait_for $((DURABLE_MS / 1000 + 60)) stats_are 0 0 ||
	fail "the durable open's flow or open was not dropped"
t1=$(uptime_s)
kept=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
say "durable open dropped ${kept}s later (timeout $((DURABLE_MS / 1000))s)"
awk -v k="$kept" -v d="$DURABLE_MS" 'BEGIN { exit !(k * 1000 >= 0.8 * d) }' ||
	fail "the durable open went after ${kept}s, before its timeout"

"$KT/ksmbd.control" -s >/dev/null 2>&1 || fail "ksmbd.control -s"
wait_for 30 sh -c '! pidof ksmbd.mountd' || fail "ksmbd.mountd did not stop"
wait_for 30 rmmod ksmbd || fail "rmmod ksmbd"
rmdir "$C/policies/$POLICY" || fail "rmdir policy"
grep -q '^enabled=1 flows=0 opens=0 policies=0 ' "$Q/stats" ||
	fail "something left: $(head -n 1 "$Q/stats")"
[ "$(cat /sys/module/sqos/refcnt)" = 0 ] ||
	fail "sqos.ko still has $(cat /sys/module/sqos/refcnt) references"
rm -rf "$K"
echo "sqos_durable: pass"
