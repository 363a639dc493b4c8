#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# MS-SQOS end to end: our cifs mounts our ksmbd's share over SMB Direct
# (rxe, then siw), a policy of 100 normalised IOPS is set through configfs,
# and sqos-ctl (tools/sqos-ctl) tags its own handle with a logical flow.
#
#  1. Answers as seen by the tool over the mount: flow + policy + GET_STATUS
#     is STATUS_SUCCESS with status Ok and MaximumIoRate 100; an unknown
#     PolicyID gives status UnknownPolicyId; ProtocolVersion 0x0200 gives
#     STATUS_REVISION_MISMATCH; an InitiatorNameOffset inside the fixed
#     part (with SET_POLICY, which checks the names) gives
#     STATUS_INVALID_PARAMETER; SET_POLICY on an open with no
#     flow gives STATUS_NOT_FOUND; with configfs enabled=0 ksmbd answers
#     STATUS_NOT_SUPPORTED, as without sqos.ko. On rxe the ioctl on a
#     listed directory fails with EISDIR, and a file tagged with the same
#     flow afterwards reports its counters (dir_refused).
#  2. Rates, SQOS_SECS (20) seconds each, O_DIRECT reads at depth 8 on the
#     tagged handle: 8 KiB reads run at 100 IOPS +-15% while an untagged
#     handle of the same mount (fio's), at the same time, runs at least 5
#     times faster; 64 KiB reads count 8 units each (12.5 IOPS +-15%); the
#     limit holds with only the server throttling (cifs.sqos_throttle=N, the
#     server's flow must show delayed I/O) and with only the client
#     throttling (configfs enforce=0, the server delays nothing); the
#     client reports its counters (UPDATE_COUNTERS) while it runs; on rxe
#     two handles tagged with one flow share its rate, and 8 KiB O_DIRECT
#     writes are held to it too. On the
#     debug kernel, too slow for 100 IOPS, the policy is 2 IOPS for the
#     8 KiB runs and 10 for the 64 KiB one, and the lower bound is -40%
#     (see RATE and LOW_PCT below).
#  3. Lifetime: on rxe, a tagged load's flow goes with its connection when
#     one failed Send (smbdirect's post_send fault point) ends the
#     connection while the load is stopped, and comes back with its policy
#     when the load goes on and cifs reopens the handle (the server delays
#     the load again); with every handle closed the server has no flow and
#     no open; after the unmount cifs and ksmbd unload and leave no
#     reference on sqos.ko; the policy directory goes with rmdir.
#  4. Stock cifs (Linux's own, no CIFS_IOC_SQOS_CONTROL) against our ksmbd:
#     the tool falls back to the FSCTL pass-through and gets the same
#     answers (NTSTATUS as cifs maps it to an errno).
#  5. Without sqos.ko our ksmbd answers STATUS_NOT_SUPPORTED and serves data.
#  6. A throttled flow costs no one else a worker (rxe, once): a hostile
#     user (smb2_sqos_hog.py, impacket over TCP, sealed) tags its open with
#     a flow of its own at Limit = 1 and sends SQOS_HOG_READS (1024) 1-byte
#     READs without waiting for answers, enough to fill ksmbd-io's
#     max_active (256 per CPU, 2 CPUs) if each delayed READ held a worker,
#     as it did until issue 34 (the N-th READ slept about N seconds in its
#     worker). An untagged fio load on the mount must keep at least half
#     of its IOPS without them, measured just before and just after
#     (SQOS_HOG_SECS, 4 s, each; the lower of the two, since other VMs on
#     the host move the rate by up to a factor of two within a minute).
#     Before the fix it fell to 0; with it, 65% to 100% was seen (80%, the
#     bound until 2026-11-27, failed once with the host busy: 1198 beside
#     the READs, 1837 before, 1890 after); the
#     server holds 1 to max_held_flow of the READs back and answers the
#     rest at once; when the connection ends, its held READs (max_delay_ms
#     is 30 s here) go at once: the flow is gone within 5 s. Then a second
#     such client (100 READs, no measurement) sends a LOGOFF, which ksmbd
#     answers only once the connection's other requests are done: every
#     request must be answered within 5 s (without the release at logoff
#     they wait until ksmbd drops the connection after its 7 s TCP
#     receive time-out, over SMB Direct up to max_delay_ms). On the debug
#     kernel: 300 READs, 6 s runs, 50%, delays of up to 5 min (see HOG_*).
#     Stock 6.12 ksmbd has no Storage QoS, so not this lever.
#     SQOS_HOG_ONLY=1 runs only this part; make stress runs it longer with
#     more READs (SQOS_HOG_READS, SQOS_HOG_SECS, SQOS_HOG_DELAY_MS and
#     SQOS_HOG_HELD, sqos.ko's max_held_flow for the part).
# Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

