#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make stress`: the long versions of the churn and fault-injection suites
# (tests/stress/guest-stress.sh) in one VM boot, on the plain kernel by
# default (KVARIANT=debug for the debug one). Not part of make check; the
# figures it prints go to Documentation/testing.rst, "Stress".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The debug kernel's fuzzer runs alone take about 45 minutes (1,662 s
# drawn, 951 s dense: testing.rst), the rest several times the plain
# kernel's.
limit=5400
[ "${KVARIANT:-plain}" != debug ] || limit=14400
exec "$SMBD_TOP/scripts/vm.sh" --kernel "${KVARIANT:-plain}" --timeout "$limit" \
	--exec "$SMBD_TOP/tests/stress/guest-stress.sh" --out "$SMBD_OUT/stress-${KVARIANT:-plain}"
