# SPDX-License-Identifier: GPL-2.0
#
# The test run inside the VM (sourced by guest-main.sh). Prints one KTAP document:
# the pipeline's own checks as top-level tests, and each KUnit module as a
# top-level test whose subtests are the module's suites, copied from
# /sys/kernel/debug/kunit/<suite>/results before the module is unloaded.

KT_N=0

uptime_s() { cut -d. -f1 /proc/uptime; }

# kt_mark NAME: say in the kernel log which test starts, so that a console
# report (an oops that ends the VM) can be tied to the test that caused it.
kt_mark() {
	echo "smbd-vm: test $1" >/dev/kmsg 2>/dev/null
}

kt_result() { # kt_result 0|1 NAME [DIAGNOSTIC...]
	_rc=$1 _name=$2
	shift 2
	for _d in "$@"; do
		echo "$_d" | sed 's/^/# /'
	done
	KT_N=$((KT_N + 1))
	if [ "$_rc" -eq 0 ]; then
		echo "ok $KT_N $_name"
	else
		echo "not ok $KT_N $_name"
	fi
}

# kt_run NAME COMMAND...: a test that passes when COMMAND exits 0.
kt_run() {
	_name=$1
	shift
	kt_mark "$_name"
	_t0=$(uptime_s)
	_out=$("$@" 2>&1)
	kt_result $? "$_name" "$_out" "took $(( $(uptime_s) - _t0 )) s"
}

kunit_suites() {
	ls /sys/kernel/debug/kunit 2>/dev/null | LC_ALL=C sort
}

# kt_kunit_once MODULE [PARAMS...]: load a KUnit module, write its suites'
# KTAP (indented one level) to /tmp/kt.out, unload it. Returns 0 when every
# suite passed, 1 on a failed test, 2 when the module did not load or ran
# no suite.
kt_kunit_once() {
	_mod=$1
	shift
	_before=$(kunit_suites)
	_out=$(modprobe "$_mod" "$@" 2>&1)
	_rc=$?
	_new=$(kunit_suites | grep -vxF "$_before")
	if [ "$_rc" -ne 0 ] || [ -z "$_new" ]; then
		echo "modprobe $_mod: rc=$_rc, suites: ${_new:-none}" "$_out" >/tmp/kt.out
		rmmod "$_mod" 2>/dev/null
		return 2
	fi
	_fail=0
	: >/tmp/kt.out
	for _s in $_new; do
		_res=/sys/kernel/debug/kunit/$_s/results
		sed 's/^/    /' "$_res" >>/tmp/kt.out
		grep -q '^[[:space:]]*not ok' "$_res" && _fail=1
		grep -q '^ok\|^not ok' "$_res" || _fail=1
	done
	_out=$(rmmod "$_mod" 2>&1) || { _fail=1; echo "# rmmod $_mod: $_out" >>/tmp/kt.out; }
	return $_fail
}

# kt_kunit MODULE [PARAMS...]: one KUnit module as one top-level test.
# No retry: a live suite that fails now and then is a bug to find (issue
# 15 removed the retry; `make repeat` runs the live suites many times).
kt_kunit() {
	_mod=$1
	kt_mark "kunit:$_mod"
	_t0=$(uptime_s)
	kt_kunit_once "$@"
	_rc=$?
	if [ "$_rc" -eq 2 ]; then
		kt_result 1 "kunit:$_mod" "$(cat /tmp/kt.out)"
		return
	fi
	cat /tmp/kt.out
	kt_result "$_rc" "kunit:$_mod" "took $(( $(uptime_s) - _t0 )) s"
}

devices_lists() { # devices_lists DEV: smbdirect's debugfs shows DEV, usable, port ACTIVE
	grep "^$1 " /sys/kernel/debug/smbdirect/devices | grep "port1=ACTIVE" |
		grep -q "verdict=usable"
}

devices_lacks() {
	! grep -q "^$1 " /sys/kernel/debug/smbdirect/devices
}

# Device removal while smbdirect is loaded: the entry goes, and comes back.
siw_remove_and_readd() {
	rdma link delete "$SIW_DEV" || return 1
	wait_for 10 devices_lacks "$SIW_DEV" || return 1
	rdma link add "$SIW_DEV" type siw netdev "$SIW_NETDEV" || return 1
	wait_for "$DEV_WAIT_S" port_active "$SIW_DEV" || return 1
	wait_for 10 devices_lists "$SIW_DEV"
}

