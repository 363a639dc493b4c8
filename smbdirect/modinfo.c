// SPDX-License-Identifier: GPL-2.0
/*
 * smbdirect.ko's version and author (modinfo). SMBDX_VERSION comes from the
 * VERSION file at the top of the source tree, through the top-level Kbuild;
 * it is the version dkms.conf and the Debian package carry too.
 */

#include <linux/module.h>

MODULE_VERSION(SMBDX_VERSION);
MODULE_AUTHOR("The smbdirect project");
