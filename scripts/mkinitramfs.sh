#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the VM's base userland as an uncompressed cpio archive and
# print its path. It holds dash and bash, busybox (its applets in
# /usr/local/bb, last in PATH, so the real iproute2 and kmod tools win),
# iproute2's ip and rdma, kmod, the verbs and rdma_cm utilities, perftest,
# libibverbs with the rxe and siw providers, and for the interop tests
# ksmbd-tools (the stock ksmbd's daemon and tools) and mount.cifs, each with
# the shared libraries it needs; ksmbd-tools 3.5.2 from bookworm-backports
# in /opt/ksmbd-tools-3.5 (the first Debian version that can turn on
# durable handles), Python 3 with impacket, an independent SMB2 client
# (tests/vm/sqos_durable.sh), and fio (tests/vm/sqos_smb.sh's untagged
# load, scripts/bench-smb.sh), and dpkg with what it needs (tar, ldconfig)
# for the VM that boots Debian's own kernel and installs our packages
# (scripts/vm.sh --kernel debian). The test modules and the init script are
# added per run by scripts/vm.sh as a second archive appended to this one.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

bins=(
	/usr/bin/dash /usr/bin/bash /usr/bin/busybox /usr/bin/kmod
	/usr/sbin/ip /usr/bin/rdma
	/usr/bin/ibv_devices /usr/bin/ibv_devinfo /usr/bin/ibv_rc_pingpong
	/usr/bin/rping /usr/bin/ucmatose /usr/bin/udaddy
	/usr/bin/ib_send_lat /usr/bin/ib_send_bw /usr/bin/ib_write_bw
	/usr/bin/ib_write_lat /usr/bin/ib_read_bw /usr/bin/ib_read_lat
	# interop with the stock ksmbd and cifs (tests/vm/interop_*.sh). The
	# ksmbd.* names are links to one multi-call binary that dispatches on
	# its name, so each is copied under its own name.
	/usr/sbin/ksmbd.mountd /usr/sbin/ksmbd.control /usr/sbin/ksmbd.adduser
	/usr/sbin/ksmbd.addshare /usr/sbin/mount.cifs
	# an independent I/O load on a cifs mount (sqos_smb.sh, bench-smb.sh)
	/usr/bin/fio
	# dpkg -i and --purge (scripts/guest/guest-debian.sh): dpkg runs
	# dpkg-deb and dpkg-split, checks that ldconfig and tar are in PATH
	# and unpacks a package's control part with tar
	/usr/bin/dpkg /usr/bin/dpkg-deb /usr/bin/dpkg-query /usr/bin/dpkg-split /usr/bin/tar
	/usr/sbin/ldconfig
)
# Extra programs for a one-off run: a space-separated list of absolute
# paths; missing ones are an error.
read -r -a extra <<<"${SMBD_INITRAMFS_EXTRA:-}"
bins+=("${extra[@]}")
# Python 3 and the parts of it and of impacket an SMB2 client needs
python=/usr/bin/python3.11
pylib=/usr/lib/python3.11
pydist=/usr/lib/python3/dist-packages
pypkgs=(impacket Cryptodome pyasn1 six.py)
bins+=("$python")
ksmbd_tools_ver=3.5.2-2~bpo12+1
multiarch=/usr/lib/x86_64-linux-gnu
providers=("$multiarch"/libibverbs/librxe-rdmav*.so "$multiarch"/libibverbs/libsiw-rdmav*.so)

"$SMBD_TOP/scripts/setup.sh"

key=$( { cat "$0"; printf '%s\n' "${bins[@]}";
	 dpkg-query -W busybox-static iproute2 kmod rdma-core ibverbs-providers \
		ibverbs-utils rdmacm-utils perftest libc6 dash bash ksmbd-tools \
		cifs-utils libglib2.0-0 libnl-genl-3-200 libcap-ng0 fio dpkg tar libc-bin; } | sha256sum | cut -c1-12)
dir="$SMBD_CACHE/initramfs"
cpio="$dir/base-$key.cpio"
if [ -f "$cpio" ]; then
	touch "$cpio"
	echo "$cpio"
	exit 0
fi

