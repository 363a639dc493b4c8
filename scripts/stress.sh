#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make stress`: the long versions of the churn and fault-injection suites
# (tests/stress/guest-stress.sh) in one VM boot, on the plain kernel by
# default (KVARIANT=debug for the debug one). Not part of make check; the
# figures it prints go to Documentation/testing.rst, "Stress".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

exec "$SMBD_TOP/scripts/vm.sh" --kernel "${KVARIANT:-plain}" --timeout 5400 \
	--exec "$SMBD_TOP/tests/stress/guest-stress.sh" --out "$SMBD_OUT/stress-${KVARIANT:-plain}"
