#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The transport benchmark (`make bench`; a benchmark, not a test): one VM
# boot, and on rxe and on siw, side by side, raw verbs (perftest's
# ib_send_lat / ib_send_bw) against smbdirect (the smbd_test service):
# 1 KiB round trip and message rate, 64 KiB and 1 MiB throughput. Prints
# one table per device with the ratio smbdirect/raw and whether the aims
# of issue 3 are met (message rate >= 80% of raw, round trip <= 1.25x raw).
# With --rdma, RDMA Write and Read throughput instead (issue 4: perftest's
# ib_write_bw/ib_read_bw against smbdirect's smbdx_rdma_write/read for 64 KiB,
# 1 MiB and 8 MiB, registration included and excluded; aim >= 90% of raw
# for 1 MiB and larger).
#
#   scripts/bench.sh [--kernel plain|debug] [--rounds N] [--extra | --rdma]
#                    [--depth N] [--scale N] [--quick] [--out DIR]
#                    [--report LOG]
#
#   --rounds N   measure everything N times, raw and smbdirect back to
#                back each time, and report medians (default 3)
#   --extra      also the smbdirect variants that locate its costs
#                (callback-mode round trip, 8 KiB sends) and a traced
#                round trip split into its steps
#   --rdma       the RDMA read/write section only (scripts/bench-rdma.sh)
#   --depth N    smbdirect RDMA transfers in flight with --rdma (default 8)
#   --scale N    multiply every iteration count by N (default 1)
#   --quick      a smoke run: one round, a tenth of the iterations
#   --report LOG only print the tables of an earlier run's bench.log
#
# The in-VM part is scripts/guest/guest-bench.sh. Output goes to --out (default
# out/bench/): bench.log (everything the VM printed, every sample) and
# report.txt (the tables, the host's load and the command line).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib-bench.sh
. "$(dirname "$0")/lib-bench.sh"

# median: the median of the numbers on stdin, "-" if there are none.
median() {
	awk "$BENCH_AWK"'{ v[NR] = $1 }
		END { q = median(v, NR); print q == "" ? "-" : q }'
}

# samples LOG DEV KEY: one value per round.
samples() {
	awk -v d="$2" -v k="$3" '$1 == "sample" && $3 == d && $4 == k { print $5 }' "$1"
}

# ratios LOG DEV KEY_A KEY_B: A/B of each round, for the range column.
ratios() {
	awk -v d="$2" -v a="$3" -v b="$4" '$1 == "sample" && $3 == d {
		if ($4 == a) x[$2] = $5; if ($4 == b) y[$2] = $5 }
		END { for (r in x) if ((r in y) && y[r] > 0) printf "%.6f\n", x[r] / y[r] }' "$1"
}

# row LOG DEV LABEL RAW_KEY SMBD_KEY: one line of a table: the medians of
# both, the median of the rounds' ratios and their range.
row() {
	local raw smbd q lo hi
	raw=$(value "$1" "$2" "$4")
	smbd=$(value "$1" "$2" "$5")
	read -r q lo hi < <(ratios "$1" "$2" "$5" "$4" | awk "$BENCH_AWK"'{ v[NR] = $1 }
		END { q = spread(v, NR); print q == "" ? "-" : q, lo, hi }')
	awk -v l="$3" -v r="$raw" -v s="$smbd" -v q="$q" -v lo="$lo" -v hi="$hi" '
	function f(v) {
		if (v == "-")
			return v
		return sprintf(v >= 1000 ? "%.0f" : v >= 100 ? "%.1f" : "%.2f", v)
	}
	BEGIN {
		rg = lo == "" ? "" : sprintf("%.2f-%.2f", lo, hi)
		printf "%-34s %11s %11s %7s  %s\n", l, f(r), f(s), q == "-" ? q : sprintf("%.2f", q), rg }'
}

# aim LOG DEV TEXT RAW_KEY SMBD_KEY OP LIMIT: is the median of the rounds'
# ratios smbd/raw OP (ge or le) LIMIT?
aim() {
	local q
	q=$(ratios "$1" "$2" "$5" "$4" | median)
	awk -v t="$3" -v q="$q" -v op="$6" -v lim="$7" "$BENCH_AWK"'BEGIN {
		if (q == "-") { printf "  %s: not measured\n", t; exit }
		ok = met(q, op, lim)
		printf "  %s: %s (%.2f)\n", t, ok ? "met" : "MISSED", q }'
}

# value LOG DEV KEY: the median of KEY's samples, "-" if none.
value() {
	samples "$1" "$2" "$3" | median
}

