#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test kernel under QEMU (TCG) with our modules and run something.
#
#   scripts/vm.sh [--kernel plain|debug|debian] [--demo | --exec FILE | --inject fail|warn]
#                 [--out DIR] [--timeout SECONDS] [--no-build]
#
#   (default)       run every test (KUnit modules, tests/vm/*.sh, pipeline
#                   checks); judge the run; exit non-zero on any failure
#   --demo          show the RDMA links and smbdirect's device list, a cifs
#                   mount of a ksmbd share over rxe and siw with a file
#                   copied both ways, then SMB Direct messages and RDMA
#                   read/write, with their counters (scripts/guest/guest-demo.sh)
#   --exec FILE     run FILE (a /bin/sh script) inside the VM after rxe and
#                   siw are up and smbdirect and sqos are loaded; the checkout
#                   is mounted read-only at /src; exit with FILE's status
#   --inject MODE   pipeline self-test: boot with a deliberately failing
#                   (fail) or WARNing (warn) KUnit case; the run must be
#                   judged failed
#   --kernel debian Debian's own kernel image (linux-image of linux-source-
#                   6.12's version, scripts/distro-headers.sh --image) with
#                   its own modules; the guest installs our packages with
#                   dpkg and runs scripts/guest/guest-debian.sh, judged like
#                   a test run. The packages come from scripts/check-deb.sh,
#                   which this runs first (--no-build: the ones in out/deb)
#
# Output of a run is kept in --out (default out/<kernel>-<mode>/):
# console.log (kernel console), results.log (what the run printed), build.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# main and the functions above it are read whole before main runs: editing
# this file while a run is in progress cannot derail that run.

# test_build: our modules (with the KUnit suites and the test modules),
# cifs.ko and ksmbd.ko over them, smbdctl and sqos-ctl, for the test kernel
# in $kdir (--no-build: the last build's); sets bdir, kos, smbkos, cfs_ko.
test_build() {
	# Our modules, built out of tree in a copy of the sources per kernel, so
	# builds against the two kernels never share objects.
	bdir="$SMBD_OUT/build-$variant"
	# A test kernel without configfs gets the kernel's own as a module of
	# ours, for sqos.ko's configfs tree (scripts/build-configfs.sh).
	cfs_args=()
	cfs_ko=
	if ! grep -Eq '^CONFIG_CONFIGFS_FS=(y|m)$' "$kdir/.config"; then
		cfs_ko="$bdir/configfs/configfs.ko"
		cfs_args=(SQOS_CONFIGFS=1 KBUILD_EXTRA_SYMBOLS="$bdir/configfs/Module.symvers")
	fi
	if [ "$build" -eq 1 ]; then
		mkdir -p "$bdir"
		smbd_sync_src "$bdir/src" "$kdir"
		if [ -n "$cfs_ko" ]; then
			"$SMBD_TOP/scripts/build-configfs.sh" "$kdir" "$bdir/configfs" >/dev/null ||
				die "configfs.ko did not build"
		fi
		say "building modules against $krel"
		# SMBDX_TESTS=1: the KUnit suites and the test modules too.
		if ! make -C "$kdir" M="$bdir/src" W=1 SMBDX_TESTS=1 "${cfs_args[@]}" \
			-j"$SMBD_JOBS" modules >"$outdir/build.log" 2>&1; then
			cat "$outdir/build.log" >&2
			die "module build failed"
		fi
		if grep -E 'warning:|error:' "$outdir/build.log" >&2; then
			die "module build printed warnings (W=1 must be clean)"
		fi
		# Linux's own cifs.ko and ksmbd.ko on smbdirect.ko (shim/).
		if ! "$SMBD_TOP/scripts/build-smb-modules.sh" --kdir "$kdir" \
			--symvers "$bdir/src/Module.symvers" --out "$bdir/smb" \
			>>"$outdir/build.log" 2>&1; then
			cat "$outdir/build.log" >&2
			die "cifs/ksmbd build failed"
		fi
		# smbdctl and sqos-ctl, the admin commands, built as `make` builds them.
		for t in smbdctl sqos-ctl; do
			if ! make -C "$bdir/src/tools/$t" >"$outdir/$t.log" 2>&1 ||
				grep -E 'warning:|error:' "$outdir/$t.log" >&2; then
				die "$t did not build cleanly (see $outdir/$t.log)"
			fi
		done
	fi
	# The modules the build made, as kbuild lists them: the copy may still
	# hold modules that an older layout of the tree built elsewhere.
	[ -s "$bdir/src/modules.order" ] || die "no modules built in $bdir/src"
	mapfile -t kos < <(awk -v d="$bdir/src" '{ sub(/\.o$/, ".ko"); print (/^\// ? "" : d "/") $0 }' \
		"$bdir/src/modules.order" | LC_ALL=C sort)
	smbkos=("$bdir/smb/fs/smb/client/cifs.ko" "$bdir/smb/fs/smb/server/ksmbd.ko")
	for ko in "${smbkos[@]}" ${cfs_ko:+"$cfs_ko"}; do
		[ -f "$ko" ] || die "no $ko"
	done
}

