// SPDX-License-Identifier: GPL-2.0
/*
 * ksmbd_sqos.c - MS-SQOS Storage QoS in ksmbd: FSCTL_STORAGE_QOS_CONTROL
 * goes to sqos.ko, each open has sqos state from CREATE to its final close,
 * and READ and WRITE on an open associated with a logical flow are charged
 * to the flow's limiter before they are processed; a request the flow must
 * hold back is parked, holding no worker, until its time.
 *
 * The call sites in ksmbd's own sources (shim/6.12/ksmbd-sqos.patch):
 *   vfs_cache.c  ksmbd_open_fd()     -> ksmbd_sqos_open()
 *                __ksmbd_close_fd()  -> ksmbd_sqos_close(): SMB2 CLOSE,
 *                    session logoff, connection loss, durable-handle expiry
 *                    and server shutdown all end there
 *   smb2pdu.c    smb2_ioctl()        -> ksmbd_sqos_fsctl()
 *                smb2_read(), smb2_write() -> ksmbd_sqos_io_start() before
 *                    the data moves, ksmbd_sqos_io_done() when it has
 *   server.c     __handle_ksmbd_work() -> ksmbd_sqos_admit(), after the
 *                    request is decrypted and before anything of it is
 *                    processed; handle_ksmbd_work() -> ksmbd_sqos_park()
 *                    once the worker is done with the request
 *   connection.c ksmbd_conn_handler_loop() (connection going away) and
 *                ksmbd_all_conn_set_status() (logoff, a session's
 *                    reconnection) -> ksmbd_sqos_conn_release()
 *   ksmbd_work.c ksmbd_free_work_struct() -> ksmbd_sqos_work_free()
 *
 * Binding: ksmbd does not depend on sqos.ko. While at least one open has
 * sqos state, or one I/O is charged to a flow, this file holds one
 * reference on sqos.ko, taken with symbol_get(sqos_get_ops); the last user
 * drops it, so sqos.ko can be unloaded whenever nothing uses it. Without
 * sqos.ko, or with Storage QoS disabled (configfs sqos/enabled = 0), opens
 * get no state and the FSCTL takes ksmbd's own path for an unknown FSCTL
 * (STATUS_NOT_SUPPORTED), exactly as in the kernel's ksmbd.
 *
 * Throttling: no ksmbd-io worker ever sleeps for Storage QoS. When a
 * request's first command is a READ or WRITE on an open in a flow,
 * ksmbd_sqos_admit() charges it (sqos_io_admit()) before the request is
 * processed at all: nothing is allocated, no credit is counted, no
 * session or tree reference is kept. If the flow must hold it back, the
 * worker returns and the request is parked: a timer queues it again when
 * its delay is over, and it is then processed as any request, signing,
 * encryption and credits included; smb2_read()/smb2_write() take over the
 * charge, so an I/O is charged exactly once. A parked request keeps what
 * every request in flight keeps: its buffer, its place in conn->requests
 * and its count in conn->req_running and conn->r_count.
 *
 * Bounds (sqos.ko, Documentation/sqos.rst "Bounds"): a delay is at most
 * max_delay_ms, and a flow has at most max_held_flow, the server max_held
 * delayed I/Os in all; an I/O beyond them is charged and goes at once. So
 * at most max_held requests are parked, each for at most max_delay_ms.
 * A READ or WRITE later in a compound request is charged when it is
 * processed but never waits (its flow's next requests pay for it).
 *
 * Teardown: a parked request goes at once (and is answered or dropped as
 * ksmbd does with any request then) when its connection goes away
 * (before ksmbd waits for conn->r_count) or when a logoff or a session's
 * reconnection marks its connection (before ksmbd waits for the
 * connection to be idle), so nothing waits out a delay.
 *
 * Locking: ksmbd_sqos_lock (spinlock) protects the binding (ops pointer
 * and its user count). ksmbd_sqos_park_lock (spinlock, taken with bottom
 * halves off: the timer runs in softirq) protects the list of parked
 * requests and the state of a parked request; a request leaves the list,
 * and becomes RESUMED, exactly once, by its timer or by
 * ksmbd_sqos_conn_release(), and whoever takes it off queues it. Before a
 * request is parked and after it is resumed only its own worker touches
 * its ksmbd_sqos_work. ksmbd_file.sqos is set once, at open or by a
 * cmpxchg() at the first FSCTL on an open made before sqos.ko was loaded,
 * read with READ_ONCE(), and cleared only by the final close, when
 * nothing else uses the open. sqos.ko locks its own state.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>

#include "../common/smb2status.h"
#include "glob.h"
#include "connection.h"
#include "ksmbd_work.h"
#include "mgmt/share_config.h"
#include "mgmt/tree_connect.h"
#include "mgmt/user_session.h"
#include "server.h"
#include "smb_common.h"
#include "transport_rdma.h"
#include "vfs_cache.h"
#include "ksmbd_sqos.h"

/* Timer slack of a parked request */
#define KSMBD_SQOS_SLACK_NS	(50 * NSEC_PER_USEC)

