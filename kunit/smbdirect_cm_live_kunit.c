// SPDX-License-Identifier: GPL-2.0
/*
 * Live KUnit suite: an RDMA CM connection inside one kernel, on each soft
 * RDMA device the test VM creates (rxe: RoCE on a veth, siw: iWARP on a
 * dummy interface). A listener and a client on the device's own address
 * connect, exchange one Send each way, disconnect and tear down.
 *
 * A missing device, an address that resolves to another device, or any
 * step that does not complete in time fails the case: this suite never
 * skips.
 *
 * Concurrency: the CM event handler runs in CM work context and only
 * records events under ep->lock and wakes the test thread; completion
 * handlers run in softirq and only fill in a struct live_xfer and complete
 * it. Everything that sleeps (QP creation, accept, teardown) happens in the
 * test thread. Cleanup runs as KUnit deferred actions, so a failed
 * assertion still releases every resource, in reverse order of creation.
 * The verbs resources are tests/modules/smbd_rawqp.h's.
 */

#include <kunit/test.h>
#include <smbdirect/ns.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "smbd_live_util.h"
#include "smbd_rawqp.h"

/* Each endpoint's two slots: receives land in slot 0, sends leave from slot 1. */
#define LIVE_BUF_SIZE	64

struct live_xfer {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
	u32 byte_len;
};

struct live_ep {
	const char *role;
	struct smbd_rawqp q;
	bool connected;
	struct live_xfer send, recv;

	spinlock_t lock;	/* protects the fields below */
	wait_queue_head_t wq;
	unsigned long seen;	/* bit per enum rdma_cm_event_type seen */
	int bad_event;		/* first unexpected event, or -1 */
	int bad_status;
	struct rdma_cm_id *child;	/* listener: the connect request's id */
};

static void live_xfer_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct live_xfer *x = container_of(wc->wr_cqe, struct live_xfer, cqe);

	x->status = wc->status;
	x->byte_len = wc->byte_len;
	complete(&x->done);
}

static void live_xfer_init(struct live_xfer *x)
{
	x->cqe.done = live_xfer_done;
	init_completion(&x->done);
	x->status = IB_WC_GENERAL_ERR;
	x->byte_len = 0;
}

static bool live_event_is_error(enum rdma_cm_event_type ev)
{
	switch (ev) {
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		return true;
	default:
		return false;
	}
}

static int live_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *event)
{
	struct live_ep *ep = id->context;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST && !ep->child) {
		/* The new id is ours from here on; the test thread accepts it. */
		ep->child = id;
	}
	if (live_event_is_error(event->event) && ep->bad_event < 0) {
		ep->bad_event = event->event;
		ep->bad_status = event->status;
	}
	if (event->event < BITS_PER_LONG)
		__set_bit(event->event, &ep->seen);
	spin_unlock_irqrestore(&ep->lock, flags);
	wake_up_all(&ep->wq);
	return 0;
}

static bool live_ep_done_waiting(struct live_ep *ep, enum rdma_cm_event_type ev)
{
	unsigned long flags;
	bool done;

	spin_lock_irqsave(&ep->lock, flags);
	done = test_bit(ev, &ep->seen) || ep->bad_event >= 0;
	spin_unlock_irqrestore(&ep->lock, flags);
	return done;
}

static void live_wait_event(struct kunit *test, struct live_ep *ep,
			    enum rdma_cm_event_type ev)
{
	long left;

	left = wait_event_timeout(ep->wq, live_ep_done_waiting(ep, ev),
				  msecs_to_jiffies(timeout_ms));
	KUNIT_ASSERT_GT_MSG(test, left, 0, "%s: no %s within %u ms", ep->role,
			    rdma_event_msg(ev), timeout_ms);
	KUNIT_ASSERT_LT_MSG(test, ep->bad_event, 0, "%s: got %s (status %d) waiting for %s",
			    ep->role, rdma_event_msg(ep->bad_event), ep->bad_status,
			    rdma_event_msg(ev));
}

