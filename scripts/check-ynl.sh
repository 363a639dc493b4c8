#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The generic netlink family's YNL spec (Documentation/netlink/specs/
# smbdirect.yaml) against the kernel's schema (genetlink-c.yaml of the test
# kernel's source), and against the hand-written C definitions it describes
# (include/smbdirect/ctl.h): the same family name and version, attributes
# and commands, in the same order, with the same values.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$SMBD_TOP/scripts/setup.sh"
src="$SMBD_CACHE/src/linux-source-6.12-$(smbd_kernel_pkgver)"
[ -f "$src/Documentation/netlink/genetlink-c.yaml" ] ||
	"$SMBD_TOP/scripts/kernel.sh" plain >/dev/null
python3 - "$src/Documentation/netlink/genetlink-c.yaml" \
	"$SMBD_TOP/Documentation/netlink/specs/smbdirect.yaml" \
	"$SMBD_TOP/include/smbdirect/ctl.h" <<'PY'
import re
import sys

import jsonschema
import yaml

schema = yaml.safe_load(open(sys.argv[1]))
spec = yaml.safe_load(open(sys.argv[2]))
header = open(sys.argv[3]).read()
jsonschema.validate(spec, schema)


def cname(s):
    return s.upper().replace("-", "_")


def enum_of(first):
    """The enumerators of the C enum that starts with `first`, in order."""
    m = re.search(r"enum\s*\{\s*" + first + r",(.*?)\};", header, re.S)
    assert m, f"no enum starting with {first} in ctl.h"
    names = re.findall(r"^\s*(\w+)\s*([,=])", m.group(1), re.M)
    # Leave out the count (__X_MAX) and the alias (X_MAX = __X_MAX - 1).
    return [first] + [n for n, sep in names if not n.startswith("__") and sep == ","]


defines = dict(re.findall(r"#define[ \t]+(\w+)[ \t]+(\S+)", header))
assert defines[cname(spec["c-family-name"])] == '"%s"' % spec["name"], "family name"
assert cname(spec["c-version-name"]) in defines, "family version"
for d in spec.get("definitions", []):
    if d["type"] == "const":
        n = "SMBDX_CTL_" + cname(d["name"])
        assert int(defines[n]) == d["value"], f"{n} is not {d['value']}"

aset = spec["attribute-sets"][0]
want = [cname(aset["name-prefix"] + a["name"]) for a in aset["attributes"]]
got = enum_of(want[0])
assert want == got, f"attributes differ:\n spec {want}\n ctl.h {got}"
ops = spec["operations"]
want = [cname(ops["name-prefix"] + o["name"]) for o in ops["list"]]
got = enum_of(want[0])
assert want == got, f"commands differ:\n spec {want}\n ctl.h {got}"
print(f"check-ynl: the spec is valid and matches ctl.h "
      f"({len(aset['attributes'])} attributes, {len(ops['list'])} commands)")
PY
