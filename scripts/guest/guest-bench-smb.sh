#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The in-VM part of the SMB-level benchmark (scripts/bench-smb.sh on the host
# runs it with scripts/vm.sh --exec): fio and dbench on a cifs mount over SMB
# Direct, for each pairing of client and server, stock (Linux's own cifs.ko and
# ksmbd.ko with their built-in SMB Direct, loaded by path) and ours (the
# shim builds on smbdirect.ko, loaded with modprobe), on rxe and on siw, in
# one boot. Not a test: it measures, it does not judge.
#
# Settings, set by the host's wrapper before it sources this file:
#   SMB_ROUNDS    rounds; every cell (device, pairing, job) is measured once
#                 per round (default 3)
#   SMB_RUNTIME   seconds of I/O per fio job (default 10)
#   SMB_DEVICES   "rxe siw" or one of them (the other is then removed
#                 before the first round)
#   SMB_PAIRS     pairings CLIENT-SERVER, each stock or ours (default all
#                 four: stock-stock ours-ours ours-stock stock-ours); the
#                 rounds come in mirrored twos: an even round runs the
#                 pairings in the odd round's order backwards, so that of
#                 any two pairings each runs first once in every two
#                 rounds, and every two rounds the order is rotated by one
#                 so that no pairing is always the first after a device's
#                 start (pair_order)
#   SMB_JOBS      jobs, run in this order on each pairing's mount: fio jobs
#                 RW-BS-DEPTH (RW one of fio's read, write, randread,
#                 randwrite; BS as fio takes it, 4k, 64k, 1m; DEPTH the
#                 libaio queue depth) and dbench-N (Debian's dbench with its
#                 own load file, client.txt, N clients)
#   SMB_SIZE_MB   size of the file the jobs work on (default 64)
#   SMB_TRACE     1: every fio job at depth 1 runs traced (trace_on), and
#                 its I/Os' time is split into the steps of one request
#                 (trace_split); meant for randread-4k-1 and randwrite-4k-1
#
# Output: "#" comments, what fio printed (terse), the guest's CPU use, and
# one line per measured value and per failed measurement for the host to
# reduce:
#   sample ROUND DEVICE PAIR JOB METRIC VALUE
#   fail ROUND DEVICE PAIR JOB REASON...
#   split ROUND DEVICE PAIR JOB STEP N MEAN P50 P90   (SMB_TRACE=1)
# METRIC of a fio job: iops, mibps (2^20 bytes/s), p50_us and p99_us (fio's
# total latency percentiles, from the I/O's submission to its completion),
# cpu_us (the guest's busy CPU time, both vCPUs, over the fio run divided
# by the I/Os it completed: client, server and soft device together, since
# all three run in this guest). Of a dbench job: mbps (dbench's throughput,
# 10^6 bytes/s, over its timed phase) and maxlat_ms (dbench's max_latency:
# the slowest single operation of any client, in ms).
#
# The script runs alone in the VM; it uses /tmp (tmpfs) for the share.
. /smbd/guest-lib.sh

SMB_ROUNDS=${SMB_ROUNDS:-3}
SMB_RUNTIME=${SMB_RUNTIME:-10}
SMB_DEVICES=${SMB_DEVICES:-"rxe siw"}
SMB_PAIRS=${SMB_PAIRS:-"stock-stock ours-ours ours-stock stock-ours"}
SMB_JOBS=${SMB_JOBS:-"randread-4k-1 randread-4k-16 randwrite-4k-1 randwrite-4k-16 read-64k-4 write-64k-4 read-1m-4 write-1m-4 dbench-4"}
SMB_SIZE_MB=${SMB_SIZE_MB:-64}
SMB_TRACE=${SMB_TRACE:-0}
# dbench's load file, unpacked from the VM's userland (mkinitramfs.sh)
DBENCH_LOAD=/tmp/dbench-client.txt

D=/sys/kernel/debug/smbdirect
K=/tmp/bench-smb
MNT=/tmp/bench-smb-mnt
FILE=bench.dat
SMB_USER=bench
SMB_PASS=bench-pass
round=0
failures=0

# fail DEV PAIR JOB REASON...: a measurement that produced no sample; the
# host lists it and counts it against its cell.
fail() {
	_fd=$1 _fp=$2 _fj=$3
	shift 3
	echo "fail $round $_fd $_fp $_fj $*"
	failures=$((failures + 1))
}

