// SPDX-License-Identifier: GPL-2.0
/*
 * SMB Direct send path: smbdx_send() (MS-SMBD 3.1.4.2), the send loop of
 * 3.1.5.1 driven by the credit engine, the negotiate messages (3.1.5.2,
 * 3.1.5.3) and send completions.
 *
 * Normal operation: smbdx_send() cuts the upper-layer message into
 * fragments with the engine's fragmenter (3.1.5.4), copies each fragment's
 * payload into its own buffer (struct smbdx_send_io, payload at offset 24)
 * in the caller's context, appends all of them to the send queue at once
 * and reports them to the credit engine together, so that nothing can come
 * between two fragments of one message (LESSONS: interleaved fragments).
 * The send loop (__smbdx_send_pump()) then asks the engine, message by
 * message, whether the head of the queue may go, or whether an empty
 * message (credit grant, keepalive request or answer) is due, writes the
 * header with the credit fields the engine chose, maps the buffer and
 * posts it. The caller of smbdx_send() sleeps until all of its fragments
 * are posted; its data is no longer needed then. That wait is bounded by
 * the connection's io_timeout: a peer that keeps the connection alive
 * (its empty messages restart our idle timer) but grants no credit would
 * otherwise hold the caller for good; the connection ends instead (cause
 * send_timeout).
 *
 * The send loop runs with conn->lock held from any context: the caller
 * of smbdx_send(), a receive completion (credits arrived), a send
 * completion (room in the send queue), the idle timer, or a receiver
 * freeing a message (receives reposted). Empty messages are allocated
 * with GFP_ATOMIC there; if that fails the loop stops and pump_work
 * retries in process context.
 *
 * Signaling: a Send is posted unsignaled only when the send loop is about
 * to post another one at once, and at most SMBDX_SEND_SIGNAL_EVERY - 1 in
 * a row; the last Send before the loop stops, a Send that fills the send
 * queue, the negotiate messages and every SMBDX_SEND_SIGNAL_EVERY-th Send
 * are signaled. conn->send.inflight holds the posted Sends in posting
 * order, which is the order they complete in (one send queue, RC). A
 * completion, signaled or flushed, retires its own io and every io before
 * it on the list: those completed before it, unsignaled. So each io is
 * retired (unmapped, freed) exactly once: a flushed completion only comes
 * for a Send that has not completed, and then no completion after it
 * can have retired it (siw and rxe both flush unsignaled Sends too).
 * The send queue depth (sends posted, not retired) never exceeds
 * send.depth; the QP has one more slot for ib_drain_qp().
 *
 * Locking: this file owns conn->send (struct smbdx_conn_send, smbd.h).
 * Its lists and counters are under conn->lock: the send loop runs with it
 * held from every context above, and send completions take it.
 *
 * Transport recovery: a failed post or an unsuccessful completion
 * terminates the connection. __smbdx_conn_fail() discards the fragments
 * still queued (they were never mapped) and wakes their senders, which
 * return the connection's error. Posted Sends are retired by their
 * (flushed) completions during teardown's drain.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "smbd.h"
#include "trace.h"

static void smbdx_send_done(struct ib_cq *cq, struct ib_wc *wc);

/* At least one Send in this many is signaled (see the top of the file). */
#define SMBDX_SEND_SIGNAL_EVERY	8

/**
 * smbdx_send_io_alloc() - a send buffer
 * @conn: connection
 * @size: buffer size in bytes (header and payload)
 * @gfp: allocation flags
 *
 * Return: the io, or NULL.
 */
struct smbdx_send_io *smbdx_send_io_alloc(struct smbdx_conn *conn, u32 size,
					  gfp_t gfp)
{
	struct smbdx_send_io *io;

	io = smbdx_fault(SMBDX_FAULT_SEND_ALLOC) ? NULL :
	     kmalloc(struct_size(io, buf, size), gfp);
	if (!io)
		return NULL;
	memset(io, 0, sizeof(*io));
	io->cqe.done = smbdx_send_done;
	io->conn = conn;
	io->size = size;
	INIT_LIST_HEAD(&io->list);
	return io;
}

