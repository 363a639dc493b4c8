# SPDX-License-Identifier: GPL-2.0
#
# smbdirect.ko and sqos.ko, out of tree, and the admin command smbdctl.
#
# Using it:
#   make                              build the modules against the running kernel
#                                     (/lib/modules/$(uname -r)/build) and smbdctl
#   make KDIR=/path/to/kernel/build   against another configured Linux 6.12 tree
#   make install                      install them: modules under
#                                     /lib/modules/<release>/updates/smbdirect, then
#                                     depmod; smbdctl in $(PREFIX)/sbin. DESTDIR= (or
#                                     INSTALL_MOD_PATH=) stages instead; see
#                                     Documentation/quickstart.rst
#   make uninstall                    remove what install put there, depmod
#   make deb                          Debian packages smbdirect-dkms and smbdirect-tools
#                                     in out/deb/ (debhelper, dh_dkms)
#
# Testing it (these use the project's own test kernel, never the running one):
#   make test-kernel [KVARIANT=debug] build (or reuse) the test kernel; prints its tree
#   make check                        all tests (both test kernels), ends in "N passed, N failed"
#   make demo                         boot the VM, connect over SMB Direct, show the counters
#   make bench [BENCH_ARGS=...]       transport benchmark vs raw verbs (not part of check)
#   make checkpatch / make sparse     style and static checks of our sources
#   make SMBDX_TESTS=1 KDIR=...       also the KUnit suites (kunit/) and the test and
#                                     demo modules (tests/modules/)
#
# Kbuild (not this file) lists what is built; this file only drives it.

KDIR ?= /lib/modules/$(shell uname -r)/build
KVARIANT ?= plain
kdir = $(KDIR)
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_MOD_PATH ?= $(DESTDIR)

# scripts/install.sh takes its settings from these.
install_env = KDIR="$(KDIR)" DESTDIR="$(DESTDIR)" INSTALL_MOD_PATH="$(INSTALL_MOD_PATH)" \
	PREFIX="$(PREFIX)" SMB_MODULES="$(SMB_MODULES)" SIGN_KEY="$(SIGN_KEY)" \
	SIGN_CERT="$(SIGN_CERT)"

.PHONY: all modules tools install uninstall deb clean check demo bench checkpatch sparse \
	kernel test-kernel

all: modules tools

modules:
	@if [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "smbdirect: no kernel build tree at $(KDIR)." >&2; \
		echo "  Install the running kernel's headers (Debian: apt install linux-headers-$$(uname -r))," >&2; \
		echo "  or give KDIR=<a configured Linux 6.12 build tree>. The project's test kernel:" >&2; \
		echo "  make KDIR=\$$(scripts/kernel.sh plain)" >&2; \
		exit 1; \
	fi
	+$(MAKE) -C "$(KDIR)" M=$(CURDIR) W=1 modules

tools:
	+$(MAKE) -C tools/smbdctl

install: modules tools
	$(install_env) scripts/install.sh install

uninstall:
	$(install_env) scripts/install.sh uninstall

deb:
	scripts/deb.sh

sparse:
	KDIR="$(if $(filter command line,$(origin KDIR)),$(KDIR))" scripts/sparse.sh

kernel test-kernel:
	scripts/kernel.sh $(KVARIANT)

check:
	scripts/check.sh

demo:
	scripts/demo.sh

bench:
	scripts/bench.sh $(BENCH_ARGS)

checkpatch:
	scripts/checkpatch.sh

clean:
	rm -rf out
	+[ ! -d tools/smbdctl ] || $(MAKE) -C tools/smbdctl clean
	find . \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name '*.order' -o -name Module.symvers \) -delete