# The table of the transport section, with --extra's rows when present.
report_transport() { # report_transport LOG DEV TITLE
	local log=$1 dev=$2 k
	echo "$3"
	printf '%-34s %11s %11s %7s  %s\n' "" "raw verbs" smbdirect ratio "(range)"
	row "$log" "$dev" "1 KiB round trip, median (us)" raw.lat_median_us smbd.lat_median_us
	row "$log" "$dev" "  raw with CQ events (-e)" rawev.lat_median_us smbd.lat_median_us
	row "$log" "$dev" "1 KiB round trip, average (us)" raw.lat_avg_us smbd.lat_avg_us
	row "$log" "$dev" "1 KiB round trip, 99th pct. (us)" raw.lat_p99_us smbd.lat_p99_us
	row "$log" "$dev" "1 KiB messages/s" raw.1k_msgs smbd.1k_msgs
	row "$log" "$dev" "  raw with CQ events (-e)" rawev.1k_msgs smbd.1k_msgs
	row "$log" "$dev" "64 KiB MiB/s" raw.64k_mibps smbd.64k_mibps
	row "$log" "$dev" "1 MiB MiB/s" raw.1m_mibps smbd.1m_mibps
	if grep -q "^sample [0-9]* $dev smbd.lat_callback" "$log"; then
		echo "smbdirect variants (--extra), against the same raw values:"
		row "$log" "$dev" "  round trip, callback mode (us)" raw.lat_median_us smbd.lat_callback_median_us
		row "$log" "$dev" "  64 KiB MiB/s, 8 KiB sends" raw.64k_mibps smbd.64k_8k_mibps
		row "$log" "$dev" "  1 MiB MiB/s, 8 KiB sends" raw.1m_mibps smbd.1m_8k_mibps
	fi
	if grep -q "^sample [0-9]* $dev smbd.rt_total_us" "$log"; then
		printf 'traced round trip, median us:'
		for k in dev_out queue echo dev_back client total; do
			printf ' %s %s' "$k" "$(value "$log" "$dev" "smbd.rt_${k}_us")"
		done
		echo
	fi
	echo "aims (issue 3), against perftest as it runs by default (polling):"
	aim "$log" "$dev" "1 KiB message rate >= 0.80 x raw" raw.1k_msgs smbd.1k_msgs ge 0.80
	aim "$log" "$dev" "1 KiB round trip (median) <= 1.25 x raw" raw.lat_median_us smbd.lat_median_us le 1.25
	echo "the same against perftest with completion events (-e):"
	aim "$log" "$dev" "1 KiB message rate >= 0.80 x raw" rawev.1k_msgs smbd.1k_msgs ge 0.80
	aim "$log" "$dev" "1 KiB round trip (median) <= 1.25 x raw" rawev.lat_median_us smbd.lat_median_us le 1.25
}

RXE_TITLE="rxe0 (RoCE, soft-RoCE on a veth pair, 192.0.2.1)"
SIW_TITLE="siw0 (iWARP, soft-iWARP on a dummy interface, 198.51.100.1)"

# The RDMA read/write table: per operation and size, smbdirect with N
# transfers in flight against perftest as it runs by default, and with one
# in flight against perftest -t 1; registration once (excluded) and per
# transfer (included); buffers of scattered pages, and one row with large
# folios.
report_rdma() { # report_rdma LOG DEV TITLE
	local log=$1 dev=$2 op z d label
	d=$(sed -n 's/^# rounds .*rdma depth \([0-9]*\).*/\1/p' "$log" | head -n 1)
	echo "$3, RDMA, MiB/s"
	printf '%-34s %11s %11s %7s  %s\n' "" "raw verbs" smbdirect ratio "(range)"
	for op in write read; do
		for z in 64k 1024k 8192k; do
			case $z in
			64k) label="64 KiB" ;;
			1024k) label="1 MiB" ;;
			*) label="8 MiB" ;;
			esac
			echo "$op $label"
			row "$log" "$dev" "  ${d:-N} in flight, reg. once" "raw.$op.${z}_mibps" "onceN.$op.${z}_mibps"
			row "$log" "$dev" "  ${d:-N} in flight, reg. each" "raw.$op.${z}_mibps" "eachN.$op.${z}_mibps"
			[ "$op" != read ] ||
				row "$log" "$dev" "    raw with CQ events (-e), once" "rawev.$op.${z}_mibps" "onceN.$op.${z}_mibps"
			row "$log" "$dev" "  1 in flight (-t 1), reg. once" "raw1.$op.${z}_mibps" "once1.$op.${z}_mibps"
			row "$log" "$dev" "  1 in flight (-t 1), reg. each" "raw1.$op.${z}_mibps" "each1.$op.${z}_mibps"
			row "$log" "$dev" "  1 in flight, folios, reg. once" "raw1.$op.${z}_mibps" "folio1.$op.${z}_mibps"
		done
	done
	echo "aim (issue 4): >= 0.90 x raw for 1 MiB and larger"
	for op in write read; do
		for z in 1024k 8192k; do
			aim "$log" "$dev" "$op $z, ${d:-N} in flight, reg. once" "raw.$op.${z}_mibps" "onceN.$op.${z}_mibps" ge 0.90
			aim "$log" "$dev" "$op $z, ${d:-N} in flight, reg. each" "raw.$op.${z}_mibps" "eachN.$op.${z}_mibps" ge 0.90
			aim "$log" "$dev" "$op $z, 1 in flight, reg. once" "raw1.$op.${z}_mibps" "once1.$op.${z}_mibps" ge 0.90
			aim "$log" "$dev" "$op $z, 1 in flight, reg. each" "raw1.$op.${z}_mibps" "each1.$op.${z}_mibps" ge 0.90
		done
	done
	echo "the same against ib_read_bw with completion events (-e; ib_write_bw has no -e):"
	for z in 1024k 8192k; do
		aim "$log" "$dev" "read $z, ${d:-N} in flight, reg. once" "rawev.read.${z}_mibps" "onceN.read.${z}_mibps" ge 0.90
		aim "$log" "$dev" "read $z, ${d:-N} in flight, reg. each" "rawev.read.${z}_mibps" "eachN.read.${z}_mibps" ge 0.90
	done
}

