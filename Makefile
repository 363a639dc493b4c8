# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of smbdirect.ko and sqos.ko (and, for their tests, of the
# KUnit suites and the test and demo modules).
#
#   make KDIR=/path/to/kernel/build   build the two modules against any configured kernel tree
#   make                              build them against the project's test kernel
#   make SMBDX_TESTS=1                also the KUnit suites (kunit/) and the test and
#                                     demo modules (tests/modules/); the targets below
#                                     build these themselves
#   make check                        all tests (both test kernels), ends in "N passed, N failed"
#   make demo                         boot the VM, connect over SMB Direct, show the counters
#   make bench [BENCH_ARGS=...]       transport benchmark vs raw verbs (not part of check)
#   make checkpatch / make sparse     style and static checks of our sources
#   make smb-modules                  also build Linux's cifs.ko and ksmbd.ko on smbdirect.ko
#                                     (shim/, scripts/build-smb-modules.sh), in out/smb-<release>
#   make smb-install                  install smbdirect.ko (extra/) and those cifs.ko and
#                                     ksmbd.ko (updates/, preferred by modprobe), run depmod
#
# Kbuild (not this file) lists what is built; this file only drives it.

KDIR ?=
KVARIANT ?= plain
kdir = $(if $(KDIR),$(KDIR),$$(scripts/kernel.sh $(KVARIANT)))

.PHONY: all modules clean check demo bench checkpatch sparse kernel smb-modules smb-install

all: modules

modules:
	+kdir="$(kdir)" && $(MAKE) -C "$$kdir" M=$(CURDIR) W=1 modules

smb-modules: modules
	+kdir="$(kdir)" && scripts/build-smb-modules.sh --kdir "$$kdir" \
		--symvers $(CURDIR)/Module.symvers

smb-install: modules
	+kdir="$(kdir)" && scripts/build-smb-modules.sh --kdir "$$kdir" \
		--symvers $(CURDIR)/Module.symvers --install

sparse:
	KDIR="$(KDIR)" scripts/sparse.sh

kernel:
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
	find . \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name '*.order' -o -name Module.symvers \) -delete