D=/sys/kernel/debug/smbdirect
Q=/sys/kernel/debug/sqos
C=/sys/kernel/config/sqos
K=/tmp/sqos-smb
MNT=/tmp/sqos-smb-mnt
LOG=/tmp/sqos-smb.log
USER=sqos
PASS=sqos-pass
POLICY=5c0e9a3e-1d2b-4f6a-8c11-0a0b0c0d0e01
UNKNOWN=5c0e9a3e-1d2b-4f6a-8c11-0a0b0c0d0eff
FLOW=5c0e9a3e-1d2b-4f6a-8c11-0a0b0c0d0e02
FLOW2=5c0e9a3e-1d2b-4f6a-8c11-0a0b0c0d0e03
FLOW3=5c0e9a3e-1d2b-4f6a-8c11-0a0b0c0d0e04
# Length of each load (at least 10: the client's first counter report
# comes after TimeToLive, 4 s)
SECS=${SQOS_SECS:-20}
# The policy's rate for the 8 KiB and for the 64 KiB runs. The debug
# kernel (KASAN, lockdep, kmemleak) under TCG moves only 20 to 50 8 KiB
# reads a second in all, depending on what else the host runs, so there the
# 8 KiB runs use 2 IOPS
# and the 64 KiB run 10 (1.25 I/Os a second, 25 in 20 s, so one I/O more or
# less stays within the tolerance).
# The bands are +-15% of the rate; on the debug kernel the lower bound is
# -40% (LOW_PCT): when other VMs share the host its emulated CPUs miss
# slots for seconds, and a run there made 1.6 of 2. The upper bound, the
# limit itself, is the same everywhere.
RATE=100
RATE64=100
LOW_PCT=85
# rate_run's second sample of the server's counters (and the shared loads'
# one, 4 s earlier), in seconds before the end of the load: on the debug
# kernel the shell's own steps around it take seconds when the host is
# busy, and a sample taken after the load's handle closed finds no flow.
SAMPLE_END=4
# Part 6: READs the hostile client keeps in flight, seconds per fio run,
# sqos.ko's max_delay_ms meanwhile, the share of the untagged rate to keep,
# seconds a flow may outlive its connection. The debug kernel (and Python
# on it) is far too slow for 1024 READs, and its untagged rate (about 15
# IOPS) too low to measure in seconds: there the READs are 300 (enough for
# the per-flow bound, too few to fill ksmbd-io before the fix, which the
# plain kernel shows), held for up to 5 min, no rate is measured (the part
# is there for KASAN and lockdep on the park, resume and release paths),
# and the teardown of the held READs may take 15 s.
HOG_READS=1024 HOG_SECS=4 HOG_DELAY_MS=30000 HOG_PCT=50 HOG_GONE_S=5
case "$(uname -r)" in
*-dbg)
	RATE=2 RATE64=10 LOW_PCT=60 SAMPLE_END=9
	HOG_READS=300 HOG_SECS=0 HOG_DELAY_MS=300000 HOG_GONE_S=15
	;;
esac
HOG_READS=${SQOS_HOG_READS:-$HOG_READS}
HOG_SECS=${SQOS_HOG_SECS:-$HOG_SECS}
HOG_DELAY_MS=${SQOS_HOG_DELAY_MS:-$HOG_DELAY_MS}
HOG_HELD=${SQOS_HOG_HELD:-}
CTL=$(command -v sqos-ctl)
THROTTLE=/sys/module/cifs/parameters/sqos_throttle
FI=$D/fault/post_send

cleanup() {
	[ -e "$FI/probability" ] && echo 0 >"$FI/probability"
	umount "$MNT" 2>/dev/null
	ksmbd.control -s >/dev/null 2>&1
	wait_for 30 sh -c '! pidof ksmbd.mountd'
	# cifs holds itself until the unmounted session's thread has ended
	[ ! -d /sys/module/cifs ] || wait_for 30 rmmod cifs 2>/dev/null
	wait_for 30 rmmod ksmbd 2>/dev/null
	rmdir "$C/policies/$POLICY" 2>/dev/null
	# configfs is gone once sqos.ko is unloaded: the redirection itself fails
	{ echo 1 >"$C/enforce"; } 2>/dev/null
	{ echo 1 >"$C/enabled"; } 2>/dev/null
	{ echo 10000 >"$C/max_delay_ms"; } 2>/dev/null
	{ echo 256 >"$C/max_held_flow"; } 2>/dev/null
	[ ! -e "$THROTTLE" ] || echo Y >"$THROTTLE"
	rm -rf "$K"
}

fail() {
	echo "FAIL: $*"
	echo "--- last tool output"
	cat "$LOG" 2>/dev/null
	echo "--- sqos stats and flows"
	cat "$Q/stats" "$Q/flows" 2>/dev/null
	echo "--- kernel log (cifs, ksmbd, sqos)"
	dmesg | grep -E 'CIFS|cifs|ksmbd|sqos' | tail -n 30
	cleanup
	exit 1
}

[ -n "$CTL" ] || fail "no sqos-ctl in PATH"
[ -d "$Q" ] || modprobe sqos || fail "sqos not loaded"
grep -q ' /sys/kernel/config configfs ' /proc/mounts ||
	mount -t configfs none /sys/kernel/config || fail "cannot mount configfs"