/* ksmbd_sqos_work.state */
enum {
	KSMBD_SQOS_NEW,		/* not looked at yet */
	KSMBD_SQOS_SEEN,	/* looked at: processed without waiting */
	KSMBD_SQOS_PARKING,	/* to be parked once its worker is done */
	KSMBD_SQOS_PARKED,	/* on the list, waiting for its timer */
	KSMBD_SQOS_RESUMED,	/* queued again: processed as any request */
};

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

static LIST_HEAD(ksmbd_sqos_parked);
static DEFINE_SPINLOCK(ksmbd_sqos_park_lock);

/* One more use of the binding; the caller holds an open with sqos state. */
static void ksmbd_sqos_hold(void)
{
	spin_lock(&ksmbd_sqos_lock);
	ksmbd_sqos_users++;
	spin_unlock(&ksmbd_sqos_lock);
}

/*
 * Charge an I/O of @bytes on @o to its flow, if it has one; @io then
 * holds a use of the binding until ksmbd_sqos_io_done().
 */
static u64 ksmbd_sqos_charge(struct sqos_open *o, size_t bytes,
			     struct sqos_io *io)
{
	u64 delay;

	ksmbd_sqos_hold();
	delay = ksmbd_sqos_bound()->io_admit(o, bytes, io);
	if (!io->flow)
		ksmbd_sqos_put();
	return delay;
}

/*
 * The first command of @work, if it is a READ or WRITE on an open of the
 * request's own session and tree that has sqos state: charge it to the
 * open's flow (into work->sqos.io) and return its delay. The request is
 * not processed yet, so every field is checked before it is used, and
 * anything that does not look like a READ or WRITE ksmbd would carry out
 * is left alone (ksmbd then answers it as it would anyway).
 */
static u64 ksmbd_sqos_first_io(struct ksmbd_work *work)
{
	struct ksmbd_conn *conn = work->conn;
	unsigned int len = get_rfc1002_len(work->request_buf);
	struct smb2_hdr *hdr = smb_get_msg(work->request_buf);
	struct ksmbd_tree_connect *tcon;
	struct ksmbd_session *sess;
	struct ksmbd_file *fp;
	struct sqos_open *o;
	unsigned int bytes, max;
	u64 vid, pid, delay = 0;
	bool rdma;

	if (!ksmbd_conn_good(conn) || len < sizeof(*hdr) ||
	    hdr->ProtocolId != SMB2_PROTO_NUMBER ||
	    hdr->StructureSize != SMB2_HEADER_STRUCTURE_SIZE ||
	    hdr->Flags & (SMB2_FLAGS_ASYNC_COMMAND |
			  SMB2_FLAGS_RELATED_OPERATIONS))
		return 0;
	if (hdr->Command == SMB2_READ) {
		struct smb2_read_req *req = (struct smb2_read_req *)hdr;

		if (len < offsetof(struct smb2_read_req, Buffer))
			return 0;
		rdma = req->Channel == SMB2_CHANNEL_RDMA_V1 ||
		       req->Channel == SMB2_CHANNEL_RDMA_V1_INVALIDATE;
		bytes = le32_to_cpu(req->Length);
		max = rdma ? get_smbd_max_read_write_size() :
			     conn->vals->max_read_size;
		vid = req->VolatileFileId;
		pid = req->PersistentFileId;
	} else if (hdr->Command == SMB2_WRITE) {
		struct smb2_write_req *req = (struct smb2_write_req *)hdr;

		if (len < offsetof(struct smb2_write_req, Buffer))
			return 0;
		rdma = req->Channel == SMB2_CHANNEL_RDMA_V1 ||
		       req->Channel == SMB2_CHANNEL_RDMA_V1_INVALIDATE;
		bytes = le32_to_cpu(rdma ? req->RemainingBytes : req->Length);
		max = rdma ? get_smbd_max_read_write_size() :
			     conn->vals->max_write_size;
		vid = req->VolatileFileId;
		pid = req->PersistentFileId;
	} else {
		return 0;
	}
	/* ksmbd refuses these before it moves any data */
	if (bytes > max || !has_file_id(vid))
		return 0;

	sess = ksmbd_session_lookup_all(conn, le64_to_cpu(hdr->SessionId));
	if (!sess)
		return 0;
	tcon = ksmbd_tree_conn_lookup(sess, le32_to_cpu(hdr->Id.SyncId.TreeId));
	if (!tcon)
		goto out_sess;
	if (test_share_config_flag(tcon->share_conf, KSMBD_SHARE_FLAG_PIPE))
		goto out_tcon;
	/*
	 * ksmbd's own lookup, as smb2_read()/smb2_write() make it: the open
	 * must be in this session's table and on this tree. The request
	 * holds no session or tree yet; both go back before it goes on.
	 */
	work->sess = sess;
	work->tcon = tcon;
	fp = ksmbd_lookup_fd_slow(work, vid, pid);
	if (fp) {
		o = READ_ONCE(fp->sqos);
		if (o)
			delay = ksmbd_sqos_charge(o, bytes, &work->sqos.io);
		ksmbd_fd_put(work, fp);
	}
	work->sess = NULL;
	work->tcon = NULL;
out_tcon:
	ksmbd_tree_connect_put(tcon);
out_sess:
	ksmbd_user_session_put(sess);
	return delay;
}