# fail_all DEV PAIR REASON...: every job of a pairing lost (no mount).
fail_all() {
	_ad=$1 _ap=$2
	shift 2
	for _aj in $SMB_JOBS; do
		fail "$_ad" "$_ap" "$_aj" "$@"
	done
}

# The kernel's view when something failed: the SMB and smbdirect lines of
# the log, the last few only.
klog() {
	dmesg | grep -E 'CIFS|cifs|ksmbd|smbdirect|smb_direct' | tail -n 15 | sed 's/^/#   /'
}

# cpu_ticks FILE: from the "cpu" line of /proc/stat saved in FILE, the
# guest's CPU time, both vCPUs together, in USER_HZ ticks: "busy total"
# (idle and iowait are not busy; an idle vCPU halts).
cpu_ticks() {
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= 9; i++) t += $i
		print t - $5 - $6, t; exit }' "$1" 2>/dev/null
}

# What moved during a job, to tell a slow cell's cause from the log: the
# soft device's own counters (rdma statistic: packets, retries, sequence
# errors, RNR) and smbdirect's global counters (which only our modules
# move), non-zero changes only.
counters_mark() { # counters_mark DEV
	rdma statistic show link "$1/1" >/tmp/bench-smb-rdma.0 2>/dev/null
	sed '/^#/,$d' "$D/stats" >/tmp/bench-smb-stats.0 2>/dev/null
}

counters_show() { # counters_show DEV
	rdma statistic show link "$1/1" >/tmp/bench-smb-rdma.1 2>/dev/null
	sed '/^#/,$d' "$D/stats" >/tmp/bench-smb-stats.1 2>/dev/null
	for _cs in rdma stats; do
		awk -v t="$_cs" -v dev="$1" '
		# every "NAME NUMBER" pair of words
		{ for (i = 1; i < NF; i++)
			if ($(i + 1) ~ /^[0-9]+$/ && $i !~ /^[0-9]+$/) {
				if (FILENAME ~ /\.0$/) a[$i] = $(i + 1)
				else if (($i in a) && $(i + 1) != a[$i])
					s = s sprintf(" %s=%+.0f", $i, $(i + 1) - a[$i])
			} }
		END { if (s != "") print "# " (t == "rdma" ? dev : "smbdirect") ":" s }' \
			"/tmp/bench-smb-$_cs.0" "/tmp/bench-smb-$_cs.1" 2>/dev/null
	done
}

