#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# smbdctl on the host, against a made-up copy of smbdirect's debugfs files
# and of /sys/class/infiniband (--debugfs, --sysfs): the cases the VM's soft
# devices cannot show (an unusable InfiniBand device with a VLAN and a bond
# on its ports, a port that is down, a connection that moved data by RDMA
# and was ended by its peer), every --json output parsed as JSON, and the
# exit statuses. tests/vm/smbdctl.sh checks it against the real module.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	local d s ctl out
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	make -s -C "$SMBD_TOP/tools/smbdctl" >"$t/build.log" 2>&1 ||
		{ cat "$t/build.log"; die "smbdctl does not build"; }
	grep -E 'warning:|error:' "$t/build.log" && die "smbdctl built with warnings"
	ctl="$SMBD_TOP/tools/smbdctl/smbdctl"
	d="$t/debugfs"
	s="$t/sysfs"
	mkdir -p "$d/conn/5" "$s/mlx4_0/ports/1" "$s/rxe0/ports/1"
	echo InfiniBand >"$s/mlx4_0/ports/1/link_layer"
	echo Ethernet >"$s/rxe0/ports/1/link_layer"
	cat >"$d/devices" <<'EOF'
rxe0 node=ca transport=ib port1=ACTIVE port1_netdev=eth1 port1_netdevs=eth1,eth1.42,bond0 max_send_sge=32 max_recv_sge=32 max_sge_rd=32 max_fast_reg_page_list_len=512 frwr_depth=256 max_qp_rd_atom=128 max_qp_init_rd_atom=128 ird=128 ord=128 max_qp_wr=1048576 max_cqe=32767 port=445 verdict=usable
mlx4_0 node=ca transport=ib port1=ACTIVE port1_netdevs=ib0 port2=DOWN max_send_sge=2 max_recv_sge=32 max_sge_rd=30 max_fast_reg_page_list_len=511 frwr_depth=256 max_qp_rd_atom=16 max_qp_init_rd_atom=128 ird=16 ord=16 max_qp_wr=16351 max_cqe=4194303 port=445 verdict=few-send-sge
siw0 node=rnic transport=iwarp port1=DOWN port1_netdev=eth2 max_send_sge=6 max_recv_sge=6 max_sge_rd=1 max_fast_reg_page_list_len=256 frwr_depth=256 max_qp_rd_atom=128 max_qp_init_rd_atom=128 ird=128 ord=128 max_qp_wr=32768 max_cqe=3276800 port=5445 verdict=usable
EOF
	echo "5 role=active state=DISCONNECTED dev=rxe0 local=10.0.0.1:40001 peer=10.0.0.2:445 error=-104 cause=peer_disconnect" \
		| tee "$d/connections" >"$d/conn/5/state"
	printf '%s\n' "negotiated 1" "protocol 0x0100" "max_send_size 1364" \
		"max_receive_size 1364" "max_fragmented_send_size 1048576" \
		"max_fragmented_recv_size 170180" "max_read_write_size 8388608" \
		"keepalive_interval 120" "ird 16" "ord 16" "iwarp 0" "caps_sent 1" \
		"caps_own none" "caps_own_push_ird 0" "caps_peer_blob found" \
		"caps_peer flush_global,atomic_write" "caps_peer_push_ird 8" \
		"rdma_transform encryption,signing" >"$d/conn/5/params"
	printf '%s\n' "send_credits 3" "send_credit_target 255" "recv_credits_granted 0" \
		"recvs_posted 0" "send_queue_len 0" "keepalive NONE" >"$d/conn/5/credits"
	printf '%s\n' "mr_pool_size 34" "mr_ready 34" "released 1" >"$d/conn/5/mr"
	printf '%s\n' "tx_messages 40" "tx_bytes 9000" "rx_messages 40" "rx_bytes 12000" \
		"rdma_reads 0" "rdma_read_bytes 0" "rdma_writes 0" "rdma_write_bytes 0" \
		"mr_registrations 20" "mr_registered_bytes 20971520" \
		"mr_remote_invalidations 19" "mr_local_invalidations 1" \
		"xform_sealed 12" "xform_signed 3" "xform_rejected 1" >"$d/conn/5/counters"
	printf '%s\n' "peer_disconnect 1" "rejected 0" >"$d/conn/5/errors"
	{ printf '%s\n' "connections 1" "listeners 0" "tx_messages 40" "tx_bytes 9000" \
		"rx_messages 40" "rx_bytes 12000" "rdma_reads 0" "rdma_read_bytes 0" \
		"rdma_writes 0" "rdma_write_bytes 0" "mr_registrations 20" \
		"mr_remote_invalidations 19" "mr_local_invalidations 1" "# errors by cause" \
		"peer_disconnect 1" "rejected 0"; } >"$d/stats"
	local c=("$ctl" --debugfs "$d" --sysfs "$s")

	out=$("${c[@]}" devices)
	expect "$out" "rxe0: RoCE, SMB Direct port 445: usable" \
		"    port 1: ACTIVE, netdevs eth1,eth1.42,bond0" \
		"mlx4_0: InfiniBand, SMB Direct port 445: NOT usable: too few send SGEs per work request" \
		"    port 1: ACTIVE, netdevs ib0" "    port 2: DOWN, no netdev" \
		"siw0: iWARP, SMB Direct port 5445: usable, but no port is ACTIVE"
	"${c[@]}" --json devices >"$t/devices.json"
	python3 - "$t/devices.json" <<'EOF'
