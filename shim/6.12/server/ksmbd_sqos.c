// SPDX-License-Identifier: GPL-2.0
/*
 * ksmbd_sqos.c - MS-SQOS Storage QoS in ksmbd: FSCTL_STORAGE_QOS_CONTROL
 * goes to sqos.ko, each open has sqos state from CREATE to its final close,
 * and READ and WRITE on an open associated with a logical flow are admitted
 * through the flow's limiter before they are issued.
 *
 * The call sites in ksmbd's own sources (shim/6.12/ksmbd-sqos.patch):
 *   vfs_cache.c  ksmbd_open_fd()     -> ksmbd_sqos_open()
 *                __ksmbd_close_fd()  -> ksmbd_sqos_close(): SMB2 CLOSE,
 *                    session logoff, connection loss, durable-handle expiry
 *                    and server shutdown all end there
 *   smb2pdu.c    smb2_ioctl()        -> ksmbd_sqos_fsctl()
 *                smb2_read(), smb2_write() -> ksmbd_sqos_io_start() before
 *                    the data moves, ksmbd_sqos_io_done() when it has
 *
 * Binding: ksmbd does not depend on sqos.ko. While at least one open has
 * sqos state, this file holds one reference on sqos.ko, taken with
 * symbol_get(sqos_get_ops); the last open to go drops it, so sqos.ko can be
 * unloaded whenever no open uses it. Without sqos.ko, or with Storage QoS
 * disabled (configfs sqos/enabled = 0), opens get no state and the FSCTL
 * takes ksmbd's own path for an unknown FSCTL (STATUS_NOT_SUPPORTED),
 * exactly as in the kernel's ksmbd.
 *
 * Throttling: a delayed READ or WRITE sleeps in its own ksmbd-io worker
 * before anything is allocated or transferred, holding only the reference
 * on its open that the request already holds: the other requests of the
 * connection, other opens and other flows run in other workers meanwhile.
 * The sleep ends early (and the I/O goes ahead) when the connection or the
 * server is going away, so teardown never waits for a delay.
 *
 * Locking: ksmbd_sqos_lock (spinlock) protects the binding (ops pointer
 * and its user count). ksmbd_file.sqos is set once, at open or by a
 * cmpxchg() at the first FSCTL on an open made before sqos.ko was loaded,
 * read with READ_ONCE(), and cleared only by the final close, when nothing
 * else uses the open. sqos.ko locks its own state.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

#include "../common/smb2status.h"
#include "glob.h"
#include "connection.h"
#include "ksmbd_work.h"
#include "server.h"
#include "vfs_cache.h"
#include "ksmbd_sqos.h"

/* Longest single sleep of a delayed I/O between liveness checks */
#define KSMBD_SQOS_SLICE_NS	(100 * NSEC_PER_MSEC)

static DEFINE_SPINLOCK(ksmbd_sqos_lock);
static const struct sqos_ops *ksmbd_sqos_ops;
static unsigned long ksmbd_sqos_users;

/* sqos.ko's table, with a use counted; NULL if it is not loaded. */
static const struct sqos_ops *ksmbd_sqos_get(void)
{
	const struct sqos_ops *(*get)(void);
	const struct sqos_ops *ops;

	spin_lock(&ksmbd_sqos_lock);
	ops = ksmbd_sqos_ops;
	if (ops)
		ksmbd_sqos_users++;
	spin_unlock(&ksmbd_sqos_lock);
	if (ops)
		return ops;

	get = symbol_get(sqos_get_ops);
	if (!get)
		return NULL;
	spin_lock(&ksmbd_sqos_lock);
	ops = ksmbd_sqos_ops;
	if (!ops) {
		ksmbd_sqos_ops = get();
		ops = ksmbd_sqos_ops;
		get = NULL;
	}
	ksmbd_sqos_users++;
	spin_unlock(&ksmbd_sqos_lock);
	/* Someone bound meanwhile: one module reference is enough. */
	if (get)
		symbol_put(sqos_get_ops);
	return ops;
}

static void ksmbd_sqos_put(void)
{
	bool last;

	spin_lock(&ksmbd_sqos_lock);
	last = !--ksmbd_sqos_users;
	if (last)
		ksmbd_sqos_ops = NULL;
	spin_unlock(&ksmbd_sqos_lock);
	if (last)
		symbol_put(sqos_get_ops);
}

/* The table while some open holds a use of it */
static const struct sqos_ops *ksmbd_sqos_bound(void)
{
	return READ_ONCE(ksmbd_sqos_ops);
}

/* New sqos state for an open, or NULL (no sqos.ko, disabled, no memory) */
static struct sqos_open *ksmbd_sqos_alloc(void)
{
	const struct sqos_ops *ops = ksmbd_sqos_get();
	struct sqos_open *o = NULL;

	if (!ops)
		return NULL;
	if (ops->enabled())
		o = ops->open_alloc(KSMBD_DEFAULT_GFP);
	if (!o)
		ksmbd_sqos_put();
	return o;
}

static void ksmbd_sqos_free(struct sqos_open *o)
{
	ksmbd_sqos_bound()->open_release(o);
	ksmbd_sqos_put();
}

/**
 * ksmbd_sqos_open() - give a new open its sqos state (SMB2 CREATE)
 * @fp: the open, not yet visible to other requests
 *
 * Without sqos.ko, with Storage QoS disabled or without memory the open
 * simply has none (a later FSCTL may still add it).
 */
