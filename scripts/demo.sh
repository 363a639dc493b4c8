#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: build everything, boot the VM with rxe and siw, load
# smbdirect and sqos with modprobe, show the RDMA links and the devices
# smbdirect sees; then mount a ksmbd share with our cifs over SMB Direct on
# each device, copy a file there and back, show `mount`, DebugData and the
# counters proving RDMA read/write; then Storage QoS: a policy set from the
# shell, a throttled load on a tagged handle beside an untagged one, the
# flow's status from sqos-ctl; then the transport alone: verified
# messages and RDMA read/write traffic with their debugfs counters
# (scripts/guest/guest-demo.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

exec "$SMBD_TOP/scripts/vm.sh" --kernel plain --demo "$@"