/**
 * smbdx_send_io_free() - free a send buffer that is not posted
 * @io: the io
 */
void smbdx_send_io_free(struct smbdx_send_io *io)
{
	kfree(io);
}

/* A fragment left the queue (posted or discarded): tell its sender. */
static void smbdx_send_owner_done(struct smbdx_conn *conn,
				  struct smbdx_send_io *io, bool posted)
{
	struct smbdx_send_owner *owner = io->owner;

	if (!owner)
		return;
	io->owner = NULL;
	if (!posted)
		owner->failed = true;
	if (!--owner->pending)
		wake_up_all(&conn->wq);
}

/**
 * smbdx_post_send_io() - map and post one Send
 * @conn: connection, lock held, QP usable
 * @io: io whose @len bytes are ready
 * @more: the caller posts another Send right after this one, so this one
 *	may go unsignaled
 *
 * Return: 0, or a negative errno (the io is unmapped again and still the
 * caller's).
 */
int smbdx_post_send_io(struct smbdx_conn *conn, struct smbdx_send_io *io,
		       bool more)
{
	struct ib_sge sge;
	struct ib_send_wr wr = {};
	bool signal;
	int rc;

	lockdep_assert_held(&conn->lock);
	io->dma = ib_dma_map_single(conn->ibdev, io->buf, io->len,
				    DMA_TO_DEVICE);
	if (ib_dma_mapping_error(conn->ibdev, io->dma))
		return -EIO;

	io->cid = ++conn->next_cid;
	sge.addr = io->dma;
	sge.length = io->len;
	sge.lkey = conn->pd->local_dma_lkey;
	wr.wr_cqe = &io->cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	signal = !more || io->fail_verdict ||
		 conn->send.posted + 1 >= conn->send.depth ||
		 conn->send.unsignaled + 1 >= SMBDX_SEND_SIGNAL_EVERY;
	if (signal)
		wr.send_flags = IB_SEND_SIGNALED;
	if (io->inv) {
		wr.opcode = IB_WR_SEND_WITH_INV;
		wr.ex.invalidate_rkey = io->inv_token;
	} else {
		wr.opcode = IB_WR_SEND;
	}
	rc = smbdx_fault(SMBDX_FAULT_POST_SEND) ? -ENOMEM :
	     ib_post_send(conn->id->qp, &wr, NULL);
	if (rc) {
		ib_dma_unmap_single(conn->ibdev, io->dma, io->len, DMA_TO_DEVICE);
		return rc;
	}
	conn->send.posted++;
	conn->send.unsignaled = signal ? 0 : conn->send.unsignaled + 1;
	list_add_tail(&io->list, &conn->send.inflight);
	trace_smbdx_post_send(conn, io, signal);
	return 0;
}

static void smbdx_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smbdx_send_io *io = container_of(wc->wr_cqe, struct smbdx_send_io,
					       cqe);
	struct smbdx_conn *conn = io->conn;
	struct smbdx_send_io *pos, *tmp;
	LIST_HEAD(done);
	u32 n = 0;
	bool wake;

	trace_smbdx_send_done(conn, io->cid, wc);

	spin_lock_bh(&conn->lock);
	/* This Send and the unsignaled ones posted before it */
	list_cut_position(&done, &conn->send.inflight, &io->list);
	list_for_each_entry(pos, &done, list)
		n++;
	if (WARN_ON_ONCE(n > conn->send.posted))
		n = conn->send.posted;
	conn->send.posted -= n;
	if (!__smbdx_conn_wc_failed(conn, wc, SMBDX_CAUSE_SEND_ERROR)) {
		if (io->fail_verdict)
			/* A failed Negotiate Response went out: now terminate. */
			__smbdx_conn_fail(conn, -EPROTO, io->fail_verdict);
		else
			__smbdx_send_pump(conn, NULL);
	}
	/* smbdx_destroy() waits for the Sends to drain. */
	wake = conn->send.draining && !conn->send.posted;
	spin_unlock_bh(&conn->lock);
	if (wake)
		wake_up_all(&conn->wq);
	list_for_each_entry_safe(pos, tmp, &done, list) {
		ib_dma_unmap_single(conn->ibdev, pos->dma, pos->len,
				    DMA_TO_DEVICE);
		kfree(pos);
	}
}

