#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The in-VM part of the benchmark (scripts/bench.sh on the host runs it with
# scripts/vm.sh --exec): raw verbs (perftest) and smbdirect (through the
# smbd_test service) side by side on rxe and on siw, in one boot. Not a
# test: it measures, it does not judge.
#
# Settings, set by the host's wrapper before it sources this file:
#   BENCH_REPS      rounds; every measurement is taken once per round, raw
#                   and smbdirect back to back (default 3)
#   BENCH_SECTIONS  what to measure (default "transport"):
#                   transport  1 KiB round trip and message rate, 64 KiB and
#                              1 MiB throughput (issue 3)
#                   extra      smbdirect variants that locate its costs
#                              (callback-mode round trip, 8 KiB sends)
#                   trace      a round trip split into its steps, from
#                              smbdirect's tracepoints
#                   rdma       RDMA Write and Read throughput, 64 KiB to
#                              8 MiB, perftest's ib_write_bw/ib_read_bw
#                              against smbd_rdma_bench.ko (issue 4)
#   BENCH_SCALE     multiplies every iteration count (default 1)
#   BENCH_DIV       divides every iteration count (default 1; a quick
#                   smoke run uses 10), never below perftest's minimum of 5
#   BENCH_RDMA_DEPTH  smbdirect transfers in flight in the rdma section
#                   (default 8)
#
# Output: what perftest and smbd_test print, "#" comments, the change of
# smbdirect's global counters over each smbdirect measurement, and one line
# per measured value for the host to reduce:
#   sample ROUND DEVICE KEY VALUE
# KEY is raw.<metric> (perftest, polling), rawev.<metric> (perftest with
# completion events, -e) or smbd.<metric> (the rdma section's keys are
# described at bench_rdma); times are round trips in
# microseconds (perftest prints half a round trip for Send latency; it is
# doubled here), rates are messages/s, throughput MiB/s (2^20 bytes, as
# perftest's "MB/sec").
#
# The script runs alone in the VM; it uses /tmp for perftest's logs.
. /smbd/guest-lib.sh

BENCH_REPS=${BENCH_REPS:-3}
BENCH_SECTIONS=${BENCH_SECTIONS:-transport}
BENCH_SCALE=${BENCH_SCALE:-1}
BENCH_DIV=${BENCH_DIV:-1}
BENCH_RDMA_DEPTH=${BENCH_RDMA_DEPTH:-8}
CTL=/sys/kernel/debug/smbd_test/control
RES=/sys/kernel/debug/smbd_test/result
STATS=/sys/kernel/debug/smbdirect/stats
PT_TIMEOUT=120
PT_PORT=18515
SINK_PORT=5000
round=0
failures=0

n() {
	_n=$(( $1 * BENCH_SCALE / BENCH_DIV ))
	[ "$_n" -ge 5 ] || _n=5
	echo "$_n"
}

sample() { # sample DEV KEY VALUE
	echo "sample $round $1 $2 $3"
}

# Where the guest's CPU time went between cpu_mark and cpu_show: both vCPUs
# together, then each vCPU's busy share (idle is real: an idle vCPU halts).
cpu_mark() { grep '^cpu' /proc/stat >/tmp/cpu.0; }
cpu_show() {
	grep '^cpu' /proc/stat | cat /tmp/cpu.0 - | awk '
	!($1 in a) { for (i = 2; i <= 9; i++) a[$1, i] = $i; a[$1] = 1; next }
	{
		t = 0
		for (i = 2; i <= 9; i++) { d[i] = $i - a[$1, i]; t += d[i] }
		if (t <= 0)
			next
		if ($1 == "cpu")
			s = sprintf("user %d%% system %d%% irq+softirq %d%% idle %d%%;",
				    100 * (d[2] + d[3]) / t, 100 * d[4] / t,
				    100 * (d[7] + d[8]) / t, 100 * (d[5] + d[6]) / t)
		else
			s = s sprintf(" %s busy %d%%", $1, 100 - 100 * (d[5] + d[6]) / t)
	}
	END { if (s != "") print "# cpu: " s }'
}

# ---- raw verbs: perftest ----

