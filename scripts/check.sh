#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every test of the project (`make check`):
#   1. checkpatch --strict over our sources, and a sparse (C=2) build;
#   2. on the plain and on the debug (KASAN, lockdep, kmemleak, UBSAN) test
#      kernel: build the modules with W=1, boot the VM, run all KUnit
#      modules and the shell tests (scripts/vm.sh);
#   3. the pipeline self-test: a deliberately failing KUnit case and a
#      deliberate WARN must each make a run fail.
# Ends with one line "N passed, N failed". SMBD_KERNELS="plain" limits the
# kernels (default "plain debug"); SMBD_SELFTEST=0 skips step 3.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$SMBD_TOP/scripts/setup.sh" || die "setup failed"

passed=0
failed=0
skipped=0
t0=$(date +%s)

step() { # step NAME COMMAND...: one pass/fail line of its own
	local name=$1
	shift
	if "$@"; then
		passed=$((passed + 1))
		echo "check: ok: $name"
	else
		failed=$((failed + 1))
		echo "check: FAILED: $name"
	fi
}

add_counts() { # add the counts file of one VM run
	local p f s
	if [ -f "$1" ] && read -r p f s <"$1"; then
		passed=$((passed + p))
		failed=$((failed + f))
		skipped=$((skipped + s))
	else
		failed=$((failed + 1))
	fi
}

step "checkpatch --strict" "$SMBD_TOP/scripts/checkpatch.sh"
step "sparse and W=1" "$SMBD_TOP/scripts/sparse.sh"

for k in ${SMBD_KERNELS:-plain debug}; do
	t=$(date +%s)
	"$SMBD_TOP/scripts/kernel.sh" "$k" >/dev/null || { failed=$((failed + 1));
		echo "check: FAILED: building the $k kernel"; continue; }
	say "$k kernel ready after $(( $(date +%s) - t )) s"
	rm -f "$SMBD_OUT/$k-check/counts"
	"$SMBD_TOP/scripts/vm.sh" --kernel "$k"
	add_counts "$SMBD_OUT/$k-check/counts"
	say "$k kernel: tests took $(( $(date +%s) - t )) s in all"
done

if [ "${SMBD_SELFTEST:-1}" != 0 ]; then
	for m in fail warn; do
		step "pipeline notices a deliberate KUnit $m" \
			"$SMBD_TOP/scripts/vm.sh" --kernel plain --inject "$m" --no-build
	done
fi

say "make check took $(( $(date +%s) - t0 )) s"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
