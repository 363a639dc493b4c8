/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A raw RDMA CM peer for the live KUnit suites: it connects to (or listens
 * for) an smbdirect endpoint and sends and receives bytes without speaking
 * SMB Direct, so a test can play a broken, hostile or silent peer. It
 * keeps the private data the smbdirect end sent (connect request or
 * accept) and can send private data of its own (tl_raw_connect_pd(),
 * accept_pd).
 *
 * One send and one receive in flight at a time, each of at most
 * TL_RAW_BUF bytes; completions are polled in softirq and wake the test
 * thread. Everything is released by a KUnit action (tl_raw_release()),
 * which a test may run early with kunit_release_action(). The verbs
 * resources are tests/modules/smbd_rawqp.h's: slot 0 receives, slot 1
 * sends.
 *
 * Include after smbd_live_util.h (it uses timeout_ms).
 */
#ifndef _SMBD_RAW_PEER_H
#define _SMBD_RAW_PEER_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <smbdirect/pdu.h>

#include "smbd_rawqp.h"

#define TL_RAW_BUF	4096
#define TL_RAW_PD_MAX	196

struct tl_raw_xfer {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
	u32 byte_len;
};

struct tl_raw {
	struct smbd_rawqp q;	/* slot 0 receives, slot 1 sends */
	bool connected;
	struct tl_raw_xfer send, recv;
	spinlock_t lock;	/* protects seen and bad */
	wait_queue_head_t wq;
	unsigned long seen;
	int bad;
	/* A raw listener: the endpoint its one connect request becomes. */
	struct tl_raw *child;
	/* A raw server: answer the request with @resp (@resp_len bytes). */
	bool respond;
	struct smbdx_negotiate_resp resp;
	u32 resp_len;
	/* Private data to send in the accept (a raw listener's child). */
	const void *accept_pd;
	u8 accept_pd_len;
	/* The peer's private data: connect request or accept (under lock). */
	u8 peer_pd[TL_RAW_PD_MAX];
	u8 peer_pd_len;
};

/* Save the private data of @ev (a connect request or ESTABLISHED). */
static __maybe_unused void tl_raw_save_pd(struct tl_raw *raw, const struct rdma_cm_event *ev)
{
	u8 len = min_t(u8, ev->param.conn.private_data_len, TL_RAW_PD_MAX);

	spin_lock_bh(&raw->lock);
	raw->peer_pd_len = ev->param.conn.private_data ? len : 0;
	if (raw->peer_pd_len)
		memcpy(raw->peer_pd, ev->param.conn.private_data, raw->peer_pd_len);
	spin_unlock_bh(&raw->lock);
}

static __maybe_unused void tl_raw_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct tl_raw_xfer *x = container_of(wc->wr_cqe, struct tl_raw_xfer, cqe);

	x->status = wc->status;
	x->byte_len = wc->byte_len;
	complete(&x->done);
}

static __maybe_unused int tl_raw_setup(struct tl_raw *raw);
static __maybe_unused int __tl_raw_post_recv(struct tl_raw *raw);

/* A raw listener's connect request: set up its child and accept. */
static __maybe_unused int tl_raw_accept(struct tl_raw *lis, struct rdma_cm_id *id)
{
	struct rdma_conn_param cp = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.rnr_retry_count = 6,
	};
	struct tl_raw *c = lis->child;
	int rc;

	if (!c || c->q.id)
		return -ECONNREFUSED;
	c->q.id = id;
	id->context = c;
	cp.private_data = c->accept_pd;
	cp.private_data_len = c->accept_pd_len;
	rc = tl_raw_setup(c);
	if (!rc)
		rc = __tl_raw_post_recv(c);
	if (!rc)
		rc = rdma_accept(id, &cp);
	if (rc) {
		/* The CM destroys @id; the QP must go first. */
		if (c->q.qp)
			rdma_destroy_qp(id);
		c->q.qp = false;
		c->q.id = NULL;
		return rc;
	}
	c->connected = true;
	return 0;
}

static __maybe_unused int tl_raw_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct tl_raw *raw = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (raw->child && !raw->child->q.id)
			tl_raw_save_pd(raw->child, ev);
		return tl_raw_accept(raw, id);
	}
	/* An accepting child keeps the request's (iWARP reports none here). */
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED && !READ_ONCE(raw->peer_pd_len))
		tl_raw_save_pd(raw, ev);
	spin_lock_bh(&raw->lock);
	if (ev->event < BITS_PER_LONG)
		__set_bit(ev->event, &raw->seen);
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		if (raw->bad < 0)
			raw->bad = ev->event;
		break;
	default:
		break;
	}
	spin_unlock_bh(&raw->lock);
	wake_up_all(&raw->wq);
	return 0;
}

static __maybe_unused void tl_raw_release(void *data)
{
	struct tl_raw *raw = data;

	if (raw->connected)
		smbd_rawqp_drain(&raw->q, true);
	smbd_rawqp_release(&raw->q);
}