static void live_ep_release(void *data)
{
	struct live_ep *ep = data;

	/* Flush what is still posted before the CQ goes away. */
	if (ep->connected)
		smbd_rawqp_drain(&ep->q, false);
	smbd_rawqp_release(&ep->q);
	/* A connect request the test never got to accept. */
	if (ep->child)
		rdma_destroy_id(ep->child);
}

static struct live_ep *live_ep_new(struct kunit *test, const char *role)
{
	struct live_ep *ep;

	ep = kunit_kzalloc(test, sizeof(*ep), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ep);
	ep->role = role;
	ep->bad_event = -1;
	spin_lock_init(&ep->lock);
	init_waitqueue_head(&ep->wq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, live_ep_release, ep), 0);
	return ep;
}

static struct live_ep *live_ep_create_id(struct kunit *test, const char *role)
{
	struct live_ep *ep = live_ep_new(test, role);
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, live_cm_handler, ep, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(id), "%s: rdma_create_id: %ld", role,
			       PTR_ERR(id));
	ep->q.id = id;
	return ep;
}

/* PD, CQ, QP and two DMA-mapped slots on an id that has a device. */
static void live_ep_setup_qp(struct kunit *test, struct live_ep *ep)
{
	static const struct smbd_rawqp_caps caps = {
		.slot = LIVE_BUF_SIZE,
		.nslots = 2,
		.cqe = 8,
		.send_wr = 4,
		.recv_wr = 4,
	};
	int rc = smbd_rawqp_setup(&ep->q, &caps, ep);

	KUNIT_ASSERT_EQ_MSG(test, rc, 0, "%s: verbs set-up (PD, buffers, CQ, QP)",
			    ep->role);
}

static void live_wait_xfer(struct kunit *test, struct live_ep *ep,
			   struct live_xfer *x, const char *what)
{
	long left = wait_for_completion_timeout(&x->done, msecs_to_jiffies(timeout_ms));

	KUNIT_ASSERT_GT_MSG(test, left, 0, "%s: %s did not complete", ep->role, what);
	KUNIT_ASSERT_EQ_MSG(test, x->status, IB_WC_SUCCESS, "%s: %s: %s", ep->role,
			    what, ib_wc_status_msg(x->status));
}

static void live_post_recv(struct kunit *test, struct live_ep *ep)
{
	struct live_xfer *x = &ep->recv;

	live_xfer_init(x);
	KUNIT_ASSERT_EQ_MSG(test, smbd_rawqp_post_recv(&ep->q, 0, &x->cqe), 0,
			    "%s: ib_post_recv", ep->role);
}

/* Send @msg (NUL included) from the send slot, and wait. */
static void live_post_send(struct kunit *test, struct live_ep *ep, const char *msg)
{
	struct live_xfer *x = &ep->send;
	size_t len = strlen(msg) + 1;

	KUNIT_ASSERT_LE(test, len, LIVE_BUF_SIZE);
	live_xfer_init(x);
	memcpy(smbd_rawqp_buf(&ep->q, 1), msg, len);
	KUNIT_ASSERT_EQ_MSG(test, smbd_rawqp_post_send(&ep->q, 1, len, &x->cqe), 0,
			    "%s: ib_post_send", ep->role);
	live_wait_xfer(test, ep, x, "send");
}

/* One received message must be exactly @msg, NUL included. */
static void live_check_recv(struct kunit *test, struct live_ep *ep, const char *msg)
{
	struct live_xfer *x = &ep->recv;

	live_wait_xfer(test, ep, x, "receive");
	smbd_rawqp_sync_recv(&ep->q, 0);
	KUNIT_EXPECT_EQ(test, x->byte_len, strlen(msg) + 1);
	KUNIT_EXPECT_STREQ(test, (char *)smbd_rawqp_buf(&ep->q, 0), msg);
}

