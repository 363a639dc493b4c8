#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the test kernel.
#
#   scripts/kernel.sh plain|debug
#
# Prints the kernel build directory on stdout. The build is cached under
# $SMBD_CACHE/kernel/<variant>-<key>, where <key> hashes Debian's kernel
# source version, the config fragments and the test kernels' patches
# (scripts/kernel-patches/*.patch, applied in order to the unpacked source
# tree, in place), so a second run with the same inputs does nothing.
# ccache (in $SMBD_CACHE/ccache) makes a rebuild after a fragment change
# take about a minute; the source tree keeps its path when the patches
# change, so that only the objects whose sources they touch miss it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The whole script is one function, so bash has read all of it before the
# (long) build starts: editing this file during a build cannot derail it.
main() {
	variant=${1:-plain}
	frags=("$SMBD_TOP/scripts/kconfig/base.config" "$SMBD_TOP/scripts/kconfig/trim.config")
	case "$variant" in
	plain) ;;
	debug) frags+=("$SMBD_TOP/scripts/kconfig/debug.config") ;;
	*) die "unknown kernel variant '$variant' (plain or debug)" ;;
	esac

	"$SMBD_TOP/scripts/setup.sh"

	ver=$(smbd_kernel_pkgver)
	[ -n "$ver" ] || die "linux-source-6.12 is not installed"
	src="$SMBD_CACHE/src/linux-source-6.12-$ver"
	# Bump recipe when the build steps below change in a way that alters the result.
	recipe=1
	patches=("$SMBD_TOP"/scripts/kernel-patches/*.patch)
	[ -f "${patches[0]}" ] || patches=()
	pset=$(cat "${patches[@]}" </dev/null | sha256sum | cut -c1-12)
	key=$( { echo "$ver $recipe"; cat "${frags[@]}" "${patches[@]}"; } | sha256sum | cut -c1-12)
	out="$SMBD_CACHE/kernel/$variant-$key"

	if [ -f "$out/.smbd-built" ]; then
		echo "$out"
		exit 0
	fi

	# One builder at a time per cache; a second caller waits and then reuses.
	mkdir -p "$SMBD_CACHE/src" "$SMBD_CACHE/kernel"
	exec 9>"$SMBD_CACHE/kernel/.lock"
	flock 9
	if [ -f "$out/.smbd-built" ]; then
		echo "$out"
		exit 0
	fi
	# .smbd-patches names the patch set applied to the tree (none: a
	# pristine tree); another set means unpacking afresh.
	applied=$(cat "$src/.smbd-patches" 2>/dev/null || true)
	if [ -f "$src/.smbd-unpacked" ] && [ -n "$applied" ] && [ "$applied" != "$pset" ]; then
		rm -f "$src/.smbd-unpacked"
	fi
	if [ ! -f "$src/.smbd-unpacked" ]; then
		say "unpacking /usr/src/linux-source-6.12.tar.xz ($ver)"
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		tar -xf /usr/src/linux-source-6.12.tar.xz -C "$src.tmp" --strip-components=1
		touch "$src.tmp/.smbd-unpacked"
		mv "$src.tmp" "$src"
	fi
	if [ "$(cat "$src/.smbd-patches" 2>/dev/null || true)" != "$pset" ]; then
		for p in "${patches[@]}"; do
			say "applying $(basename "$p")"
			# A set that stopped half-way leaves no marker: unpack
			# afresh next time rather than patch a patched tree.
			patch -d "$src" -p1 --forward --batch --no-backup-if-mismatch \
				-s <"$p" || { rm -f "$src/.smbd-unpacked"
				die "$(basename "$p") does not apply to $src"; }
		done
		echo "$pset" >"$src/.smbd-patches"
	fi

	say "building the $variant test kernel in $out (cold: 15-25 min on 2 cores)"
	start=$(date +%s)
	rm -rf "$out"
	mkdir -p "$out"
	export CCACHE_DIR="$SMBD_CACHE/ccache" CCACHE_BASEDIR="$SMBD_CACHE"
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-3G} CCACHE_SLOPPINESS=time_macros
	kmake=(make -C "$src" O="$out" -j"$SMBD_JOBS" CC="ccache gcc" KBUILD_BUILD_TIMESTAMP=0
	       KBUILD_BUILD_USER=smbd KBUILD_BUILD_HOST=smbd)
	log="$out/build.log"
	"${kmake[@]}" defconfig >"$log" 2>&1
	(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m -O "$out" .config \
		"$src/kernel/configs/kvm_guest.config" "${frags[@]}") >>"$log" 2>&1
	"${kmake[@]}" olddefconfig >>"$log" 2>&1

	# Every option a fragment asks for must have stuck (a later fragment
	# overrides an earlier one); a silently dropped option would give a kernel
	# that boots but tests the wrong thing.
	declare -A want=()
	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) want[${line%%=*}]=${line#*=} ;; esac
	done < <(cat "${frags[@]}")
	bad=0
	for opt in "${!want[@]}"; do
		val=${want[$opt]}
		have=$(grep "^$opt=" "$out/.config" || true)
		if [ "$val" = n ]; then
			[ -z "$have" ] && continue
		elif [ "$have" = "$opt=$val" ]; then
			continue
		fi
		echo "config: $opt wanted $val but is ${have:-unset}" >&2
		bad=1
	done
	[ "$bad" -eq 0 ] || die "config fragments did not apply (see above)"

	if ! "${kmake[@]}" bzImage modules >>"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "kernel build failed; full log in $log"
	fi
	rm -rf "$out/modroot"
	"${kmake[@]}" INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 DEPMOD=true \
		modules_install >>"$log" 2>&1
	touch "$out/.smbd-built"
	# Keep this build and the newest other one of the variant (a branch
	# with the previous config fragments may still be using it); older
	# ones go.
	# On a fresh machine there is no other build: grep then selects
	# nothing and fails, which must not fail the build (set -e, pipefail).
	{ ls -dt "$SMBD_CACHE/kernel/$variant"-* 2>/dev/null | grep -vxF "$out" || true; } |
		tail -n +2 | while read -r old; do rm -rf "$old"; done
	say "$variant kernel built in $(( $(date +%s) - start )) s"
	echo "$out"
}

main "$@"
exit