# perftest PROG DEV ADDR ARGS...: start PROG's server in the background,
# run its client against ADDR and leave the client's output in /tmp/pt.log.
# The server's output is buffered, so nothing tells when it listens: a
# client that fails within seconds while the server waits is tried again.
# PT_TIMEOUT bounds the client.
perftest() {
	_prog=$1 _dev=$2 _addr=$3
	shift 3
	PT_PORT=$((PT_PORT + 1))
	rm -f /tmp/pt-srv.log /tmp/pt.log
	"$_prog" -d "$_dev" -R -F -p "$PT_PORT" "$@" >/tmp/pt-srv.log 2>&1 &
	_srv=$!
	_try=0
	while :; do
		sleep 1
		_try=$((_try + 1))
		_t=$(date +%s)
		cpu_mark
		timeout "$PT_TIMEOUT" "$_prog" -d "$_dev" -R -F -p "$PT_PORT" \
			"$@" "$_addr" >/tmp/pt.log 2>&1
		_rc=$?
		cpu_show >/tmp/cpu.txt
		[ "$_rc" -ne 0 ] || break
		[ $(( $(date +%s) - _t )) -lt 5 ] || break
		[ "$_try" -lt 10 ] || break
		kill -0 "$_srv" 2>/dev/null || break
	done
	wait_for 10 sh -c "! kill -0 $_srv" || kill "$_srv" 2>/dev/null
	wait "$_srv"
	echo "\$ $_prog -d $_dev -R -F $* $_addr"
	grep -A1 '#bytes' /tmp/pt.log
	cat /tmp/cpu.txt
	if [ "$_rc" -ne 0 ]; then
		say "$_prog failed ($_rc after $_try attempt(s)):"
		sed 's/^/#   /' /tmp/pt.log /tmp/pt-srv.log | grep -v '^#   *$' | tail -n 20
		return 1
	fi
	[ "$_try" -eq 1 ] || say "$_prog: the client needed $_try attempts"
}

# The line of results after perftest's "#bytes" header.
pt_line() {
	awk -v s="$1" '$1 == s && NF >= 5 { print; exit }' /tmp/pt.log
}

