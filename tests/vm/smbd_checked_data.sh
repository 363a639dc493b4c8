#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Data integrity: bytes moved through SMB Direct messages and RDMA
# read/write on rxe and on siw, every byte checked, none corrupt.
#   - messages: smbd_test's client sends 64 KiB messages (each a few
#     fragments) to an echo listener and compares every echo;
#   - RDMA: smbd_rdma_bench writes and reads 1 MiB buffers (vmalloc pages
#     for writes, large folios for reads; registered per transfer, 4 in
#     flight) with verify=1: a pattern per transfer, the destination
#     compared byte for byte.
# Sizes in MiB per device (make check: small; make stress: 10 GiB in all):
#   MSG_MIB (16), RXE_RDMA_MIB (32), SIW_RDMA_MIB (64), a quarter of each
#   on the debug kernel: each RDMA figure is moved once by Write and once
#   by Read.
# Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

# On the debug kernel (KASAN, about ten times slower) a quarter of that.
case "$(uname -r)" in
*-dbg) DEF_MSG=4 DEF_RXE=8 DEF_SIW=16 ;;
*) DEF_MSG=16 DEF_RXE=32 DEF_SIW=64 ;;
esac
MSG_MIB=${MSG_MIB:-$DEF_MSG}
RXE_RDMA_MIB=${RXE_RDMA_MIB:-$DEF_RXE}
SIW_RDMA_MIB=${SIW_RDMA_MIB:-$DEF_SIW}
C=/sys/kernel/debug/smbd_test/control
R=/sys/kernel/debug/smbd_test/result
B=/sys/kernel/debug/smbd_rdma_bench
total=0

fail() {
	echo "FAIL: $*"
	[ -r "$R" ] && { echo "--- smbd_test result"; cat "$R"; }
	[ -r "$B/result" ] && { echo "--- smbd_rdma_bench result"; cat "$B/result"; }
	exit 1
}

field() {
	tr ' ' '\n' <"$B/result" | sed -n "s|^$1=||p"
}

messages() { # messages ADDR
	n=$((MSG_MIB * 16))
	echo "listen echo $1" >"$C" || fail "listen on $1"
	t0=$(cut -d. -f1 /proc/uptime)
	echo "run $1 count=$n size=65536 verify=1" >"$C" || fail "messages to $1"
	grep -q "verified $n echoes, 0 mismatched" "$R" ||
		fail "messages to $1: not all echoes verified"
	echo "unlisten all" >"$C"
	total=$((total + n * 65536))
	echo "# $1: $n messages of 64 KiB echoed, every byte compared, in $(( $(cut -d. -f1 /proc/uptime) - t0 )) s"
}

rdma() { # rdma ADDR MIB OP BUF
	echo "run $1 7462 op=$3 buf=$4 size=1048576 count=$2 depth=4 reg=each verify=1" \
		>"$B/control" || fail "RDMA $3 on $1"
	v=$(field verified)
	[ "$(field corrupt)" = 0 ] || fail "RDMA $3 on $1: corrupt bytes"
	[ "$v" = $(($2 * 1048576)) ] || fail "RDMA $3 on $1: verified $v bytes"
	total=$((total + v))
	echo "# $1: RDMA $3 of $2 MiB ($4), every byte compared: $(field MiB/s) MiB/s with the checks"
}

modprobe smbd_test || fail "modprobe smbd_test"
modprobe smbd_rdma_bench || fail "modprobe smbd_rdma_bench"
messages "$SIW_ADDR"
messages "$RXE_ADDR"
rdma "$SIW_ADDR" "$SIW_RDMA_MIB" write vmalloc
rdma "$SIW_ADDR" "$SIW_RDMA_MIB" read folio
rdma "$RXE_ADDR" "$RXE_RDMA_MIB" write vmalloc
rdma "$RXE_ADDR" "$RXE_RDMA_MIB" read folio
rmmod smbd_rdma_bench smbd_test || fail "rmmod"
echo "checked $total bytes ($((total >> 20)) MiB) through messages and RDMA read/write, 0 corrupt"