/**
 * smbdx_send_reclaim() - free the Sends whose completion never came
 * @conn: connection whose QP is destroyed and CQ freed
 *
 * After the drain every posted Send has completed, so this finds nothing;
 * if a provider lost a completion anyway, the buffers are unmapped and
 * freed here rather than leaked, counted (sends_reclaimed) and reported
 * once with a warning: it is a bug to look into.
 *
 * Context: process, serialised with teardown.
 */
void smbdx_send_reclaim(struct smbdx_conn *conn)
{
	struct smbdx_send_io *io, *tmp;
	LIST_HEAD(left);
	u32 n = 0;

	spin_lock_bh(&conn->lock);
	list_splice_init(&conn->send.inflight, &left);
	conn->send.posted = 0;
	spin_unlock_bh(&conn->lock);
	list_for_each_entry_safe(io, tmp, &left, list) {
		ib_dma_unmap_single(conn->ibdev, io->dma, io->len,
				    DMA_TO_DEVICE);
		kfree(io);
		n++;
	}
	if (n) {
		smbdx_stat_add(conn, SMBDX_STAT_SENDS_RECLAIMED, n);
		WARN_ONCE(1, "smbdirect: connection %u: %u Sends never completed\n",
			  conn->num, n);
	}
}

/**
 * smbdx_send_queue_flush() - discard the fragments not yet posted
 * @conn: failed connection, lock held
 */
void smbdx_send_queue_flush(struct smbdx_conn *conn)
{
	struct smbdx_send_io *io, *tmp;

	lockdep_assert_held(&conn->lock);
	list_for_each_entry_safe(io, tmp, &conn->send.queue, list) {
		list_del(&io->list);
		smbdx_send_owner_done(conn, io, false);
		kfree(io);
	}
	conn->send.queue_len = 0;
}

static void smbdx_send_count(struct smbdx_conn *conn,
			     const struct smbdx_data_info *di, bool answer)
{
	if (di->data_length)
		smbdx_stat_inc(conn, SMBDX_STAT_TX_FRAGS);
	else
		smbdx_stat_inc(conn, SMBDX_STAT_TX_EMPTY);
	if (di->credits_granted) {
		smbdx_stat_add(conn, SMBDX_STAT_TX_CREDITS_GRANTED,
			       di->credits_granted);
		trace_smbdx_credits(conn, true, di->credits_granted,
				    conn->cr.send_credits, conn->cr.recv_posted,
				   conn->cr.recv_granted);
	}
	if (di->flags & SMBDX_FLAG_RESPONSE_REQUESTED)
		smbdx_stat_inc(conn, SMBDX_STAT_TX_KEEPALIVE_REQ);
	else if (answer)
		smbdx_stat_inc(conn, SMBDX_STAT_TX_KEEPALIVE_RESP);
}

/**
 * __smbdx_send_pump() - the send loop of MS-SMBD 3.1.5.1
 * @conn: connection, lock held
 * @spare: an io for an empty message allocated in process context, or
 *	NULL; taken (and set to NULL) if used
 *
 * Sends while the connection is established, the send queue has room and
 * the credit engine allows. Never sleeps.
 */
