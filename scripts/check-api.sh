#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The exported API's promises (make check):
#   1. no symbol smbdirect.ko exports appears anywhere in the kernel's own
#      fs/smb sources (cifs, ksmbd, common), so the cifs/ksmbd shims can
#      define cifs's smbd_*() and call ours (Documentation/design.rst);
#   2. every module that uses a symbol of the SMBDX or SQOS namespace says
#      so in its modinfo (import_ns);
#   3. the kernel-doc of the public headers and of every exported function
#      is complete (the kernel's scripts/kernel-doc -Wall says nothing),
#      and so is that of what is exported for the KUnit suites only;
#   4. Documentation/api.rst lists exactly the exported functions, with
#      their kernel-doc summaries (scripts/apidoc.py --check).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kdir=${KDIR:-$("$SMBD_TOP/scripts/kernel.sh" plain)}
src="$SMBD_CACHE/src/linux-source-6.12-$(smbd_kernel_pkgver)"
bdir="$SMBD_OUT/build-api"
mkdir -p "$bdir"
smbd_sync_src "$bdir/src" "$kdir"
if ! make -C "$kdir" M="$bdir/src" SMBDX_TESTS=1 -j"$SMBD_JOBS" modules \
	>"$bdir/build.log" 2>&1; then
	cat "$bdir/build.log"
	die "module build failed"
fi
bad=0

# 1. Exported names against every identifier of fs/smb.
words=$(mktemp)
trap 'rm -f "$words"' EXIT
grep -rhoE '\b[A-Za-z_][A-Za-z0-9_]*\b' "$src/fs/smb" | LC_ALL=C sort -u >"$words"
exports=$(awk '$3 ~ /\/smbdirect\/smbdirect$/ { print $2 }' "$bdir/src/Module.symvers" |
	LC_ALL=C sort -u)
[ -n "$exports" ] || { echo "check-api: smbdirect.ko exports nothing?"; exit 1; }
clash=$(LC_ALL=C comm -12 <(echo "$exports") "$words")
if [ -n "$clash" ]; then
	echo "check-api: smbdirect.ko exports names the kernel's fs/smb uses:"
	echo "$clash"
	bad=1
fi
echo "check-api: $(echo "$exports" | wc -l) exports of smbdirect.ko, none in fs/smb"

# 2. Namespace imports of every module that uses them.
users_n=0
while IFS= read -r ko; do
	undef=$(nm -u "$ko" | awk '{ print $2 }')
	for ns in SMBDX SQOS; do
		users=$(awk -v ns="$ns" '$5 == ns { print $2 }' "$bdir/src/Module.symvers" |
			LC_ALL=C sort -u | LC_ALL=C comm -12 - <(echo "$undef" | LC_ALL=C sort -u))
		[ -n "$users" ] || continue
		users_n=$((users_n + 1))
		if ! modinfo -F import_ns "$ko" | grep -qx "$ns"; then
			echo "check-api: $(basename "$ko") uses $ns symbols without importing $ns"
			bad=1
		fi
	done
done < <(find "$bdir/src" -name '*.ko' | LC_ALL=C sort)
echo "check-api: $users_n modules use the SMBDX or SQOS namespace; each imports it"

# 3. kernel-doc of the public headers and the exported functions.
cd "$SMBD_TOP"
kd=$( { perl "$src/scripts/kernel-doc" -none -Wall include/smbdirect/*.h
	for f in smbdirect/*.c qos/*.c; do
		perl "$src/scripts/kernel-doc" -none -Wall -export "$f"
	done; } 2>&1)
if [ -n "$kd" ]; then
	echo "$kd"
	bad=1
fi
echo "check-api: kernel-doc of the public headers and exported functions: ${kd:+not }complete"

# 3b. The functions and objects exported for the KUnit suites only
# (EXPORT_SYMBOL_IF_KUNIT) are documented too. kernel-doc's -export does
# not see that macro, and -function says nothing of a function without a
# comment, so: each has a kernel-doc comment naming it in its file ("name()
# - ..."; an object gets a plain comment "name - ...", as 6.12's kernel-doc
# cannot parse one), and kernel-doc -Wall says nothing of those comments.
nodoc=
for f in smbdirect/*.c qos/*.c; do
	names=$(sed -n 's/^EXPORT_SYMBOL_IF_KUNIT(\([A-Za-z0-9_]*\));/\1/p' "$f")
	[ -n "$names" ] || continue
	args=
	for n in $names; do
		grep -Eq "^ \* (struct |var )?$n(\(\))? - " "$f" ||
			nodoc="$nodoc $f:$n"
		args="$args -function $n"
	done
	# shellcheck disable=SC2086
	w=$(perl "$src/scripts/kernel-doc" -none -Wall $args "$f" 2>&1) || :
	[ -z "$w" ] || { echo "$w"; bad=1; }
done
if [ -n "$nodoc" ]; then
	echo "check-api: exported for KUnit without a kernel-doc comment:$nodoc"
	bad=1
fi
echo "check-api: kernel-doc of the functions exported for KUnit only: ${nodoc:+not }complete"

# 4. api.rst against the kernel-doc.
python3 -B "$SMBD_TOP/scripts/apidoc.py" --check || bad=1
exit "$bad"
