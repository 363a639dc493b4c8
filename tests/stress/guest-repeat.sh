#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `make repeat` (scripts/repeat.sh), inside the VM: every live KUnit module
# (*_live_kunit.ko, the suites that drive rxe and siw) RUNS times in a row
# in one boot, with no retry: a failure is a failure. Prints one line per
# module and run, the failed suites' KTAP, and a last line
#   repeat: RUNS runs, M modules, F failed
# Exit 0 when nothing failed. RUNS comes from the environment (default 20).
RUNS=${RUNS:-20}
mods=$(ls /lib/modules/"$(uname -r)"/extra/*_live_kunit.ko)
nmods=0
failed=0
i=1
while [ "$i" -le "$RUNS" ]; do
	nmods=0
	for ko in $mods; do
		m=$(basename "$ko" .ko)
		nmods=$((nmods + 1))
		t0=$(cut -d. -f1 /proc/uptime)
		bad=0
		before=$(ls /sys/kernel/debug/kunit)
		modprobe "$m" || bad=1
		for s in $(ls /sys/kernel/debug/kunit); do
			case " $(echo $before) " in *" $s "*) continue ;; esac
			r=/sys/kernel/debug/kunit/$s/results
			if grep -q '^[[:space:]]*not ok' "$r" || ! grep -q '^ok\|^not ok' "$r"; then
				bad=1
				sed 's/^/# | /' "$r"
			fi
		done
		rmmod "$m" || bad=1
		t=$(( $(cut -d. -f1 /proc/uptime) - t0 ))
		if [ "$bad" -eq 0 ]; then
			echo "# run $i: $m ok ($t s)"
		else
			echo "# run $i: $m FAILED ($t s)"
			failed=$((failed + 1))
		fi
	done
	i=$((i + 1))
done
echo "# kernel log: $(dmesg | grep -c cm_destroy_id_wait_timeout) cm_destroy_id_wait_timeout," \
	"$(dmesg | grep -c -E 'WARNING:|BUG:|KASAN|UBSAN|possible .*locking') reports"
echo "repeat: $RUNS runs, $nmods modules, $failed failed"
[ "$failed" -eq 0 ]
