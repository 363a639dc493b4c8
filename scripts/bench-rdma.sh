#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The RDMA read/write benchmark of issue 4 (a benchmark, not a test):
# scripts/bench.sh with its rdma section only. One boot of the plain
# kernel; on rxe and on siw, perftest's ib_write_bw/ib_read_bw against
# smbdirect's smbd_rdma_write()/smbd_rdma_read() (smbd_rdma_bench.ko) for
# 64 KiB, 1 MiB and 8 MiB, registration included and excluded, several
# rounds, medians and ratios. Output in out/bench-rdma/ unless --out.
#
#   scripts/bench-rdma.sh [any option of scripts/bench.sh]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

exec "$SMBD_TOP/scripts/bench.sh" --rdma --out "$SMBD_OUT/bench-rdma" "$@"