/**
 * ksmbd_sqos_admit() - charge a request's READ or WRITE before it is
 *	processed
 * @work: the request, decrypted, nothing of it processed yet
 *
 * Called each time the request starts in a worker; only the first time
 * does anything. When the first command is a READ or WRITE its flow must
 * hold back, the request is to be parked: the caller returns at once
 * (processing nothing) and ksmbd_sqos_park() parks it when the worker is
 * done with it.
 *
 * Context: a ksmbd-io worker.
 * Return: true if the request is to be parked.
 */
bool ksmbd_sqos_admit(struct ksmbd_work *work)
{
	struct ksmbd_sqos_work *sw = &work->sqos;
	u64 delay;

	if (sw->state != KSMBD_SQOS_NEW)
		return false;
	sw->state = KSMBD_SQOS_SEEN;
	/* No open has sqos state: nothing to charge */
	if (!ksmbd_sqos_bound())
		return false;
	delay = ksmbd_sqos_first_io(work);
	if (!delay)
		return false;
	sw->until = ktime_get_ns() + delay;
	sw->state = KSMBD_SQOS_PARKING;
	return true;
}

/* A parked request's connection and server can still answer it */
static bool ksmbd_sqos_conn_live(struct ksmbd_conn *conn)
{
	return ksmbd_server_running() && ksmbd_conn_good(conn);
}

static enum hrtimer_restart ksmbd_sqos_timer(struct hrtimer *t)
{
	struct ksmbd_sqos_work *sw = container_of(t, struct ksmbd_sqos_work,
						  timer);
	bool go = false;

	spin_lock(&ksmbd_sqos_park_lock);
	if (sw->state == KSMBD_SQOS_PARKED) {
		list_del_init(&sw->node);
		sw->state = KSMBD_SQOS_RESUMED;
		go = true;
	}
	spin_unlock(&ksmbd_sqos_park_lock);
	/* Nothing touches the request after this: it may run and be freed. */
	if (go)
		ksmbd_queue_work(container_of(sw, struct ksmbd_work, sqos));
	return HRTIMER_NORESTART;
}

/**
 * ksmbd_sqos_park() - park a request ksmbd_sqos_admit() held back
 * @work: the request; its worker touches it no more if this returns true
 *
 * The request waits, holding no worker, until its delay is over; then it
 * is queued again and processed as any request. A request whose
 * connection or server is already going away is queued again at once.
 *
 * Context: a ksmbd-io worker, as the last thing it does with @work.
 * Return: true if the request was parked (or queued again).
 */