import json, sys
d = {x["name"]: x for x in json.load(open(sys.argv[1]))["devices"]}
assert d["rxe0"]["usable"] and d["rxe0"]["transport"] == "RoCE", d["rxe0"]
assert d["rxe0"]["ports"][0]["netdevs"] == ["eth1", "eth1.42", "bond0"]
m = d["mlx4_0"]
assert not m["usable"] and m["verdict"] == "few-send-sge" and "send SGEs" in m["reason"]
assert [p["state"] for p in m["ports"]] == ["ACTIVE", "DOWN"]
assert m["attrs"]["max_send_sge"] == 2 and m["smb_direct_port"] == 445
assert d["siw0"]["transport"] == "iWARP"
EOF

	out=$("${c[@]}" connections)
	expect "$out" \
		"connection 5: active DISCONNECTED on rxe0 (RoCE), 10.0.0.1:40001 -> 10.0.0.2:445" \
		"    buffers registered for the peer: 20, 20971520 bytes (20.0 MiB); invalidated by the peer 19, locally 1" \
		"    RDMA in use: yes (RDMA read/write or buffers registered for the peer)" \
		"    errors: peer_disconnect 1" \
		"    capabilities (CM private data): ours none, push IRD 0; peer's flush_global,atomic_write, push IRD 8" \
		"    RDMA transform: encryption,signing; payloads sealed 12, signed 3, rejected 1"
	"${c[@]}" --json connections 5 >"$t/conn.json"
	python3 - "$t/conn.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))["connections"]
assert len(c) == 1, c
c = c[0]
assert c["id"] == 5 and c["rdma_in_use"] is True and c["error"] == -104
assert c["bytes"]["registered_for_peer"] == 20971520
assert c["invalidations"] == {"remote": 19, "local": 1}
assert c["errors"] == {"peer_disconnect": 1}, c["errors"]
assert c["params"]["protocol"] == "0x0100" and c["params"]["max_send_size"] == 1364
assert c["credits"]["keepalive"] == "NONE"
assert c["capabilities"] == {"sent": True, "own": [], "own_push_ird": 0,
                             "peer_blob": "found", "peer": ["flush_global", "atomic_write"],
                             "peer_push_ird": 8}, c["capabilities"]
assert c["rdma_transform"] == {"negotiated": ["encryption", "signing"], "sealed": 12,
                               "signed": 3, "rejected": 1}, c["rdma_transform"]
EOF
	"${c[@]}" --json stats >"$t/stats.json"
	python3 - "$t/stats.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["counters"]["mr_registrations"] == 20 and s["errors"] == {"peer_disconnect": 1}, s
EOF
	# A malformed blob from the peer, and an older module without the keys.
	sed -i 's/^caps_peer_blob .*/caps_peer_blob truncated/; s/^caps_sent .*/caps_sent 0/' \
		"$d/conn/5/params"
	out=$("${c[@]}" connections)
	expect "$out" "    capabilities (CM private data): ours not sent; peer's malformed (truncated), taken as none"
	sed -i '/^caps_/d' "$d/conn/5/params"
	out=$("${c[@]}" connections)
	! grep -q capabilities <<<"$out" || die "smbdctl made up capabilities: $out"
	sed -i 's/^rdma_transform .*/rdma_transform none/' "$d/conn/5/params"
	out=$("${c[@]}" connections)
	expect "$out" "    RDMA transform: none; payloads sealed 12, signed 3, rejected 1"
	"${c[@]}" --json connections 5 | python3 -c '
import json, sys
x = json.load(sys.stdin)["connections"][0]["rdma_transform"]
assert x["negotiated"] == [], x'
	sed -i '/^rdma_transform/d' "$d/conn/5/params"
	out=$("${c[@]}" connections)
	! grep -q "RDMA transform" <<<"$out" || die "smbdctl made up a transform: $out"

	out=$("${c[@]}" stats)
	expect "$out" "    connections ended by: peer_disconnect 1"

	# Exit statuses: 1 for a connection that does not exist, 2 when there
	# is nothing to read or the command is wrong.
	status 1 "${c[@]}" connections 6
	status 2 "$ctl" --debugfs "$t/nothing" devices
	status 2 "$ctl" frobnicate
	status 2 "$ctl" check
	status 0 "$ctl" --help
	echo "check-smbdctl: devices, connections (with the RDMA transform), stats (text and JSON) and exit statuses"
}

# expect OUTPUT LINE...: each LINE is a whole line of OUTPUT
expect() {
	local out=$1 l
	shift
	for l in "$@"; do
		grep -qxF -- "$l" <<<"$out" || { echo "$out"; die "smbdctl printed no line '$l'"; }
	done
}

status() { # status N COMMAND...: COMMAND exits with N
	local want=$1 rc=0
	shift
	"$@" >/dev/null 2>&1 || rc=$?
	[ "$rc" -eq "$want" ] || die "'$*' exited with $rc, not $want"
}

main "$@"
