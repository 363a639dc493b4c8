// SPDX-License-Identifier: GPL-2.0
/*
 * Delivery of received messages to the upper layer: the message object
 * (its pages, the smbdx_msg_*() accessors, smbdx_msg_free()), the ready
 * queue, the pull form (smbdx_recv_msg()) and the callback
 * form (the upcall work: the hand-over of a passive connection to its
 * listener's accept callback, the recv callback for each message, and the
 * disconnected callback once after a failure).
 *
 * Normal operation: recv.c reassembles a message into pages allocated
 * here (smbdx_msg_alloc(), smbdx_msg_fill()) and queues it whole with
 * smbdx_msg_ready(). In pull mode smbdx_recv_msg() takes it from the ready
 * queue; in callback mode the connection's upcall work hands it to the
 * recv callback. A message counts in held_bytes with the memory it holds
 * (its structure and its pages, msg->cost) from its first fragment until
 * smbdx_msg_free(), which reposts receives and runs the send loop (so the
 * credits the peer waits for go out); a message handed out also holds a
 * reference on its connection. A message's pages are allocated as its
 * fragments arrive.
 *
 * Callbacks run from one work item per connection (upcall_work, never
 * running twice at once), so they are called in process context, one at a
 * time per connection, in order: accept, then messages, then the loss.
 * Nothing is delivered before the upper layer owns the connection
 * (smbdx_connect() returned it, or accept returned 0). smbdx_destroy() sets
 * upcalls_off and waits for a running upcall, so nothing is called after
 * it returns.
 *
 * Transport recovery: messages received before a loss are still
 * delivered, then the error. A passive connection that fails before the
 * hand-over (negotiation error or timeout, peer gone, accept refused,
 * listener destroyed) is torn down and released by its upcall work.
 * Messages still queued when the connection is freed are freed with it
 * (smbdx_ready_flush()).
 *
 * Locking: this file shares conn->recv (struct smbdx_conn_recv, smbd.h)
 * with recv.c and owns its delivery half: the ready queue, the pull
 * form's wait queue, the upcall work and its flags. The ready queue,
 * held_bytes and the upcall flags are under conn->lock; callbacks are
 * called without it.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/highmem.h>
#include <linux/uio.h>

#include "smbd.h"
#include "trace.h"

static void smbdx_msg_release(struct smbdx_msg *msg)
{
	u32 i;

	for (i = 0; i < msg->nvec; i++)
		__free_page(msg->bv[i].bv_page);
	kfree(msg);
}

/**
 * smbdx_msg_alloc() - a message of @len bytes for reassembly
 * @len: the whole message's length (the first fragment's
 *	DataLength + RemainingDataLength, checked by the engine)
 * @gfp: allocation flags (GFP_ATOMIC from the completion handler)
 *
 * Only the structure, with room for the page vector, is allocated here:
 * the pages come with the fragments that fill them (smbdx_msg_fill()), so
 * a first fragment that announces a large message and a peer that never
 * sends the rest hold one page, not the whole announced length.
 *
 * Return: the message, without pages, or NULL.
 */
struct smbdx_msg *smbdx_msg_alloc(u32 len, gfp_t gfp)
{
	u32 nvec = DIV_ROUND_UP(len, PAGE_SIZE);
	struct smbdx_msg *msg;
	size_t size = struct_size(msg, bv, nvec);

	msg = smbdx_fault(SMBDX_FAULT_MSG_ALLOC) ? NULL : kmalloc(size, gfp);
	if (!msg)
		return NULL;
	INIT_LIST_HEAD(&msg->list);
	msg->conn = NULL;
	msg->len = len;
	msg->nvec = 0;
	msg->cost = kmalloc_size_roundup(size);
	msg->inv = false;
	msg->inv_token = 0;
	return msg;
}

/**
 * smbdx_msg_fill() - copy a fragment's payload into a message
 * @msg: the message being reassembled; fragments arrive in order, so the
 *	payload starts in its last page or just after it
 * @off: where the fragment goes (checked against the message's length)
 * @src: the payload in the receive buffer
 * @len: its length
 * @gfp: allocation flags for the pages it needs
 *
 * Adds the pages the fragment reaches to the message (and their size to
 * its @cost).
 *
 * Return: 0, or -ENOMEM (the message keeps the pages it has).
 */
