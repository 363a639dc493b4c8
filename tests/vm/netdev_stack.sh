#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Interfaces stacked on RDMA ports (smbdirect/netdev.c): a VLAN on rxe's
# veth, a bond whose port carries an rxe device of its own, and a VLAN on
# that bond each reach their rxe port (debugfs netdevs, the port's
# portN_netdevs in debugfs devices, smbdctl devices), the bond's other
# side does not, and an SMB Direct connection over the VLAN's own address
# works (rxe gives the VLAN's address a GID on its port). Needs
# CONFIG_VLAN_8021Q and CONFIG_BONDING (scripts/kconfig/base.config).
# Exit 0 = pass.
. "$(dirname "$0")/lib.sh"

D=/sys/kernel/debug/smbdirect
C=/sys/kernel/debug/smbd_test/control

cleanup() {
	echo "unlisten all" >"$C" 2>/dev/null
	rmmod smbd_test 2>/dev/null
	rdma link delete "$BOND_RXE_DEV" 2>/dev/null
	ip link del "$BOND_VLAN_NETDEV" 2>/dev/null
	ip link del "$BOND_NETDEV" 2>/dev/null
	ip link del "$BOND_PORT" 2>/dev/null
	ip link del "$VLAN_NETDEV" 2>/dev/null
}

fail() {
	echo "FAIL: $*"
	echo "--- netdevs"
	cat "$D/netdevs"
	echo "--- devices"
	cat "$D/devices"
	cleanup
	exit 1
}

reaches() { # reaches NETDEV RDMA_DEV THROUGH
	grep -q "^$1 rdma_capable=1 device=$2 port=1 through=$3 verdict=usable$" "$D/netdevs"
}

# A VLAN on rxe's interface, with an address of its own.
ip link add link "$RXE_NETDEV" name "$VLAN_NETDEV" type vlan id "$VLAN_ID" ||
	fail "cannot create a VLAN (CONFIG_VLAN_8021Q?)"
ip addr add "$VLAN_ADDR/24" dev "$VLAN_NETDEV"
ip link set "$VLAN_NETDEV" up
reaches "$VLAN_NETDEV" "$RXE_DEV" "$RXE_NETDEV" || fail "the VLAN does not reach $RXE_DEV"
grep -q "^$RXE_DEV .* port1_netdevs=$RXE_NETDEV,$VLAN_NETDEV " "$D/devices" ||
	fail "devices: $RXE_DEV port 1 does not list the VLAN"
smbdctl devices | grep -q "port 1: ACTIVE, netdevs $RXE_NETDEV,$VLAN_NETDEV$" ||
	fail "smbdctl devices does not list the VLAN"

# SMB Direct over the VLAN's address.
wait_for "$DEV_WAIT_S" addr_ready "$VLAN_NETDEV" "$VLAN_ADDR" || fail "VLAN address"
wait_for "$DEV_WAIT_S" rxe_gid_ready "$RXE_DEV" "$VLAN_ADDR" || fail "no GID for $VLAN_ADDR"
modprobe smbd_test || fail "modprobe smbd_test"
echo "listen echo $VLAN_ADDR" >"$C" || fail "listen on $VLAN_ADDR"
smbdctl check "$VLAN_ADDR" >/tmp/vlan-check || { cat /tmp/vlan-check; fail "check over the VLAN"; }
grep -q "^$VLAN_ADDR: SMB Direct OK over $RXE_DEV (RoCE)" /tmp/vlan-check ||
	fail "check over the VLAN: $(cat /tmp/vlan-check)"

# A bond whose port has its own rxe device, and a VLAN on the bond.
ip link add "$BOND_PORT" type veth peer name "$BOND_PORT_PEER" || fail "veth"
ip link add "$BOND_NETDEV" type bond mode active-backup || fail "cannot create a bond (CONFIG_BONDING?)"
ip link set "$BOND_PORT" master "$BOND_NETDEV" || fail "enslave $BOND_PORT"
ip link set "$BOND_PORT_PEER" up
ip link set "$BOND_NETDEV" up
ip link add link "$BOND_NETDEV" name "$BOND_VLAN_NETDEV" type vlan id 7 || fail "VLAN on the bond"
rdma link add "$BOND_RXE_DEV" type rxe netdev "$BOND_PORT" || fail "rxe on $BOND_PORT"
wait_for "$DEV_WAIT_S" grep -q "^$BOND_RXE_DEV " "$D/devices" || fail "smbdirect does not see $BOND_RXE_DEV"
reaches "$BOND_NETDEV" "$BOND_RXE_DEV" "$BOND_PORT" || fail "the bond does not reach $BOND_RXE_DEV"
reaches "$BOND_VLAN_NETDEV" "$BOND_RXE_DEV" "$BOND_PORT" || fail "the VLAN on the bond does not"
grep -q "^$BOND_PORT_PEER rdma_capable=0$" "$D/netdevs" || fail "$BOND_PORT_PEER is RDMA capable?"
grep -q "^$BOND_RXE_DEV .* port1_netdevs=[^ ]*$BOND_NETDEV" "$D/devices" ||
	fail "devices: $BOND_RXE_DEV does not list the bond"

cleanup
reaches "$RXE_NETDEV" "$RXE_DEV" "$RXE_NETDEV" || fail "$RXE_NETDEV after clean-up"
grep -q "^$VLAN_NETDEV " "$D/netdevs" && fail "the VLAN is still listed"
echo "# VLAN, bond and VLAN on bond reach their rxe ports; SMB Direct over the VLAN: ok"