# pair_order ROUND WORD...: the pairings' order in round ROUND (1, 2, ...).
# Rounds 2k-1 and 2k mirror each other: the words rotated by k-1 (from the
# ((k-1) mod count)th on, then the rest), and in the even round the same
# backwards. Over two rounds each of any two pairings runs first once, so
# a drift of the host or the emulator during a round (or a slow state a
# module swap leaves behind) weighs on both equally, and the rotation
# changes which pairing opens a device's rounds.
#   pair_order 1 A B C D -> A B C D    pair_order 2 A B C D -> D C B A
#   pair_order 3 A B C D -> B C D A    pair_order 4 A B C D -> A D C B
pair_order() {
	_rn=$1
	shift
	_rk=$(( (_rn - 1) / 2 % $# ))
	_ri=0 _rh='' _rt=''
	for _rw; do
		if [ "$_ri" -lt "$_rk" ]; then _rt="$_rt $_rw"; else _rh="$_rh $_rw"; fi
		_ri=$((_ri + 1))
	done
	_rh="$_rh $_rt"
	if [ $(( _rn % 2 )) -eq 0 ]; then
		_rt=''
		for _rw in $_rh; do
			_rt="$_rw $_rt"
		done
		_rh=$_rt
	fi
	# shellcheck disable=SC2086 # one word per line is not wanted: a list
	echo $_rh
}

# ---- tracing (SMB_TRACE=1): one depth-1 I/O's time, step by step ----

T=/sys/kernel/tracing
KP=bsmb

# The steps of one SMB2 READ or WRITE at depth 1, in the order they
# happen, each a set of trace events (kprobes KP/NAME defined by trace_on,
# tracepoints by their name), the first event of the set after the step
# before it marking it:
#   submit     fio enters io_submit()                        kprobe
#   smb2_req   cifs builds the SMB2 request                  cifs:smb3_{read,write}_enter
#   c_send     cifs hands it to its SMB Direct (smbd_send)    kprobe, both cifs
#   c_post     the client's Send reaches the device          kprobe on the device's post_send
#   s_recv     the server's Receive completes                ours: smbdirect:smbdx_recv_done;
#                                                            stock ksmbd: kprobe recv_done
#   s_work     ksmbd's work item starts (handle_ksmbd_work)  kprobe, both ksmbd
#   s_rw_post  the server's RDMA Write (READ) or Read        device post_send
#              (WRITE) reaches the device
#   s_rw_done  its completion at the server                  ours: smbdirect:smbdx_rw_done;
#                                                            stock: kprobe read_done/write_done
#   s_reply    the response's Send reaches the device        device post_send
#   c_recv     the client's Receive completes                ours: smbdx_recv_done;
#                                                            stock cifs: kprobe recv_done
#   c_done     cifs's callback ends the request              cifs:smb3_{read,write}_done
#   reaped     io_getevents() returns to fio                 kretprobe
# At depth 1 one I/O is in flight, so the chain of one I/O is the events
# between two io_submit() entries; an I/O whose chain misses a step (an
# event lost, or the path took another turn) is counted, not split.
TRACE_STEPS="submit smb2_req c_send c_post s_recv s_work s_rw_post s_rw_done s_reply c_recv c_done reaped"

# trace_events DEV PAIR: "STEP=EVENT,EVENT..." for each step of PAIR
trace_events() {
	_tc=${2%-*} _ts=${2#*-}
	if [ "$_ts" = ours ]; then
		_sr=smbdx_recv_done _sd=smbdx_rw_done
	else
		_sr=ksmbd_recv_done _sd=ksmbd_read_done,ksmbd_write_done
	fi
	if [ "$_tc" = ours ]; then _cr=smbdx_recv_done; else _cr=cifs_recv_done; fi
	echo "submit=submit smb2_req=smb3_read_enter,smb3_write_enter c_send=smbd_send" \
		"c_post=dev_post s_recv=$_sr s_work=ksmbd_work s_rw_post=dev_post" \
		"s_rw_done=$_sd s_reply=dev_post c_recv=$_cr" \
		"c_done=smb3_read_done,smb3_write_done reaped=reaped"
}

# trace_on DEV PAIR: the kprobes and tracepoints of PAIR's steps, in an
# empty buffer, tracing off until the job starts it. The monotonic clock:
# the default one is per CPU, and a request's steps run on both vCPUs.
trace_on() {
	[ -d $T/events ] || mount -t tracefs nodev $T || return 1
	echo 0 >$T/tracing_on
	echo >$T/trace
	echo mono >$T/trace_clock || return 1
	echo 16384 >$T/buffer_size_kb || return 1
	case "$1" in
	rxe*) _post=rxe_post_send ;;
	siw*) _post=siw_post_send ;;
	*) return 1 ;;
	esac
	# MODULE:SYMBOL if the device's driver is a module, SYMBOL if it is
	# built in (a kprobe on MODULE:SYMBOL of a module that is not loaded
	# is accepted and waits for it: it would never fire).
	_post=$(awk -v s="$_post" '$3 == s { m = $4; gsub(/[][]/, "", m)
		print (m == "" ? "" : m ":") s; exit }' /proc/kallsyms)
	[ -n "$_post" ] || { say "no $1 post_send in /proc/kallsyms"; return 1; }
	{
		echo "p:$KP/submit __x64_sys_io_submit"
		echo "r:$KP/reaped __x64_sys_io_getevents"
		echo "p:$KP/smbd_send cifs:smbd_send"
		echo "p:$KP/dev_post $_post"
		echo "p:$KP/ksmbd_work ksmbd:handle_ksmbd_work"
		case "$2" in
		stock-*) echo "p:$KP/cifs_recv_done cifs:recv_done" ;;
		esac
		case "$2" in
		*-stock)
			echo "p:$KP/ksmbd_recv_done ksmbd:recv_done"
			echo "p:$KP/ksmbd_read_done ksmbd:read_done"
			echo "p:$KP/ksmbd_write_done ksmbd:write_done" ;;
		esac
	} >$T/kprobe_events || { say "kprobes: $(cat $T/error_log 2>/dev/null | tail -n 3)"; return 1; }
	echo 1 >$T/events/$KP/enable || return 1
	for _e in cifs/smb3_read_enter cifs/smb3_write_enter cifs/smb3_read_done \
		cifs/smb3_write_done smbdirect/smbdx_recv_done smbdirect/smbdx_rw_done; do
		echo 1 >"$T/events/$_e/enable" || { say "no tracepoint $_e"; return 1; }
	done
}

