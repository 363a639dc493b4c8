/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksmbd_sqos.h - MS-SQOS Storage QoS in ksmbd through sqos.ko
 * (ksmbd_sqos.c); the call sites in ksmbd's own sources are in
 * shim/6.12/ksmbd-sqos.patch.
 *
 * Locking: see ksmbd_sqos.c.
 */
#ifndef __KSMBD_SQOS_H__
#define __KSMBD_SQOS_H__

#include <smbdirect/sqos.h>

struct ksmbd_work;
struct ksmbd_file;

void ksmbd_sqos_open(struct ksmbd_file *fp);
void ksmbd_sqos_close(struct ksmbd_file *fp);
int ksmbd_sqos_fsctl(struct ksmbd_work *work, u64 id, void *in,
		     unsigned int in_len, void *out, unsigned int max_out,
		     unsigned int *nbytes, __le32 *status);
void ksmbd_sqos_io_start(struct ksmbd_work *work, struct ksmbd_file *fp,
			 size_t bytes, struct sqos_io *io);
void ksmbd_sqos_io_done(struct sqos_io *io);

#endif /* __KSMBD_SQOS_H__ */
