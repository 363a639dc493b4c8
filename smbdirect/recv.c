// SPDX-License-Identifier: GPL-2.0
/*
 * SMB Direct receive path: receive buffers, receive completions (MS-SMBD
 * 3.1.5.5 - 3.1.5.8) and reassembly into messages, which deliver.c hands
 * to the upper layer.
 *
 * Normal operation: every connection owns ReceiveCreditMax receive buffers
 * of MaxReceiveSize bytes (at least 512 for the negotiate message,
 * 3.1.4.1), allocated and DMA-mapped once when its QP is created and kept
 * on a free list while not posted. A receive completion (softirq) checks
 * the message with the protocol engine under conn->lock: the negotiate
 * request or response while NEGOTIATING, then Data Transfer messages
 * (smbdx_data_decode(), smbdx_credits_on_recv(), smbdx_reasm_add()); a
 * Data Transfer message marked SMBDX_FLAG_PUSH is push mode's control
 * message and goes to push.c instead of the reassembly.
 * The payload is copied at once into the message being reassembled (its
 * pages are allocated as the payload reaches them), so the receive buffer
 * goes straight back to the free list and is reposted: reassembly never
 * holds receive buffers and can never starve the credit window. A complete
 * message goes to deliver.c (smbdx_msg_ready()).
 *
 * Flow control: received messages not yet freed by the upper layer,
 * and the one being reassembled, count in held_bytes with the memory they
 * hold (a page for a message of one byte; a message's pages are allocated
 * as its fragments arrive). Above the connection's recv_queue_max,
 * receives are not reposted, so no credits are granted and the peer
 * stops; freeing a message reposts them and runs the send loop, which
 * grants the credits.
 *
 * Locking: this file owns the receive half of conn->recv (struct
 * smbdx_conn_recv, smbd.h; deliver.c owns the delivery half). Receive
 * completions run in softirq and take conn->lock, which protects the
 * reassembly, the free list, the counts and held_bytes; the buffers
 * themselves (recv.rios) are allocated with the QP under res_mutex and
 * freed only after the CQ.
 *
 * Transport recovery: an invalid message terminates the connection with
 * the engine's verdict as the cause (counted, logged once). An unsuccessful
 * completion terminates it too; flushed receives (teardown's drain) just
 * return their buffer to the free list. Nothing is reposted unless the
 * connection is established. Buffers are unmapped and freed only after the
 * CQ is freed, so no handler can see a freed buffer.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/highmem.h>
#include <linux/uio.h>

#include "smbd.h"
#include "trace.h"

/**
 * smbdx_recv_bufs_alloc() - allocate and map the receive buffers
 * @conn: connection whose PD and QP exist
 *
 * Return: 0 or -ENOMEM.
 */
int smbdx_recv_bufs_alloc(struct smbdx_conn *conn)
{
	struct smbdx_recv_io *rio;
	u32 i;

	conn->recv.rios = kcalloc(conn->recv.depth, sizeof(*conn->recv.rios),
				  GFP_KERNEL);
	if (!conn->recv.rios)
		return -ENOMEM;
	for (i = 0; i < conn->recv.depth; i++) {
		rio = &conn->recv.rios[i];
		rio->buf = kmalloc(conn->recv.rio_size, GFP_KERNEL);
		if (!rio->buf)
			return -ENOMEM;
		rio->dma = ib_dma_map_single(conn->ibdev, rio->buf,
					     conn->recv.rio_size, DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(conn->ibdev, rio->dma)) {
			kfree(rio->buf);
			rio->buf = NULL;
			return -ENOMEM;
		}
		rio->cqe.done = smbdx_recv_done;
		rio->conn = conn;
		conn->recv.nrios++;
		spin_lock_bh(&conn->lock);
		list_add_tail(&rio->list, &conn->recv.free);
		spin_unlock_bh(&conn->lock);
	}
	return 0;
}

/**
 * smbdx_recv_bufs_free() - unmap and free the receive buffers
 * @conn: connection whose CQ is gone (no completion can run)
 */
void smbdx_recv_bufs_free(struct smbdx_conn *conn)
{
	u32 i;

	spin_lock_bh(&conn->lock);
	INIT_LIST_HEAD(&conn->recv.free);
	spin_unlock_bh(&conn->lock);
	for (i = 0; i < conn->recv.nrios; i++) {
		ib_dma_unmap_single(conn->ibdev, conn->recv.rios[i].dma,
				    conn->recv.rio_size, DMA_FROM_DEVICE);
		kfree(conn->recv.rios[i].buf);
	}
	kfree(conn->recv.rios);
	conn->recv.rios = NULL;
	conn->recv.nrios = 0;
}