# trace_off: every event off, the kprobes removed (before the modules
# they are in go), the buffer emptied.
trace_off() {
	[ -d $T/events ] || return 0
	echo 0 >$T/tracing_on
	echo 0 >$T/events/enable
	echo >$T/kprobe_events
	echo >$T/trace
	echo local >$T/trace_clock
	echo 1408 >$T/buffer_size_kb
}

# trace_split DEV PAIR JOB: the recorded chains of I/Os, split into steps:
# a "split" line per step (N I/Os, mean, p50 and p90 in microseconds; the
# step's time is from the step before it; "total" is submit to reaped),
# and a "# split ROUND DEV PAIR JOB:" comment with the I/Os split, those
# not, and where these stopped.
trace_split() {
	_lost=$(cat $T/per_cpu/cpu*/stats 2>/dev/null | awk '/^overrun:/ { n += $2 } END { print n + 0 }')
	awk -v steps="$TRACE_STEPS" -v evs="$(trace_events "$1" "$2")" '
	BEGIN {
		ns = split(steps, st, " ")
		n = split(evs, ea, " ")
		for (i = 1; i <= n; i++) {
			split(ea[i], kv, "=")
			m = split(kv[2], e, ",")
			for (k = 1; k <= m; k++)
				want[kv[1], e[k]] = 1
		}
		at = 0
	}
	# "TASK-PID [CPU] FLAGS SECONDS: EVENT: ..."
	{
		for (i = 1; i < NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/)
				break
		if (i >= NF)
			next
		t = substr($i, 1, length($i) - 1) * 1e6
		ev = $(i + 1)
		sub(/:$/, "", ev)
		if (want[st[1], ev]) {
			if (at > 1)
				stopped[st[at]]++
			at = 2
			ts[1] = t
			next
		}
		if (at < 2 || !want[st[at], ev])
			next
		ts[at++] = t
		if (at <= ns)
			next
		for (k = 2; k <= ns; k++)
			print st[k], ts[k] - ts[k - 1]
		print "total", ts[ns] - ts[1]
		done++
		at = 0
	}
	END {
		if (at > 1)
			stopped[st[at]]++
		s = ""
		for (k = 2; k <= ns; k++)
			if (stopped[st[k]])
				s = s sprintf(" %s:%d", st[k], stopped[st[k]])
		printf "%d I/O(s) split; not split, by the step they stopped before:%s\n",
		       done, (s == "" ? " none" : s) >"/tmp/bench-smb-trace.note"
	}' $T/trace >/tmp/bench-smb-trace.steps
	echo "# split $round $1 $2 $3: $(cat /tmp/bench-smb-trace.note)"
	[ "$_lost" -eq 0 ] ||
		echo "# split $round $1 $2 $3: $_lost event(s) lost (buffer overrun): the chains with a gap are not split"
	# Per step: N, mean, p50, p90 over the I/Os, in the order of the chain.
	for _s in $(echo "$TRACE_STEPS" | cut -d' ' -f2-) total; do
		awk -v s="$_s" '$1 == s { print $2 }' /tmp/bench-smb-trace.steps | sort -n |
		awk -v pre="split $round $1 $2 $3 $_s" '
			{ v[++n] = $1; sum += $1 }
			END { if (n) printf "%s %d %.1f %.1f %.1f\n", pre, n, sum / n,
				     v[int((n + 1) / 2)], v[int(n * 0.9 + 0.5) > 0 ? int(n * 0.9 + 0.5) : 1] }'
	done
}

# ---- set-up: one pairing's modules, server and mount ----

