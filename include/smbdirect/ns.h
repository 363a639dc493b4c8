/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbol namespaces of smbdirect.ko and sqos.ko, written so that the same
 * source builds on every kernel we support.
 *
 * Up to Linux 6.12 EXPORT_SYMBOL_NS*() and MODULE_IMPORT_NS() take the
 * namespace as a bare token and stringify it; from 6.13 on they take a
 * string literal. SMBDX_NS_NAME() gives the form the kernel being built
 * against expects, so a user writes, whatever the kernel:
 *
 *	MODULE_IMPORT_NS(SMBDX_NS);
 *	MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));
 *
 * The build says which form: our Kbuild (and the script that builds cifs
 * and ksmbd with our shims) defines SMBDX_NS_STRING for 6.13 and later. A
 * build that forgot it on such a kernel fails to compile (an undeclared
 * identifier in the module info), it cannot pick the wrong namespace.
 *
 * Concurrency: none (declarations only).
 */
#ifndef _SMBDIRECT_NS_H
#define _SMBDIRECT_NS_H

#ifdef SMBDX_NS_STRING
#define SMBDX_NS_NAME(ns)	#ns
#else
#define SMBDX_NS_NAME(ns)	ns
#endif

/* Namespace of smbdirect.ko's exported API (include/smbdirect/smbdirect.h) */
#define SMBDX_NS		SMBDX_NS_NAME(SMBDX)
/* Namespace of sqos.ko's one export, sqos_get_ops() (smbdirect/sqos.h) */
#define SQOS_NS			SMBDX_NS_NAME(SQOS)

#endif /* _SMBDIRECT_NS_H */
