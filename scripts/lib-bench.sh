# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the benchmarks scripts/bench.sh and scripts/bench-smb.sh share
# (sourced after scripts/lib.sh, not run): the statistics of their reports
# (the median of the rounds, the rounds' ratios' median and range, an aim
# met or missed) as awk functions both reports put before their own awk
# text, and the run: one VM boot with OUTDIR/exec.sh while the host's
# load is sampled, and the report's first lines.

# BENCH_AWK: awk functions; use as awk "$BENCH_AWK"'PROGRAM'.
#   median(a, n)     sorts a[1..n] in place, numerically, and returns their
#                    median ("" if n is 0): the middle value as it was
#                    read, or the mean of the two middle ones
#   spread(a, n)     median(a, n), and sets lo and hi to the lowest and
#                    the highest of them ("" if n is 0)
#   met(q, op, lim)  whether q is ge (>=) or le (<=) lim
# shellcheck disable=SC2034 # used by the scripts that source this file
BENCH_AWK='
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	if (!n)
		return ""
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function spread(a, n,    q) {
	q = median(a, n)
	lo = n ? a[1] : ""
	hi = n ? a[n] : ""
	return q
}
function met(q, op, lim) {
	return op == "ge" ? q >= lim : q <= lim
}
'

# QEMU processes on the host other than this run's VM (whose command line
# names $1, the run's output directory).
other_vms() {
	pgrep -af '^qemu-system' | grep -cvF "$1/vm/" || true
}

# What else ran on the host: the load and other TCG guests.
host_load() { # host_load OUTDIR
	echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(other_vms "$1") other VM(s) running"
}

# Every 5 s: time, other QEMU processes, 1-minute load average.
host_sampler() { # host_sampler OUTDIR
	while :; do
		echo "$(date +%s) $(other_vms "$1") $(cut -d' ' -f1 /proc/loadavg)"
		sleep 5
	done
}

host_summary() { # host_summary SAMPLES
	awk '{ n++; if ($2 > 0) busy++; if ($2 > m) m = $2; l += $3 }
	     END { if (n) printf "during the run: other VMs running in %d of %d samples (at most %d at once), mean load %.1f\n", busy, n, m, l / n }' "$1"
}

# bench_vm VARIANT OUTDIR LOG TIMEOUT: one VM boot running OUTDIR/exec.sh
# (scripts/vm.sh --exec, its output in LOG, the VM's own in OUTDIR/vm),
# the host sampled meanwhile into OUTDIR/host-load.log. Sets bench_before
# and bench_after (host_load then), bench_start (date +%s) and bench_rc
# (vm.sh's status).
bench_vm() {
	local sampler
	bench_before=$(host_load "$2")
	bench_start=$(date +%s)
	host_sampler "$2" >"$2/host-load.log" &
	sampler=$!
	# shellcheck disable=SC2064 # $sampler is expanded now, on purpose
	trap "kill $sampler 2>/dev/null || true" EXIT
	bench_rc=0
	"$SMBD_TOP/scripts/vm.sh" --kernel "$1" --exec "$2/exec.sh" \
		--out "$2/vm" --timeout "$4" >"$3" 2>&1 || bench_rc=$?
	kill "$sampler" 2>/dev/null || true
	bench_after=$(host_load "$2")
}

# bench_header COMMAND VARIANT OUTDIR: the report's first lines, after
# bench_vm: the command, when and how long, the host's load.
bench_header() {
	echo "Command: $1 (kernel $2), $(date -u '+%Y-%m-%d %H:%M UTC'), $(( $(date +%s) - bench_start )) s"
	echo "before: $bench_before"
	echo "after:  $bench_after"
	host_summary "$3/host-load.log"
}