# smb_up PAIR: load the client and server modules PAIR names (CLIENT-SERVER,
# each ours or stock), start ksmbd.mountd on a share with the benchmark's
# file. Stock modules by path, ours with modprobe (vm.sh installs ours under
# updates/, ranked above the kernel's own).
smb_up() {
	_client=${1%-*} _server=${1#*-}
	rm -rf "$K"
	mkdir -p "$K/share" "$MNT" || return 1
	# On the server's tmpfs, written here rather than through the mount:
	# fio then finds a file of the right size and lays nothing out.
	dd if=/dev/zero of="$K/share/$FILE" bs=1M count="$SMB_SIZE_MB" 2>/dev/null ||
		{ say "cannot create the file"; return 1; }
	# force user = root: without it every CREATE fails with -EACCES.
	ksmbd.addshare -c "$K/ksmbd.conf" -a share -o "path = $K/share
writeable = yes
force user = root" >/dev/null || { say "ksmbd.addshare failed"; return 1; }
	ksmbd.adduser -c "$K/ksmbd.conf" -i "$K/pwd.db" -a "$SMB_USER" -p "$SMB_PASS" \
		>/dev/null 2>&1 || { say "ksmbd.adduser failed"; return 1; }
	if [ "$_server" = stock ]; then
		load_stock ksmbd || { say "insmod $(stock_ko ksmbd) failed"; return 1; }
	else
		modprobe ksmbd || { say "modprobe ksmbd failed"; return 1; }
	fi
	[ "$(smb_module ksmbd)" = "$_server" ] ||
		{ say "wanted $_server ksmbd, $(smb_module ksmbd) is loaded"; return 1; }
	if [ "$_client" = stock ]; then
		load_stock cifs || { say "insmod $(stock_ko cifs) failed"; return 1; }
	else
		modprobe cifs || { say "modprobe cifs failed"; return 1; }
	fi
	[ "$(smb_module cifs)" = "$_client" ] ||
		{ say "wanted $_client cifs, $(smb_module cifs) is loaded"; return 1; }
	ksmbd.mountd -c "$K/ksmbd.conf" -u "$K/pwd.db" || { say "ksmbd.mountd failed"; return 1; }
}

# smb_down: undo smb_up (whatever part of it happened). A module that does
# not go away makes the next smb_up fail its check: that is reported there.
# The server hangs up before the umount (server_hangs_up_first, lib.sh:
# the stock cifs must not end the connection itself).
smb_down() {
	server_hangs_up_first || say "the server or a cifs connection did not go"
	umount "$MNT" 2>/dev/null
	if [ -d /sys/module/cifs ]; then
		wait_for 30 rmmod cifs || say "rmmod cifs failed"
	fi
	if [ -d /sys/module/ksmbd ]; then
		wait_for 30 rmmod ksmbd || say "rmmod ksmbd failed"
	fi
	rm -rf "$K"
}

# smb_mount DEV ADDR PAIR: mount the share over SMB Direct (the options of
# tests/vm/smb_shim_interop.sh) and check that the transport is RDMA on DEV.
# ksmbd hangs up until ksmbd.mountd has configured it: retry.
smb_mount() {
	_i=0
	while ! timeout -s KILL 180 mount.cifs "//$2/share" "$MNT" \
		-o "rdma,vers=3.1.1,username=$SMB_USER,password=$SMB_PASS" \
		>/tmp/bench-smb-mount.log 2>&1; do
		_i=$((_i + 1))
		if [ "$_i" -ge 10 ]; then
			sed 's/^/#   /' /tmp/bench-smb-mount.log
			say "mount //$2/share -o rdma failed 10 times"
			return 1
		fi
		sleep 2
	done
	# Our cifs names its smbdirect connection; the stock one prints its
	# own SMB Direct block. Our ksmbd's connection must be on DEV.
	case "$3" in
	ours-*)
		grep -q "role=active state=ESTABLISHED dev=$1 " /proc/fs/cifs/DebugData ||
			{ say "our cifs's mount is not on $1"; return 1; } ;;
	*)
		grep -q "SMBDirect (in hex) protocol version" /proc/fs/cifs/DebugData ||
			{ say "the stock cifs's mount is not SMB Direct"; return 1; } ;;
	esac
	case "$3" in
	*-ours)
		grep -q "role=passive state=ESTABLISHED dev=$1 " "$D/connections" ||
			{ say "our ksmbd has no connection on $1"; return 1; } ;;
	esac
}

# ---- one dbench job ----

