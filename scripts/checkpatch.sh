#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's checkpatch.pl --strict over every C source and header of the
# project. Exits non-zero on any ERROR, WARNING or CHECK.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$SMBD_TOP/scripts/kernel.sh" plain >/dev/null
src="$SMBD_CACHE/src/linux-source-6.12-$(smbd_kernel_pkgver)"
cd "$SMBD_TOP"
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- \
	'*.c' '*.h' | LC_ALL=C sort)
[ ${#files[@]} -gt 0 ] || exit 0
# Files under shim/ live inside cifs and ksmbd and must use their
# identifiers (struct cifsFileInfo, the SMB2 header's Status, ...), so
# CamelCase is not counted there; everything else is checked alike.
own=() shim=()
for f in "${files[@]}"; do
	case "$f" in
	shim/*) shim+=("$f") ;;
	*) own+=("$f") ;;
	esac
done
checkpatch() { # checkpatch IGNORE FILES...: checkpatch's remarks on FILES
	local ign=$1
	shift
	[ $# -gt 0 ] || return 0
	perl "$src/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
		--ignore "$ign" -f "$@" 2>&1 | grep -E ': (ERROR|WARNING|CHECK):' || true
}
out=$(checkpatch FILE_PATH_CHANGES,SPDX_LICENSE_TAG "${own[@]}"
      checkpatch FILE_PATH_CHANGES,SPDX_LICENSE_TAG,CAMELCASE "${shim[@]}")
out=$(printf '%s\n' "$out" | sed '/^$/d')
if [ -n "$out" ]; then
	printf '%s\n' "$out"
	echo "checkpatch --strict: $(printf '%s\n' "$out" | wc -l) remarks in ${#files[@]} files"
	exit 1
fi
echo "checkpatch --strict: clean (${#files[@]} files)"