# test_stage: into $stage, the test kernel's module tree (the kernel's own
# modules, ours under extra/ and our cifs and ksmbd under updates/, indexed
# by depmod), the product's `make install` for tests/vm/install.sh and
# smbdctl and sqos-ctl in /usr/sbin.
test_stage() {
	cp -a "$kdir/modroot/lib/modules/$krel" "$stage/lib/modules/"
	rm -f "$stage/lib/modules/$krel/build" "$stage/lib/modules/$krel/source"
	mkdir -p "$stage/lib/modules/$krel/extra" "$stage/lib/modules/$krel/updates"
	cp "${kos[@]}" ${cfs_ko:+"$cfs_ko"} "$stage/lib/modules/$krel/extra/"
	# Our cifs and ksmbd go where an installation puts them: depmod ranks
	# updates/ above the kernel's own (kernel/fs/smb/...), so modprobe
	# loads ours; the stock ones stay loadable by path.
	cp "${smbkos[@]}" "$stage/lib/modules/$krel/updates/"
	depmod -b "$stage" "$krel"
	# `make install` of the product, staged as a package would ship it, for
	# tests/vm/install.sh to install into the VM's root; smbdctl in PATH.
	KDIR="$kdir" DESTDIR="$stage/smbd/install-root" PREFIX=/usr SMB_MODULES="$bdir/smb/fs/smb" \
		"$bdir/src/scripts/install.sh" install >>"$outdir/build.log" 2>&1 ||
		die "make install into the VM's staging failed (see $outdir/build.log)"
	install -D -m 755 "$bdir/src/tools/smbdctl/smbdctl" "$stage/usr/sbin/smbdctl"
	install -D -m 755 "$bdir/src/tools/sqos-ctl/sqos-ctl" "$stage/usr/sbin/sqos-ctl"
}

# debian_build: Debian's headers and kernel image of linux-source-6.12's
# version, and our packages built against those headers by
# scripts/check-deb.sh (--no-build: the ones it built last); sets kdir,
# krel, img and debs.
debian_build() {
	local ver
	kdir=$("$SMBD_TOP/scripts/distro-headers.sh")
	krel=$(cat "$kdir/include/config/kernel.release")
	img=$("$SMBD_TOP/scripts/distro-headers.sh" --image)
	ver=$(cat "$SMBD_TOP/VERSION")
	if [ "$build" -eq 1 ]; then
		say "make deb and the DKMS build against $krel (scripts/check-deb.sh)"
		"$SMBD_TOP/scripts/check-deb.sh" >"$outdir/build.log" 2>&1 ||
			{ cat "$outdir/build.log" >&2; die "scripts/check-deb.sh failed"; }
	fi
	debs=("$SMBD_OUT/deb/smbdirect-modules-${krel}_${ver}_amd64.deb"
	      "$SMBD_OUT/deb/smbdirect-tools_${ver}_amd64.deb")
	for d in "${debs[@]}"; do
		[ -f "$d" ] || die "no $d: scripts/check-deb.sh makes it"
	done
}

