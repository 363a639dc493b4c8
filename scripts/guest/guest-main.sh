#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The VM's run: bring up rxe and siw, install and load our modules the way a
# user would, then do what smbd.mode= on the kernel command line asks:
#   check  run every KUnit module and every tests/vm/*.sh, print KTAP
#   demo   show the RDMA links and what smbdirect sees, then cifs mounting
#          ksmbd over SMB Direct, echo rounds and RDMA read/write over rxe
#          and siw (guest-demo.sh)
#   exec   run /smbd/exec (the host's --exec FILE) and return its status
#   debian Debian's own kernel image: install our packages with dpkg and
#          use them over rxe, print KTAP (guest-debian.sh)
. /smbd/guest-lib.sh

# scripts/ktap.py tells boot-time kernel reports from later ones by this.
echo "smbd-vm: userland started" >/dev/kmsg 2>/dev/null

mode=$(cmdline_arg smbd.mode check)
inject=$(cmdline_arg smbd.inject "")

case "$mode" in
check)
	. /smbd/guest-check.sh
	run_check "$inject"
	;;
demo)
	rdma_setup || exit 1
	load_modules || exit 1
	say "kernel $(uname -r); modules loaded with modprobe:"
	lsmod | grep -E '^(smbdirect|sqos) '
	say "RDMA links:"
	rdma link show
	say "/sys/kernel/debug/smbdirect/devices:"
	cat /sys/kernel/debug/smbdirect/devices
	sh /smbd/guest-demo.sh
	;;
debian)
	. /smbd/guest-check.sh
	. /smbd/guest-debian.sh
	run_debian
	;;
exec)
	rdma_setup || exit 1
	load_modules || exit 1
	cd /src 2>/dev/null || cd /
	/bin/sh /smbd/exec
	;;
*)
	echo "unknown smbd.mode=$mode"
	exit 2
	;;
esac