void __smbdx_send_pump(struct smbdx_conn *conn, struct smbdx_send_io **spare)
{
	enum smbdx_send_action act, act2;
	struct smbdx_data_info di;
	struct smbdx_send_io *io;
	bool answer;
	u8 push_type;
	int rc;

	lockdep_assert_held(&conn->lock);
	/*
	 * smbdx_test_set_mute(): a peer that has stopped answering (test
	 * build only; false at compile time in the product).
	 */
	if (unlikely(smbdx_test_muted(conn)))
		return;
	while (conn->state == SMBDX_CS_ESTABLISHED) {
		if (conn->send.posted >= conn->send.depth) {
			smbdx_stat_inc(conn, SMBDX_STAT_SEND_SQ_FULL);
			trace_smbdx_send_sq_full(conn);
			break;
		}
		act = smbdx_credits_peek_send(&conn->cr);
		if (act == SMBDX_SEND_IDLE)
			break;
		if (act == SMBDX_SEND_BLOCKED) {
			if (conn->send.queue_len && !conn->send.blocked) {
				conn->send.blocked = true;
				smbdx_stat_inc(conn, SMBDX_STAT_SEND_BLOCKED);
				trace_smbdx_send_no_credits(conn);
			}
			break;
		}
		conn->send.blocked = false;

		io = NULL;
		if (act == SMBDX_SEND_EMPTY) {
			if (spare && *spare) {
				io = *spare;
				*spare = NULL;
			} else {
				io = smbdx_send_io_alloc(conn,
							 SMBDX_DATA_PAYLOAD_OFFSET,
							GFP_ATOMIC);
			}
			if (!io) {
				smbdx_conn_queue_work(conn, &conn->send.pump_work);
				break;
			}
		}

		answer = conn->cr.send_immediate &&
			 conn->cr.keepalive != SMBDX_KEEPALIVE_PENDING;
		act2 = smbdx_credits_next_send(&conn->cr, &di);
		if (WARN_ON_ONCE(act2 != act)) {
			kfree(io);
			__smbdx_conn_fail(conn, -EIO, SMBDX_CAUSE_POST_ERROR);
			break;
		}
		if (act == SMBDX_SEND_QUEUED) {
			io = list_first_entry(&conn->send.queue,
					      struct smbdx_send_io, list);
			list_del_init(&io->list);
			conn->send.queue_len--;
			di.remaining_data_length = io->di.remaining_data_length;
			di.data_offset = io->di.data_offset;
			di.data_length = io->di.data_length;
		}
		if (WARN_ON_ONCE(smbdx_data_encode(io->buf, io->size, &di))) {
			smbdx_send_owner_done(conn, io, false);
			kfree(io);
			__smbdx_conn_fail(conn, -EIO, SMBDX_CAUSE_POST_ERROR);
			break;
		}
		/* push.c's control messages: the Flags bit MS-SMBD reserves */
		push_type = io->push_type;
		if (push_type)
			smbdx_pushmsg_mark(io->buf);
		io->len = smbdx_data_wire_len(&di);
		/* Another Send follows at once if fragments are still queued. */
		rc = smbdx_post_send_io(conn, io, conn->send.queue_len > 0);
		smbdx_send_owner_done(conn, io, !rc);
		if (rc) {
			kfree(io);
			__smbdx_conn_post_failed(conn, rc);
			break;
		}
		if (push_type)
			__smbdx_push_posted(conn, push_type);
		smbdx_send_count(conn, &di, answer && act == SMBDX_SEND_EMPTY);
		if (di.flags & SMBDX_FLAG_RESPONSE_REQUESTED)
			smbdx_idle_timer_arm(conn, conn->keepalive_wait_j);
	}
}

/**
 * __smbdx_send_queue_io() - queue one message of the transport's own
 * @conn: established connection, lock held
 * @io: an unfragmented message: @io->di has its data fields (payload at
 *	@io->buf + @io->di.data_offset), the send loop fills in the rest;
 *	the queue owns it from now on
 *
 * For push.c's control messages. They wait for a send credit like any
 * fragment and never come between two fragments of one upper-layer
 * message (those are queued all at once).
 */
void __smbdx_send_queue_io(struct smbdx_conn *conn, struct smbdx_send_io *io)
{
	lockdep_assert_held(&conn->lock);
	if (conn->state != SMBDX_CS_ESTABLISHED ||
	    smbdx_credits_queue(&conn->cr, 1)) {
		kfree(io);
		__smbdx_conn_fail(conn, -EIO, SMBDX_CAUSE_POST_ERROR);
		return;
	}
	list_add_tail(&io->list, &conn->send.queue);
	conn->send.queue_len++;
	__smbdx_send_pump(conn, NULL);
}

/*
 * Run the send loop with an io allocated in process context (after a
 * GFP_ATOMIC allocation failed); holds a reference taken when queued.
 */
