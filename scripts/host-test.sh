#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The KUnit suites on this machine, without the VM: the pure suites, and,
# with the RDMA devices named on the command line (soft rxe and siw, or real
# hardware), the live suites.
#
#   scripts/host-test.sh [--kdir DIR | --modules DIR] [--pure-only]
#                        [--roce DEV,NETDEV,ADDR] [--iwarp DEV,NETDEV,ADDR]
#                        [--peer NETDEV] [--timeout-ms N]
#
#   --kdir DIR      the running kernel's build tree (default
#                   /lib/modules/$(uname -r)/build); the modules, KUnit suites
#                   included (SMBDX_TESTS=1), are built in out/build-host/
#   --modules DIR   use modules built already: smbdirect.ko, sqos.ko and the
#                   *_kunit.ko anywhere under DIR
#   --roce DEV,NETDEV,ADDR   an InfiniBand or RoCE device (rxe0, mlx5_0), the
#                   interface under it and an IPv4 address of that interface
#   --iwarp DEV,NETDEV,ADDR  an iWARP device (siw0, cxgb4_0, irdma in iWARP
#                   mode), likewise
#   --peer NETDEV   an interface without an RDMA device: smbdirect_netdev_live
#                   links stand-in team masters over the RoCE interface and
#                   over this one for a moment; without --peer that suite is
#                   left out
#   --pure-only     only the suites that need no device
#   --timeout-ms N  how long each step of a live case may take (default 30000)
#
# The live suites need both --roce and --iwarp (each case runs on both);
# a device that is missing or whose port is not ACTIVE fails the run. They
# connect client and server on this host, on the default SMB Direct ports
# (445, 5445) and others: nothing else may listen there (stop ksmbd first).
# Needs root, rdma_cm, debugfs, and a kernel with CONFIG_KUNIT and
# CONFIG_KUNIT_DEBUGFS (distribution kernels have neither; the test
# kernel's configuration, scripts/kconfig/, has both). smbdirect and sqos
# are loaded from the modules given unless they are loaded already.
#
# Prints each module's KTAP, kernel log lines that report a problem (BUG,
# WARNING, KASAN, lockdep...), and ends with "N passed, N failed"; exits 0
# only when every test passed and the kernel reported nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	sed -n '3,/^set -e/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

main() {
	local kdir mods="" pure=0 roce="" iwarp="" peer="" tmo=30000
	kdir="/lib/modules/$(uname -r)/build"
	while [ $# -gt 0 ]; do
		case "$1" in
		--kdir) kdir=$2; shift 2 ;;
		--modules) mods=$2; shift 2 ;;
		--pure-only) pure=1; shift ;;
		--roce) roce=$2; shift 2 ;;
		--iwarp) iwarp=$2; shift 2 ;;
		--peer) peer=$2; shift 2 ;;
		--timeout-ms) tmo=$2; shift 2 ;;
		-h|--help) usage 0 ;;
		*) echo "unknown argument: $1" >&2; usage 2 ;;
		esac
	done
	[ "$(id -u)" -eq 0 ] || die "needs root (it loads kernel modules)"
	if [ "$pure" -eq 0 ] && { [ -z "$roce" ] || [ -z "$iwarp" ]; }; then
		die "the live suites need --roce and --iwarp (or give --pure-only)"
	fi

	if [ -z "$mods" ]; then
		[ -f "$kdir/Makefile" ] || die "no kernel build tree at $kdir (--kdir, or --modules)"
		mods="$SMBD_OUT/build-host"
		mkdir -p "$mods"
		smbd_sync_src "$mods/src" "$kdir"
		say "building the modules and KUnit suites against $kdir"
		make -C "$kdir" M="$mods/src" SMBDX_TESTS=1 -j"$SMBD_JOBS" modules \
			>"$mods/build.log" 2>&1 || { cat "$mods/build.log"; die "build failed"; }
	fi
	local ko
	ko=$(find "$mods" -name smbdirect.ko | head -n 1)
	[ -n "$ko" ] || die "no smbdirect.ko under $mods"
	[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$(uname -r)" ] ||
		die "$ko is not built for the running kernel $(uname -r)"

	grep -q " /sys/kernel/debug debugfs " /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug
	modprobe -q kunit 2>/dev/null || true
	[ -d /sys/kernel/debug/kunit ] ||
		die "this kernel has no KUnit with debugfs (CONFIG_KUNIT, CONFIG_KUNIT_DEBUGFS): the suites cannot run here"
	modprobe rdma_cm || die "modprobe rdma_cm"
	local m
	for m in smbdirect sqos; do
		if [ -d "/sys/module/$m" ]; then
			say "$m is loaded already (version $(cat "/sys/module/$m/version" 2>/dev/null || echo ?)): using it"
		else
			insmod "$(find "$mods" -name "$m.ko" | head -n 1)" || die "insmod $m.ko"
		fi
	done

	local params=() role dev nd addr
	if [ "$pure" -eq 0 ]; then
		for role in rxe:"$roce" siw:"$iwarp"; do
			IFS=, read -r dev nd addr <<<"${role#*:}"
			[ -n "$addr" ] || die "--${role%%:*} wants DEV,NETDEV,ADDR"
			grep -q ACTIVE "/sys/class/infiniband/$dev/ports/1/state" 2>/dev/null ||
				die "RDMA device $dev: missing, or its port 1 is not ACTIVE"
			ip -4 addr show dev "$nd" 2>/dev/null | grep -q "inet $addr/" ||
				die "$nd does not have the address $addr"
			params+=("${role%%:*}_dev=$dev" "${role%%:*}_netdev=$nd" "${role%%:*}_addr=$addr")
		done
		params+=("timeout_ms=$tmo")
		[ -z "$peer" ] || params+=("rxe_peer=$peer")
	fi

	local work results
	work=$(mktemp -d)
	results="$work/results"
	echo "smbd-host-test: start" >/dev/kmsg
	local mod name passed=0 failed=0 skipped=0 n=0
	echo "KTAP version 1" >"$results"
	# Pure suites first. (Files, not process substitution: /dev/fd may be
	# missing, as in the test VM.)
	find "$mods" -name '*_kunit.ko' | awk '{ print (/_live_kunit/ ? 1 : 0) " " $0 }' |
		LC_ALL=C sort | cut -d' ' -f2- >"$work/modules"
	while read -r mod; do
		name=$(basename "$mod" .ko)
		case "$name" in
		*_live_kunit)
			[ "$pure" -eq 0 ] || continue
			if [ "$name" = smbdirect_netdev_live_kunit ] && [ -z "$peer" ]; then
				say "$name left out: it needs --peer"
				continue
			fi ;;
		esac
		n=$((n + 1))
		run_module "$mod" "$n" "${params[@]}" >>"$results"
	done <"$work/modules"
	echo "1..$n" >>"$results"
	cat "$results"
	count_leaves "$results" >"$work/counts"
	read -r passed failed skipped <"$work/counts"
	dmesg | sed -n '/smbd-host-test: start/,$p' >"$work/kernel.log"
	if grep -E 'BUG: |WARNING: |Oops|KASAN|UBSAN|possible circular locking|inconsistent lock state|Call Trace:' \
		"$work/kernel.log"; then
		echo "host-test: the kernel reported problems (above)"
		failed=$((failed + 1))
	fi
	[ $((passed + failed)) -gt 0 ] || { echo "host-test: no test ran"; failed=$((failed + 1)); }
	rm -rf "$work"
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ]
}

