#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The SMB-level benchmark (`make bench-smb`; a benchmark, not a test): one
# boot of the test VM, fio (O_DIRECT) and dbench on a cifs mount over SMB
# Direct, for the four pairings of client and server, stock (Linux's own
# cifs.ko and ksmbd.ko with their built-in SMB Direct) and ours (the shim
# builds on smbdirect.ko), on rxe and on siw side by side. Prints one table per
# device: for every fio job IOPS, MiB/s, total latency p50 and p99 and the
# guest's CPU time per I/O, for every dbench job its throughput and max
# latency, the medians of the rounds, and for each pairing other than
# stock-stock the median and range of the rounds' ratios to stock-stock;
# then the aims of issues 16 and 32 and every failed measurement.
#
#   [ROUNDS=N] [RUNTIME=S] [DEVICES=...] [PAIRS=...] [JOBS=...] \
#   scripts/bench-smb.sh [--kernel plain|debug] [--out DIR] [--trace]
#   scripts/bench-smb.sh --report LOG
#
#   ROUNDS    every cell measured N times, the pairings of a device back to
#             back each round, in mirrored order every other round
#             (default 3)
#   RUNTIME   seconds of I/O per fio job, of dbench's timed phase
#             (default 10)
#   DEVICES   "rxe siw" (default), or one of them (the other is removed
#             in the VM before the first round: it would lower our cifs's
#             I/O size, smbdx_reg_len_floor())
#   PAIRS     CLIENT-SERVER pairings, each side stock or ours (default
#             "stock-stock ours-ours ours-stock stock-ours"); ratios need
#             stock-stock
#   JOBS      fio jobs RW-BS-DEPTH and dbench jobs dbench-CLIENTS (default
#             "randread-4k-1 randread-4k-16 randwrite-4k-1 randwrite-4k-16
#             read-64k-4 write-64k-4 read-1m-4 write-1m-4 dbench-4"): RW
#             read, write, randread or randwrite; BS as fio takes it (4k,
#             64k, 1m); DEPTH the libaio queue depth; CLIENTS dbench's
#             processes, each replaying Debian's client.txt
#   --trace   split the time of each depth-1 fio job's I/Os into the steps
#             of one request (fio's io_submit, cifs, the client's Send
#             posted, the server's Receive, ksmbd's work, its RDMA, its
#             reply, the client's Receive, cifs's callback, io_getevents)
#             with kprobes and the cifs and smbdirect tracepoints; then the
#             defaults are ROUNDS=1 RUNTIME=3 PAIRS="stock-stock ours-ours"
#             JOBS="randread-4k-1 randwrite-4k-1" (the traced figures carry
#             the tracing's own cost)
#   --report LOG  only print the tables of an earlier run's bench-smb.log
#
# The in-VM part is scripts/guest/guest-bench-smb.sh. Output goes to --out
# (default out/bench-smb/): bench-smb.log (everything the VM printed, every
# sample and every failure), report.txt (the tables, the host's load and the
# command) and host-load.log (the host sampled every 5 s).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib-bench.sh
. "$(dirname "$0")/lib-bench.sh"

DEF_PAIRS="stock-stock ours-ours ours-stock stock-ours"
DEF_JOBS="randread-4k-1 randread-4k-16 randwrite-4k-1 randwrite-4k-16 read-64k-4 write-64k-4 read-1m-4 write-1m-4 dbench-4"