static void smbdx_pump_work(struct work_struct *w)
{
	struct smbdx_conn *conn = container_of(w, struct smbdx_conn, send.pump_work);
	struct smbdx_send_io *spare;

	spare = smbdx_send_io_alloc(conn, SMBDX_DATA_PAYLOAD_OFFSET, GFP_KERNEL);
	spin_lock_bh(&conn->lock);
	__smbdx_send_pump(conn, &spare);
	spin_unlock_bh(&conn->lock);
	kfree(spare);
	smbdx_conn_put(conn);
}

/**
 * smbdx_send_init() - set up a new connection's send part
 * @conn: connection being allocated, not yet visible
 *
 * The send queue, the list of posted Sends and pump_work.
 *
 * Context: process (smbdx_conn_alloc()).
 */
void smbdx_send_init(struct smbdx_conn *conn)
{
	INIT_LIST_HEAD(&conn->send.queue);
	INIT_LIST_HEAD(&conn->send.inflight);
	INIT_WORK(&conn->send.pump_work, smbdx_pump_work);
}

/**
 * smbdx_send_negotiate_req() - post the Negotiate Request (3.1.5.2)
 * @conn: active connection, transport established
 *
 * Context: process.
 *
 * Return: 0 or a negative errno.
 */
int smbdx_send_negotiate_req(struct smbdx_conn *conn)
{
	struct smbdx_send_io *io;
	int rc;

	io = smbdx_send_io_alloc(conn, SMBDX_NEGOTIATE_REQ_LEN, GFP_KERNEL);
	if (!io)
		return -ENOMEM;
	smbdx_negotiate_req_encode(&conn->cfg.proto,
				   (struct smbdx_negotiate_req *)io->buf);
	io->len = SMBDX_NEGOTIATE_REQ_LEN;

	spin_lock_bh(&conn->lock);
	if (conn->state != SMBDX_CS_NEGOTIATING)
		rc = conn->error ? conn->error : -ENOTCONN;
	else
		rc = smbdx_post_send_io(conn, io, false);
	if (!rc)
		smbdx_stat_inc(conn, SMBDX_STAT_TX_NEG_REQ);
	spin_unlock_bh(&conn->lock);
	if (rc)
		kfree(io);
	return rc;
}

/**
 * smbdx_send_negotiate_resp() - post a Negotiate Response (3.1.5.3)
 * @conn: passive connection, lock held
 * @resp: the encoded response
 * @fail_verdict: 0 for a successful response; otherwise the cause to
 *	terminate the connection with once the failure response has gone
 *	out (graceful termination, 3.1.5.3)
 *
 * Context: softirq (receive completion).
 *
 * Return: 0 or a negative errno.
 */
int smbdx_send_negotiate_resp(struct smbdx_conn *conn,
			      const struct smbdx_negotiate_resp *resp,
			     int fail_verdict)
{
	struct smbdx_send_io *io;
	int rc;

	io = smbdx_send_io_alloc(conn, SMBDX_NEGOTIATE_RESP_LEN, GFP_ATOMIC);
	if (!io)
		return -ENOMEM;
	memcpy(io->buf, resp, SMBDX_NEGOTIATE_RESP_LEN);
	io->len = SMBDX_NEGOTIATE_RESP_LEN;
	io->fail_verdict = fail_verdict;
	rc = smbdx_post_send_io(conn, io, false);
	if (rc) {
		kfree(io);
		return rc;
	}
	smbdx_stat_inc(conn, SMBDX_STAT_TX_NEG_RESP);
	return 0;
}

static bool smbdx_send_owner_idle(struct smbdx_conn *conn,
				  struct smbdx_send_owner *owner)
{
	bool idle;

	spin_lock_bh(&conn->lock);
	idle = !owner->pending;
	spin_unlock_bh(&conn->lock);
	return idle;
}

/*
 * Copy @len bytes into @buf from @iters[*@cur], @iters[*@cur + 1], ...:
 * the message is their concatenation. Returns false if they hold fewer
 * bytes or one of them faults.
 */