# kmemleak_sites: one line per kmemleak report, "comm: frame < frame < frame",
# skipping the allocator's own frames. kmemleak records an empty backtrace
# when the stack depot cannot store one (GFP_NOWAIT); such a report gives
# "comm: no backtrace, size N".
kmemleak_sites() {
	awk '
	function flush() {
		if (comm != "") print comm ":" (site != "" ? site : " no backtrace, size " size)
		comm = ""; site = ""; n = 0
	}
	/^unreferenced object/ { flush(); size = $NF; gsub(/[^0-9]/, "", size); next }
	/^  comm "/ { split($0, q, "\""); comm = q[2]; gsub(/[0-9]+/, "N", comm); next }
	/^    \[</ {
		f = $2; sub(/\+.*/, "", f)
		if (f ~ /^(__)?(kmalloc|kmem_cache|kvmalloc|kzalloc|kcalloc|krealloc|alloc_|__alloc|slab|kmemleak|__do_kmalloc|kstrdup|kmemdup|__kmem)/) next
		if (n < 3) { site = site (n ? " < " : " ") f; n++ }
	}
	END { flush() }'
}

# kmemleak_counted: how many reports are ours: a frame of one of our modules
# (smbdirect, sqos, our cifs and ksmbd builds, the test modules and KUnit
# suites), or no backtrace at all from one of our test threads (KUnit's
# kunit_try_catch, the suites' tl_* and smbd-* threads, cifs's cifsd and
# ksmbd's threads), where nothing can clear us.
kmemleak_counted() {
	awk '
	function flush() {
		if (started && (ours || (!frames && comm ~ /^(kunit_try_catch|tl_[a-z]+|smbd[-_].*|cifsd|ksmbd.*)$/)))
			n++
		started = 0; ours = 0; frames = 0; comm = ""
	}
	/^unreferenced object/ { flush(); started = 1; next }
	/^  comm "/ { split($0, q, "\""); comm = q[2]; next }
	/^    \[</ {
		frames++
		if ($0 ~ /\[(smbdirect|sqos|cifs|ksmbd|smbd_test|smbd_rdma_bench|smbd_inject|[a-z_]+_kunit)\]/)
			ours = 1
	}
	END { flush(); print n + 0 }'
}

kmemleak_ours() { # fails when kmemleak reports a leak that is, or may be, ours
	_km=/sys/kernel/debug/kmemleak
	sleep 6
	echo scan >$_km
	echo scan >$_km
	_rep=$(cat $_km)
	[ -z "$_rep" ] && return 0
	# Say whose the reports are: the commonest allocation sites, by task
	# and the first frames past the allocator.
	_sites=$(echo "$_rep" | kmemleak_sites)
	echo "$(echo "$_sites" | wc -l) leak reports in all"
	echo "$_sites" | sort | uniq -c | sort -rn | head -n 8
	echo "the first report whole:"
	echo "$_rep" | awk '/^unreferenced object/ && n++ { exit } { print }'
	_n=$(echo "$_rep" | kmemleak_counted)
	if [ "$_n" -gt 0 ]; then
		echo "$_n of them ours (or unattributable from our threads):"
		echo "$_rep" | head -n 60
		return 1
	fi
	return 0
}

run_check() {
	_inject=$1
	echo "KTAP version 1"
	kt_run "vm: rdma devices up" rdma_setup
	kt_result 0 "vm: kernel $(uname -r)"
	if [ -e /sys/kernel/debug/kmemleak ]; then
		# Only what is allocated from here on can count against us.
		echo scan >/sys/kernel/debug/kmemleak
		echo clear >/sys/kernel/debug/kmemleak
	fi

	if [ -n "$_inject" ]; then
		kt_kunit smbd_inject mode="$_inject"
		echo "1..$KT_N"
		return
	fi

	kt_run "modprobe smbdirect" modprobe smbdirect
	kt_run "modprobe sqos" modprobe sqos
	kt_run "smbdirect sees $RXE_DEV" wait_for 10 devices_lists "$RXE_DEV"
	kt_run "smbdirect sees $SIW_DEV" wait_for 10 devices_lists "$SIW_DEV"
	cat /sys/kernel/debug/smbdirect/devices | sed 's/^/# /'

	# Pure suites first, then the ones that need rxe and siw.
	for _ko in $(ls /lib/modules/"$(uname -r)"/extra/*_kunit.ko | grep -v '_live_kunit.ko$') \
		   $(ls /lib/modules/"$(uname -r)"/extra/*_live_kunit.ko 2>/dev/null); do
		kt_kunit "$(basename "$_ko" .ko)"
	done

	# tests/vm/*.sh; lib.sh there is their helpers, not a test.
	for _t in /smbd/tests/*.sh; do
		[ -e "$_t" ] || continue
		[ "$_t" != /smbd/tests/lib.sh ] || continue
		kt_run "shell:$(basename "$_t" .sh)" sh "$_t"
	done

	kt_run "device removal seen by smbdirect" siw_remove_and_readd
	kt_run "rmmod sqos" rmmod sqos
	kt_run "rmmod smbdirect" rmmod smbdirect
	if [ -e /sys/kernel/debug/kmemleak ]; then
		kt_run "kmemleak: nothing of ours" kmemleak_ours
	fi
	echo "1..$KT_N"
}