report() { # report LOG
	local rounds n
	rounds=$(awk '$1 == "sample" && !($2 in r) { r[$2] = 1; n++ } END { print n + 0 }' "$1")
	echo "Medians of $rounds round(s). ratio: median of the rounds' smbdirect/raw"
	echo "ratios (raw and smbdirect measured back to back), (range): lowest-highest"
	echo "of them. Raw verbs: perftest (ib_send_lat/ib_send_bw: polling unless"
	echo "marked -e; round trips in us, ib_send_lat prints half a round trip:"
	echo "doubled). MiB/s = 2^20 bytes/s."
	if grep -q '^sample [0-9]* [a-z0-9]* raw\.lat_' "$1"; then
		echo
		report_transport "$1" rxe0 "$RXE_TITLE"
		echo
		report_transport "$1" siw0 "$SIW_TITLE"
	fi
	if grep -q '^sample [0-9]* [a-z0-9]* raw\.write\.' "$1"; then
		echo
		report_rdma "$1" rxe0 "$RXE_TITLE"
		echo
		report_rdma "$1" siw0 "$SIW_TITLE"
	fi
	if grep -q '^# FAILED\|^# event-mode perftest failed' "$1"; then
		echo
		echo "Measurements that failed (no sample unless retried; details in the log):"
		sed -n 's/^# FAILED: /  /p' "$1"
		n=$(grep -c '^# event-mode perftest failed twice' "$1" || true)
		[ "$n" -eq 0 ] || echo "  perftest with -e: $n run(s), twice each"
		n=$(grep -c '^# event-mode perftest failed; trying' "$1" || true)
		[ "$n" -eq 0 ] || echo "  perftest with -e: $n run(s) retried"
	fi
}

main() {
	local variant=plain rounds=3 sections=transport scale=1 div=1 depth=8
	local outdir='' report_only=''
	local cmdline="scripts/bench.sh $*"

	while [ $# -gt 0 ]; do
		case "$1" in
		--kernel) variant=$2; shift 2 ;;
		--rounds) rounds=$2; shift 2 ;;
		--extra) sections="transport extra trace"; shift ;;
		--scale) scale=$2; shift 2 ;;
		--quick) rounds=1; div=10; shift ;;
		--out) outdir=$2; shift 2 ;;
		--report) report_only=$2; shift 2 ;;
		--rdma) sections=rdma; shift ;;
		--depth) depth=$2; shift 2 ;;
		-h|--help) sed -n '3,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) die "unknown argument: $1 (see --help)" ;;
		esac
	done
	if [ -n "$report_only" ]; then
		report "$report_only"
		exit 0
	fi
	[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds takes a positive number"
	[[ "$scale" =~ ^[1-9][0-9]*$ ]] || die "--scale takes a positive number"
	[[ "$depth" =~ ^[1-9][0-9]*$ && "$depth" -le 32 ]] ||
		die "--depth takes a number from 1 to 32"

	outdir=${outdir:-$SMBD_OUT/bench}
	mkdir -p "$outdir"
	outdir=$(cd "$outdir" && pwd)
	cat >"$outdir/exec.sh" <<-EOF
		BENCH_REPS=$rounds
		BENCH_SECTIONS="$sections"
		BENCH_SCALE=$scale
		BENCH_DIV=$div
		BENCH_RDMA_DEPTH=$depth
		. /smbd/guest-bench.sh
	EOF

	local per_round
	say "benchmark: $rounds round(s), sections: $sections; log in $outdir/bench.log"
	# A round takes 1.5 minutes on an idle host, 4 or more on a busy one
	# (the rdma section: about 5 and 15); the debug kernel is several
	# times slower.
	per_round=400
	[ "$sections" != rdma ] || per_round=1200
	[ "$variant" != debug ] || per_round=1600
	bench_vm "$variant" "$outdir" "$outdir/bench.log" \
		$(( 600 + rounds * scale * per_round / div ))
	if [ "$bench_rc" -ne 0 ]; then
		tail -n 40 "$outdir/bench.log" >&2
		die "the benchmark run failed ($bench_rc); see $outdir/bench.log"
	fi
	{
		bench_header "$cmdline" "$variant" "$outdir"
		grep -m 2 '^# \(kernel\|rounds\)' "$outdir/bench.log" | sed 's/^# /guest: /'
		echo
		report "$outdir/bench.log"
	} | tee "$outdir/report.txt"
}

main "$@"
