#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make repeat`: every live KUnit suite RUNS times (default 20) in one boot
# of the plain kernel (KVARIANT=debug for the other), with no retry
# (tests/stress/guest-repeat.sh). Not part of make check: it answers "does
# any live suite fail now and then?", and its count goes to
# Documentation/testing.rst.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

runs=${RUNS:-20}
[[ $runs =~ ^[0-9]+$ ]] || die "RUNS must be a number"
kv=${KVARIANT:-plain}
out=$SMBD_OUT/repeat-$kv
mkdir -p "$out"
# vm.sh copies the --exec file into the VM; this one sets RUNS for the
# guest script, which the VM sees in the checkout mounted at /src.
printf '#!/bin/sh\nRUNS=%s exec sh /src/tests/stress/guest-repeat.sh\n' "$runs" >"$out/exec.sh"
exec "$SMBD_TOP/scripts/vm.sh" --kernel "$kv" --timeout $((runs * 900 + 600)) \
	--exec "$out/exec.sh" --out "$out"