say "building the VM userland ($cpio)"
mkdir -p "$dir"
root=$(mktemp -d "$dir/root.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib64,usr/local/bb,"$multiarch"/libibverbs}
mkdir -p "$root"/{dev,proc,sys,tmp,run,mnt,src,etc/libibverbs.d,root,var/tmp}
# ksmbd.mountd keeps its generated subauth file in /etc/ksmbd.
mkdir -p "$root"/etc/ksmbd
ln -s usr/bin "$root/bin"
ln -s usr/sbin "$root/sbin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"

copy() {
	local f=$1 real
	real=$(readlink -f "$f")
	mkdir -p "$root$(dirname "$f")"
	[ -e "$root$f" ] || cp -L "$real" "$root$f"
}

ksmbd_tools_deb=$("$SMBD_TOP/scripts/fetch-backport.sh" ksmbd-tools "$ksmbd_tools_ver")
mkdir -p "$root/tmp/kt" "$root/opt/ksmbd-tools-3.5"
dpkg-deb -x "$ksmbd_tools_deb" "$root/tmp/kt"
mv "$root/tmp/kt/usr/libexec/ksmbd.tools" "$root/opt/ksmbd-tools-3.5/"
rm -rf "$root/tmp/kt"
# One multi-call binary that dispatches on the name it is called by
for t in mountd control adduser addshare; do
	ln -s ksmbd.tools "$root/opt/ksmbd-tools-3.5/ksmbd.$t"
done

# The standard library without its tests, IDE, Tk and packaging tools
mkdir -p "$root$pylib" "$root$pydist"
rsync -a --exclude=/test --exclude=/idlelib --exclude=/tkinter --exclude=/turtledemo \
	--exclude=/ensurepip --exclude=/lib2to3 --exclude=/pydoc_data \
	--exclude='/config-*' "$pylib/" "$root$pylib/"
for p in "${pypkgs[@]}"; do
	cp -a "$pydist/$p" "$root$pydist/"
done
ln -s python3.11 "$root/usr/bin/python3"

libs=()
for f in "${bins[@]}" "${providers[@]}" "$pylib"/lib-dynload/*.so \
	$(find "$pydist/Cryptodome" -name '*.so'); do
	[ -e "$f" ] || die "missing $f"
	copy "$f"
	while read -r lib; do
		libs+=("$lib")
	done < <(ldd "$f" 2>/dev/null | awk '/=> \//{print $3} /^\t\/lib/{print $1}')
done
for lib in $(printf '%s\n' "${libs[@]}" | sort -u); do
	# Debian is usr-merged: put everything under /usr, reachable via /lib too.
	case "$lib" in
	/lib/*|/lib64/*) copy "/usr$lib" ;;
	*) copy "$lib" ;;
	esac
done
# rping and friends cancel threads, which loads libgcc_s at run time.
copy "$multiarch/libgcc_s.so.1"
# ksmbd-tools convert user names and passwords to UTF-16LE with iconv (glib),
# which loads the converter at run time; without it they fall back to UCS-2.
copy "$multiarch/gconv/gconv-modules"
copy "$multiarch/gconv/UTF-16.so"
cp /etc/libibverbs.d/rxe.driver /etc/libibverbs.d/siw.driver "$root/etc/libibverbs.d/"

ln -s dash "$root/usr/bin/sh"
for t in modprobe insmod rmmod lsmod depmod modinfo; do
	ln -s ../bin/kmod "$root/usr/sbin/$t"
done
for a in $(busybox --list); do
	ln -s /usr/bin/busybox "$root/usr/local/bb/$a"
done
# nobody: ksmbd's default guest account.
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' \
	>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
# mount.cifs updates /etc/mtab only when it is a file of its own.
ln -s ../proc/self/mounts "$root/etc/mtab"
printf '127.0.0.1 localhost\n' >"$root/etc/hosts"

(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) >"$cpio.tmp.$$"
mv "$cpio.tmp.$$" "$cpio"
# Checkouts of other branches may share this cache and use another archive
# at this very moment: remove only those nobody used for two days.
find "$dir" -maxdepth 1 -name 'base-*.cpio' ! -name "${cpio##*/}" -mtime +1 -delete
echo "$cpio"