static int __smbdx_post_recv(struct smbdx_conn *conn, struct smbdx_recv_io *rio)
{
	struct ib_recv_wr wr = {};
	struct ib_sge sge;
	int rc;

	sge.addr = rio->dma;
	sge.length = conn->recv.rio_size;
	sge.lkey = conn->pd->local_dma_lkey;
	wr.wr_cqe = &rio->cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ib_dma_sync_single_for_device(conn->ibdev, rio->dma, conn->recv.rio_size,
				      DMA_FROM_DEVICE);
	rio->cid = ++conn->next_cid;
	rc = smbdx_fault(SMBDX_FAULT_POST_RECV) ? -ENOMEM :
	     ib_post_recv(conn->id->qp, &wr, NULL);
	if (rc)
		return rc;
	conn->recv.posted++;
	trace_smbdx_post_recv(conn, rio->cid, conn->recv.rio_size);
	return 0;
}

/**
 * smbdx_post_recv_one() - post one receive buffer
 * @conn: connection, lock held, QP created
 *
 * Return: 0, -ENOBUFS if none is free, or the post's error.
 */
int smbdx_post_recv_one(struct smbdx_conn *conn)
{
	struct smbdx_recv_io *rio;
	int rc;

	lockdep_assert_held(&conn->lock);
	rio = list_first_entry_or_null(&conn->recv.free, struct smbdx_recv_io,
				       list);
	if (!rio)
		return -ENOBUFS;
	list_del_init(&rio->list);
	rc = __smbdx_post_recv(conn, rio);
	if (rc)
		list_add(&rio->list, &conn->recv.free);
	return rc;
}

/* Post up to @n free buffers; a failed post terminates the connection. */
static u32 __smbdx_post_recvs(struct smbdx_conn *conn, u32 n)
{
	u32 posted = 0;
	int rc;

	while (posted < n && !list_empty(&conn->recv.free)) {
		rc = smbdx_post_recv_one(conn);
		if (rc) {
			__smbdx_conn_post_failed(conn, rc);
			break;
		}
		posted++;
	}
	return posted;
}

/**
 * smbdx_post_recvs() - repost receives as the credit engine asks (3.1.5.9)
 * @conn: connection, lock held
 *
 * Nothing while the connection is not established or the upper layer
 * holds more than recv_queue_max bytes of received messages.
 */
void smbdx_post_recvs(struct smbdx_conn *conn)
{
	u32 n;

	lockdep_assert_held(&conn->lock);
	if (conn->state != SMBDX_CS_ESTABLISHED)
		return;
	if (conn->recv.held_bytes > conn->cfg.recv_queue_max) {
		if (!conn->recv.gated) {
			conn->recv.gated = true;
			smbdx_stat_inc(conn, SMBDX_STAT_RECV_GATED);
		}
		return;
	}
	conn->recv.gated = false;
	n = smbdx_credits_recv_to_post(&conn->cr);
	if (n)
		smbdx_credits_recv_posted(&conn->cr, __smbdx_post_recvs(conn, n));
}

/* Negotiation succeeded: 3.1.5.6 / 3.1.5.7, last steps. */
static void smbdx_conn_established(struct smbdx_conn *conn)
{
	smbdx_reasm_init(&conn->recv.ra, conn->params.max_fragmented_recv_size);
	conn->negotiated = true;
	smbdx_conn_set_state(conn, SMBDX_CS_ESTABLISHED);
	smbdx_neg_timer_stop(conn);
	conn->recv.last_rx = jiffies;
	smbdx_idle_timer_arm(conn, conn->keepalive_j);
	if (conn->role == SMBDX_ROLE_PASSIVE)
		smbdx_conn_queue_work(conn, &conn->recv.upcall_work);
}

/* Post the receives of a freshly initialised credit engine. */
static void smbdx_post_initial_recvs(struct smbdx_conn *conn)
{
	u32 posted;

	posted = __smbdx_post_recvs(conn, smbdx_credits_recv_to_post(&conn->cr));
	smbdx_credits_recv_posted(&conn->cr, posted);
}