int smbdx_msg_fill(struct smbdx_msg *msg, u32 off, const u8 *src, u32 len,
		   gfp_t gfp)
{
	struct page *page;
	u32 i, po, n;

	while (len) {
		i = off / PAGE_SIZE;
		po = off % PAGE_SIZE;
		n = min_t(u32, len, PAGE_SIZE - po);
		if (WARN_ON_ONCE(i > msg->nvec))
			return -EINVAL;
		if (i == msg->nvec) {
			page = smbdx_fault(SMBDX_FAULT_MSG_ALLOC) ? NULL :
			       alloc_page(gfp);
			if (!page)
				return -ENOMEM;
			bvec_set_page(&msg->bv[i], page,
				      min_t(u32, PAGE_SIZE,
					    msg->len - i * PAGE_SIZE), 0);
			msg->nvec++;
			msg->cost += PAGE_SIZE;
		}
		memcpy_to_page(msg->bv[i].bv_page, po, src, n);
		off += n;
		src += n;
		len -= n;
	}
	return 0;
}

/**
 * smbdx_ready_flush() - free the messages the upper layer never took
 * @conn: connection being freed
 */
void smbdx_ready_flush(struct smbdx_conn *conn)
{
	struct smbdx_msg *msg, *tmp;

	list_for_each_entry_safe(msg, tmp, &conn->recv.ready, list) {
		list_del(&msg->list);
		smbdx_msg_release(msg);
	}
	conn->recv.ready_msgs = 0;
	if (conn->recv.reasm_msg) {
		smbdx_msg_release(conn->recv.reasm_msg);
		conn->recv.reasm_msg = NULL;
	}
}

/**
 * smbdx_msg_ready() - a message is complete: queue it for the upper layer
 * @conn: connection, lock held
 * @msg: the reassembled message, with its InvalidatedToken set
 *
 * Pull mode: wakes smbdx_recv_msg(). Callback mode: queues the upcall work
 * once the upper layer owns the connection (before that the hand-over
 * queues it).
 */
void smbdx_msg_ready(struct smbdx_conn *conn, struct smbdx_msg *msg)
{
	lockdep_assert_held(&conn->lock);
	list_add_tail(&msg->list, &conn->recv.ready);
	conn->recv.ready_msgs++;
	smbdx_stat_inc(conn, SMBDX_STAT_RX_MSGS);
	msg->seq = atomic64_read(&conn->stats.v[SMBDX_STAT_RX_MSGS]);
	trace_smbdx_msg_ready(conn, msg);
	wake_up_all(&conn->recv.wq);
	if (conn->handed_over && conn->ops && conn->ops->recv)
		smbdx_conn_queue_work(conn, &conn->recv.upcall_work);
}

static void smbdx_conn_handover(struct smbdx_conn *conn)
{
	struct smbdx_listener *lis = conn->listener;
	bool ready, failed, dying;
	int rc;

	if (!lis)
		return;

	spin_lock_bh(&conn->lock);
	ready = conn->negotiated && !conn->error;
	failed = conn->error;
	spin_unlock_bh(&conn->lock);

	if (ready) {
		spin_lock_bh(&lis->lock);
		dying = lis->dying;
		spin_unlock_bh(&lis->lock);
		rc = dying ? -ESHUTDOWN : lis->ops->accept(lis, conn);
		if (!rc) {
			spin_lock_bh(&conn->lock);
			conn->handed_over = true;
			spin_unlock_bh(&conn->lock);
			atomic64_inc(&lis->accepted);
			smbdx_listener_detach(conn);
			return;
		}
		smbdx_conn_fail(conn, rc, SMBDX_CAUSE_ACCEPT_REFUSED);
		failed = true;
	}
	if (failed) {
		atomic64_inc(&lis->refused);
		smbdx_conn_teardown(conn);
		smbdx_listener_detach(conn);
		/* The listener's ownership reference. */
		smbdx_conn_put(conn);
	}
}