static __maybe_unused bool tl_raw_seen(struct tl_raw *raw, int ev)
{
	bool done;

	spin_lock_bh(&raw->lock);
	done = test_bit(ev, &raw->seen) || raw->bad >= 0;
	spin_unlock_bh(&raw->lock);
	return done;
}

static __maybe_unused void tl_raw_wait(struct kunit *test, struct tl_raw *raw, int ev)
{
	long left = wait_event_timeout(raw->wq, tl_raw_seen(raw, ev),
				       msecs_to_jiffies(timeout_ms));

	KUNIT_ASSERT_GT_MSG(test, left, 0, "raw peer: no %s", rdma_event_msg(ev));
	KUNIT_ASSERT_LT_MSG(test, raw->bad, 0, "raw peer: %s waiting for %s",
			    rdma_event_msg(raw->bad), rdma_event_msg(ev));
}

static __maybe_unused void tl_raw_autoresp(struct ib_cq *cq, struct ib_wc *wc);

static __maybe_unused int __tl_raw_post_recv(struct tl_raw *raw)
{
	raw->recv.cqe.done = raw->respond ? tl_raw_autoresp : tl_raw_done;
	init_completion(&raw->recv.done);
	return smbd_rawqp_post_recv(&raw->q, 0, &raw->recv.cqe);
}

static __maybe_unused void tl_raw_post_recv(struct kunit *test, struct tl_raw *raw)
{
	KUNIT_ASSERT_EQ(test, __tl_raw_post_recv(raw), 0);
}

static __maybe_unused int __tl_raw_post_send(struct tl_raw *raw, const void *data, u32 len)
{
	raw->send.cqe.done = tl_raw_done;
	init_completion(&raw->send.done);
	memcpy(smbd_rawqp_buf(&raw->q, 1), data, len);
	return smbd_rawqp_post_send(&raw->q, 1, len, &raw->send.cqe);
}

/* A raw server's receive: answer the Negotiate Request at once. */
static __maybe_unused void tl_raw_autoresp(struct ib_cq *cq, struct ib_wc *wc)
{
	struct tl_raw *raw = container_of(wc->wr_cqe, struct tl_raw, recv.cqe);

	tl_raw_done(cq, wc);
	if (wc->status == IB_WC_SUCCESS && raw->resp_len)
		__tl_raw_post_send(raw, &raw->resp, raw->resp_len);
}

/* Slots, CQ and QP on raw->q.id's device; 0 or a negative errno. */
static __maybe_unused int tl_raw_setup(struct tl_raw *raw)
{
	static const struct smbd_rawqp_caps caps = {
		.slot = TL_RAW_BUF,
		.nslots = 2,
		.cqe = 8,
		.send_wr = 4,
		.recv_wr = 4,
	};

	return smbd_rawqp_setup(&raw->q, &caps, raw);
}

/* A raw peer with no CM id yet, released by a KUnit action. */
static __maybe_unused struct tl_raw *tl_raw_new(struct kunit *test)
{
	struct tl_raw *raw = kunit_kzalloc(test, sizeof(*raw), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, raw);
	raw->bad = -1;
	spin_lock_init(&raw->lock);
	init_waitqueue_head(&raw->wq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_raw_release, raw), 0);
	return raw;
}

/*
 * Connect to an smbdirect listener without speaking SMB Direct, with @pd
 * (@pd_len bytes, may be NULL) as the connect request's private data.
 */
static __maybe_unused struct tl_raw *tl_raw_connect_pd(struct kunit *test, struct sockaddr_in *sin,
						       const void *pd, u8 pd_len)
{
	struct rdma_conn_param cp = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 6,
		.rnr_retry_count = 6,
		.private_data = pd,
		.private_data_len = pd_len,
	};
	struct rdma_cm_id *id;
	struct tl_raw *raw;
	int rc;

	raw = tl_raw_new(test);
	id = rdma_create_id(&init_net, tl_raw_handler, raw, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		KUNIT_FAIL_AND_ABORT(test, "rdma_create_id: %ld", PTR_ERR(id));
	raw->q.id = id;
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL, (struct sockaddr *)sin,
						timeout_ms), 0);
	tl_raw_wait(test, raw, RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(id, timeout_ms), 0);
	tl_raw_wait(test, raw, RDMA_CM_EVENT_ROUTE_RESOLVED);

	rc = tl_raw_setup(raw);
	KUNIT_ASSERT_EQ_MSG(test, rc, 0, "raw peer: verbs set-up");
	tl_raw_post_recv(test, raw);
	KUNIT_ASSERT_EQ(test, rdma_connect(id, &cp), 0);
	tl_raw_wait(test, raw, RDMA_CM_EVENT_ESTABLISHED);
	raw->connected = true;
	return raw;
}

static __maybe_unused struct tl_raw *tl_raw_connect(struct kunit *test, struct sockaddr_in *sin)
{
	return tl_raw_connect_pd(test, sin, NULL, 0);
}