/* Passive side: the first message is a Negotiate Request (3.1.5.6). */
static void smbdx_recv_negotiate_req(struct smbdx_conn *conn, const void *buf,
				     u32 len)
{
	struct smbdx_negotiate_resp resp;
	struct smbdx_neg_req_info req;
	enum smbdx_verdict v;
	u32 status;
	u16 granted = 0;
	int rc;

	smbdx_stat_inc(conn, SMBDX_STAT_RX_NEG_REQ);
	v = smbdx_negotiate_req_decode(buf, len, &req);
	if (!v) {
		smbdx_params_from_req(&conn->cfg.proto, &req, &conn->params);
		smbdx_credits_init(&conn->cr, &conn->params);
		smbdx_post_initial_recvs(conn);
		if (conn->error)
			return;
		granted = smbdx_credits_grant_initial(&conn->cr);
		if (!granted)
			v = SMBDX_ERR_NEG_NO_RECV_CREDITS;
	}
	if (v) {
		/* 3.1.5.3: some failures are answered before terminating. */
		status = smbdx_verdict_nt_status(v);
		if (status) {
			smbdx_negotiate_resp_encode_failure(status, &resp);
			if (!smbdx_send_negotiate_resp(conn, &resp, v))
				return;
		}
		__smbdx_conn_fail(conn, -EPROTO, v);
		return;
	}

	smbdx_negotiate_resp_encode(&conn->params, granted, &resp);
	rc = smbdx_send_negotiate_resp(conn, &resp, 0);
	if (rc) {
		if (rc == -ENOMEM)
			__smbdx_conn_fail(conn, rc, SMBDX_CAUSE_NOMEM);
		else
			__smbdx_conn_post_failed(conn, rc);
		return;
	}
	smbdx_stat_add(conn, SMBDX_STAT_TX_CREDITS_GRANTED, granted);
	trace_smbdx_credits(conn, true, granted, conn->cr.send_credits,
			    conn->cr.recv_posted, conn->cr.recv_granted);
	smbdx_conn_established(conn);
}

/* Active side: the first message is a Negotiate Response (3.1.5.7). */
static void smbdx_recv_negotiate_resp(struct smbdx_conn *conn, const void *buf,
				      u32 len)
{
	struct smbdx_neg_resp_info resp;
	enum smbdx_verdict v;

	smbdx_stat_inc(conn, SMBDX_STAT_RX_NEG_RESP);
	v = smbdx_negotiate_resp_decode(buf, len, &conn->cfg.proto, &resp);
	if (v) {
		__smbdx_conn_fail(conn, v == SMBDX_ERR_NEG_RESP_STATUS ?
				 -ECONNREFUSED : -EPROTO, v);
		return;
	}
	smbdx_params_from_resp(&conn->cfg.proto, &resp, &conn->params);
	smbdx_credits_init(&conn->cr, &conn->params);
	smbdx_post_initial_recvs(conn);
	if (conn->error)
		return;
	if (!conn->cr.recv_posted) {
		__smbdx_conn_fail(conn, -ENOMEM, SMBDX_ERR_NEG_NO_RECV_CREDITS);
		return;
	}
	smbdx_stat_add(conn, SMBDX_STAT_RX_CREDITS_GRANTED, resp.credits_granted);
	trace_smbdx_credits(conn, false, resp.credits_granted,
			    conn->cr.send_credits, conn->cr.recv_posted,
			   conn->cr.recv_granted);
	smbdx_conn_established(conn);
}

/* Any later message is a Data Transfer message (3.1.5.8). */
static void smbdx_recv_data(struct smbdx_conn *conn, struct smbdx_recv_io *rio,
			    struct ib_wc *wc)
{
	struct smbdx_reasm_place place;
	struct smbdx_data_info di;
	struct smbdx_msg *msg;
	enum smbdx_verdict v;
	bool ka_out = conn->cr.keepalive != SMBDX_KEEPALIVE_NONE;
	bool push;
	u32 cost;
	int rc;

	v = smbdx_data_decode(rio->buf, wc->byte_len,
			      conn->params.max_fragmented_recv_size, &di);
	if (!v)
		v = smbdx_credits_on_recv(&conn->cr, &di);
	/* A push-mode control message is the transport's, never reassembled. */
	push = !v && (di.flags & SMBDX_FLAG_PUSH);
	if (!v && !push)
		v = smbdx_reasm_add(&conn->recv.ra, &di, &place);
	if (v) {
		__smbdx_conn_fail(conn, -EPROTO, v);
		return;
	}