# run_dbench DEV PAIR JOB: dbench-N, N clients (processes) replaying
# dbench's NetBench load file in their own directories under the mount,
# buffered I/O through cifs's page cache as an application does; samples
# of the cell, or a fail line. dbench (4.0) warms up until every client
# has read or written and RUNTIME / 5 s have passed, then resets its
# figures (the operation table and max latency too) and counts RUNTIME s,
# then deletes its files.
run_dbench() {
	_dev=$1 _pair=$2 _job=$3
	_n=${_job#dbench-}
	echo "\$ dbench -c $DBENCH_LOAD -t $SMB_RUNTIME $_n ($_dev, $_pair)"
	counters_mark "$_dev"
	rm -rf "$MNT/dbench"
	if ! mkdir "$MNT/dbench"; then
		klog
		fail "$_dev" "$_pair" "$_job" "mkdir on the mount failed"
		return 1
	fi
	# The start (the children open the load file) and the deletion of
	# the clients' trees at the end take seconds under TCG besides the
	# warm-up and the timed phase.
	_t0=$(date +%s)
	(cd /tmp && timeout -s KILL $(( SMB_RUNTIME * 3 + 120 )) \
		dbench -c "$DBENCH_LOAD" -t "$SMB_RUNTIME" -D "$MNT/dbench" "$_n" \
		>/tmp/dbench.out 2>&1)
	_rc=$?
	echo "# dbench took $(( $(date +%s) - _t0 )) s, its warm-up $(grep -c ' warmup ' /tmp/dbench.out) s, its deletion $(grep -c ' cleanup ' /tmp/dbench.out) s (its progress lines)"
	counters_show "$_dev"
	# The per-operation table and the summary; the progress lines (one
	# a second) only in the table's absence.
	if grep -q '^ *Operation ' /tmp/dbench.out; then
		sed -n '/^ *Operation /,$p' /tmp/dbench.out | grep -v '^ *$' | sed 's/^/#   /'
	else
		tail -n 20 /tmp/dbench.out | sed 's/^/#   /'
	fi
	# dbench reports an operation whose result differs from the status
	# the load file recorded ("ERROR"): such a run did not replay the load,
	# whatever its exit status.
	_errs=$(grep -c 'ERROR' /tmp/dbench.out)
	# "Throughput 167.206 MB/sec  4 clients  4 procs  max_latency=22.041 ms"
	_v=$(awk '$1 == "Throughput" && $3 == "MB/sec" {
		m = $0
		if (!sub(/.*max_latency=/, "", m))
			m = ""
		sub(/ .*/, "", m)
		print $2, m
	}' /tmp/dbench.out | tail -n 1)
	rm -rf "$MNT/dbench"
	# shellcheck disable=SC2086 # two fields
	set -- $_v
	if [ "$_rc" -ne 0 ] || [ $# -ne 2 ]; then
		klog
		fail "$_dev" "$_pair" "$_job" "dbench exited with $_rc${_v:+ ($_v)}, no throughput or max latency"
		return 1
	fi
	if [ "$_errs" -ne 0 ]; then
		grep 'ERROR' /tmp/dbench.out | head -n 5 | sed 's/^/#   /'
		klog
		fail "$_dev" "$_pair" "$_job" "dbench reported $_errs error(s)"
		return 1
	fi
	# dbench sets its throughput at each second of its timed phase; 0
	# if there was none (its clients had not all read or written before
	# the time limit).
	if ! awk -v t="$1" 'BEGIN { exit !(t > 0) }'; then
		fail "$_dev" "$_pair" "$_job" "dbench throughput $1 MB/s: no timed phase"
		return 1
	fi
	echo "sample $round $_dev $_pair $_job mbps $1"
	echo "sample $round $_dev $_pair $_job maxlat_ms $2"
}

# ---- one fio job ----

# run_job DEV PAIR JOB: a dbench job (run_dbench), or fio on the mount,
# O_DIRECT, libaio, time-based; samples of the cell, or a fail line.
run_job() {
	_dev=$1 _pair=$2 _job=$3
	case "$_job" in
	dbench-*)
		run_dbench "$@"
		return
		;;
	esac
	_rw=${_job%%-*}
	_rest=${_job#*-}
	_bs=${_rest%-*}
	_qd=${_rest##*-}
	case "$_bs" in
	*k) _bsb=$(( ${_bs%k} * 1024 )) ;;
	*m) _bsb=$(( ${_bs%m} * 1048576 )) ;;
	*) _bsb=$_bs ;;
	esac
	# fio's terse v3 output: READ's fields from 6 on, WRITE's from 47
	# (KiB moved, KiB/s, IOPS, ...; the latency percentiles asked for,
	# 50 and 99, at 18-19 and 59-60, "50.000000%=USEC"). With
	# --lat_percentiles they are of the total latency (fio's lat: from
	# the start of io_submit() to the completion), not of the completion
	# latency alone (clat: from io_submit()'s return): the stock cifs's
	# io_submit() returns only once the request's Send completed, ours
	# once it is posted, so clat would leave a different share of each
	# I/O out.
	case "$_rw" in
	*read) _f=6 ;;
	*) _f=47 ;;
	esac
	echo "\$ fio --name=$_job --rw=$_rw --bs=$_bs --iodepth=$_qd --runtime=$SMB_RUNTIME ($_dev, $_pair)"
	# The CPU window is the job's I/O phase: fio runs exec_prerun once the
	# file is open and exec_postrun once the I/O is done, so its own
	# start-up (dynamic linking of a large binary, slow under TCG) and
	# exit are left out. fio sends their output to JOB.prerun.txt and
	# JOB.postrun.txt in its working directory (it appends its own
	# redirection to the command), hence the cd.
	rm -rf /tmp/bench-smb-fio
	mkdir -p /tmp/bench-smb-fio
	_traced=''
	if [ "$SMB_TRACE" = 1 ] && [ "$_qd" = 1 ]; then
		if trace_on "$_dev" "$_pair"; then
			_traced=1
			echo 1 >$T/tracing_on
		else
			trace_off
			fail "$_dev" "$_pair" "$_job" "tracing could not be set up"
		fi
	fi
	counters_mark "$_dev"
	(cd /tmp/bench-smb-fio &&
	 timeout -s KILL $(( SMB_RUNTIME * 3 + 60 )) fio --name="$_job" \
		--filename="$MNT/$FILE" --size="${SMB_SIZE_MB}m" --fallocate=none \
		--direct=1 --ioengine=libaio --rw="$_rw" --bs="$_bs" \
		--iodepth="$_qd" --runtime="$SMB_RUNTIME" --time_based \
		--lat_percentiles=1 --percentile_list=50:99 \
		--output-format=terse --terse-version=3 \
		--exec_prerun="grep '^cpu ' /proc/stat" \
		--exec_postrun="grep '^cpu ' /proc/stat" \
		>/tmp/fio.out 2>/tmp/fio.err)
	_rc=$?
	if [ -n "$_traced" ]; then
		echo 0 >$T/tracing_on
		trace_split "$_dev" "$_pair" "$_job"
		trace_off
	fi
	counters_show "$_dev"
	_busy='' _tot=''
	_c0=/tmp/bench-smb-fio/$_job.prerun.txt _c1=/tmp/bench-smb-fio/$_job.postrun.txt
	if [ -n "$(cpu_ticks "$_c0")" ] && [ -n "$(cpu_ticks "$_c1")" ]; then
		# shellcheck disable=SC2046 # four numbers
		set -- $(cpu_ticks "$_c0") $(cpu_ticks "$_c1")
		_busy=$(( $3 - $1 )) _tot=$(( $4 - $2 ))
	fi
	_line=$(grep '^3;' /tmp/fio.out | head -n 1)
	echo "$_line"
	if [ "$_rc" -ne 0 ] || [ -z "$_line" ]; then
		sed 's/^/#   /' /tmp/fio.err | tail -n 10
		klog
		fail "$_dev" "$_pair" "$_job" "fio exited with $_rc"
		return 1
	fi
	# "iops mibps p50 p99 ios error"
	_v=$(echo "$_line" | awk -F';' -v f="$_f" -v bs="$_bsb" '{
		p50 = $(f + 12); sub(/.*=/, "", p50)
		p99 = $(f + 13); sub(/.*=/, "", p99)
		printf "%s %.3f %s %s %d %s\n", $(f + 2), $(f + 1) / 1024, p50, p99,
		       $(f) * 1024 / bs, $5 }')
	# shellcheck disable=SC2086 # six fields
	set -- $_v
	if [ "$6" != 0 ] || [ "$5" -le 0 ]; then
		sed 's/^/#   /' /tmp/fio.err | tail -n 10
		klog
		fail "$_dev" "$_pair" "$_job" "fio error $6, $5 I/Os"
		return 1
	fi
	if [ -z "$_busy" ]; then
		fail "$_dev" "$_pair" "$_job" "no CPU figures from fio's exec_prerun/postrun"
		_cpu=''
	else
		# USER_HZ is 100: a tick is 10000 us.
		_cpu=$(awk -v b="$_busy" -v n="$5" 'BEGIN { printf "%.1f", b * 10000 / n }')
		echo "# cpu: busy $_busy of $_tot ticks (both vCPUs), $5 I/Os: $_cpu us per I/O"
	fi
	echo "sample $round $_dev $_pair $_job iops $1"
	echo "sample $round $_dev $_pair $_job mibps $2"
	echo "sample $round $_dev $_pair $_job p50_us $3"
	echo "sample $round $_dev $_pair $_job p99_us $4"
	[ -z "$_cpu" ] || echo "sample $round $_dev $_pair $_job cpu_us $_cpu"
}