static void cm_connect_send_both_ways(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct rdma_conn_param cp = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct live_ep *lis, *cli, *srv;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct ib_device *dev;
	char ping[48], pong[48];

	dev = ib_device_get_by_name(*d->dev, RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL_MSG(test, dev, "RDMA device %s (%s) does not exist",
				  *d->dev, d->kind);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_put_device, dev), 0);
	KUNIT_ASSERT_TRUE_MSG(test, in4_pton(*d->addr, -1, (u8 *)&sin.sin_addr.s_addr,
					     -1, NULL), "bad address %s", *d->addr);

	/* Listener on the device's own address, ephemeral port. */
	lis = live_ep_create_id(test, "listener");
	KUNIT_ASSERT_EQ_MSG(test, rdma_bind_addr(lis->q.id, (struct sockaddr *)&sin), 0,
			    "rdma_bind_addr %pI4", &sin.sin_addr);
	KUNIT_ASSERT_PTR_EQ_MSG(test, lis->q.id->device, dev,
				"%pI4 is not on %s", &sin.sin_addr, *d->dev);
	KUNIT_ASSERT_EQ(test, rdma_listen(lis->q.id, 8), 0);
	sin.sin_port = ((struct sockaddr_in *)&lis->q.id->route.addr.src_addr)->sin_port;
	KUNIT_ASSERT_NE(test, ntohs(sin.sin_port), 0);

	/* Client: resolve, build its QP, connect. */
	cli = live_ep_create_id(test, "client");
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(cli->q.id, NULL, (struct sockaddr *)&sin,
						timeout_ms), 0);
	live_wait_event(test, cli, RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_ASSERT_PTR_EQ(test, cli->q.id->device, dev);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(cli->q.id, timeout_ms), 0);
	live_wait_event(test, cli, RDMA_CM_EVENT_ROUTE_RESOLVED);
	live_ep_setup_qp(test, cli);
	live_post_recv(test, cli);
	KUNIT_ASSERT_EQ(test, rdma_connect(cli->q.id, &cp), 0);

	/* Server: take the request's id, build its QP, accept. */
	live_wait_event(test, lis, RDMA_CM_EVENT_CONNECT_REQUEST);
	srv = live_ep_new(test, "server");
	spin_lock_irq(&lis->lock);
	srv->q.id = lis->child;
	lis->child = NULL;
	spin_unlock_irq(&lis->lock);
	srv->q.id->context = srv;
	KUNIT_ASSERT_PTR_EQ(test, srv->q.id->device, dev);
	live_ep_setup_qp(test, srv);
	live_post_recv(test, srv);
	rdma_lock_handler(srv->q.id);
	KUNIT_ASSERT_EQ(test, rdma_accept(srv->q.id, &cp), 0);
	rdma_unlock_handler(srv->q.id);

	live_wait_event(test, cli, RDMA_CM_EVENT_ESTABLISHED);
	cli->connected = true;
	live_wait_event(test, srv, RDMA_CM_EVENT_ESTABLISHED);
	srv->connected = true;

	/* The active side speaks first (iWARP requires it). */
	snprintf(ping, sizeof(ping), "smbdirect live ping over %s", *d->dev);
	snprintf(pong, sizeof(pong), "smbdirect live pong over %s", *d->dev);
	live_post_send(test, cli, ping);
	live_check_recv(test, srv, ping);
	live_post_send(test, srv, pong);
	live_check_recv(test, cli, pong);

	/*
	 * Orderly disconnect, seen by both sides. On IB/RoCE the active side's
	 * DISCONNECTED comes with the passive side's DREP, which the passive
	 * side sends when it disconnects in turn; on iWARP the connection is
	 * already closed by then and that second call has nothing left to do.
	 */
	KUNIT_ASSERT_EQ(test, rdma_disconnect(cli->q.id), 0);
	live_wait_event(test, srv, RDMA_CM_EVENT_DISCONNECTED);
	rdma_disconnect(srv->q.id);
	live_wait_event(test, cli, RDMA_CM_EVENT_DISCONNECTED);
}

static struct kunit_case cm_live_cases[] = {
	KUNIT_CASE_PARAM(cm_connect_send_both_ways, tl_dev_gen_params),
	{}
};

static struct kunit_suite cm_live_suite = {
	.name = "smbdirect_cm_live",
	.test_cases = cm_live_cases,
};

kunit_test_suite(cm_live_suite);

MODULE_DESCRIPTION("Live RDMA CM test on rxe and siw for smbdirect");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SMBDX_NS);