void ksmbd_sqos_open(struct ksmbd_file *fp)
{
	fp->sqos = ksmbd_sqos_alloc();
}

/**
 * ksmbd_sqos_close() - drop an open's sqos state (its final close)
 * @fp: the open; nothing else uses it any more
 *
 * The open leaves its logical flow; the flow goes with its last open.
 */
void ksmbd_sqos_close(struct ksmbd_file *fp)
{
	struct sqos_open *o = fp->sqos;

	if (!o)
		return;
	fp->sqos = NULL;
	ksmbd_sqos_free(o);
}

/**
 * ksmbd_sqos_fsctl() - FSCTL_STORAGE_QOS_CONTROL on an open
 * @work: the request
 * @id: VolatileFileId of the open (or the compound's)
 * @in: the IOCTL's input buffer, the MS-SQOS request
 * @in_len: InputCount, the spec's RequestSize
 * @out: the IOCTL response's output buffer
 * @max_out: MaxOutputResponse (within what @out holds), the spec's
 *	MaxResponseSize
 * @nbytes: set to the length of the output (0 or 88)
 * @status: set to the NTSTATUS to answer with when this fails
 *
 * Return: 0 on STATUS_SUCCESS (the output, if any, is in @out);
 * -EOPNOTSUPP when sqos.ko is not loaded or Storage QoS is disabled: the
 * caller answers as for any FSCTL it does not know; otherwise a negative
 * errno with @status set (STATUS_FILE_CLOSED for an unknown handle, or the
 * NTSTATUS sqos_control() returned), to be sent as an error response.
 */
int ksmbd_sqos_fsctl(struct ksmbd_work *work, u64 id, void *in,
		     unsigned int in_len, void *out, unsigned int max_out,
		     unsigned int *nbytes, __le32 *status)
{
	const struct sqos_ops *ops;
	struct ksmbd_file *fp;
	struct sqos_open *o;
	u32 st, out_len = 0;

	*nbytes = 0;
	ops = ksmbd_sqos_get();
	if (!ops)
		return -EOPNOTSUPP;
	if (!ops->enabled()) {
		ksmbd_sqos_put();
		return -EOPNOTSUPP;
	}

	fp = ksmbd_lookup_fd_fast(work, id);
	if (!fp) {
		ksmbd_sqos_put();
		*status = STATUS_FILE_CLOSED;
		return -ENOENT;
	}
	o = READ_ONCE(fp->sqos);
	if (!o) {
		/* Opened before sqos.ko was loaded or enabled */
		o = ksmbd_sqos_alloc();
		if (o && cmpxchg(&fp->sqos, NULL, o)) {
			ksmbd_sqos_free(o);
			o = READ_ONCE(fp->sqos);
		}
	}
	if (!o)
		st = SQOS_NT_INSUFFICIENT_RESOURCES;
	else
		st = ops->control(o, in, in_len, out, max_out, &out_len);
	ksmbd_fd_put(work, fp);
	ksmbd_sqos_put();

	if (st != SQOS_NT_SUCCESS) {
		*status = cpu_to_le32(st);
		return -EIO;
	}
	*nbytes = out_len;
	return 0;
}

/* Sleep until @end_ns unless the connection or the server goes away. */
static void ksmbd_sqos_wait(struct ksmbd_conn *conn, u64 end_ns)
{
	ktime_t t;
	u64 now;

	for (;;) {
		now = ktime_get_ns();
		if (now >= end_ns)
			return;
		if (!ksmbd_server_running() || ksmbd_conn_exiting(conn) ||
		    ksmbd_conn_releasing(conn))
			return;
		t = ns_to_ktime(now + min(end_ns - now, KSMBD_SQOS_SLICE_NS));
		set_current_state(TASK_IDLE);
		schedule_hrtimeout_range(&t, 50 * NSEC_PER_USEC,
					 HRTIMER_MODE_ABS);
	}
}

/**
 * ksmbd_sqos_io_start() - admit a READ or WRITE before it is issued
 * @work: the request
 * @fp: its open
 * @bytes: its length (over SMB Direct, the RDMA length)
 * @io: zero-initialised by the caller; pass to ksmbd_sqos_io_done()
 *
 * An open associated with a logical flow is charged and, when the flow is
 * over its MaximumIoRate, held back here; QoS never fails an I/O.
 *
 * Context: a ksmbd-io worker; may sleep.
 */
void ksmbd_sqos_io_start(struct ksmbd_work *work, struct ksmbd_file *fp,
			 size_t bytes, struct sqos_io *io)
{
	struct sqos_open *o = READ_ONCE(fp->sqos);
	u64 delay;

	if (!o)
		return;
	delay = ksmbd_sqos_bound()->io_admit(o, bytes, io);
	if (delay)
		ksmbd_sqos_wait(work->conn, ktime_get_ns() + delay);
}

/**
 * ksmbd_sqos_io_done() - the I/O admitted by ksmbd_sqos_io_start() is done
 * @io: as ksmbd_sqos_io_start() left it (nothing to do if it charged
 *	nothing); cleared here
 *
 * Call before the request drops its reference on the open.
 */
void ksmbd_sqos_io_done(struct sqos_io *io)
{
	if (io->flow)
		ksmbd_sqos_bound()->io_done(io);
}
