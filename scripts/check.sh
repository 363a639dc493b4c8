#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every test of the project (`make check`):
#   1. checkpatch --strict over our sources, a sparse (C=2) build, the
#      tests of ktap.py, which judges every VM run, and the user's build and
#      install against Debian's packaged headers (scripts/check-install.sh),
#      the Debian packages and a DKMS build (scripts/check-deb.sh);
#   2. on the plain and on the debug (KASAN, lockdep, kmemleak, UBSAN) test
#      kernel: build the modules with W=1, boot the VM, run all KUnit
#      modules and the shell tests (scripts/vm.sh);
#   3. the pipeline self-test: a deliberately failing KUnit case and a
#      deliberate WARN must each make a run fail;
#   4. Debian's own kernel image with our packages installed by dpkg
#      (scripts/vm.sh --kernel debian), after the plain run and the
#      self-test, while the debug run goes on.
# Ends with one line "N passed, N failed". SMBD_KERNELS="plain" limits the
# kernels (default "plain debug"); SMBD_SELFTEST=0 skips step 3,
# SMBD_DEBIAN_IMAGE=0 step 4.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# One function, read whole before it runs: editing this file while a run
# is in progress cannot derail that run.
main() {
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
	step "exported API: names, namespaces, kernel-doc, api.rst" \
		"$SMBD_TOP/scripts/check-api.sh"
	step "the run judge's own tests" python3 -B "$SMBD_TOP/scripts/ktap_test.py"
	step "build against Debian's linux-headers, make install/uninstall" \
		"$SMBD_TOP/scripts/check-install.sh"
	step "make deb (debhelper, dh_dkms), lintian, dpkg-deb -c, dkms build" \
		"$SMBD_TOP/scripts/check-deb.sh"
	step "smbdctl against a made-up debugfs tree" "$SMBD_TOP/scripts/check-smbdctl.sh"
	step "YNL spec of the netlink family against the schema and ctl.h" \
		"$SMBD_TOP/scripts/check-ynl.sh"

	# Build every kernel first (sequentially: each build uses all cores), then
	# run the VMs side by side: a TCG guest keeps one host core busy, and the
	# slow debug run then costs no extra wall time.
	kernels=()
	for k in ${SMBD_KERNELS:-plain debug}; do
		t=$(date +%s)
		if "$SMBD_TOP/scripts/kernel.sh" "$k" >/dev/null; then
			say "$k kernel ready after $(( $(date +%s) - t )) s"
			kernels+=("$k")
		else
			failed=$((failed + 1))
			echo "check: FAILED: building the $k kernel"
		fi
	done

	declare -A pid=() vmrc=()
	for k in "${kernels[@]}"; do
		rm -f "$SMBD_OUT/$k-check/counts" "$SMBD_OUT/$k-check/summary"
		rm -rf "$SMBD_OUT/$k-check-boot1"
		mkdir -p "$SMBD_OUT"
		"$SMBD_TOP/scripts/vm.sh" --kernel "$k" >"$SMBD_OUT/$k-check.log" 2>&1 &
		pid[$k]=$!
		# Start the next run once this one's module build is done, so the
		# builds do not race for the cores.
		while kill -0 "$!" 2>/dev/null && ! grep -q '^==> booting' "$SMBD_OUT/$k-check.log"; do
			sleep 1
		done
	done

	if [ "${SMBD_SELFTEST:-1}" != 0 ] && [ -n "${pid[plain]:-}" ]; then
		# Wait for the plain run (it built the modules the self-test reuses).
		wait "${pid[plain]}"
		vmrc[plain]=$?
		for m in fail warn; do
			step "pipeline notices a deliberate KUnit $m" \
				"$SMBD_TOP/scripts/vm.sh" --kernel plain --inject "$m" --no-build
		done
	fi

	# Debian's kernel image, with the packages check-deb.sh built above:
	# after the plain run and the self-test, beside the debug run, so that
	# it costs no wall time while the debug run is the longest.
	if [ "${SMBD_DEBIAN_IMAGE:-1}" != 0 ]; then
		if [ -n "${pid[plain]:-}" ] && [ -z "${vmrc[plain]:-}" ]; then
			wait "${pid[plain]}"
			vmrc[plain]=$?
		fi
		rm -rf "$SMBD_OUT/debian-check"
		t=$(date +%s)
		"$SMBD_TOP/scripts/vm.sh" --kernel debian --no-build >"$SMBD_OUT/debian-check.log" 2>&1
		say "Debian image stage took $(( $(date +%s) - t )) s"
	fi

	for k in "${kernels[@]}"; do
		if [ -z "${vmrc[$k]:-}" ]; then
			wait "${pid[$k]}"
			vmrc[$k]=$?
		fi
		if [ "${vmrc[$k]}" -eq 3 ]; then
			# The kernel's own boot reported a problem before any module
			# of ours was loaded, and every test passed: boot once more.
			# A second failure of any kind counts.
			cat "$SMBD_OUT/$k-check.log"
			echo "[$k-check] FLAKY: kernel report during boot only; booting again"
			rm -rf "$SMBD_OUT/$k-check-boot1"
			mv "$SMBD_OUT/$k-check" "$SMBD_OUT/$k-check-boot1"
			"$SMBD_TOP/scripts/vm.sh" --kernel "$k" --no-build \
				>"$SMBD_OUT/$k-check.log" 2>&1
		fi
	done
	wait
	for k in "${kernels[@]}"; do
		cat "$SMBD_OUT/$k-check.log"
		add_counts "$SMBD_OUT/$k-check/counts"
	done
	if [ "${SMBD_DEBIAN_IMAGE:-1}" != 0 ]; then
		cat "$SMBD_OUT/debian-check.log"
		add_counts "$SMBD_OUT/debian-check/counts"
	fi

	# The last lines of a CI log may be all its reader sees: repeat, briefly,
	# why a run failed and what passed only on retry.
	for k in "${kernels[@]}"; do
		[ ! -f "$SMBD_OUT/$k-check-boot1/summary" ] ||
			sed 's/^\[\([^]]*\)\]/[\1, first boot]/' "$SMBD_OUT/$k-check-boot1/summary"
		[ ! -f "$SMBD_OUT/$k-check/summary" ] || cat "$SMBD_OUT/$k-check/summary"
		[ -f "$SMBD_OUT/$k-check/counts" ] || echo "[$k-check] no result: see $SMBD_OUT/$k-check.log"
	done
	if [ "${SMBD_DEBIAN_IMAGE:-1}" != 0 ]; then
		[ ! -f "$SMBD_OUT/debian-check/summary" ] || cat "$SMBD_OUT/debian-check/summary"
		[ -f "$SMBD_OUT/debian-check/counts" ] ||
			echo "[debian-check] no result: see $SMBD_OUT/debian-check.log"
	fi
	say "make check took $(( $(date +%s) - t0 )) s"
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ]
}

main "$@"