	/*
	 * 3.1.5.5: any message restarts the Idle Connection Timer. Only the
	 * time is recorded; the timer re-arms itself, except after a
	 * keepalive request, when it runs with the short response wait.
	 */
	conn->recv.last_rx = jiffies;
	if (ka_out)
		smbdx_idle_timer_arm(conn, conn->keepalive_j);
	if (di.credits_granted) {
		smbdx_stat_add(conn, SMBDX_STAT_RX_CREDITS_GRANTED,
			       di.credits_granted);
		trace_smbdx_credits(conn, false, di.credits_granted,
				    conn->cr.send_credits, conn->cr.recv_posted,
				   conn->cr.recv_granted);
	}
	if (di.flags & SMBDX_FLAG_RESPONSE_REQUESTED)
		smbdx_stat_inc(conn, SMBDX_STAT_RX_KEEPALIVE_REQ);
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE) {
		conn->recv.inv_pending = true;
		conn->recv.inv_token = wc->ex.invalidate_rkey;
		smbdx_stat_inc(conn, SMBDX_STAT_RX_INVALIDATED);
		smbdx_mr_remote_invalidated(conn, wc->ex.invalidate_rkey);
	}
	if (push) {
		__smbdx_push_recv(conn, (u8 *)rio->buf + di.data_offset, &di,
				  wc->wc_flags & IB_WC_WITH_INVALIDATE);
		return;
	}
	if (place.state == SMBDX_REASM_EMPTY) {
		/*
		 * 3.1.5.8: a message ends here (RemainingDataLength 0) and
		 * takes its InvalidatedToken along; having no data, it is not
		 * delivered, so the token goes nowhere (the MR is marked).
		 */
		conn->recv.inv_pending = false;
		smbdx_stat_inc(conn, SMBDX_STAT_RX_EMPTY);
		return;
	}

	smbdx_stat_inc(conn, SMBDX_STAT_RX_FRAGS);
	smbdx_stat_add(conn, SMBDX_STAT_RX_BYTES, di.data_length);
	if (place.first) {
		if (WARN_ON_ONCE(conn->recv.reasm_msg)) {
			__smbdx_conn_fail(conn, -EIO, SMBDX_ERR_REASM_MISMATCH);
			return;
		}
		msg = smbdx_msg_alloc(place.total, GFP_ATOMIC);
		if (!msg) {
			__smbdx_conn_fail(conn, -ENOMEM, SMBDX_CAUSE_NOMEM);
			return;
		}
		conn->recv.reasm_msg = msg;
		conn->recv.held_bytes += msg->cost;
	}
	msg = conn->recv.reasm_msg;
	if (WARN_ON_ONCE(!msg || (u64)place.offset + place.length > msg->len)) {
		__smbdx_conn_fail(conn, -EIO, SMBDX_ERR_REASM_MISMATCH);
		return;
	}
	cost = msg->cost;
	rc = smbdx_msg_fill(msg, place.offset, (u8 *)rio->buf + di.data_offset,
			    place.length, GFP_ATOMIC);
	conn->recv.held_bytes += msg->cost - cost;
	if (rc) {
		__smbdx_conn_fail(conn, rc, rc == -ENOMEM ? SMBDX_CAUSE_NOMEM :
				  SMBDX_ERR_REASM_MISMATCH);
		return;
	}
	trace_smbdx_reasm(conn, rio->cid, &place);
	if (place.state != SMBDX_REASM_COMPLETE)
		return;

	conn->recv.reasm_msg = NULL;
	if (conn->recv.inv_pending) {
		msg->inv = true;
		msg->inv_token = conn->recv.inv_token;
		conn->recv.inv_pending = false;
	}
	smbdx_msg_ready(conn, msg);
}

/**
 * smbdx_recv_done() - a Receive completed
 * @cq: the connection's CQ
 * @wc: its work completion
 *
 * Context: the CQ's softirq handler (or a test hook replaying a held
 * completion with bottom halves off, testhooks.c).
 */
void smbdx_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smbdx_recv_io *rio = container_of(wc->wr_cqe, struct smbdx_recv_io,
						cqe);
	struct smbdx_conn *conn = rio->conn;

	trace_smbdx_recv_done(conn, rio->cid, wc);
	if (wc->status == IB_WC_SUCCESS)
		smbdx_conn_comm_est(conn);
	spin_lock_bh(&conn->lock);
	conn->recv.posted--;
	if (__smbdx_conn_wc_failed(conn, wc, SMBDX_CAUSE_RECV_ERROR)) {
		list_add(&rio->list, &conn->recv.free);
		spin_unlock_bh(&conn->lock);
		return;
	}

	ib_dma_sync_single_for_cpu(conn->ibdev, rio->dma, conn->recv.rio_size,
				   DMA_FROM_DEVICE);
	switch (conn->state) {
	case SMBDX_CS_NEGOTIATING:
		if (conn->role == SMBDX_ROLE_PASSIVE)
			smbdx_recv_negotiate_req(conn, rio->buf, wc->byte_len);
		else
			smbdx_recv_negotiate_resp(conn, rio->buf, wc->byte_len);
		break;
	case SMBDX_CS_ESTABLISHED:
		smbdx_recv_data(conn, rio, wc);
		break;
	default:
		break;
	}
	list_add(&rio->list, &conn->recv.free);
	smbdx_post_recvs(conn);
	__smbdx_send_pump(conn, NULL);
	spin_unlock_bh(&conn->lock);
}