/* Deliver ready messages (callback form) and the loss notification. */
static void smbdx_conn_deliver(struct smbdx_conn *conn)
{
	const struct smbdx_conn_ops *ops = conn->ops;
	struct smbdx_msg *msg;
	int err;

	spin_lock_bh(&conn->lock);
	if (!conn->handed_over)
		goto out;
	while (ops && ops->recv && !conn->recv.upcalls_off &&
	       !list_empty(&conn->recv.ready)) {
		msg = list_first_entry(&conn->recv.ready, struct smbdx_msg, list);
		list_del_init(&msg->list);
		conn->recv.ready_msgs--;
		smbdx_conn_get(conn);
		msg->conn = conn;
		trace_smbdx_msg_deliver(conn, msg);
		spin_unlock_bh(&conn->lock);
		ops->recv(conn, msg);
		spin_lock_bh(&conn->lock);
	}
	if (conn->error && !conn->recv.loss_notified && !conn->recv.upcalls_off) {
		conn->recv.loss_notified = true;
		err = conn->error;
		spin_unlock_bh(&conn->lock);
		if (ops && ops->disconnected)
			ops->disconnected(conn, err);
		return;
	}
out:
	spin_unlock_bh(&conn->lock);
}

/*
 * Hand-over, message delivery, loss notification. Runs on smbdirect's
 * workqueue and holds a reference taken when queued.
 */
static void smbdx_conn_upcall_work(struct work_struct *w)
{
	struct smbdx_conn *conn = container_of(w, struct smbdx_conn, recv.upcall_work);

	WRITE_ONCE(conn->recv.upcall_task, current);
	smbdx_conn_handover(conn);
	smbdx_conn_deliver(conn);
	WRITE_ONCE(conn->recv.upcall_task, NULL);
	smbdx_conn_put(conn);
}

/**
 * smbdx_deliver_init() - set up a new connection's delivery
 * @conn: connection being allocated, not yet visible
 *
 * The ready queue, the pull form's wait queue and upcall_work.
 *
 * Context: process (smbdx_conn_alloc()).
 */
void smbdx_deliver_init(struct smbdx_conn *conn)
{
	INIT_LIST_HEAD(&conn->recv.ready);
	init_waitqueue_head(&conn->recv.wq);
	INIT_WORK(&conn->recv.upcall_work, smbdx_conn_upcall_work);
}

/**
 * smbdx_msg_len() - length of a received message
 * @msg: message
 *
 * Return: its length in bytes (never 0).
 */
u32 smbdx_msg_len(const struct smbdx_msg *msg)
{
	return msg->len;
}
EXPORT_SYMBOL_NS_GPL(smbdx_msg_len, SMBDX_NS);

/**
 * smbdx_msg_iter() - an iterator over a received message
 * @msg: message
 * @iter: set to an ITER_SOURCE bvec iterator over the whole message,
 *	valid until smbdx_msg_free()
 */
void smbdx_msg_iter(struct smbdx_msg *msg, struct iov_iter *iter)
{
	iov_iter_bvec(iter, ITER_SOURCE, msg->bv, msg->nvec, msg->len);
}
EXPORT_SYMBOL_NS_GPL(smbdx_msg_iter, SMBDX_NS);

/**
 * smbdx_msg_copy() - copy part of a received message
 * @msg: message
 * @offset: first byte to copy
 * @to: destination; as many bytes as it holds are copied
 *
 * Context: any context @to may be written from.
 *
 * Return: bytes copied.
 */
size_t smbdx_msg_copy(struct smbdx_msg *msg, u32 offset, struct iov_iter *to)
{
	size_t done = 0, n, got;
	u32 i, po;

	while (offset < msg->len && iov_iter_count(to)) {
		i = offset / PAGE_SIZE;
		po = offset % PAGE_SIZE;
		n = min_t(size_t, msg->bv[i].bv_len - po, iov_iter_count(to));
		got = copy_page_to_iter(msg->bv[i].bv_page, po, n, to);
		done += got;
		offset += got;
		if (got != n)
			break;
	}
	return done;
}
EXPORT_SYMBOL_NS_GPL(smbdx_msg_copy, SMBDX_NS);