/* Post one Send of @len bytes of @data and wait for it; its status. */
static __maybe_unused enum ib_wc_status
tl_raw_send_wait(struct kunit *test, struct tl_raw *raw, const void *data,
		 u32 len)
{
	long left;

	KUNIT_ASSERT_EQ(test, __tl_raw_post_send(raw, data, len), 0);
	left = wait_for_completion_timeout(&raw->send.done,
					   msecs_to_jiffies(timeout_ms));
	KUNIT_ASSERT_GT_MSG(test, left, 0, "raw peer: Send did not complete");
	return raw->send.status;
}

static __maybe_unused void tl_raw_send(struct kunit *test, struct tl_raw *raw,
				       const void *data, u32 len)
{
	KUNIT_ASSERT_EQ(test, tl_raw_send_wait(test, raw, data, len),
			IB_WC_SUCCESS);
}

/*
 * Send a message the peer ends the connection on (a malformed one): the
 * peer may move its QP to the error state before its device acknowledged
 * the Send, so the Send can complete with a transport retry error (seen
 * on rxe under the debug kernel) or be flushed; the test then checks the
 * disconnection and the peer's error counters instead.
 */
static __maybe_unused void tl_raw_send_last(struct kunit *test, struct tl_raw *raw,
					    const void *data, u32 len)
{
	enum ib_wc_status st = tl_raw_send_wait(test, raw, data, len);

	KUNIT_ASSERT_TRUE_MSG(test, st == IB_WC_SUCCESS ||
			      st == IB_WC_RETRY_EXC_ERR ||
			      st == IB_WC_WR_FLUSH_ERR,
			      "raw peer: Send status %d", st);
}

/* The receive buffer: what tl_raw_recv() received. */
static inline void *tl_raw_rbuf(struct tl_raw *raw)
{
	return smbd_rawqp_buf(&raw->q, 0);
}

/* Wait for the posted receive; return its length (its bytes at tl_raw_rbuf()). */
static __maybe_unused u32 tl_raw_recv(struct kunit *test, struct tl_raw *raw)
{
	long left = wait_for_completion_timeout(&raw->recv.done,
						msecs_to_jiffies(timeout_ms));

	KUNIT_ASSERT_GT_MSG(test, left, 0, "raw peer: nothing received");
	KUNIT_ASSERT_EQ(test, raw->recv.status, IB_WC_SUCCESS);
	smbd_rawqp_sync_recv(&raw->q, 0);
	return raw->recv.byte_len;
}

static __maybe_unused void tl_raw_negotiate_req(struct smbdx_negotiate_req *req, u16 minv, u16 maxv)
{
	memset(req, 0, sizeof(*req));
	req->min_version = cpu_to_le16(minv);
	req->max_version = cpu_to_le16(maxv);
	req->credits_requested = cpu_to_le16(10);
	req->preferred_send_size = cpu_to_le32(1364);
	req->max_receive_size = cpu_to_le32(1364);
	req->max_fragmented_size = cpu_to_le32(131072);
}

/*
 * Negotiate SMB Direct 1.0 as a well-behaved client: send the request,
 * receive the response and insist on success with credits granted. Returns
 * the response in the receive buffer (valid until the next receive).
 */
static __maybe_unused struct smbdx_negotiate_resp *
tl_raw_negotiate(struct kunit *test, struct tl_raw *raw)
{
	struct smbdx_negotiate_resp *resp;
	struct smbdx_negotiate_req req;

	tl_raw_negotiate_req(&req, SMBDX_VERSION_1_0, SMBDX_VERSION_1_0);
	tl_raw_send(test, raw, &req, sizeof(req));
	KUNIT_ASSERT_EQ(test, tl_raw_recv(test, raw), (u32)SMBDX_NEGOTIATE_RESP_LEN);
	resp = tl_raw_rbuf(raw);
	KUNIT_ASSERT_EQ(test, le32_to_cpu(resp->status), 0U);
	KUNIT_ASSERT_GT(test, le16_to_cpu(resp->credits_granted), 0);
	return resp;
}

/* A raw listener on @sin (its port is filled in) whose one peer is @child. */
static __maybe_unused void tl_raw_listen(struct kunit *test, struct sockaddr_in *sin,
					 struct tl_raw *child)
{
	struct tl_raw *lis = tl_raw_new(test);
	struct rdma_cm_id *id;

	lis->child = child;
	id = rdma_create_id(&init_net, tl_raw_handler, lis, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	lis->q.id = id;
	sin->sin_port = 0;
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)sin), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(id, 4), 0);
	sin->sin_port = ((struct sockaddr_in *)&id->route.addr.src_addr)->sin_port;
}

/* The listener must end the raw peer's connection (it sees DISCONNECTED). */
static __maybe_unused void tl_raw_expect_disconnect(struct kunit *test, struct tl_raw *raw)
{
	tl_raw_wait(test, raw, RDMA_CM_EVENT_DISCONNECTED);
}

#endif /* _SMBD_RAW_PEER_H */