[ -d "$C/policies" ] || fail "no $C/policies"

# ctl EXPECTED_RC ARGS...: run the tool, keep its output in $LOG
ctl() {
	_want=$1
	shift
	"$CTL" "$@" >"$LOG" 2>&1
	_rc=$?
	cat "$LOG"
	[ "$_rc" -eq "$_want" ] || fail "sqos-ctl $* exited $_rc, want $_want"
}

has() { grep -q -- "$1" "$LOG" || fail "no '$1' in the output of sqos-ctl"; }

# in_range VALUE LOW HIGH (decimals allowed)
in_range() {
	awk -v v="$1" -v l="$2" -v h="$3" 'BEGIN { exit !(v >= l && v <= h) }'
}

# band RATE [UNITS]: the I/O rate RATE normalized IOPS allow for I/Os of
# UNITS units each (default 1), LOW_PCT% to 115%: "LOW HIGH"
band() {
	awk -v r="$1" -v u="${2:-1}" -v l="$LOW_PCT" \
		'BEGIN { printf "%.2f %.2f", l / 100 * r / u, 1.15 * r / u }'
}

set_rate() { echo "$1" >"$C/policies/$POLICY/max_iops" || fail "max_iops $1"; }

iops_of() { sed -n 's/^load: .* iops=\([0-9.]*\) .*/\1/p' "$1"; }

# fio_read_iops FILE: READ's IOPS from fio's terse v3 line (field 8), if
# the job ended without an error (field 5)
fio_read_iops() {
	awk -F';' '$1 == 3 && $5 == 0 { print $8 }' "$1"
}

# snap_flows: one copy of the server's flows, which flow_field reads
snap_flows() { cat "$Q/flows" >/tmp/sqos-flows; }

# flow_field NAME: a counter of $FLOW in the last snap_flows
flow_field() {
	awk -v f="flow $FLOW" -v k="$1" '
		$0 == f { on = 1; next }
		/^flow / { on = 0 }
		on { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) {
			print substr($i, length(k) + 2); exit } }' /tmp/sqos-flows
}

start_ksmbd() {
	rm -rf "$K"
	mkdir -p "$K/share" "$MNT" || fail "mkdir $K"
	ksmbd.addshare -c "$K/ksmbd.conf" -a share -o "path = $K/share
writeable = yes
force user = root" >/dev/null || fail "ksmbd.addshare"
	ksmbd.adduser -c "$K/ksmbd.conf" -i "$K/pwd.db" -a "$USER" -p "$PASS" \
		>/dev/null 2>&1 || fail "ksmbd.adduser"
	modprobe ksmbd || fail "modprobe ksmbd"
	[ "$(smb_module ksmbd)" = ours ] || fail "ksmbd is $(smb_module ksmbd), not ours"
	ksmbd.mountd -c "$K/ksmbd.conf" -u "$K/pwd.db" || fail "ksmbd.mountd"
	wait_for 30 grep -q "addr=$RXE_ADDR:445 dev=$RXE_DEV " "$D/listeners" ||
		fail "ksmbd does not listen on rxe"
	wait_for 30 grep -q "addr=$SIW_ADDR:5445 dev=$SIW_DEV " "$D/listeners" ||
		fail "ksmbd does not listen on siw"
	# ksmbd's TCP listener (port 445 = 0x01BD, state 0A = LISTEN), for
	# part 6
	wait_for 30 grep -q ':01BD [0-9A-F]*:0000 0A ' /proc/net/tcp6 /proc/net/tcp ||
		fail "ksmbd does not listen on TCP port 445"
	# 64 MiB files for the loads, written on the server's side
	dd if=/dev/zero of="$K/share/tagged" bs=1M count=64 2>/dev/null || fail "dd"
	dd if=/dev/zero of="$K/share/free" bs=1M count=64 2>/dev/null || fail "dd"
	dd if=/dev/zero of="$K/share/hog" bs=1M count=1 2>/dev/null || fail "dd"
	: >"$K/share/ctl" || fail "touch"
	mkdir -p "$K/share/dir" && : >"$K/share/dir/entry" || fail "mkdir dir"
}

do_mount() { # do_mount ADDR
	for _i in 1 2 3 4 5 6 7 8 9 10; do
		timeout -s KILL 180 mount.cifs "//$1/share" "$MNT" \
			-o "rdma,vers=3.1.1,username=$USER,password=$PASS,cache=none" \
			>"$LOG" 2>&1 && return 0
		sleep 2
	done
	fail "mount //$1/share over RDMA"
}

