#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The long stress runs (`make stress`, scripts/stress.sh), inside the VM
# (2 GiB, rxe and siw up, modules loaded): each KUnit module is loaded with
# the larger figures of Documentation/testing.rst "Stress" and its suites'
# results printed. Exit 0 when every suite passed.
#   - churn: 1,000 connections per device from a raw peer, half of them
#     hostile, then the drain and the slab;
#   - fault points: every point armed in turn during traffic, three rounds;
#   - the transport suite's message and connection cases, as in make check;
#   - push mode's ordering case with 1,000 write + commit rounds per
#     device (smbdirect_push_live rounds=1000; make check runs 300 and 150);
#   - 10.5 GiB through messages and RDMA read/write, every byte checked
#     (tests/vm/smbd_checked_data.sh with larger sizes);
#   - 100 device removals per device during RDMA read/write
#     (tests/vm/smbd_removal_rw.sh);
#   - the fuzzer: 100,000 seeded negotiate and data messages from a raw
#     verbs peer, 25,000 per device and role, mutated as drawn; then
#     104,000 in its dense mode, at least 100,000 of them mutated
#     (tests/vm/smbd_fuzz.sh);
#   - Storage QoS: a flow at Limit = 1 with 4096 READs in flight, 1024 of
#     them held back for up to a minute, beside an untagged fio load
#     measured for 20 s (part 6 of tests/vm/sqos_smb.sh);
#   - the bad-peer suite with 20 rounds of kill -9 of a cifs mount before,
#     during and around a failed negotiation, on each device
#     (tests/vm/smb_shim_badpeer.sh, BADPEER_REPS=20).
rc=0

run() { # run MODULE [PARAMS...]
	_m=$1
	shift
	_t0=$(cut -d. -f1 /proc/uptime)
	modprobe "$_m" "$@" || { echo "modprobe $_m failed"; rc=1; return; }
	for _s in /sys/kernel/debug/kunit/*; do
		[ -f "$_s/results" ] || continue
		grep -v "^ *ok \|KTAP\|# Subtest" "$_s/results"
		grep -q "^not ok" "$_s/results" && rc=1
	done
	rmmod "$_m"
	echo "# $_m $*: $(( $(cut -d. -f1 /proc/uptime) - _t0 )) s"
}

script() { # script NAME [VAR=VALUE...]: a tests/vm script with settings
	_s=$1
	shift
	_t0=$(cut -d. -f1 /proc/uptime)
	env "$@" sh "/src/tests/vm/$_s.sh" || { echo "$_s failed"; rc=1; }
	echo "# $_s $*: $(( $(cut -d. -f1 /proc/uptime) - _t0 )) s"
}

grep -E "MemTotal|Slab|SUnreclaim" /proc/meminfo
run smbdirect_churn_live_kunit churn_n=1000
grep -E "Slab|SUnreclaim" /proc/meminfo
for round in 1 2 3; do
	run smbdirect_fault_live_kunit
done
run smbdirect_transport_live_kunit
run smbdirect_push_live_kunit rounds=1000
grep -E "Slab|SUnreclaim" /proc/meminfo
grep "connections\|sends_reclaimed" /sys/kernel/debug/smbdirect/stats
script smbd_checked_data MSG_MIB=256 RXE_RDMA_MIB=512 SIW_RDMA_MIB=4608
script smbd_removal_rw REMOVALS=100
script smbd_fuzz FUZZ_MSGS=25000 FUZZ_SEED=1 FUZZ_DENSE=0
script smbd_fuzz FUZZ_MSGS=26000 FUZZ_SEED=101 FUZZ_DENSE=1 FUZZ_MIN_MUTATED=100000
script sqos_smb SQOS_HOG_ONLY=1 SQOS_HOG_READS=4096 SQOS_HOG_SECS=20 \
	SQOS_HOG_DELAY_MS=60000 SQOS_HOG_HELD=1024
script smb_shim_badpeer BADPEER_REPS=20
grep -E "Slab|SUnreclaim" /proc/meminfo
grep "connections\|sends_reclaimed\|connect_killed" /sys/kernel/debug/smbdirect/stats
exit $rc
