# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the VM's own scripts (scripts/guest/, in the VM /smbd/guest-*.sh;
# sourced). The device and address names, say, wait_for and the readiness
# checks are the shell tests' helpers (tests/vm/lib.sh, in the VM
# /smbd/tests/lib.sh), sourced first; this file adds what only the VM's
# set-up needs.
. /smbd/tests/lib.sh

# cmdline_arg NAME DEFAULT: value of NAME= on the kernel command line.
cmdline_arg() {
	for w in $(cat /proc/cmdline); do
		case "$w" in
		"$1"=*) echo "${w#*=}"; return ;;
		esac
	done
	echo "$2"
}

# Create rxe on a veth end and siw on a dummy interface; wait until both
# ports are ACTIVE and the addresses usable, so nothing races device setup.
rdma_setup() {
	rxe_setup || return 1
	ip link add "$SIW_NETDEV" type dummy || return 1
	ip addr add "$SIW_ADDR/24" dev "$SIW_NETDEV"
	ip link set "$SIW_NETDEV" up
	rdma link add "$SIW_DEV" type siw netdev "$SIW_NETDEV" || return 1
	wait_for "$DEV_WAIT_S" port_active "$SIW_DEV" || return 1
	wait_for "$DEV_WAIT_S" addr_ready "$SIW_NETDEV" "$SIW_ADDR" || return 1
}

# rxe alone (a kernel without siw: Debian's, guest-debian.sh).
rxe_setup() {
	ip link set lo up
	ip link add "$RXE_NETDEV" type veth peer name "$RXE_PEER" || return 1
	ip addr add "$RXE_ADDR/24" dev "$RXE_NETDEV"
	ip link set "$RXE_PEER" up
	ip link set "$RXE_NETDEV" up
	rdma link add "$RXE_DEV" type rxe netdev "$RXE_NETDEV" || return 1
	wait_for "$DEV_WAIT_S" port_active "$RXE_DEV" || return 1
	wait_for "$DEV_WAIT_S" addr_ready "$RXE_NETDEV" "$RXE_ADDR" || return 1
	wait_for "$DEV_WAIT_S" rxe_gid_ready "$RXE_DEV" "$RXE_ADDR" || return 1
}

load_modules() {
	modprobe smbdirect && modprobe sqos
}