# report LOG: the tables, from the sample, fail and split lines and the
# settings the guest printed ("# rounds", "# devices", "# pairs", "# jobs").
report() {
	awk "$BENCH_AWK"'
	function fmt(v) {
		if (v == "")
			return "-"
		return sprintf(v >= 1000 ? "%.0f" : v >= 100 ? "%.1f" : "%.2f", v)
	}
	# (median, spread and met: BENCH_AWK, scripts/lib-bench.sh)
	# the median over the rounds of one cell and metric
	function cell(d, p, j, m,    r, n, a) {
		n = 0
		for (r = 1; r <= rounds; r++)
			if ((d, p, j, m, r) in v)
				a[++n] = v[d, p, j, m, r]
		return median(a, n)
	}
	# the rounds ratios of pairing p to stock-stock: sets lo, hi, returns
	# their median ("" if no round has both)
	function ratio(d, p, j, m,    r, n, a, b) {
		n = 0
		for (r = 1; r <= rounds; r++)
			if ((d, p, j, m, r) in v && (d, "stock-stock", j, m, r) in v &&
			    (b = v[d, "stock-stock", j, m, r]) > 0)
				a[++n] = v[d, p, j, m, r] / b
		return spread(a, n)
	}
	function label(j,    w, rw, s) {
		split(j, w, "-")
		if (w[1] == "dbench")
			return "dbench, " w[2] " client" (w[2] == 1 ? "" : "s") " (client.txt)"
		rw = w[1]
		s = toupper(w[2])
		sub(/K$/, " KiB", s); sub(/M$/, " MiB", s)
		if (rw == "randread")
			rw = "random read"
		else if (rw == "randwrite")
			rw = "random write"
		else
			rw = "sequential " rw
		return s " " rw ", depth " w[3]
	}
	function devtitle(d) {
		if (d == "rxe")
			return "rxe0 (RoCE, soft-RoCE on a veth pair, 192.0.2.1)"
		if (d == "siw")
			return "siw0 (iWARP, soft-iWARP on a dummy interface, 198.51.100.1)"
		return d
	}
	function devkey(d) { return d == "rxe" ? "rxe0" : d == "siw" ? "siw0" : d }
	# the median over the rounds of a traced step statistic
	function scell(d, p, j, st, m,    r, n, a) {
		n = 0
		for (r = 1; r <= rounds; r++)
			if ((d, p, j, st, m, r) in sv)
				a[++n] = sv[d, p, j, st, m, r]
		return median(a, n)
	}
	# the time split of the traced jobs of device d
	function splits(d,    k, j, pi, p, x, st, out, c, b) {
		for (k = 1; k <= nj; k++) {
			j = jobs[k]
			if (!((d, j) in nsteps))
				continue
			printf "time split of %s, traced, us per I/O: mean p50 (medians over the rounds)\n", label(j)
			out = sprintf("  %-10s", "step")
			for (pi = 1; pi <= np; pi++)
				out = out sprintf(" %15s", pairs[pi]) (pairs[pi] == "stock-stock" ? "" : sprintf(" %7s", "mean-ss"))
			print out
			for (x = 1; x <= nsteps[d, j]; x++) {
				st = steps[d, j, x]
				out = sprintf("  %-10s", st)
				b = scell(d, "stock-stock", j, st, "mean")
				for (pi = 1; pi <= np; pi++) {
					p = pairs[pi]
					c = scell(d, p, j, st, "mean")
					out = out sprintf(" %7s %7s", fmt(c), fmt(scell(d, p, j, st, "p50")))
					if (p != "stock-stock")
						out = out sprintf(" %7s", c == "" || b == "" ? "-" : sprintf("%+.1f", c - b))
				}
				print out
			}
		}
	}
	# the metrics of job j: sets mk[1..n] (their keys) and mn[1..n]
	# (their names in the table), returns n
	function metrics(j) {
		if (j ~ /^dbench-/) {
			split("MB/s (10^6 B/s)|max latency (ms)", mn, "|")
			return split("mbps maxlat_ms", mk, " ")
		}
		split("IOPS|MiB/s|latency p50 (us)|latency p99 (us)|CPU per I/O (us)", mn, "|")
		return split("iops mibps p50_us p99_us cpu_us", mk, " ")
	}
	# aim(d, text, job pattern, metric, op, limit): a line per job of the
	# run that matches the pattern
	function aim(d, t, pat, m, op, lim,    j, k, q, found) {
		for (k = 1; k <= nj; k++) {
			j = jobs[k]
			if (j !~ pat)
				continue
			found = 1
			q = ratio(d, "ours-ours", j, m)
			if (q == "")
				printf "  %s (%s): not measured\n", t, j
			else
				printf "  %s (%s): %s (%.2f, range %.2f-%.2f)\n", t, j,
				       met(q, op, lim) ? "met" : "MISSED", q, lo, hi
		}
		if (!found)
			printf "  %s: no such job in this run\n", t
	}
	$1 == "#" && $2 == "rounds" { rounds = $3 }
	$1 == "#" && $2 == "runtime" { runtime = $3 }
	$1 == "#" && $2 == "devices" { nd = split(substr($0, index($0, "devices") + 8), devs, " ") }
	$1 == "#" && $2 == "pairs" { np = split(substr($0, index($0, "pairs") + 6), pairs, " ") }
	$1 == "#" && $2 == "jobs" { nj = split(substr($0, index($0, "jobs") + 5), jobs, " ") }
	$1 == "#" && $2 == "done" { done = 1 }
	$1 == "#" && $2 == "split" {
		s = $0; sub(/^# split [^ ]* /, "", s)
		notes[++nnotes] = s
	}
	# split ROUND DEV PAIR JOB STEP N MEAN P50 P90
	$1 == "split" && NF == 10 {
		if (!(($3, $5, $6) in sstep)) {
			sstep[$3, $5, $6] = 1
			if (!(($3, $5) in nsteps))
				nsteps[$3, $5] = 0
			steps[$3, $5, ++nsteps[$3, $5]] = $6
		}
		sv[$3, $4, $5, $6, "mean", $2] = $8
		sv[$3, $4, $5, $6, "p50", $2] = $9
		sv[$3, $4, $5, $6, "n", $2] = $7
		traced = 1
	}
	$1 == "sample" && NF == 7 { v[$3, $4, $5, $6, $2] = $7; if ($2 > seen) seen = $2 }
	$1 == "fail" {
		nf[$3, $4, $5]++
		s = $0; sub(/^fail [^ ]* [^ ]* [^ ]* [^ ]* /, "", s)
		fails[++nfails] = sprintf("round %s, %s, %s, %s: %s", $2, $3, $4, $5, s)
		if ($2 > seen) seen = $2
	}
	END {
		if (!rounds) {
			print "no benchmark settings in the log: the run did not start"
			exit
		}
		printf "Medians of %d round(s) of %s s per job", rounds, runtime
		if (!done)
			printf " (INCOMPLETE: the run stopped in round %d)", seen
		print "."
		print "Pairings are CLIENT-SERVER (cifs-ksmbd): stock = Linux'"'"'s own module with"
		print "its built-in SMB Direct, ours = the shim build on smbdirect.ko. For each"
		print "pairing but stock-stock: its median, the median of the rounds'"'"' ratios"
		print "pairing/stock-stock (measured in the same round) and their range."
		print "fio: O_DIRECT, libaio; latency = total latency (submission to completion);"
		print "CPU per I/O: the guest'"'"'s busy time (both vCPUs: client, server and soft"
		print "device) / I/Os. dbench: Debian'"'"'s dbench 4.0 replaying its client.txt"
		print "(NetBench) in N processes, buffered I/O; MB/s over its timed phase, max"
		print "latency: its slowest single operation."
		for (di = 1; di <= nd; di++) {
			d = devkey(devs[di])
			printf "\n%s\n", devtitle(devs[di])
			out = sprintf("%-22s", "cifs-ksmbd:")
			for (pi = 1; pi <= np; pi++)
				if (pairs[pi] == "stock-stock")
					out = out sprintf(" %11s", pairs[pi])
				else
					out = out sprintf("  %10s %5s %-10s", pairs[pi], "ratio", "(range)")
			sub(/ +$/, "", out)
			print out
			for (k = 1; k <= nj; k++) {
				j = jobs[k]
				line = ""
				for (pi = 1; pi <= np; pi++)
					if ((d, pairs[pi], j) in nf)
						line = line sprintf(" %s %d of %d", pairs[pi], nf[d, pairs[pi], j], rounds)
				printf "%s%s\n", label(j), line == "" ? "" : "   [failed:" line "]"
				nm = metrics(j)
				for (mi = 1; mi <= nm; mi++) {
					out = sprintf("  %-20s", mn[mi])
					for (pi = 1; pi <= np; pi++) {
						p = pairs[pi]
						c = cell(d, p, j, mk[mi])
						if (p == "stock-stock") {
							out = out sprintf(" %11s", fmt(c))
							continue
						}
						q = ratio(d, p, j, mk[mi])
						out = out sprintf("  %10s %5s %-10s", fmt(c),
						       q == "" ? "-" : sprintf("%.2f", q),
						       q == "" ? "" : sprintf("%.2f-%.2f", lo, hi))
					}
					sub(/ +$/, "", out)
					print out
				}
			}
			splits(d)
			print "aims (issues 16 and 32), ours-ours / stock-stock, same round:"
			aim(d, "4 KiB random read IOPS at depth 16 >= 1.2", "^randread-4k-16$", "iops", "ge", 1.2)
			aim(d, "4 KiB random write IOPS at depth 16 >= 1.2", "^randwrite-4k-16$", "iops", "ge", 1.2)
			aim(d, "1 MiB sequential read MiB/s >= 1.0", "^read-1m-", "mibps", "ge", 1.0)
			aim(d, "1 MiB sequential write MiB/s >= 1.0", "^write-1m-", "mibps", "ge", 1.0)
			aim(d, "latency p99 <= 1.0 x stock", "^(rand)?(read|write)-", "p99_us", "le", 1.0)
			aim(d, "depth-1 4 KiB latency p50 <= 1.0 x stock", "^rand(read|write)-4k-1$", "p50_us", "le", 1.0)
			aim(d, "dbench throughput >= 1.0", "^dbench-", "mbps", "ge", 1.0)
		}
		if (traced) {
			print "\nTraced steps (--trace), each from the step before it: submit fio enters"
			print "io_submit; smb2_req cifs builds the SMB2 request; c_send it calls smbd_send;"
			print "c_post the client'"'"'s Send reaches the device (its post_send); s_recv the"
			print "server'"'"'s Receive completion; s_work ksmbd'"'"'s work item starts; s_rw_post"
			print "the server'"'"'s RDMA reaches the device; s_rw_done its completion; s_reply the"
			print "response'"'"'s Send reaches the device; c_recv the client'"'"'s Receive completion;"
			print "c_done cifs'"'"'s callback; reaped io_getevents returns; total submit to reaped."
			print "mean-ss: the pairing'"'"'s mean minus stock-stock'"'"'s. Chains per job:"
			for (k = 1; k <= nnotes; k++)
				print "  " notes[k]
		}
		if (nfails) {
			printf "\nMeasurements that failed (%d; no sample, details in the log):\n", nfails
			for (k = 1; k <= nfails; k++)
				print "  " fails[k]
		}
	}' "$1"
}

main() {
	local variant=plain outdir='' report_only='' trace=0 args="$*"
	local rounds runtime devices pairs jobs cmdline w

	while [ $# -gt 0 ]; do
		case "$1" in
		--kernel) variant=$2; shift 2 ;;
		--out) outdir=$2; shift 2 ;;
		--trace) trace=1; shift ;;
		--report) report_only=$2; shift 2 ;;
		-h|--help) sed -n '3,49p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) die "unknown argument: $1 (see --help)" ;;
		esac
	done
	if [ -n "$report_only" ]; then
		report "$report_only"
		exit 0
	fi
	if [ "$trace" = 1 ]; then
		rounds=${ROUNDS:-1} runtime=${RUNTIME:-3}
		pairs=${PAIRS:-stock-stock ours-ours} jobs=${JOBS:-randread-4k-1 randwrite-4k-1}
	else
		rounds=${ROUNDS:-3} runtime=${RUNTIME:-10}
		pairs=${PAIRS:-$DEF_PAIRS} jobs=${JOBS:-$DEF_JOBS}
	fi
	devices=${DEVICES:-rxe siw}
	cmdline="ROUNDS=$rounds RUNTIME=$runtime DEVICES=\"$devices\" PAIRS=\"$pairs\" JOBS=\"$jobs\" scripts/bench-smb.sh $args"
	[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS takes a positive number"
	[[ "$runtime" =~ ^[1-9][0-9]*$ ]] || die "RUNTIME takes a positive number of seconds"
	for w in $devices; do
		[[ "$w" =~ ^(rxe|siw)$ ]] || die "DEVICES: rxe and/or siw, not $w"
	done
	for w in $pairs; do
		[[ "$w" =~ ^(stock|ours)-(stock|ours)$ ]] || die "PAIRS: CLIENT-SERVER, each stock or ours, not $w"
	done
	for w in $jobs; do
		[[ "$w" =~ ^(rand)?(read|write)-[1-9][0-9]*[km]-[1-9][0-9]*$ ]] ||
			[[ "$w" =~ ^dbench-[1-9][0-9]*$ ]] ||
			die "JOBS: RW-BS-DEPTH (e.g. randread-4k-16, read-1m-4) or dbench-CLIENTS (dbench-4), not $w"
	done
	# dbench times nothing before all its clients have read or written
	# and RUNTIME / 5 s have passed (its warm-up); with no warm-up, on a
	# slow guest the time limit passes first and it reports 0 MB/s.
	if [[ " $jobs " == *" dbench-"* ]] && [ "$runtime" -lt 5 ]; then
		die "a dbench job needs RUNTIME >= 5 (its warm-up is RUNTIME / 5 s)"
	fi
	if [ -z "$devices" ] || [ -z "$pairs" ] || [ -z "$jobs" ]; then
		die "nothing to measure"
	fi

	outdir=${outdir:-$SMBD_OUT/bench-smb}
	mkdir -p "$outdir"
	outdir=$(cd "$outdir" && pwd)
	cat >"$outdir/exec.sh" <<-EOF
		SMB_ROUNDS=$rounds
		SMB_RUNTIME=$runtime
		SMB_DEVICES="$devices"
		SMB_PAIRS="$pairs"
		SMB_JOBS="$jobs"
		SMB_TRACE=$trace
		. /smbd/guest-bench-smb.sh
	EOF

	local n_dev n_pair n_job n_dbench per_pair limit
	n_dev=$(wc -w <<<"$devices")
	n_pair=$(wc -w <<<"$pairs")
	n_job=$(wc -w <<<"$jobs")
	n_dbench=$(tr ' ' '\n' <<<"$jobs" | grep -c '^dbench-' || true)
	# A fio job is RUNTIME plus about a second (fio's start and exit
	# under TCG), a dbench job RUNTIME plus its warm-up (RUNTIME / 5)
	# plus about 5 s (start, deletion of its files), a pairing's set-up,
	# mount and teardown about 5 s (smoke runs on a busy host); the
	# limit allows three times that, plus the boot.
	per_pair=$(( n_job * (runtime + 2) + n_dbench * (runtime / 5 + 5) + 10 ))
	limit=$(( 600 + 3 * rounds * n_dev * n_pair * per_pair ))
	say "SMB benchmark: $rounds round(s) of $n_dev device(s) x $n_pair pairing(s) x $n_job job(s) of ${runtime}s," \
		"about $(( (rounds * n_dev * n_pair * per_pair + 120) / 60 )) min on an idle host; log in $outdir/bench-smb.log"
	bench_vm "$variant" "$outdir" "$outdir/bench-smb.log" "$limit"
	# A run that stopped early still has samples and failures worth
	# reporting: the table says it is incomplete.
	{
		bench_header "$cmdline" "$variant" "$outdir"
		grep -m 1 '^# kernel' "$outdir/bench-smb.log" | sed 's/^# /guest: /' || true
		echo
		report "$outdir/bench-smb.log"
	} | tee "$outdir/report.txt"
	if [ "$bench_rc" -ne 0 ]; then
		tail -n 40 "$outdir/bench-smb.log" >&2
		die "the benchmark run failed ($bench_rc); see $outdir/bench-smb.log"
	fi
}

main "$@"