# debian_stage: into $stage, of Debian's image's modules only those the
# guest loads, with what they need (modprobe --show-depends in the
# unpacked image; about 3 MB instead of 100), at their paths, indexed by
# depmod; our packages in /smbd/debs; dpkg's database, where the image's
# package and the C library (the base userland's, this machine's) are
# installed, so that dpkg -i checks our packages' dependencies on them.
debian_stage() {
	local m f want=(9pnet_virtio 9p veth rdma_rxe configfs cifs ksmbd nls_utf8)
	local mdir="lib/modules/$krel"
	# cifs and ksmbd ask the crypto API for algorithms by name (gcm(aes),
	# ccm(aes), cmac(aes)...), which loads modules through request_module:
	# all of the kernel's crypto modules (under 1 MB).
	for f in "$img/$mdir"/kernel/{crypto,arch/x86/crypto,lib/crypto}/*.ko*; do
		f=${f##*/}
		want+=("${f%%.ko*}")
	done
	# And whatever ours need of the kernel's (ib_core, rdma_cm...).
	mkdir -p "$stage/tmp/ours"
	dpkg-deb -x "${debs[0]}" "$stage/tmp/ours"
	for f in "$stage/tmp/ours/$mdir"/updates/dkms/*.ko*; do
		mapfile -t -O "${#want[@]}" want < <(modinfo -F depends "$f" | tr ',' '\n' |
			grep -vxE 'smbdirect|sqos|')
	done
	rm -rf "$stage/tmp/ours"
	for m in "${want[@]}"; do
		modprobe -d "$img" -S "$krel" --show-depends "$m" ||
			die "Debian's $krel has no module $m"
	done | awk '$1 == "insmod" { print $2 }' | LC_ALL=C sort -u | while read -r f; do
		mkdir -p "$stage/$(dirname "${f#"$img"/}")"
		cp "$f" "$stage/${f#"$img"/}"
	done
	cp "$img/$mdir"/modules.{order,builtin,builtin.modinfo} "$stage/$mdir/"
	depmod -b "$stage" "$krel"
	mkdir -p "$stage/smbd/debs" "$stage/var/lib/dpkg/"{info,updates,triggers}
	cp "${debs[@]}" "$stage/smbd/debs/"
	: >"$stage/var/lib/dpkg/available"
	{
		sed '1a Status: install ok installed' "$img/DEBIAN/control"
		echo
		dpkg-query -s libc6
	} >"$stage/var/lib/dpkg/status"
	cp "$img/DEBIAN/list" "$stage/var/lib/dpkg/info/linux-image-$krel.list"
	cp /var/lib/dpkg/info/libc6:amd64.list "$stage/var/lib/dpkg/info/"
}

# One function, read whole before it runs (see above).
main() {
	variant=plain
	mode=check
	exec_file=
	inject=
	outdir=
	timeout_s=
	build=1

	usage() {
		sed -n '3,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit "${1:-0}"
	}

	while [ $# -gt 0 ]; do
		case "$1" in
		--kernel) variant=$2; shift 2 ;;
		--demo) mode=demo; shift ;;
		--exec) mode=exec; exec_file=$(readlink -f "$2"); shift 2 ;;
		--inject) inject=$2; shift 2 ;;
		--out) outdir=$2; shift 2 ;;
		--timeout) timeout_s=$2; shift 2 ;;
		--no-build) build=0; shift ;;
		-h|--help) usage 0 ;;
		*) echo "unknown argument: $1" >&2; usage 2 ;;
		esac
	done
	case "$inject" in ""|fail|warn) ;; *) die "--inject takes fail or warn" ;; esac
	[ "$mode" != exec ] || [ -f "$exec_file" ] || die "--exec: no such file"

	label="$variant-$mode${inject:+-inject-$inject}"
	outdir=${outdir:-$SMBD_OUT/$label}
	if [ -z "$timeout_s" ]; then
		# Emulated CPUs: the debug kernel runs several times slower.
		if [ "$variant" = debug ]; then timeout_s=3600; else timeout_s=1200; fi
	fi
	if [ "$variant" = debian ] && { [ "$mode" != check ] || [ -n "$inject" ]; }; then
		die "--kernel debian runs its own stage only (no --demo, --exec or --inject)"
	fi
	mkdir -p "$outdir"
	rm -f "$outdir"/{console.log,results.log,initrd.cpio}

	if [ "$variant" = debian ]; then
		debian_build
		kernel_image="$img/boot/vmlinuz-$krel"
		guest_mode=debian
	else
		kdir=$("$SMBD_TOP/scripts/kernel.sh" "$variant")
		krel=$(cat "$kdir/include/config/kernel.release")
		test_build
		kernel_image="$kdir/arch/x86/boot/bzImage"
		guest_mode=$mode
	fi
	base=$("$SMBD_TOP/scripts/mkinitramfs.sh")

	# Per-run archive: init and the VM's scripts (scripts/guest/, as /init and
	# /smbd/guest-*.sh), the shell tests with their lib.sh and Python
	# helpers (tests/vm/, as /smbd/tests/) and the module tree
	# (test_stage or debian_stage).
	stage=$(mktemp -d)
	trap 'rm -rf "$stage"' EXIT
	mkdir -p "$stage/smbd/tests" "$stage/lib/modules"
	cp "$SMBD_TOP/scripts/guest/init" "$stage/init"
	chmod 755 "$stage/init"
	cp "$SMBD_TOP"/scripts/guest/guest-*.sh "$stage/smbd/"
	cp "$SMBD_TOP"/tests/vm/*.sh "$SMBD_TOP"/tests/vm/*.py "$stage/smbd/tests/"
	[ "$mode" != exec ] || cp "$exec_file" "$stage/smbd/exec"
	if [ "$variant" = debian ]; then
		debian_stage
	else
		test_stage
	fi
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) \
		>"$outdir/run.cpio"
	cat "$base" "$outdir/run.cpio" >"$outdir/initrd.cpio"
	rm -f "$outdir/run.cpio"

	# no_timer_check: on a loaded host the emulated IO-APIC timer can miss
	# the boot-time check and the kernel panics ("IO-APIC + timer doesn't
	# work"); seen once with two VMs and a build running side by side.
	append="console=ttyS0 loglevel=6 panic=-1 no_hash_pointers no_timer_check smbd.mode=$guest_mode"
	append+=" rcupdate.rcu_cpu_stall_timeout=120 sysctl.kernel.hung_task_timeout_secs=600"
	[ -z "$inject" ] || append+=" smbd.inject=$inject"
	mem=2048
	[ "$variant" != debug ] || mem=3072

	# la57=off: with 5-level paging, a debug kernel can report a KASAN
	# wild-memory-access in handle_edge_irq during boot (1 boot in 15 here).
	# identify_cpu() clears the boot CPU's feature bits, LA57 among them,
	# with interrupts enabled. Before alternatives are patched,
	# pgtable_l5_enabled() reads those bits, so an interrupt in that window
	# sees the 4-level KASAN shadow range, and the 5-level direct map falls
	# outside it. With 4-level paging there is no such window.
	say "booting $krel ($label), timeout ${timeout_s}s; logs in $outdir"
	start=$(date +%s)
	qrc=0
	timeout --foreground -k 10 "$timeout_s" qemu-system-x86_64 \
		-accel tcg,thread=single -cpu max,la57=off -smp 2 -m "$mem" \
		-kernel "$kernel_image" -initrd "$outdir/initrd.cpio" \
		-append "$append" \
		-display none -monitor none -no-reboot -nic none \
		-serial "file:$outdir/console.log" -serial "file:$outdir/results.log" \
		-virtfs "local,path=$SMBD_TOP,mount_tag=smbdsrc,security_model=none,readonly=on" \
		</dev/null || qrc=$?
	say "VM ran for $(( $(date +%s) - start )) s (qemu status $qrc)"
	[ "$qrc" -ne 124 ] || echo "[$label] timed out after ${timeout_s}s" >&2

	case "$mode" in
	check)
		args=(--results "$outdir/results.log" --console "$outdir/console.log"
		      --label "$label" --counts "$outdir/counts"
		      --summary "$outdir/summary")
		[ -z "$inject" ] || args+=(--expect-fail inject)
		python3 "$SMBD_TOP/scripts/ktap.py" "${args[@]}"
		;;
	*)
		sed -e 's/\r$//' -e '/^SMBD-VM-EXIT /d' "$outdir/results.log"
		rc=$(sed -n 's/\r$//; s/^SMBD-VM-EXIT \([0-9]*\)$/\1/p' "$outdir/results.log")
		python3 "$SMBD_TOP/scripts/ktap.py" --console-only --console "$outdir/console.log" \
			--label "$label" || exit 1
		[ -n "$rc" ] || die "the VM did not finish (see $outdir/console.log)"
		exit "$rc"
		;;
	esac
}

main "$@"