# run_module KO N PARAM...: load one KUnit module with the parameters it
# has, print its suites' KTAP as subtests of top-level test N, unload it.
run_module() {
	local ko=$1 n=$2 name before new s rc=0 out p
	shift 2
	name=$(basename "$ko" .ko)
	local have=() want=()
	mapfile -t have <<<"$(modinfo -F parm "$ko" | cut -d: -f1)"
	for p in "$@"; do
		printf '%s\n' "${have[@]}" | grep -qx "${p%%=*}" && want+=("$p")
	done
	before=$(suites)
	out=$(insmod "$ko" "${want[@]}" 2>&1) || rc=$?
	new=$(suites | grep -vxF "$before" || true)
	if [ "$rc" -ne 0 ] || [ -z "$new" ]; then
		echo "# insmod $name: status $rc, suites: ${new:-none}: $out"
		echo "not ok $n $name"
		rmmod "$name" 2>/dev/null || true
		return
	fi
	rc=0
	for s in $new; do
		sed 's/^/    /' "/sys/kernel/debug/kunit/$s/results"
		grep -q '^[[:space:]]*not ok' "/sys/kernel/debug/kunit/$s/results" && rc=1
	done
	out=$(rmmod "$name" 2>&1) || { rc=1; echo "# rmmod $name: $out"; }
	if [ "$rc" -eq 0 ]; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
	fi
}

suites() {
	local d
	for d in /sys/kernel/debug/kunit/*/; do
		d=${d%/}
		echo "${d##*/}"
	done
}

# count_leaves FILE: "passed failed skipped" over the leaf results of KTAP
# (a result with no results nested under it: a case, or a parameter).
count_leaves() {
	awk '
	match($0, /^ *(not ok|ok) [0-9]+/) {
		line = $0
		sub(/^ */, "", line)
		d = length($0) - length(line)
		leaf = !(d in kids) || !kids[d]
		if (leaf && line ~ /# *SKIP/) {
			s++
		} else if (leaf && line ~ /^not ok/) {
			f++
			nf++
		} else if (leaf) {
			p++
		} else if (d == 0 && line ~ /^not ok/ && !nf) {
			f++	# a module that failed with no failing case (rmmod)
		}
		if (d == 0)
			nf = 0
		kids[d] = 0
		for (k = 0; k < d; k++)
			kids[k] = 1
	}
	END { print p + 0, f + 0, s + 0 }' "$1"
}

main "$@"
