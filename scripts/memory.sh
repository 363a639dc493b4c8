#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Measure what connections cost in one boot of the plain test kernel
# (KVARIANT=debug for the other). Not a test: the figures go to
# Documentation/admin-guide.rst, "Memory".
#
#   scripts/memory.sh         64 connections of the test service against an
#                             echo listener (tests/stress/guest-memory.sh)
#   scripts/memory.sh ksmbd   64 raw clients against our ksmbd, idle and
#                             with a half-sent 1 MiB message each
#                             (tests/stress/guest-memory-ksmbd.sh)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case "${1:-}" in
"") guest=guest-memory.sh out=memory ;;
ksmbd) guest=guest-memory-ksmbd.sh out=memory-ksmbd ;;
*) die "usage: scripts/memory.sh [ksmbd]" ;;
esac
exec "$SMBD_TOP/scripts/vm.sh" --kernel "${KVARIANT:-plain}" \
	--exec "$SMBD_TOP/tests/stress/$guest" --out "$SMBD_OUT/$out-${KVARIANT:-plain}"
