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

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/types.h>
#include <smbdirect/sqos.h>

struct ksmbd_work;
struct ksmbd_file;
struct ksmbd_conn;

/**
 * struct ksmbd_sqos_work - Storage QoS state of one request (ksmbd_work.sqos)
 * @io: the first command's READ or WRITE, charged before the request was
 *	processed; taken over by smb2_read()/smb2_write(), else done when
 *	the request is freed
 * @timer: ends the wait of a parked request
 * @node: link in the list of parked requests
 * @until: when a parked request goes on (ktime_get_ns())
 * @state: KSMBD_SQOS_* (see ksmbd_sqos.c)
 *
 * Zeroed with the rest of the request by ksmbd_alloc_work_struct().
 */
struct ksmbd_sqos_work {
	struct sqos_io io;
	struct hrtimer timer;
	struct list_head node;
	u64 until;
	u8 state;
};

void ksmbd_sqos_open(struct ksmbd_file *fp);
void ksmbd_sqos_close(struct ksmbd_file *fp);
int ksmbd_sqos_fsctl(struct ksmbd_work *work, u64 id, void *in,
		     unsigned int in_len, void *out, unsigned int max_out,
		     unsigned int *nbytes, __le32 *status);
bool ksmbd_sqos_admit(struct ksmbd_work *work);
bool ksmbd_sqos_park(struct ksmbd_work *work);
void ksmbd_sqos_conn_release(struct ksmbd_conn *conn);
void ksmbd_sqos_work_free(struct ksmbd_work *work);
void ksmbd_sqos_io_start(struct ksmbd_work *work, struct ksmbd_file *fp,
			 size_t bytes, struct sqos_io *io);
void ksmbd_sqos_io_done(struct sqos_io *io);

#endif /* __KSMBD_SQOS_H__ */