# dir_refused: CIFS_IOC_SQOS_CONTROL on a directory is refused (EISDIR),
# even when a listing gave its open an SMB2 handle. cifs_closedir() frees
# a directory's handle without the final put that takes a file's handle
# out of its flow (cifs_sqos_close()), so a tagged directory left its
# freed handle at the head of the flow: a file tagged with the same flow
# afterwards made the flow's status work send on the freed handle
# (KASAN: slab-use-after-free in cifs_sqos_status_work), and the flow and
# its reference on sqos.ko leaked. Stock 6.12 has no such ioctl. The
# file's load runs until the server has the client's first
# UPDATE_COUNTERS: the status work has run.
dir_refused() {
	"$CTL" "$MNT/dir" flow "$FLOW3" >/tmp/sqos-dir.log 2>&1
	_drc=$?
	"$CTL" -q "$MNT/tagged" flow "$FLOW3" load read 30 8192 1 \
		>/tmp/sqos-dir-file.log 2>&1 &
	_l=$!
	_upd=1
	wait_for 30 sh -c "grep -A5 '^flow $FLOW3' $Q/flows |
		grep -q ' client_updates=[1-9]'" && _upd=0
	kill "$_l" 2>/dev/null
	wait "$_l"
	cat /tmp/sqos-dir.log /tmp/sqos-dir-file.log
	[ "$_drc" -eq 2 ] && grep -q "CIFS_IOC_SQOS_CONTROL: Is a directory" /tmp/sqos-dir.log ||
		fail "the directory was not refused with EISDIR (sqos-ctl exited $_drc)"
	[ "$_upd" -eq 0 ] || fail "no UPDATE_COUNTERS of flow $FLOW3 from the tagged file"
	say "a directory is refused (EISDIR); a file of the same flow reports its counters"
}

# The answers of part 1; $1 = "" (our cifs: the handle) or -p
answers() {
	_p=$1
	ctl 0 $_p "$MNT/ctl" flow "$FLOW" + policy "$POLICY" + status
	has "ntstatus: 0x00000000 STATUS_SUCCESS"
	has "status=0 (Ok) max_rate=$RATE min_rate=0 base_io_size=8192"
	has "flow=$FLOW policy=$POLICY"
	ctl 0 $_p "$MNT/ctl" flow "$FLOW2" + policy "$UNKNOWN" + status
	has "status=2 (UnknownPolicyId) max_rate=0"
	ctl 1 $_p "$MNT/ctl" version 0x0200 flow "$FLOW" + status
	has "STATUS_REVISION_MISMATCH"
	ctl 1 $_p "$MNT/ctl" name-offset 8 name initiator flow "$FLOW" + policy "$POLICY"
	has "STATUS_INVALID_PARAMETER"
	ctl 1 $_p "$MNT/ctl" policy "$POLICY"
	has "STATUS_NOT_FOUND"
}

# rate_run BS LOW HIGH SERVER [write]: a tagged load of SECS seconds in the
# background; its IOPS must be in LOW..HIGH, and the server's count of
# delayed I/Os (sampled near the start and the end, while the flow exists)
# must grow (SERVER=delays) or not (SERVER=idle).
rate_run() {
	# The flow of an earlier run goes with its handle's close, which the
	# server may still be processing.
	wait_for 15 sh -c "! grep -q '^flow $FLOW' $Q/flows" ||
		fail "flow $FLOW is still there from an earlier run"
	"$CTL" "$MNT/tagged" flow "$FLOW" + policy "$POLICY" + status \
		load "${5:-read}" "$SECS" "$1" 8 status >"$LOG" 2>&1 &
	_t=$!
	# The load starts once its requests are answered (seconds on the debug
	# kernel): sample 1 s after the flow appears and SAMPLE_END s before the
	# end.
	wait_for 60 grep -q "^flow $FLOW" "$Q/flows" ||
		fail "flow $FLOW did not appear on the server"
	sleep 1
	snap_flows
	_d0=$(flow_field delayed)
	sleep $((SECS - SAMPLE_END - 1))
	snap_flows
	_d1=$(flow_field delayed)
	_u1=$(flow_field client_updates)
	_n1=$(flow_field client_normalized_io_count)
	wait "$_t" || fail "tagged load failed"
	cat "$LOG"
	has "status=0 (Ok) max_rate=$(cat "$C/policies/$POLICY/max_iops")"
	has "handle: tracked=1"
	[ -n "$_d0" ] && [ -n "$_d1" ] ||
		fail "no flow $FLOW on the server during the load (delayed: \"$_d0\" then \"$_d1\")"
	# The client's status timer (TimeToLive 4 s) reported its counters.
	[ "$_u1" -ge 1 ] && [ "$_n1" -gt 0 ] ||
		fail "no UPDATE_COUNTERS from the client during the load ($_u1 updates, $_n1 units)"
	case "$4" in
	delays) [ "$_d1" -gt "$_d0" ] || fail "the server delayed nothing ($_d0 -> $_d1)" ;;
	idle) [ "$_d1" -eq "$_d0" ] || fail "the server delayed I/O with enforce=0 ($_d0 -> $_d1)" ;;
	esac
	_r=$(iops_of "$LOG")
	say "tagged ${1}-byte ${5:-read}s ($4 on the server): $_r IOPS (want $2..$3)"
	in_range "$_r" "$2" "$3" || fail "tagged ${1}-byte ${5:-read}s at $_r IOPS, not $2..$3"
}