static bool smbdx_copy_from_iters(void *buf, size_t len,
				  struct iov_iter *iters, unsigned int n,
				  unsigned int *cur)
{
	size_t got;

	while (len) {
		while (*cur < n && !iov_iter_count(&iters[*cur]))
			(*cur)++;
		if (*cur >= n)
			return false;
		got = copy_from_iter(buf, len, &iters[*cur]);
		if (!got)
			return false;
		buf += got;
		len -= got;
	}
	return true;
}

static int __smbdx_sendv(struct smbdx_conn *conn, struct iov_iter *iters,
			 unsigned int niters, u32 remote_token,
			 unsigned int flags)
{
	struct smbdx_send_owner owner = {};
	struct smbdx_send_io *io, *tmp;
	struct smbdx_frag frag;
	LIST_HEAD(frags);
	u32 max_send, max_frag, n, i, off;
	unsigned int cur = 0;
	u64 len = 0;
	enum smbdx_verdict v;
	long left;
	int rc;

	might_sleep();
	for (i = 0; i < niters; i++) {
		len += iov_iter_count(&iters[i]);
		if (len > U32_MAX)
			break;
	}
	spin_lock_bh(&conn->lock);
	rc = conn->state == SMBDX_CS_ESTABLISHED ? 0 :
	     (conn->error ? conn->error : -ENOTCONN);
	max_send = conn->params.max_send_size;
	max_frag = conn->params.max_fragmented_send_size;
	spin_unlock_bh(&conn->lock);
	if (rc)
		return rc;

	v = len > U32_MAX ? SMBDX_ERR_MSG_TOO_BIG :
	    smbdx_frag_init(&frag, len, max_send, max_frag);
	if (v == SMBDX_ERR_MSG_TOO_BIG) {
		smbdx_stat_inc(conn, SMBDX_STAT_LOCAL_TOO_BIG);
		return -EMSGSIZE;
	}
	if (v)
		return -EINVAL;

	n = smbdx_frag_count(&frag);
	for (i = 0; i < n; i++) {
		io = smbdx_send_io_alloc(conn, max_send, GFP_KERNEL);
		if (!io) {
			rc = -ENOMEM;
			goto out_free;
		}
		list_add_tail(&io->list, &frags);
		smbdx_frag_next(&frag, &io->di, &off);
		if (!smbdx_copy_from_iters(io->buf + io->di.data_offset,
					   io->di.data_length, iters, niters,
					   &cur)) {
			rc = -EFAULT;
			goto out_free;
		}
		io->owner = &owner;
	}
	if (flags & SMBDX_SEND_INVALIDATE) {
		io = list_last_entry(&frags, struct smbdx_send_io, list);
		io->inv = true;
		io->inv_token = remote_token;
	}
	owner.pending = n;

	spin_lock_bh(&conn->lock);
	if (conn->state != SMBDX_CS_ESTABLISHED) {
		rc = conn->error ? conn->error : -ENOTCONN;
		spin_unlock_bh(&conn->lock);
		goto out_free;
	}
	if (smbdx_credits_queue(&conn->cr, n)) {
		spin_unlock_bh(&conn->lock);
		rc = -ENOBUFS;
		goto out_free;
	}
	/* Its number, the tx_messages count once it is queued (trace.h) */
	if (trace_smbdx_post_send_enabled())
		list_for_each_entry(io, &frags, list)
			io->msg = atomic64_read(&conn->stats.v[SMBDX_STAT_TX_MSGS]) + 1;
	list_splice_tail_init(&frags, &conn->send.queue);
	conn->send.queue_len += n;
	smbdx_stat_inc(conn, SMBDX_STAT_TX_MSGS);
	trace_smbdx_send_msg(conn, len, n);
	smbdx_stat_add(conn, SMBDX_STAT_TX_BYTES, len);
	if (flags & SMBDX_SEND_INVALIDATE)
		smbdx_stat_inc(conn, SMBDX_STAT_TX_INVALIDATE);
	__smbdx_send_pump(conn, NULL);
	spin_unlock_bh(&conn->lock);

	left = wait_event_killable_timeout(conn->wq,
					   smbdx_send_owner_idle(conn, &owner),
					   conn->io_timeout_j);
	if (left <= 0) {
		spin_lock_bh(&conn->lock);
		/*
		 * Not posted within io_timeout: the peer grants no credit (or
		 * its side of the send queue never drains) while keeping the
		 * connection alive. End it; that discards our fragments.
		 */
		if (!left && owner.pending)
			__smbdx_conn_fail(conn, -ETIMEDOUT,
					  SMBDX_CAUSE_SEND_TIMEOUT);
		/* A fatal signal: let the rest go out without us. */
		list_for_each_entry(io, &conn->send.queue, list)
			if (io->owner == &owner)
				io->owner = NULL;
		rc = owner.pending ? -EINTR : 0;
		spin_unlock_bh(&conn->lock);
		if (rc)
			return rc;
	}
	if (owner.failed)
		return conn->error ? conn->error : -ECONNRESET;
	return 0;

out_free:
	list_for_each_entry_safe(io, tmp, &frags, list)
		kfree(io);
	return rc;
}

