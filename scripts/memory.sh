#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Measure what connections cost (tests/stress/guest-memory.sh) in one boot
# of the plain test kernel (KVARIANT=debug for the other). Not a test: the
# figures go to Documentation/admin-guide.rst, "Memory".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

exec "$SMBD_TOP/scripts/vm.sh" --kernel "${KVARIANT:-plain}" \
	--exec "$SMBD_TOP/tests/stress/guest-memory.sh" --out "$SMBD_OUT/memory-${KVARIANT:-plain}"
