#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the build, the VM and the tests need from Debian's packages.
# Idempotent: packages already present are not touched, and apt is not run
# at all when nothing is missing.
#
#   scripts/setup.sh [PACKAGE...]   also these (what one script alone needs,
#                                   e.g. linux-perf for a one-off profile)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(
	# kernel build
	linux-source-6.12 build-essential flex bison bc libelf-dev libssl-dev
	cpio xz-utils zstd ccache kmod python3 sparse rsync
	# the test kernels' patches (scripts/kernel-patches/)
	patch
	# building against Debian's packaged headers (BTF) and packaging:
	# pahole, openssl (a test signing key), debhelper with dh_dkms, dkms,
	# lintian
	pahole openssl debhelper dh-dkms dkms lintian fakeroot dpkg-dev
	# the netlink family's YNL spec against the kernel's schema
	python3-yaml python3-jsonschema
	# the VM and its userland
	qemu-system-x86 busybox-static iproute2
	# RDMA user space: rdma-core providers, verbs tools, perftest
	rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest
	libibverbs1 librdmacm1
	# interop tests: the stock ksmbd's daemon and tools, mount.cifs; an
	# independent SMB2 client in Python (tests/vm/sqos_durable.sh); fio,
	# an independent I/O load (tests/vm/sqos_smb.sh, bench-smb.sh);
	# dbench, a file-server load (bench-smb.sh)
	ksmbd-tools cifs-utils python3-impacket fio dbench
	"$@"
)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

[ "$(id -u)" -eq 0 ] || die "need root to install: ${missing[*]}"
say "installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# ksmbd-tools enables and, under systemd, starts ksmbd.service: an SMB
# server on this host is not wanted (the tests run ksmbd inside the VM).
# policy-rc.d forbids starting services during the installation, and the
# unit is disabled afterwards.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod 755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
case " ${missing[*]} " in
*" ksmbd-tools "*)
	systemctl disable --now ksmbd.service >/dev/null 2>&1 || true
	;;
esac