/**
 * smbdx_msg_invalidated() - the token the peer invalidated with the message
 * @msg: message
 * @token: set to the invalidated token (3.1.5.8 InvalidatedToken)
 *
 * Return: true if a Send with Invalidate delivered (part of) the message.
 */
bool smbdx_msg_invalidated(const struct smbdx_msg *msg, u32 *token)
{
	if (msg->inv)
		*token = msg->inv_token;
	return msg->inv;
}
EXPORT_SYMBOL_NS_GPL(smbdx_msg_invalidated, SMBDX_NS);

/**
 * smbdx_msg_free() - done with a received message
 * @msg: message from smbdx_recv_msg() or the recv callback
 *
 * Frees the message; the connection may then repost receives and grant
 * the peer more credits.
 *
 * Context: any.
 */
void smbdx_msg_free(struct smbdx_msg *msg)
{
	struct smbdx_conn *conn = msg->conn;
	u32 cost = msg->cost;

	trace_smbdx_msg_free(conn, msg);
	smbdx_msg_release(msg);
	if (!conn)
		return;
	spin_lock_bh(&conn->lock);
	conn->recv.held_bytes -= cost;
	smbdx_post_recvs(conn);
	__smbdx_send_pump(conn, NULL);
	spin_unlock_bh(&conn->lock);
	smbdx_conn_put(conn);
}
EXPORT_SYMBOL_NS_GPL(smbdx_msg_free, SMBDX_NS);

static bool smbdx_recv_ready(struct smbdx_conn *conn)
{
	bool ready;

	spin_lock_bh(&conn->lock);
	ready = !list_empty(&conn->recv.ready) || conn->error;
	spin_unlock_bh(&conn->lock);
	return ready;
}

/* Take the first ready message, if any. */
static int smbdx_take_msg(struct smbdx_conn *conn, struct smbdx_msg **msgp)
{
	struct smbdx_msg *msg;
	int rc;

	spin_lock_bh(&conn->lock);
	msg = list_first_entry_or_null(&conn->recv.ready, struct smbdx_msg, list);
	if (!msg) {
		rc = conn->error ? conn->error : -EAGAIN;
	} else {
		list_del_init(&msg->list);
		conn->recv.ready_msgs--;
		smbdx_conn_get(conn);
		msg->conn = conn;
		trace_smbdx_msg_deliver(conn, msg);
		*msgp = msg;
		rc = 0;
	}
	spin_unlock_bh(&conn->lock);
	return rc;
}

/**
 * smbdx_recv_msg() - receive one whole message (pull form)
 * @conn: connection without a recv callback
 * @timeout: longest wait in jiffies (MAX_SCHEDULE_TIMEOUT: no limit; 0:
 *	do not wait)
 * @msgp: set to the message, which the caller frees with smbdx_msg_free()
 *
 * Messages received before the connection was lost are still returned;
 * then the connection's error.
 *
 * Context: process, may sleep.
 *
 * Return: 0; -EAGAIN when no message arrived within @timeout on a
 * connection that is still up; -ERESTARTSYS on a signal; the connection's
 * error once it failed and no message is left (-ETIMEDOUT there means the
 * keepalive or negotiation timer ended the connection); -EINVAL if the
 * connection delivers through a recv callback.
 */
int smbdx_recv_msg(struct smbdx_conn *conn, long timeout, struct smbdx_msg **msgp)
{
	long rc;

	might_sleep();
	*msgp = NULL;
	if (conn->ops && conn->ops->recv)
		return -EINVAL;
	smbdx_conn_wait_begin(conn);
	rc = wait_event_interruptible_timeout(conn->recv.wq,
					      smbdx_recv_ready(conn), timeout);
	if (rc >= 0)
		rc = smbdx_take_msg(conn, msgp);
	smbdx_conn_wait_end(conn);
	return rc;
}
EXPORT_SYMBOL_NS_GPL(smbdx_recv_msg, SMBDX_NS);
