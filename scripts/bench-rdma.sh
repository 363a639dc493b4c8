#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# RDMA read/write benchmark of issue 4 (a benchmark, not a test): one VM
# boot (plain kernel), on rxe and on siw, raw verbs (ib_write_bw /
# ib_read_bw) against smbdirect's smbd_rdma_write()/smbd_rdma_read() with
# registration per transfer (reg=each) and once (reg=once), for 64 KiB,
# 1 MiB and 8 MiB. Prints a table with smbdirect/raw ratios.
#
#   scripts/bench-rdma.sh [--out DIR]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	local out="$SMBD_OUT/bench-rdma"

	if [ "${1:-}" = --out ]; then
		out=$2
	fi
	mkdir -p "$out"
	"$SMBD_TOP/scripts/vm.sh" --exec "$SMBD_TOP/scripts/vm/bench_rdma.sh" \
		--out "$out" --timeout 2400 >"$out/run.log" 2>&1 || true
	awk '$1 == "result" { v[$2" "$3" "$4" "$5] = $6
			      if (!(($2" "$3" "$4) in k)) { k[$2" "$3" "$4] = 1; keys[++n] = $2" "$3" "$4 } }
	     END {
		printf "%-4s %-5s %8s %10s %10s %6s %10s %6s\n", "dev", "op", "size",
		       "raw MB/s", "once MB/s", "ratio", "each MB/s", "ratio"
		for (i = 1; i <= n; i++) {
			key = keys[i]; r = v[key" raw"]; o = v[key" smbd_once"]; e = v[key" smbd_each"]
			split(key, f, " ")
			printf "%-4s %-5s %8s %10s %10s %6s %10s %6s\n", f[1], f[2], f[3], r, o,
			       (r > 0 ? sprintf("%.2f", o / r) : "-"), e,
			       (r > 0 ? sprintf("%.2f", e / r) : "-")
		}
	     }' "$out/results.log" | tee "$out/report.txt"
}

main "$@"