/**
 * smbdx_sendv() - send one upper-layer message made of several parts
 * @conn: established connection
 * @iters: the parts, in order; the message is the concatenation of all
 *	iov_iter_count() bytes of each (any kind of kernel iterator, e.g. an
 *	SMB2 compound as a kvec iterator of headers and a page iterator of
 *	data per request); a message of 0 bytes is one empty Data Transfer
 *	message, which the peer does not deliver
 * @niters: number of parts
 * @remote_token: memory token for the peer to invalidate when it receives
 *	the message (Send with Invalidate on its last fragment), if @flags
 *	has SMBDX_SEND_INVALIDATE
 * @flags: SMBDX_SEND_INVALIDATE or 0
 *
 * The message is fragmented to the negotiated MaxSendSize and its
 * fragments are sent in order, never interleaved with other messages
 * (MS-SMBD 3.1.4.2). Sleeps until every fragment is posted, waiting for
 * send credits and room in the send queue for at most the connection's
 * io_timeout (struct smbdx_conn_config): a peer that grants no credit ends
 * the connection then, even if it keeps it alive; the iterators have then
 * been consumed and the memory they cover may be reused. Concurrent
 * callers are allowed; their messages go out whole, in the order they
 * were queued.
 *
 * Context: process, may sleep.
 *
 * Return: 0 when all fragments are posted; -EMSGSIZE if the message is
 * longer than the peer's MaxFragmentedSize (a local error, the connection
 * stays up); -EFAULT if a part could not be copied; -ENOMEM; -EINTR if a
 * fatal signal arrived while waiting (the message is still sent);
 * -ETIMEDOUT if it could not be sent within io_timeout (the connection is
 * terminated, cause send_timeout); the connection's error (or -ENOTCONN)
 * if it is not, or no longer, established.
 */
int smbdx_sendv(struct smbdx_conn *conn, struct iov_iter *iters,
		unsigned int niters, u32 remote_token, unsigned int flags)
{
	int rc;

	might_sleep();
	smbdx_conn_wait_begin(conn);
	rc = __smbdx_sendv(conn, iters, niters, remote_token, flags);
	smbdx_conn_wait_end(conn);
	return rc;
}
EXPORT_SYMBOL_NS_GPL(smbdx_sendv, SMBDX_NS);

/**
 * smbdx_send() - send one upper-layer message (MS-SMBD 3.1.4.2)
 * @conn: established connection
 * @from: the message: all iov_iter_count(@from) bytes (any kind of
 *	kernel iterator)
 * @remote_token: as for smbdx_sendv()
 * @flags: as for smbdx_sendv()
 *
 * smbdx_sendv() with one part.
 *
 * Context: process, may sleep.
 *
 * Return: as for smbdx_sendv().
 */
int smbdx_send(struct smbdx_conn *conn, struct iov_iter *from, u32 remote_token,
	       unsigned int flags)
{
	return smbdx_sendv(conn, from, 1, remote_token, flags);
}
EXPORT_SYMBOL_NS_GPL(smbdx_send, SMBDX_NS);
