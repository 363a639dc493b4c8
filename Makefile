# SPDX-License-Identifier: GPL-2.0
#
# smbdirect.ko and sqos.ko, out of tree, our builds of Linux's cifs.ko and
# ksmbd.ko over smbdirect.ko, and the admin commands smbdctl and sqos-ctl.
#
# Using it:
#   make                              build the modules against the running kernel
#                                     (/lib/modules/$(uname -r)/build) and smbdctl; also
#                                     cifs.ko and ksmbd.ko (shim/) when the kernel's fs/smb
#                                     sources can be found (SMB=0: never, SMB=1: must)
#   make KDIR=/path/to/kernel/build   against another configured Linux 6.12 tree
#   make install                      install them: modules under
#                                     /lib/modules/<release>/updates/smbdirect (our cifs
#                                     and ksmbd ranked above the kernel's), then depmod;
#                                     smbdctl in $(PREFIX)/sbin. DESTDIR= (or
#                                     INSTALL_MOD_PATH=) stages instead; see
#                                     Documentation/quickstart.rst
#   make uninstall                    remove what install put there, depmod
#   make smb-modules                  build cifs.ko and ksmbd.ko over smbdirect.ko
#                                     (scripts/build-smb-modules.sh) in out/smb-<release>
#   make smb-install                  smb-modules, then install
#   make deb                          Debian packages smbdirect-dkms and smbdirect-tools
#                                     in out/deb/ (debhelper, dh_dkms)
#
# Testing it (these use the project's own test kernel, never the running one):
#   make test-kernel [KVARIANT=debug] build (or reuse) the test kernel; prints its tree
#   make check                        all tests (both test kernels), ends in "N passed, N failed"
#   make demo                         boot the VM, mount cifs over SMB Direct, show the counters
#                                     and a Storage QoS flow throttled beside an untagged one
#   make bench [BENCH_ARGS=...]       transport benchmark vs raw verbs (not part of check)
#   make bench-smb [ROUNDS=N RUNTIME=S DEVICES=... PAIRS=... JOBS=...]
#                                     SMB-level benchmark: fio and dbench on cifs over SMB
#                                     Direct, stock and our cifs/ksmbd in all four pairings
#                                     (scripts/bench-smb.sh; not part of check;
#                                     BENCH_ARGS=--trace: the depth-1 time split)
#   make stress [KVARIANT=debug]      long churn and fault-injection runs (not part of check)
#   make repeat [RUNS=20] [KVARIANT=debug]  every live KUnit suite RUNS times, no retry
#   make checkpatch / make sparse     style and static checks of our sources
#   make SMBDX_TESTS=1 KDIR=...       also the KUnit suites (kunit/) and the test and
#                                     demo modules (tests/modules/), and smbdirect.ko
#                                     with its test hooks (smbdirect/testhooks.c)
#
# Kbuild (not this file) lists what is built; this file only drives it.

KDIR ?= /lib/modules/$(shell uname -r)/build
KVARIANT ?= plain
kdir = $(KDIR)
SMB ?= auto
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_MOD_PATH ?= $(DESTDIR)

# scripts/install.sh takes its settings from these.
install_env = KDIR="$(KDIR)" DESTDIR="$(DESTDIR)" INSTALL_MOD_PATH="$(INSTALL_MOD_PATH)" \
	PREFIX="$(PREFIX)" SMB_MODULES="$(SMB_MODULES)" SIGN_KEY="$(SIGN_KEY)" \
	SIGN_CERT="$(SIGN_CERT)"
smb_build = scripts/build-smb-modules.sh --kdir "$(kdir)" --symvers $(CURDIR)/Module.symvers

.PHONY: all modules tools smb smb-preflight smb-modules install smb-install uninstall deb clean \
	check demo bench bench-smb stress repeat checkpatch sparse kernel test-kernel

all: modules tools smb

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
	+$(MAKE) -C tools/sqos-ctl

# Our cifs.ko and ksmbd.ko, as SMB= asks. When they are asked for, their
# sources are checked first (they must be KDIR's kernel's own), before
# anything is built: a refusal costs no build and leaves no module behind.
ifneq ($(filter all smb smb-modules smb-install,$(or $(MAKECMDGOALS),all)),)
modules: smb-preflight
endif
smb-modules smb-install: SMB = 1

smb-preflight:
	+@[ -f "$(KDIR)/Makefile" ] || exit 0; \
	case "$(SMB)" in \
	0) ;; \
	1) scripts/build-smb-modules.sh --kdir "$(kdir)" --check ;; \
	*) if scripts/build-smb-modules.sh --kdir "$(kdir)" --have-src; then \
		scripts/build-smb-modules.sh --kdir "$(kdir)" --check; \
	   fi ;; \
	esac

smb: modules
	+@case "$(SMB)" in \
	0) ;; \
	1) $(smb_build) ;; \
	*) if scripts/build-smb-modules.sh --kdir "$(kdir)" --have-src; then \
		$(smb_build); \
	   else \
		echo "smbdirect: no fs/smb sources for $(kdir): cifs.ko and ksmbd.ko not built" \
		     "(Documentation/smb-modules.rst; SMB=0 silences this)"; \
	   fi ;; \
	esac

smb-modules: modules
	+$(smb_build)

install: modules tools
	$(install_env) scripts/install.sh install

smb-install: smb-modules tools
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

# ROUNDS, RUNTIME, DEVICES, PAIRS and JOBS reach the script through the
# environment (make exports variables given on its command line).
bench-smb:
	scripts/bench-smb.sh $(BENCH_ARGS)

stress:
	KVARIANT=$(KVARIANT) scripts/stress.sh

repeat:
	KVARIANT=$(KVARIANT) RUNS=$(or $(RUNS),20) scripts/repeat.sh

checkpatch:
	scripts/checkpatch.sh

clean:
	rm -rf out
	+[ ! -d tools/smbdctl ] || $(MAKE) -C tools/smbdctl clean
	+[ ! -d tools/sqos-ctl ] || $(MAKE) -C tools/sqos-ctl clean
	find . \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name '*.order' -o -name Module.symvers \) -delete