# bench_pair DEV ADDR PAIR: one pairing on one device, all jobs.
bench_pair() {
	say "---- round $round of $SMB_ROUNDS: $1 ($2), cifs-ksmbd $3 ($(( $(date +%s) - _start )) s in) ----"
	if ! smb_up "$3"; then
		klog
		fail_all "$1" "$3" "set-up failed"
		smb_down
		return 0
	fi
	if ! smb_mount "$1" "$2" "$3"; then
		klog
		fail_all "$1" "$3" "mount failed"
		smb_down
		return 0
	fi
	if [ "$round" -eq 1 ]; then
		say "DebugData, the transport's lines:"
		grep -E '^SMBDirect|max_readwrite_size|^cifs:|role=active' /proc/fs/cifs/DebugData |
			head -n 6 | sed 's/^/#   /'
	fi
	for _j in $SMB_JOBS; do
		run_job "$1" "$3" "$_j"
	done
	umount "$MNT" || say "umount failed"
	smb_down
}

main() {
	say "kernel $(uname -r), $(nproc) CPUs; $(fio --version)"
	echo "# rounds $SMB_ROUNDS"
	echo "# runtime $SMB_RUNTIME"
	echo "# devices $SMB_DEVICES"
	echo "# pairs $SMB_PAIRS"
	echo "# jobs $SMB_JOBS"
	echo "# trace $SMB_TRACE"
	command -v fio >/dev/null || { say "no fio in the VM"; return 1; }
	case " $SMB_JOBS " in
	*" dbench-"*)
		{ command -v dbench >/dev/null &&
		  xzcat /usr/share/dbench/client.txt.xz >"$DBENCH_LOAD"; } ||
			{ say "no dbench or no /usr/share/dbench/client.txt.xz in the VM"; return 1; }
		say "$(dbench -v 2>&1 | head -n 1), load $DBENCH_LOAD ($(wc -l <"$DBENCH_LOAD") lines)" ;;
	esac
	# A device not measured is removed: our cifs sizes its I/O to what a
	# registration covers on every usable device (smbdx_reg_len_floor()),
	# and siw's MRs are a page shorter than rxe's.
	for _d in "rxe $RXE_DEV" "siw $SIW_DEV"; do
		case " $SMB_DEVICES " in
		*" ${_d% *} "*) ;;
		*) rdma link delete "${_d#* }" && say "${_d#* } removed (not measured)" ;;
		esac
	done
	_start=$(date +%s)
	while [ "$round" -lt "$SMB_ROUNDS" ]; do
		round=$((round + 1))
		for _d in $SMB_DEVICES; do
			case "$_d" in
			rxe) _dn=$RXE_DEV _da=$RXE_ADDR ;;
			siw) _dn=$SIW_DEV _da=$SIW_ADDR ;;
			*) say "unknown device $_d"; return 1 ;;
			esac
			# shellcheck disable=SC2086 # a list of words
			for _p in $(pair_order "$round" $SMB_PAIRS); do
				bench_pair "$_dn" "$_da" "$_p"
			done
		done
	done
	say "measured for $(( $(date +%s) - _start )) s, $failures measurement(s) failed"
	echo "# done"
}

main