bool ksmbd_sqos_park(struct ksmbd_work *work)
{
	struct ksmbd_sqos_work *sw = &work->sqos;
	struct ksmbd_conn *conn = work->conn;

	if (sw->state != KSMBD_SQOS_PARKING)
		return false;
	/* Counted when it runs again */
	atomic64_dec(&conn->stats.request_served);
	spin_lock_bh(&ksmbd_sqos_park_lock);
	if (!ksmbd_sqos_conn_live(conn)) {
		sw->state = KSMBD_SQOS_RESUMED;
		spin_unlock_bh(&ksmbd_sqos_park_lock);
		ksmbd_queue_work(work);
		return true;
	}
	sw->state = KSMBD_SQOS_PARKED;
	list_add_tail(&sw->node, &ksmbd_sqos_parked);
	hrtimer_init(&sw->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	sw->timer.function = ksmbd_sqos_timer;
	hrtimer_start_range_ns(&sw->timer, ns_to_ktime(sw->until),
			       KSMBD_SQOS_SLACK_NS, HRTIMER_MODE_ABS_SOFT);
	spin_unlock_bh(&ksmbd_sqos_park_lock);
	return true;
}

/**
 * ksmbd_sqos_conn_release() - let a connection's parked requests go now
 * @conn: a connection going away, or marked for a logoff or a session's
 *	reconnection (its state is no longer good)
 *
 * Every parked request of @conn is queued at once, so that no one waiting
 * for the connection's requests (conn->r_count, conn->req_running) waits
 * out a delay; ksmbd answers or drops them as any request of such a
 * connection. A request parked after this finds the connection's state
 * and is queued at once too.
 *
 * Context: process context; the connection's state is set before.
 */
void ksmbd_sqos_conn_release(struct ksmbd_conn *conn)
{
	struct ksmbd_sqos_work *sw, *tmp;
	LIST_HEAD(go);

	spin_lock_bh(&ksmbd_sqos_park_lock);
	list_for_each_entry_safe(sw, tmp, &ksmbd_sqos_parked, node) {
		if (container_of(sw, struct ksmbd_work, sqos)->conn != conn)
			continue;
		sw->state = KSMBD_SQOS_RESUMED;
		list_move_tail(&sw->node, &go);
	}
	spin_unlock_bh(&ksmbd_sqos_park_lock);

	list_for_each_entry_safe(sw, tmp, &go, node) {
		/* A timer already running sees RESUMED and does nothing. */
		hrtimer_cancel(&sw->timer);
		list_del_init(&sw->node);
		ksmbd_queue_work(container_of(sw, struct ksmbd_work, sqos));
	}
}

/**
 * ksmbd_sqos_work_free() - a request is freed
 * @work: the request
 *
 * An I/O charged by ksmbd_sqos_admit() that smb2_read()/smb2_write() did
 * not take over (the request failed before) is done here.
 */
void ksmbd_sqos_work_free(struct ksmbd_work *work)
{
	WARN_ON_ONCE(work->sqos.state == KSMBD_SQOS_PARKED);
	ksmbd_sqos_io_done(&work->sqos.io);
}

/**
 * ksmbd_sqos_io_start() - charge a READ or WRITE before it is issued
 * @work: the request
 * @fp: its open
 * @bytes: its length (over SMB Direct, the RDMA length)
 * @io: zero-initialised by the caller; pass to ksmbd_sqos_io_done()
 *
 * The first command of a request was charged, and held back if its flow
 * required it, by ksmbd_sqos_admit(): its charge moves to @io. A READ or
 * WRITE later in a compound request is charged to its open's flow now and
 * goes at once: holding it back would hold its worker.
 *
 * Context: a ksmbd-io worker; does not sleep.
 */
void ksmbd_sqos_io_start(struct ksmbd_work *work, struct ksmbd_file *fp,
			 size_t bytes, struct sqos_io *io)
{
	struct ksmbd_sqos_work *sw = &work->sqos;
	struct sqos_open *o;

	if (!work->next_smb2_rcv_hdr_off && sw->io.flow) {
		*io = sw->io;
		memset(&sw->io, 0, sizeof(sw->io));
		return;
	}
	o = READ_ONCE(fp->sqos);
	if (o)
		ksmbd_sqos_charge(o, bytes, io);
}

/**
 * ksmbd_sqos_io_done() - an I/O charged to a flow is done
 * @io: as ksmbd_sqos_io_start() or ksmbd_sqos_admit() left it (nothing to
 *	do if it charged nothing); cleared here
 */
void ksmbd_sqos_io_done(struct sqos_io *io)
{
	if (!io->flow)
		return;
	ksmbd_sqos_bound()->io_done(io);
	ksmbd_sqos_put();
}
