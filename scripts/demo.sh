#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: build everything, boot the VM with rxe and siw, load
# smbdirect and sqos with modprobe, and show the RDMA links and the devices
# smbdirect sees in debugfs.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

exec "$SMBD_TOP/scripts/vm.sh" --kernel plain --demo "$@"