# raw_lat DEV ADDR SIZE COUNT PREFIX [ARGS...]: ib_send_lat; samples
# PREFIX.lat_{median,avg,p99}_us (round trips).
raw_lat() {
	_dev=$1 _addr=$2 _size=$3 _count=$4 _key=$5
	shift 5
	perftest ib_send_lat "$_dev" "$_addr" -s "$_size" -n "$_count" "$@" ||
		return 1
	# bytes iters t_min t_max t_typical t_avg t_stdev p99 p99.9 (one way)
	# shellcheck disable=SC2046 # split into fields on purpose
	set -- $(pt_line "$_size")
	[ $# -ge 9 ] || { say "no ib_send_lat result"; return 1; }
	sample "$_dev" "$_key.lat_median_us" "$(echo "$5" | awk '{ print $1 * 2 }')"
	sample "$_dev" "$_key.lat_avg_us" "$(echo "$6" | awk '{ print $1 * 2 }')"
	sample "$_dev" "$_key.lat_p99_us" "$(echo "$8" | awk '{ print $1 * 2 }')"
}

# raw_bw DEV ADDR SIZE COUNT KEY [ARGS...]: ib_send_bw; samples
# KEY_mibps and KEY_msgs.
raw_bw() {
	_dev=$1 _addr=$2 _size=$3 _count=$4 _key=$5
	shift 5
	perftest ib_send_bw "$_dev" "$_addr" -s "$_size" -n "$_count" "$@" ||
		return 1
	# bytes iters bw_peak bw_avg msg_rate(Mpps)
	# shellcheck disable=SC2046 # split into fields on purpose
	set -- $(pt_line "$_size")
	[ $# -ge 5 ] || { say "no ib_send_bw result"; return 1; }
	sample "$_dev" "${_key}_mibps" "$4"
	sample "$_dev" "${_key}_msgs" "$(echo "$5" | awk '{ printf "%d", $1 * 1000000 }')"
}

# The same with completion events (-e) instead of polling: the way a kernel
# consumer waits. perftest hangs now and then in this mode (ib_send_bw -e on
# siw, about one run in four; ib_send_lat -e on rxe with its default TX
# depth of 1, "rxe_cq_post: queue full", hence -t 16): a run gets 30 s and
# one more try, and a failure only loses the sample.
raw_ev() { # raw_ev lat|bw ARGS...
	_what=$1
	shift
	_pt=$PT_TIMEOUT
	PT_TIMEOUT=30
	for _ev in 1 2; do
		if [ "$_what" = lat ]; then
			raw_lat "$@" -e -t 16
		else
			raw_bw "$@" -e
		fi && break
		if [ "$_ev" -eq 1 ]; then
			say "event-mode perftest failed; trying once more"
		else
			say "event-mode perftest failed twice; no sample"
		fi
	done
	PT_TIMEOUT=$_pt
}

# ---- smbdirect: smbd_test ----

# smbd COMMAND...: one smbd_test command; its result without the
# connection lines (shown once per device by bench_device).
smbd() {
	echo "\$ $*"
	cpu_mark
	if ! echo "$*" >"$CTL"; then
		sed 's/^/# /' "$RES"
		return 1
	fi
	grep -v '^connected:\|^negotiated:' "$RES"
	case "$1" in ping|stream) cpu_show ;; esac
}

# field NAME: the value of NAME=... in smbd_test's result.
field() {
	sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p" "$RES" | head -n 1
}

# The smbdirect counters (both ends: client and listener are local) that
# changed since stats_mark.
stats_mark() { cat "$STATS" >/tmp/stats.0; }
stats_show() {
	cat "$STATS" >/tmp/stats.1
	awk 'NR == FNR { a[$1] = $2; next }
	     /^#/ { exit }
	     ($1 in a) && $2 != a[$1] && $1 != "connections" && $1 != "listeners" {
		s = s sprintf(" %s=+%d", $1, $2 - a[$1]) }
	     END { print "# counters:" s }' /tmp/stats.0 /tmp/stats.1
}

# smbd_lat DEV ADDR PORT SIZE COUNT KEY [OPTIONS...]: round trips against
# the echo listener on PORT (0: the device's default port).
smbd_lat() {
	_dev=$1 _addr=$2 _port=$3 _size=$4 _count=$5 _key=$6
	shift 6
	stats_mark
	smbd ping "$_addr" "$_port" count="$_count" size="$_size" warmup=50 \
		"$@" || return 1
	stats_show
	sample "$_dev" "${_key}_median_us" "$(field median_us)"
	sample "$_dev" "${_key}_avg_us" "$(field avg_us)"
	sample "$_dev" "${_key}_p99_us" "$(field p99_us)"
}

# smbd_bw DEV ADDR PORT SIZE COUNT KEY [OPTIONS...]: messages streamed to
# the sink listener on PORT.
smbd_bw() {
	_dev=$1 _addr=$2 _port=$3 _size=$4 _count=$5 _key=$6
	shift 6
	stats_mark
	smbd stream "$_addr" "$_port" count="$_count" size="$_size" \
		warmup=$(( _count / 50 + 1 )) "$@" || return 1
	stats_show
	[ "$(field end)" = delivered ] || { say "stream did not time delivery"; return 1; }
	sample "$_dev" "${_key}_mibps" "$(field mib_per_s)"
	sample "$_dev" "${_key}_msgs" "$(field msgs_per_s)"
}

# ---- sections ----

# Iteration counts per device: each measurement should take about a second
# or more on an idle machine (siw moves large messages about 10x faster
# than rxe under TCG, small ones at a similar rate).
counts() { # counts DEV: sets LAT_N RATE_N BW64_N BW1M_N
	LAT_N=$(n 2000)
	RATE_N=$(n 20000)
	case "$1" in
	siw*) BW64_N=$(n 2000); BW1M_N=$(n 200) ;;
	*) BW64_N=$(n 500); BW1M_N=$(n 40) ;;
	esac
}

# measure COMMAND...: one measurement; a failure is reported and counted,
# and the run goes on (its sample is missing from the tables).
measure() {
	"$@" && return 0
	echo "# FAILED: $*"
	failures=$((failures + 1))
}

# Issue 3: 1 KiB round trip and message rate, 64 KiB and 1 MiB throughput.
bench_transport() { # bench_transport DEV ADDR
	counts "$1"
	measure raw_lat "$1" "$2" 1024 "$LAT_N" raw
	raw_ev lat "$1" "$2" 1024 "$LAT_N" rawev
	measure smbd_lat "$1" "$2" 0 1024 "$LAT_N" smbd.lat
	measure raw_bw "$1" "$2" 1024 "$RATE_N" raw.1k
	raw_ev bw "$1" "$2" 1024 "$RATE_N" rawev.1k
	measure smbd_bw "$1" "$2" "$SINK_PORT" 1024 "$RATE_N" smbd.1k
	measure raw_bw "$1" "$2" 65536 "$BW64_N" raw.64k
	measure smbd_bw "$1" "$2" "$SINK_PORT" 65536 "$BW64_N" smbd.64k
	measure raw_bw "$1" "$2" 1048576 "$BW1M_N" raw.1m
	measure smbd_bw "$1" "$2" "$SINK_PORT" 1048576 "$BW1M_N" smbd.1m
}