# stopped PID: every thread of PID is stopped (none is in a system call)
stopped() {
	for _t in /proc/"$1"/task/*/stat; do
		[ "$(cut -d' ' -f3 "$_t")" = T ] || return 1
	done
}

# lose_connection: a tagged load runs on rxe and is stopped; one failed
# Send ends our server's connection; the flow must go without a CLOSE, and
# come back when the load goes on and cifs reopens the handle.
lose_connection() {
	[ -e "$FI/probability" ] || fail "no fault point $FI (CONFIG_FAULT_INJECTION_DEBUG_FS)"
	wait_for 15 sh -c "! grep -q '^flow $FLOW' $Q/flows" ||
		fail "flow $FLOW is still there from an earlier run"
	"$CTL" "$MNT/tagged" flow "$FLOW" + policy "$POLICY" + status \
		load read 120 8192 8 >/tmp/sqos-lost.log 2>&1 &
	_l=$!
	wait_for 60 grep -q "^flow $FLOW" "$Q/flows" ||
		fail "flow $FLOW did not appear on the server"
	_c=$(grep " role=passive state=ESTABLISHED dev=$RXE_DEV " "$D/connections" |
		cut -d' ' -f1)
	[ -n "$_c" ] || fail "our ksmbd has no connection on $RXE_DEV"
	# The load stops while the connection goes (its handle stays open):
	# otherwise its next I/O reopens the handle at once and the flow is
	# back before it can be seen gone. Any Send fails the connection: a
	# listing of the share makes one.
	kill -STOP "$_l"
	# Stopped means every thread is back from its read: none in flight,
	# none held back by the client (seconds on the debug kernel).
	wait_for 60 stopped "$_l" || fail "the load did not stop"
	fault_once "$FI"
	ls "$MNT" >/dev/null 2>&1
	wait_for 60 sh -c "! grep -q '^$_c role=passive state=ESTABLISHED ' $D/connections" ||
		fail "connection $_c survived its failed Send"
	fault_off "$FI"
	wait_for 30 sh -c "! grep -q '^flow $FLOW' $Q/flows" ||
		fail "flow $FLOW outlived connection $_c"
	say "connection $_c lost with a tagged handle open: flow $FLOW gone"
	# The load goes on: cifs reopens its handle, and our cifs associates
	# the new open with the flow again, with the flow's policy
	# (cifs_sqos_reopened()), so the server holds it to the rate again.
	kill -CONT "$_l"
	wait_for 60 sh -c "grep -A1 '^flow $FLOW' $Q/flows | grep -q ' policy_id=$POLICY ' &&
		grep -A4 '^flow $FLOW' $Q/flows | grep -q ' opens=1 '" || {
		cat /tmp/sqos-lost.log
		fail "the reopened handle did not join flow $FLOW with its policy again"
	}
	echo N >"$THROTTLE" || fail "cannot turn cifs.sqos_throttle off"
	snap_flows
	_d0=$(flow_field delayed)
	sleep 4
	snap_flows
	_d1=$(flow_field delayed)
	echo Y >"$THROTTLE"
	[ -n "$_d0" ] && [ -n "$_d1" ] && [ "$_d1" -gt "$_d0" ] ||
		fail "the server delayed nothing of the reopened handle ($_d0 -> $_d1)"
	say "the reopened handle is in flow $FLOW again: the server delayed $((_d1 - _d0)) I/Os in 4 s"
	kill "$_l" 2>/dev/null
	wait "$_l" || :
}

# untagged_iops LOG [stall]: untagged 8 KiB O_DIRECT reads at depth 8
# (fio) on the mount for HOG_SECS; their IOPS in $_v. With "stall", a load
# that fails counts as 0 IOPS: a server with no worker left answers nothing
# until cifs gives up on it (180 s) and reconnects.
untagged_iops() {
	if fio --name=untagged --filename="$MNT/free" --rw=randread --bs=8k \
		--iodepth=8 --ioengine=libaio --direct=1 --time_based \
		--runtime="$HOG_SECS" --output-format=terse --terse-version=3 \
		>"$1" 2>&1; then
		_v=$(fio_read_iops "$1")
		[ -n "$_v" ] || { cat "$1"; fail "no IOPS in fio's output"; }
		return
	fi
	[ "$2" = stall ] || { cat "$1"; fail "untagged fio load failed"; }
	say "the untagged fio load failed: $(grep -m1 'error=' "$1")"
	dmesg | grep 'CIFS: VFS:.*not responded' | tail -n 1
	_v=0
}

# hog_taken_in: the server has admitted all the hostile READs
hog_taken_in() {
	grep -A6 "^flow $FLOW" "$Q/flows" | grep -q " started=$HOG_READS " &&
		grep -A6 "^flow $FLOW2" "$Q/flows" | grep -q " started=100 "
}

# hog: part 6 (see the top of this file), on the mount of $RXE_ADDR
hog() {
	_hog0=$(cut -d' ' -f1 /proc/uptime)
	for _f in "$FLOW" "$FLOW2"; do
		wait_for 15 sh -c "! grep -q '^flow $_f' $Q/flows" ||
			fail "flow $_f is still there from an earlier run"
	done
	# (Without these bounds, before issue 34, the checks below fail.)
	if [ -e "$C/max_delay_ms" ]; then
		echo "$HOG_DELAY_MS" >"$C/max_delay_ms" || fail "max_delay_ms"
	fi
	if [ -n "$HOG_HELD" ] && [ -e "$C/max_held_flow" ]; then
		echo "$HOG_HELD" >"$C/max_held_flow" || fail "max_held_flow"
	fi
	if [ "$HOG_SECS" -gt 0 ]; then
		untagged_iops /tmp/sqos-hog0.log
		_i0=$_v
		say "untagged 8192-byte reads alone: $_i0 IOPS"
	fi
	rm -f "$K/hog-stop"
	python3 "$(dirname "$0")/smb2_sqos_hog.py" "$RXE_ADDR" share "$USER" \
		"$PASS" hog "$FLOW" "$HOG_READS" "$FLOW2" 100 "$K/hog-stop" \
		>/tmp/sqos-hog.log 2>&1 &
	_h=$!
	wait_for 180 grep -q '^sent ' /tmp/sqos-hog.log || {
		cat /tmp/sqos-hog.log
		fail "the hostile client did not send its READs"
	}
	# The server takes them in (seconds under TCG; before issue 34 it
	# never took them all); the READs it holds back wait up to
	# max_delay_ms (HOG_DELAY_MS here), longer than what follows.
	wait_for 120 hog_taken_in || :
	snap_flows
	say "the server took in $(flow_field started) of the READs"
	_held=$(flow_field held)
	_unheld=$(flow_field unheld)
	if [ "$HOG_SECS" -gt 0 ]; then
		untagged_iops /tmp/sqos-hog1.log stall
		_i1=$_v
	fi
	snap_flows
	_still=$(flow_field held)
	touch "$K/hog-stop"
	wait "$_h" || { cat /tmp/sqos-hog.log; fail "the hostile client failed"; }
	# Its held READs go with its connection (checked below)
	_t0=$(cut -d' ' -f1 /proc/uptime)
	_gone=0
	wait_for "$HOG_GONE_S" sh -c "! grep -q '^flow $FLOW' $Q/flows" || _gone=1
	_t1=$(cut -d' ' -f1 /proc/uptime)
	grep -v '^answered' /tmp/sqos-hog.log
	if [ "$HOG_SECS" -gt 0 ]; then
		untagged_iops /tmp/sqos-hog2.log
		_i2=$_v
		_want=$(awk -v a="$_i0" -v b="$_i2" -v p="$HOG_PCT" \
			'BEGIN { printf "%.1f", p / 100 * (a < b ? a : b) }')
		say "untagged 8192-byte reads: $_i0 IOPS before, $_i1 beside $HOG_READS READs of a flow at 1 IOPS (want $_want or more), $_i2 after"
		in_range "$_i1" "$_want" 1e9 ||
			fail "a flow at Limit = 1 with $HOG_READS READs in flight slowed an untagged client to $_i1 IOPS"
	fi
	_max=$(cat "$C/max_held_flow")
	say "the server held $_held READs of the flow back (at most $_max) and $_unheld went at once"
	[ -n "$_held" ] && [ "$_held" -ge 1 ] && [ "$_held" -le "$_max" ] ||
		fail "$_held READs of the flow held back, want 1..$_max"
	[ "$HOG_READS" -le "$_max" ] || [ "$_unheld" -ge 1 ] ||
		fail "no READ beyond max_held_flow went at once"
	# The connection is gone: its held READs went at once (not at their
	# time, up to max_delay_ms away), the flow and the count of held I/Os
	# with them.
	[ -n "$_still" ] && [ "$_still" -ge 1 ] ||
		fail "no READ held back when the hostile client left ($_still)"
	[ "$_gone" = 0 ] ||
		fail "the hostile flow outlived its connection by $HOG_GONE_S s ($_still READs were held back)"
	say "$_still held READs went with the connection: the flow was gone $(awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.1f", b - a }') s after the client"
	# The LOGOFF of the second connection was answered, after all its
	# READs, within 5 s (the client measures it)
	_l=$(sed -n 's/^logoff answered=\([0-9]*\) of \([0-9]*\) in \([0-9.]*\) s.*/\1 \2 \3/p' \
		/tmp/sqos-hog.log)
	set -- $_l
	[ $# = 3 ] && [ "$1" = "$2" ] && in_range "$3" 0 5 ||
		fail "a LOGOFF waited out the READs held back (answered, of requests, seconds: $_l)"
	wait_for "$HOG_GONE_S" sh -c "! grep -q '^flow $FLOW2' $Q/flows" ||
		fail "the second hostile flow outlived its session by $HOG_GONE_S s"
	grep -q ' held=0$' "$Q/stats" ||
		fail "held I/Os left: $(head -n 1 "$Q/stats")"
	say "a LOGOFF with READs held back: answered, of requests, seconds: $_l"
	echo 10000 >"$C/max_delay_ms"
	[ -z "$HOG_HELD" ] || echo 256 >"$C/max_held_flow"
	say "part 6 took $(awk -v a="$_hog0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.0f", b - a }') s"
}

device() { # device ADDR DEV
	say "$2: our cifs, our ksmbd"
	do_mount "$1"
	grep -q "role=active state=ESTABLISHED dev=$2 " /proc/fs/cifs/DebugData ||
		fail "the mount is not on $2"
	answers ""
	[ "$2" != "$RXE_DEV" ] || dir_refused
	# Storage QoS disabled: ksmbd answers as the kernel's own does.
	echo 0 >"$C/enabled" || fail "cannot disable Storage QoS"
	ctl 1 "$MNT/ctl" flow "$FLOW" + status
	has "STATUS_NOT_SUPPORTED"
	echo 1 >"$C/enabled" || fail "cannot enable Storage QoS"
	# A PROBE_POLICY on an associated handle leaves it in its flow.
	ctl 0 "$MNT/ctl" flow "$FLOW" + probe "$POLICY" + status
	has "handle: tracked=1 throttled=1"

	# 2. Tagged and untagged side by side: the untagged load is fio, on a
	# handle of its own (an independent measure of what the mount gives a
	# handle in no flow).
	fio --name=untagged --filename="$MNT/free" --rw=randread --bs=8k \
		--iodepth=8 --ioengine=libaio --direct=1 --time_based \
		--runtime="$SECS" --output-format=terse --terse-version=3 \
		>/tmp/sqos-free.log 2>&1 &
	_free=$!
	rate_run 8192 $(band "$RATE") any
	wait "$_free" || { cat /tmp/sqos-free.log; fail "untagged fio load failed"; }
	_f=$(fio_read_iops /tmp/sqos-free.log)
	[ -n "$_f" ] || { cat /tmp/sqos-free.log; fail "no IOPS in fio's output"; }
	say "untagged 8192-byte reads at the same time (fio): $_f IOPS"
	# The untagged handle is in no flow, and nothing holds it to the
	# flow's rate: held to it on its own it would stay within the band,
	# sharing the flow's rate with the tagged handle far below it. A bound
	# that depends on the host's speed (it was "5 times the tagged rate")
	# failed with both handles right when the host was busy: four runs of
	# four with the host's two cores also compiling, the untagged load at
	# 108 to 177 IOPS under TCG; most likely CI's failure of 2026-11-27 too
	# (on siw, some 20 s into that device's part).
	_o=$(flow_field opens)
	[ "$_o" = 1 ] ||
		fail "flow $FLOW had opens=$_o while the untagged load ran (want 1, the tagged handle)"
	_hi=$(band "$RATE" | cut -d' ' -f2)
	awk -v v="$_f" -v h="$_hi" 'BEGIN { exit !(v > h) }' ||
		fail "the untagged handle ($_f IOPS) was held to the flow's rate (at most $_hi)"

	# Two handles in one flow share its rate (rxe only, to save time). The
	# rate is the server's count of I/Os started in the flow over a window
	# when both run: each tool's own figure includes a tail in which its
	# queued I/Os drain at the shared rate.
	if [ "$2" = "$RXE_DEV" ]; then
		wait_for 15 sh -c "! grep -q '^flow $FLOW' $Q/flows" ||
			fail "flow $FLOW is still there from an earlier run"
		"$CTL" -q "$MNT/tagged" flow "$FLOW" + policy "$POLICY" + status \
			load read "$SECS" 8192 8 >/tmp/sqos-one.log 2>&1 &
		_a=$!
		"$CTL" -q "$MNT/free" flow "$FLOW" + policy "$POLICY" + status \
			load read "$SECS" 8192 8 >/tmp/sqos-two.log 2>&1 &
		_b=$!
		wait_for 60 sh -c "grep -A4 '^flow $FLOW' $Q/flows | grep -q ' opens=2 '" ||
			fail "the two handles did not join flow $FLOW"
		sleep 1
		snap_flows
		_s0=$(flow_field started)
		_t0=$(cut -d' ' -f1 /proc/uptime)
		sleep $((SECS - SAMPLE_END - 4))
		snap_flows
		_s1=$(flow_field started)
		_t1=$(cut -d' ' -f1 /proc/uptime)
		wait "$_a" || { cat /tmp/sqos-one.log; fail "first shared-flow load"; }
		wait "$_b" || { cat /tmp/sqos-two.log; fail "second shared-flow load"; }
		cat /tmp/sqos-one.log /tmp/sqos-two.log
		[ -n "$_s0" ] && [ -n "$_s1" ] || fail "no flow $FLOW during the shared loads"
		_r=$(awk -v a="$_s0" -v b="$_s1" -v t="$_t0" -v u="$_t1" \
			'BEGIN { printf "%.1f", (b - a) / (u - t) }')
		say "two handles in one flow: $_r IOPS together on the server (want $(band "$RATE" | sed 's| |..|'))"
		in_range "$_r" $(band "$RATE") || fail "two handles of one flow at $_r IOPS together"
	fi

	# WRITEs are held to the rate as READs are (rxe only, to save time)
	[ "$2" != "$RXE_DEV" ] || rate_run 8192 $(band "$RATE") any write

	# 64 KiB I/Os are 8 units each
	set_rate "$RATE64"
	rate_run 65536 $(band "$RATE64" 8) any
	set_rate "$RATE"

	# Only the server throttles
	echo N >"$THROTTLE" || fail "cannot turn cifs.sqos_throttle off"
	rate_run 8192 $(band "$RATE") delays
	echo Y >"$THROTTLE"

	# Only the client throttles
	echo 0 >"$C/enforce" || fail "cannot turn enforce off"
	rate_run 8192 $(band "$RATE") idle
	echo 1 >"$C/enforce"

	# Connection loss (rxe only, to save time): the flow of a handle in use
	# goes with its connection. The next Send fails (smbdirect's post_send
	# fault point), which ends the connection; ksmbd closes the session's
	# opens (durable handles are off) and cifs reconnects.
	[ "$2" != "$RXE_DEV" ] || lose_connection

	# 6. A flow at Limit = 1 with many READs in flight (rxe only)
	[ "$2" != "$RXE_DEV" ] || hog

	# 3. Every handle closed: no flow, no open on the server
	wait_for 10 grep -q '^enabled=1 flows=0 opens=0 ' "$Q/stats" ||
		fail "flows or opens left with every handle closed"
	umount "$MNT" || fail "umount"
}

start_ksmbd
mkdir "$C/policies/$POLICY" || fail "mkdir policy"
set_rate "$RATE"
modprobe cifs || fail "modprobe cifs"
[ "$(smb_module cifs)" = ours ] || fail "cifs is $(smb_module cifs), not ours"
[ -e "$THROTTLE" ] || fail "our cifs has no sqos_throttle parameter"

if [ -n "$SQOS_HOG_ONLY" ]; then
	# make stress: part 6 alone
	do_mount "$RXE_ADDR"
	hog
	umount "$MNT" || fail "umount"
	cleanup
	echo "sqos_smb: pass (part 6 only)"
	exit 0
fi

device "$RXE_ADDR" "$RXE_DEV"
device "$SIW_ADDR" "$SIW_DEV"

# 3. cifs gone: no reference of it on sqos.ko
unload_cifs || fail "rmmod cifs (in use after 30 s)"

# 4. Stock cifs through the pass-through, against our ksmbd
load_stock cifs || fail "loading the stock cifs"
[ "$(smb_module cifs)" = stock ] || fail "cifs is $(smb_module cifs), not stock"
say "rxe: stock cifs, our ksmbd"
do_mount "$RXE_ADDR"
ctl 0 "$MNT/ctl" flow "$FLOW" + policy "$POLICY" + status
has "via=passthrough"
answers -p
# Our server hangs up first: the stock cifs must not end the connection
# itself (server_hangs_up_first, lib.sh).
stock_cifs_connected || fail "rdma res shows no connected cm_id of the stock cifs"
server_hangs_up_first || fail "our ksmbd did not hang up on the stock cifs"
umount "$MNT" || fail "umount (stock cifs)"
unload_cifs || fail "rmmod stock cifs (in use after 30 s)"
wait_for 10 grep -q '^enabled=1 flows=0 opens=0 ' "$Q/stats" ||
	fail "flows or opens left after the stock cifs"
wait_for 30 rmmod ksmbd || fail "rmmod ksmbd"
rmdir "$C/policies/$POLICY" || fail "rmdir policy"
grep -q '^enabled=1 flows=0 opens=0 policies=0 ' "$Q/stats" ||
	fail "something left: $(head -n 1 "$Q/stats")"
[ "$(cat /sys/module/sqos/refcnt)" = 0 ] ||
	fail "sqos.ko still has $(cat /sys/module/sqos/refcnt) references"

# 5. Without sqos.ko our ksmbd answers as the kernel's own and still serves
# data. The pass-through keeps our cifs from loading sqos.ko on demand.
rmmod sqos || fail "rmmod sqos"
modprobe ksmbd || fail "modprobe ksmbd (again)"
ksmbd.mountd -c "$K/ksmbd.conf" -u "$K/pwd.db" || fail "ksmbd.mountd (again)"
wait_for 30 grep -q "addr=$RXE_ADDR:445 dev=$RXE_DEV " "$D/listeners" ||
	fail "ksmbd does not listen on rxe (again)"
modprobe cifs || fail "modprobe cifs (again)"
say "rxe: our cifs, our ksmbd, no sqos.ko"
do_mount "$RXE_ADDR"
ctl 1 -p "$MNT/ctl" flow "$FLOW" + status
has "STATUS_NOT_SUPPORTED"
dd if="$MNT/tagged" of=/dev/null bs=1M count=8 iflag=direct 2>/dev/null ||
	fail "O_DIRECT read without sqos.ko"
[ ! -d /sys/module/sqos ] || fail "sqos.ko was loaded by someone"
umount "$MNT" || fail "umount (no sqos.ko)"
cleanup
modprobe sqos || fail "modprobe sqos (to leave it as found)"
echo "sqos_smb: pass"
