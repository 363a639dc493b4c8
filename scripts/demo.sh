#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: build everything, boot the VM with rxe and siw, load
# smbdirect and sqos with modprobe, show the RDMA links and the devices
# smbdirect sees, then connect over SMB Direct on each device, move
# verified messages and RDMA read/write traffic, and show the debugfs
# counters (scripts/guest/guest-demo.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

exec "$SMBD_TOP/scripts/vm.sh" --kernel plain --demo "$@"