# Where smbdirect's time goes: the round trip with the client in callback
# mode (one more workqueue hop per round trip), and the fragmented
# throughput with 8 KiB sends instead of 1364-byte ones (a sixth of the
# fragments), against a sink on SINK_PORT + 1 whose receive buffers are
# 8 KiB (MaxSendSize is the smaller of the sender's own and the
# receiver's MaxReceiveSize).
bench_extra() { # bench_extra DEV ADDR
	counts "$1"
	measure smbd_lat "$1" "$2" 0 1024 "$LAT_N" smbd.lat_callback callback=1
	smbd listen sink "$2" $((SINK_PORT + 1)) frag_size=1048576 \
		recv_size=8192 || return 1
	measure smbd_bw "$1" "$2" $((SINK_PORT + 1)) 65536 "$BW64_N" \
		smbd.64k_8k send_size=8192
	measure smbd_bw "$1" "$2" $((SINK_PORT + 1)) 1048576 "$BW1M_N" \
		smbd.1m_8k send_size=8192
}

# Where a round trip's time goes, from smbdirect's tracepoints: a traced
# ping (pull mode, as in bench_transport) split at the Sends posted and the
# Receives completed on both ends, and at the listener's upcall work
# starting. Tracing slows every step a little; the split matters, not the
# sum. Samples smbd.rt_<step>_us, medians over the round trips:
#   dev_out   client's Send posted -> listener's receive completion runs
#   queue     -> listener's upcall work starts (queue_work, kworker wake-up)
#   echo      -> echo posted (recv callback: smbd_send() allocates, copies,
#                posts)
#   dev_back  -> client's receive completion runs
#   client    -> client's next Send posted (the pinging thread wakes up,
#                smbd_recv_msg() returns, the echo is freed, the next
#                smbd_send() allocates, copies, posts)
#   total     one whole round trip
TRACE=/sys/kernel/tracing
trace_events() { # trace_events 0|1
	for _e in smbdirect/smbdx_post_send smbdirect/smbdx_recv_done \
		  workqueue/workqueue_execute_start; do
		echo "$1" >"$TRACE/events/$_e/enable" || return 1
	done
}

bench_trace() { # bench_trace DEV ADDR
	counts "$1"
	if [ ! -d "$TRACE/events/smbdirect" ]; then
		say "no smbdirect events in $TRACE: no trace section"
		return 0
	fi
	echo 0 >"$TRACE/tracing_on"
	echo 4096 >"$TRACE/buffer_size_kb"
	echo >"$TRACE/trace"
	trace_events 1 || return 1
	echo 1 >"$TRACE/tracing_on"
	smbd ping "$2" count=$(( LAT_N / 4 )) size=1024 warmup=20
	_rc=$?
	echo 0 >"$TRACE/tracing_on"
	trace_events 0
	if [ "$_rc" -ne 0 ]; then
		echo "# FAILED: traced ping on $1"
		failures=$((failures + 1))
		return 0
	fi
	_c=$(sed -n 's/^connected: conn=\([0-9]*\).*/\1/p' "$RES")
	trace_split "$_c" <"$TRACE/trace" >/tmp/rt.txt
	echo >"$TRACE/trace"
	_k=1
	for _step in dev_out queue echo dev_back client total; do
		_v=$(cut -d' ' -f$_k /tmp/rt.txt | sort -n |
		     awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
		[ -z "$_v" ] || sample "$1" "smbd.rt_${_step}_us" "$_v"
		_k=$((_k + 1))
	done
	say "traced round trips: $(wc -l </tmp/rt.txt) (client conn=$_c)"
}

# trace_split CLIENT_CONN: the trace on stdin -> one line per round trip
# with the steps of bench_trace in microseconds. Messages of 100 bytes or
# less (credit grants) are left out.
trace_split() {
	awk -v c="$1" '
	{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/)
				break
		if (i >= NF)
			next
		t = substr($i, 1, length($i) - 1) * 1000000
		ev = $(i + 1)
		if (ev == "workqueue_execute_start:") {
			if (st == 2 && $0 ~ /smbdx_conn_upcall_work/ && tw == "")
				tw = t
			next
		}
		conn = ""
		len = 0
		for (j = i + 2; j <= NF; j++) {
			split($j, kv, "=")
			if (kv[1] == "conn")
				conn = kv[2]
			else if (kv[1] == "len" || kv[1] == "byte_len")
				len = kv[2] + 0
		}
		if (len <= 100 || conn == "")
			next
		mine = conn == c
		if (ev == "smbdx_post_send:" && mine) {
			if (st == 4 && tw != "")
				printf "%.1f %.1f %.1f %.1f %.1f %.1f\n", t1 - t0,
				       tw - t1, t2 - tw, t3 - t2, t - t3, t - t0
			t0 = t
			st = 1
		} else if (ev == "smbdx_recv_done:" && !mine && st == 1) {
			t1 = t
			tw = ""
			st = 2
		} else if (ev == "smbdx_post_send:" && !mine && st == 2) {
			t2 = t
			st = 3
		} else if (ev == "smbdx_recv_done:" && mine && st == 3) {
			t3 = t
			st = 4
		}
	}'
}

# ---- RDMA read/write: perftest against smbd_rdma_bench ----

RDMA_CTL=/sys/kernel/debug/smbd_rdma_bench
RDMA_PORT=7445

# rdma_count DEV SIZE: iterations, about two seconds each on an idle
# machine (siw moves large transfers about ten times faster than rxe).
rdma_count() {
	case "$1:$2" in
	siw*:65536) n 4000 ;;
	siw*:1048576) n 400 ;;
	siw*:*) n 64 ;;
	*:65536) n 400 ;;
	*:1048576) n 40 ;;
	*) n 16 ;;
	esac
}

# raw_rw DEV ADDR OP SIZE COUNT KEY [ARGS...]: ib_write_bw or ib_read_bw;
# sample KEY_mibps.
raw_rw() {
	_dev=$1 _addr=$2 _op=$3 _size=$4 _count=$5 _key=$6
	shift 6
	perftest "ib_${_op}_bw" "$_dev" "$_addr" -s "$_size" -n "$_count" "$@" ||
		return 1
	# bytes iters bw_peak bw_avg msg_rate(Mpps)
	# shellcheck disable=SC2046 # split into fields on purpose
	set -- $(pt_line "$_size")
	[ $# -ge 5 ] || { say "no ib_${_op}_bw result"; return 1; }
	sample "$_dev" "${_key}_mibps" "$4"
}

# raw_rw_ev DEV ADDR OP SIZE COUNT KEY: raw_rw with completion events (-e),
# 30 s and one more try a run, as raw_ev (perftest may hang in this mode);
# a failure only loses the sample.
raw_rw_ev() {
	_pt=$PT_TIMEOUT
	PT_TIMEOUT=30
	for _ev in 1 2; do
		raw_rw "$@" -e && break
		if [ "$_ev" -eq 1 ]; then
			say "event-mode perftest failed; trying once more"
		else
			say "event-mode perftest failed twice; no sample"
		fi
	done
	PT_TIMEOUT=$_pt
}

# smbd_rw DEV ADDR OP SIZE COUNT DEPTH REG KEY [BUF]: smbdx_rdma_write() or
# smbdx_rdma_read() into a buffer a client connection registered, DEPTH
# transfers in flight, registration per transfer (each) or once, buffers
# of BUF kind (vmalloc: scattered 4 KiB pages, the default; folio: large
# folios); sample KEY_mibps.
smbd_rw() {
	_cmd="run $2 $RDMA_PORT op=$3 size=$4 count=$5 depth=$6 reg=$7 buf=${9:-vmalloc}"
	echo "\$ $_cmd"
	stats_mark
	cpu_mark
	if ! echo "$_cmd" >"$RDMA_CTL/control"; then
		sed 's/^/# /' "$RDMA_CTL/result"
		return 1
	fi
	cat "$RDMA_CTL/result"
	cpu_show
	stats_show
	_v=$(sed -n 's/.*MiB\/s=\([0-9.]*\).*/\1/p' "$RDMA_CTL/result")
	[ -n "$_v" ] || { say "no smbd_rdma_bench result"; return 1; }
	sample "$1" "${8}_mibps" "$_v"
}

# Issue 4: RDMA Write and Read throughput for 64 KiB, 1 MiB and 8 MiB.
# Raw verbs: perftest as it runs by default (its TX depth of 128, at most
# the iteration count, in flight; polling), for Reads the same waiting for
# completion events (-e, rawev; ib_write_bw refuses -e: "Events feature not
# available on WRITE verb"), and with one transfer in flight (-t 1).
# smbdirect: BENCH_RDMA_DEPTH transfers in flight (workers sharing one
# connection, as a server serving that many requests) and one, each with
# the buffer registered once (registration excluded) and registered and
# deregistered per transfer (included), the buffers in scattered 4 KiB pages
# (vmalloc, like ksmbd's kvmalloc'd buffers); and one in flight with
# buffers in large folios (folio1, registered once). Keys
# <kind>.<op>.<size>_mibps. perftest gets 60 s a run (ib_read_bw -t 1 hangs
# now and then on siw).
bench_rdma() { # bench_rdma DEV ADDR
	PT_TIMEOUT=60
	for _rs in 65536 1048576 8388608; do
		_rn=$(rdma_count "$1" "$_rs")
		_rz=$(( _rs / 1024 ))k
		for _ro in write read; do
			measure raw_rw "$1" "$2" "$_ro" "$_rs" "$_rn" "raw.$_ro.$_rz"
			[ "$_ro" != read ] ||
				raw_rw_ev "$1" "$2" "$_ro" "$_rs" "$_rn" "rawev.$_ro.$_rz"
			measure smbd_rw "$1" "$2" "$_ro" "$_rs" "$_rn" \
				"$BENCH_RDMA_DEPTH" once "onceN.$_ro.$_rz"
			measure smbd_rw "$1" "$2" "$_ro" "$_rs" "$_rn" \
				"$BENCH_RDMA_DEPTH" each "eachN.$_ro.$_rz"
			measure raw_rw "$1" "$2" "$_ro" "$_rs" "$_rn" \
				"raw1.$_ro.$_rz" -t 1
			measure smbd_rw "$1" "$2" "$_ro" "$_rs" "$_rn" 1 once \
				"once1.$_ro.$_rz"
			measure smbd_rw "$1" "$2" "$_ro" "$_rs" "$_rn" 1 each \
				"each1.$_ro.$_rz"
			measure smbd_rw "$1" "$2" "$_ro" "$_rs" "$_rn" 1 once \
				"folio1.$_ro.$_rz" folio
		done
	done
	PT_TIMEOUT=120
}

# Listeners for one device, with the default configuration except that
# they take messages of up to 1 MiB: echo on the device's default port,
# sink on SINK_PORT.
listeners() { # listeners ADDR
	smbd listen echo "$1" frag_size=1048576 &&
	smbd listen sink "$1" "$SINK_PORT" frag_size=1048576
}

bench_device() { # bench_device DEV ADDR
	say "---- $1 ($2), round $round of $BENCH_REPS ----"
	listeners "$2" || return 1
	if [ "$round" -eq 1 ]; then
		echo "open show $2" >"$CTL" && grep '^connected:\|^negotiated:' "$RES"
		echo "close show" >"$CTL"
	fi
	for _s in $BENCH_SECTIONS; do
		"bench_$_s" "$1" "$2" || { say "bench_$_s failed on $1"; return 1; }
	done
	smbd unlisten all >/dev/null
}

main() {
	say "kernel $(uname -r), $(nproc) CPUs; $(ib_send_bw -V 2>&1 | head -n 1)"
	say "rounds $BENCH_REPS, sections: $BENCH_SECTIONS, scale $BENCH_SCALE/$BENCH_DIV, rdma depth $BENCH_RDMA_DEPTH"
	modprobe smbd_test || return 1
	case " $BENCH_SECTIONS " in
	*" rdma "*) modprobe smbd_rdma_bench || return 1 ;;
	esac
	_t0=$(date +%s)
	while [ "$round" -lt "$BENCH_REPS" ]; do
		round=$((round + 1))
		bench_device "$RXE_DEV" "$RXE_ADDR" || return 1
		bench_device "$SIW_DEV" "$SIW_ADDR" || return 1
	done
	say "measured for $(( $(date +%s) - _t0 )) s, $failures measurement(s) failed"
	rmmod smbd_test
	rmmod smbd_rdma_bench 2>/dev/null || true
}

main
