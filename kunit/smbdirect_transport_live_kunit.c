// SPDX-License-Identifier: GPL-2.0
/*
 * Live KUnit suite for the SMB Direct transport: smbdirect's exported API
 * between a listener and a client in the same kernel, on each soft RDMA
 * device of the test VM (rxe: RoCE, siw: iWARP).
 *
 * Cases: negotiation both ways on the default ports with the negotiated
 * parameters checked on both sides; messages of every size class in both
 * directions with content checks (empty, 1 byte, exactly one fragment,
 * one byte more, several fragments, exactly the peer's
 * MaxFragmentedSize, one byte more as a local error); the recv and
 * disconnected callbacks.
 *
 * A missing device, an address on another device, or a step that does not
 * finish within timeout_ms fails the case: nothing here skips.
 *
 * Concurrency: the listener's accept callback and the connections'
 * callbacks run on smbdirect's workqueue and only record what they got
 * under a spinlock and wake the test thread. Cleanup runs as KUnit
 * deferred actions in reverse order of creation (connections before the
 * listener), so a failed assertion still releases everything.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>

#include <smbdirect/smbdirect.h>
#include "smbd.h"

static char *rxe_dev = "rxe0";
module_param(rxe_dev, charp, 0444);
MODULE_PARM_DESC(rxe_dev, "name of the RoCE (rxe) device under test");
static char *rxe_addr = "192.0.2.1";
module_param(rxe_addr, charp, 0444);
MODULE_PARM_DESC(rxe_addr, "IPv4 address of the rxe device's interface");
static char *siw_dev = "siw0";
module_param(siw_dev, charp, 0444);
MODULE_PARM_DESC(siw_dev, "name of the iWARP (siw) device under test");
static char *siw_addr = "198.51.100.1";
module_param(siw_addr, charp, 0444);
MODULE_PARM_DESC(siw_addr, "IPv4 address of the siw device's interface");
static unsigned int timeout_ms = 30000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "how long each step may take (the VM is emulated)");

#define TL_MAX_CONNS	80

struct tl_dev {
	const char *kind;
	char **dev;
	char **addr;
	bool iwarp;
};

static const struct tl_dev tl_devs[] = {
	{ "rxe", &rxe_dev, &rxe_addr, false },
	{ "siw", &siw_dev, &siw_addr, true },
};

static void tl_dev_desc(const struct tl_dev *d, char *desc)
{
	strscpy(desc, d->kind, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tl_dev, tl_devs, tl_dev_desc);

/* What a listener and the connections' callbacks saw. */
struct tl_server {
	struct kunit *test;
	struct smbd_listener *lis;
	spinlock_t lock;		/* protects the fields below */
	wait_queue_head_t wq;
	struct smbd_conn *conns[TL_MAX_CONNS];
	int nconns;
	int refuse;			/* accept returns this */
};

/* A connection in callback mode records messages and its loss here. */
struct tl_sink {
	spinlock_t lock;		/* protects the fields below */
	wait_queue_head_t wq;
	struct list_head msgs;
	int nmsgs;
	int lost;			/* error given to disconnected, or 0 */
	int nlost;
};

struct tl_msg {
	struct list_head list;
	struct smbd_msg *msg;
};

static int tl_accept(struct smbd_listener *lis, struct smbd_conn *conn)
{
	struct tl_server *srv = smbd_listener_context(lis);
	int rc;

	spin_lock_bh(&srv->lock);
	rc = srv->refuse;
	if (!rc && srv->nconns < TL_MAX_CONNS)
		srv->conns[srv->nconns++] = conn;
	else if (!rc)
		rc = -ENOSPC;
	spin_unlock_bh(&srv->lock);
	wake_up_all(&srv->wq);
	return rc;
}

static const struct smbd_listener_ops tl_pull_ops = {
	.accept = tl_accept,
};

static void tl_sink_recv(struct smbd_conn *conn, struct smbd_msg *msg)
{
	struct tl_sink *sink = smbd_conn_context(conn);
	struct tl_msg *m = kmalloc(sizeof(*m), GFP_KERNEL);

	if (!m) {
		smbd_msg_free(msg);
		return;
	}
	m->msg = msg;
	spin_lock_bh(&sink->lock);
	list_add_tail(&m->list, &sink->msgs);
	sink->nmsgs++;
	spin_unlock_bh(&sink->lock);
	wake_up_all(&sink->wq);
}

static void tl_sink_disconnected(struct smbd_conn *conn, int error)
{
	struct tl_sink *sink = smbd_conn_context(conn);

	spin_lock_bh(&sink->lock);
	sink->lost = error;
	sink->nlost++;
	spin_unlock_bh(&sink->lock);
	wake_up_all(&sink->wq);
}

static const struct smbd_conn_ops tl_sink_ops = {
	.recv = tl_sink_recv,
	.disconnected = tl_sink_disconnected,
};

static void tl_sink_release(void *data)
{
	struct tl_sink *sink = data;
	struct tl_msg *m, *tmp;

	list_for_each_entry_safe(m, tmp, &sink->msgs, list) {
		list_del(&m->list);
		smbd_msg_free(m->msg);
		kfree(m);
	}
}

static struct tl_sink *tl_sink_new(struct kunit *test)
{
	struct tl_sink *sink = kunit_kzalloc(test, sizeof(*sink), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sink);
	spin_lock_init(&sink->lock);
	init_waitqueue_head(&sink->wq);
	INIT_LIST_HEAD(&sink->msgs);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_sink_release,
							sink), 0);
	return sink;
}

static void tl_put_device(void *dev)
{
	ib_device_put(dev);
}

static void tl_listener_destroy(void *lis)
{
	smbd_listener_destroy(lis);
}

static void tl_conn_destroy(void *conn)
{
	smbd_destroy(conn);
}

static void tl_kvfree(void *p)
{
	kvfree(p);
}

static void *tl_kvmalloc(struct kunit *test, size_t len)
{
	void *p = kvmalloc(max_t(size_t, len, 1), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_kvfree, p), 0);
	return p;
}

/* The device must exist and @sin (port 0) must be its address. */
static void tl_addr(struct kunit *test, const struct tl_dev *d,
		    struct sockaddr_in *sin)
{
	struct ib_device *dev;

	dev = ib_device_get_by_name(*d->dev, RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL_MSG(test, dev, "RDMA device %s (%s) does not exist",
				  *d->dev, d->kind);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_put_device, dev), 0);
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	KUNIT_ASSERT_TRUE_MSG(test, in4_pton(*d->addr, -1,
					     (u8 *)&sin->sin_addr.s_addr, -1,
					     NULL), "bad address %s", *d->addr);
}

static struct tl_server *tl_listen(struct kunit *test, struct sockaddr_in *sin,
				   const struct smbd_conn_config *cfg,
				   const struct smbd_listener_ops *ops)
{
	struct tl_server *srv = kunit_kzalloc(test, sizeof(*srv), GFP_KERNEL);
	struct smbd_listener *lis;

	KUNIT_ASSERT_NOT_NULL(test, srv);
	srv->test = test;
	spin_lock_init(&srv->lock);
	init_waitqueue_head(&srv->wq);
	lis = smbd_listen(&init_net, (struct sockaddr *)sin, cfg, ops, srv);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(lis), "smbd_listen %pISpc: %ld",
			       sin, PTR_ERR(lis));
	srv->lis = lis;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_listener_destroy,
							lis), 0);
	return srv;
}

static struct smbd_conn *tl_connect(struct kunit *test, struct sockaddr_in *sin,
				    const struct smbd_conn_config *cfg,
				    const struct smbd_conn_ops *ops, void *ctx)
{
	struct smbd_conn *conn;

	conn = smbd_connect(&init_net, (struct sockaddr *)sin, NULL, cfg, ops,
			    ctx);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(conn), "smbd_connect %pISpc: %ld",
			       sin, PTR_ERR(conn));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_conn_destroy,
							conn), 0);
	return conn;
}

static int tl_nconns(struct tl_server *srv)
{
	int n;

	spin_lock_bh(&srv->lock);
	n = srv->nconns;
	spin_unlock_bh(&srv->lock);
	return n;
}

/* Wait for the @idx-th accepted connection; the test then owns it. */
static struct smbd_conn *tl_accepted(struct kunit *test, struct tl_server *srv,
				     int idx)
{
	struct smbd_conn *conn;
	long left;

	left = wait_event_timeout(srv->wq, tl_nconns(srv) > idx,
				  msecs_to_jiffies(timeout_ms));
	KUNIT_ASSERT_GT_MSG(test, left, 0, "no connection %d accepted within %u ms",
			    idx, timeout_ms);
	spin_lock_bh(&srv->lock);
	conn = srv->conns[idx];
	spin_unlock_bh(&srv->lock);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_conn_destroy,
							conn), 0);
	return conn;
}

static u8 tl_byte(u32 seed, u32 i)
{
	return (seed * 131 + i * 7 + (i >> 8) + (i >> 16)) & 0xff;
}

static void tl_fill(u8 *buf, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = tl_byte(seed, i);
}

static int tl_send(struct smbd_conn *conn, const void *buf, size_t len)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	return smbd_send(conn, &it, 0, 0);
}

static void tl_send_pattern(struct kunit *test, struct smbd_conn *conn, u8 *buf,
			    u32 len, u32 seed)
{
	int rc;

	tl_fill(buf, len, seed);
	rc = tl_send(conn, buf, len);
	KUNIT_ASSERT_EQ_MSG(test, rc, 0, "smbd_send of %u bytes", len);
}

/* The next message must be @len bytes of pattern @seed. */
static void tl_check_msg(struct kunit *test, struct smbd_msg *msg, u8 *buf,
			 u32 len, u32 seed)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter it;
	u32 i, bad = 0, first = 0;
	size_t n;

	KUNIT_ASSERT_EQ_MSG(test, smbd_msg_len(msg), len, "message length");
	iov_iter_kvec(&it, ITER_DEST, &kv, 1, len);
	n = smbd_msg_copy(msg, 0, &it);
	KUNIT_ASSERT_EQ(test, n, (size_t)len);
	for (i = 0; i < len; i++) {
		if (buf[i] != tl_byte(seed, i)) {
			if (!bad++)
				first = i;
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "%u of %u bytes differ, first at %u",
			    bad, len, first);
}

static void tl_expect_pull(struct kunit *test, struct smbd_conn *conn, u8 *buf,
			   u32 len, u32 seed)
{
	struct smbd_msg *msg;
	int rc;

	rc = smbd_recv_msg(conn, msecs_to_jiffies(timeout_ms), &msg);
	KUNIT_ASSERT_EQ_MSG(test, rc, 0, "smbd_recv_msg waiting for %u bytes", len);
	tl_check_msg(test, msg, buf, len, seed);
	smbd_msg_free(msg);
}

static void tl_check_params(struct kunit *test, const struct tl_dev *d,
			    struct smbd_conn *conn, struct smbd_conn *peer)
{
	struct smbd_conn_info a, b;

	KUNIT_ASSERT_EQ(test, smbd_conn_query(conn, &a), 0);
	KUNIT_ASSERT_EQ(test, smbd_conn_query(peer, &b), 0);
	KUNIT_EXPECT_EQ(test, a.params.protocol, SMBD_VERSION_1_0);
	KUNIT_EXPECT_EQ(test, a.params.max_send_size, SMBD_DEF_MAX_SEND_SIZE);
	KUNIT_EXPECT_EQ(test, a.params.max_receive_size, SMBD_DEF_MAX_RECV_SIZE);
	/* Each side's MaxFragmentedSendSize is the other's receive limit. */
	KUNIT_EXPECT_EQ(test, a.params.max_fragmented_send_size,
			b.params.max_fragmented_recv_size);
	KUNIT_EXPECT_EQ(test, b.params.max_fragmented_send_size,
			a.params.max_fragmented_recv_size);
	KUNIT_EXPECT_GE(test, a.params.max_fragmented_send_size,
			(u32)SMBD_PROTO_MIN_FRAG_SIZE);
	KUNIT_EXPECT_EQ(test, a.params.max_read_write_size,
			b.params.max_read_write_size);
	KUNIT_EXPECT_EQ(test, a.params.keepalive_interval,
			(u32)SMBD_DEF_KEEPALIVE_SEC);
	KUNIT_EXPECT_EQ(test, a.iwarp, d->iwarp);
	KUNIT_EXPECT_EQ(test, b.iwarp, d->iwarp);
	KUNIT_EXPECT_STREQ(test, a.device, *d->dev);
	KUNIT_EXPECT_STREQ(test, b.device, *d->dev);
	KUNIT_EXPECT_GT(test, a.ird, 0U);
	KUNIT_EXPECT_GT(test, a.ord, 0U);
	KUNIT_EXPECT_GT(test, b.ird, 0U);
	KUNIT_EXPECT_GT(test, b.ord, 0U);
}

/* A connected pair on @d's default port, server side in pull mode. */
struct tl_pair {
	struct tl_server *srv;
	struct smbd_conn *cli;
	struct smbd_conn *srvc;
	struct sockaddr_in sin;
};

static void tl_pair_up(struct kunit *test, struct tl_pair *p,
		       const struct smbd_conn_config *ccfg,
		       const struct smbd_conn_config *scfg)
{
	const struct tl_dev *d = test->param_value;

	tl_addr(test, d, &p->sin);
	p->srv = tl_listen(test, &p->sin, scfg, &tl_pull_ops);
	KUNIT_ASSERT_EQ(test, smbd_listener_port(p->srv->lis),
			d->iwarp ? SMBD_PORT_IWARP : SMBD_PORT_IB);
	p->cli = tl_connect(test, &p->sin, ccfg, NULL, NULL);
	p->srvc = tl_accepted(test, p->srv, 0);
}

static void smbd_negotiate_both_ways(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct tl_pair p;

	tl_pair_up(test, &p, NULL, NULL);
	tl_check_params(test, d, p.cli, p.srvc);
	tl_check_params(test, d, p.srvc, p.cli);
	KUNIT_EXPECT_EQ(test, smbd_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbd_conn_error(p.srvc), 0);
	KUNIT_EXPECT_EQ(test, smbd_test_stat(p.cli, SMBD_STAT_TX_NEG_REQ), 1ULL);
	KUNIT_EXPECT_EQ(test, smbd_test_stat(p.cli, SMBD_STAT_RX_NEG_RESP), 1ULL);
	KUNIT_EXPECT_EQ(test, smbd_test_stat(p.srvc, SMBD_STAT_RX_NEG_REQ), 1ULL);
	KUNIT_EXPECT_EQ(test, smbd_test_stat(p.srvc, SMBD_STAT_TX_NEG_RESP), 1ULL);
}

/* Every size class, one way; @from sends, @to receives (pull). */
static void tl_size_classes(struct kunit *test, struct smbd_conn *from,
			    struct smbd_conn *to, u32 seed0)
{
	struct smbd_conn_info info;
	u32 payload, max, sizes[10], n = 0, i;
	u8 *sbuf, *rbuf;
	struct smbd_msg *msg;

	KUNIT_ASSERT_EQ(test, smbd_conn_query(from, &info), 0);
	payload = info.params.max_send_size - SMBD_DATA_PAYLOAD_OFFSET;
	max = info.params.max_fragmented_send_size;
	sbuf = tl_kvmalloc(test, max + 1);
	rbuf = tl_kvmalloc(test, max + 1);

	sizes[n++] = 1;
	sizes[n++] = 2;
	sizes[n++] = payload - 1;
	sizes[n++] = payload;
	sizes[n++] = payload + 1;
	sizes[n++] = 2 * payload;
	sizes[n++] = 2 * payload + 1;
	sizes[n++] = 65536;
	sizes[n++] = max - 1;
	sizes[n++] = max;

	/* Empty: sent as one message without payload, never delivered. */
	KUNIT_EXPECT_EQ(test, tl_send(from, sbuf, 0), 0);
	for (i = 0; i < n; i++)
		tl_send_pattern(test, from, sbuf, sizes[i], seed0 + i);
	for (i = 0; i < n; i++)
		tl_expect_pull(test, to, rbuf, sizes[i], seed0 + i);

	/* One byte over the peer's MaxFragmentedSize: local error only. */
	KUNIT_EXPECT_EQ(test, tl_send(from, sbuf, max + 1), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, smbd_test_stat(from, SMBD_STAT_LOCAL_TOO_BIG), 1ULL);
	KUNIT_EXPECT_EQ(test, smbd_conn_error(from), 0);
	tl_send_pattern(test, from, sbuf, 100, seed0 + 99);
	tl_expect_pull(test, to, rbuf, 100, seed0 + 99);
	/* Nothing else arrived (the empty message is not delivered). */
	KUNIT_EXPECT_EQ(test, smbd_recv_msg(to, 0, &msg), -ETIMEDOUT);
}

static void smbd_size_classes_both_ways(struct kunit *test)
{
	struct tl_pair p;

	tl_pair_up(test, &p, NULL, NULL);
	tl_size_classes(test, p.cli, p.srvc, 1000);
	tl_size_classes(test, p.srvc, p.cli, 2000);
	KUNIT_EXPECT_EQ(test, smbd_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbd_conn_error(p.srvc), 0);
	KUNIT_EXPECT_GE(test, smbd_test_stat(p.cli, SMBD_STAT_TX_EMPTY), 1ULL);
	KUNIT_EXPECT_GE(test, smbd_test_stat(p.srvc, SMBD_STAT_RX_EMPTY), 1ULL);
}

static int tl_sink_count(struct tl_sink *sink, int *nlost)
{
	int n;

	spin_lock_bh(&sink->lock);
	n = sink->nmsgs;
	*nlost = sink->nlost;
	spin_unlock_bh(&sink->lock);
	return n;
}

static bool tl_sink_has(struct tl_sink *sink, int nmsgs, int nlost)
{
	int lost, n = tl_sink_count(sink, &lost);

	return n >= nmsgs && lost >= nlost;
}

/* Callback form: messages through recv, loss through disconnected. */
static void smbd_callbacks(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct tl_server *srv;
	struct tl_sink *sink;
	struct smbd_conn *cli, *srvc;
	struct sockaddr_in sin;
	struct smbd_msg *none;
	struct tl_msg *m;
	u8 *buf;
	u32 i, sizes[] = { 1, 1340, 1341, 10000 };
	long left;

	tl_addr(test, d, &sin);
	buf = tl_kvmalloc(test, 10000);
	srv = tl_listen(test, &sin, NULL, &tl_pull_ops);
	sink = tl_sink_new(test);
	cli = tl_connect(test, &sin, NULL, &tl_sink_ops, sink);
	KUNIT_EXPECT_PTR_EQ(test, smbd_conn_context(cli), (void *)sink);
	srvc = tl_accepted(test, srv, 0);

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		tl_send_pattern(test, srvc, buf, sizes[i], 300 + i);
	left = wait_event_timeout(sink->wq, tl_sink_has(sink, ARRAY_SIZE(sizes), 0),
				  msecs_to_jiffies(timeout_ms));
	KUNIT_ASSERT_GT_MSG(test, left, 0, "callback did not get %zu messages",
			    ARRAY_SIZE(sizes));
	i = 0;
	list_for_each_entry(m, &sink->msgs, list) {
		tl_check_msg(test, m->msg, buf, sizes[i], 300 + i);
		i++;
	}
	/* Pull is refused on a connection with a recv callback. */
	KUNIT_EXPECT_EQ(test, smbd_recv_msg(cli, 0, &none), -EINVAL);

	/* The peer goes away: the loss is reported exactly once. */
	smbd_disconnect(srvc);
	left = wait_event_timeout(sink->wq, tl_sink_has(sink, 0, 1),
				  msecs_to_jiffies(timeout_ms));
	KUNIT_ASSERT_GT_MSG(test, left, 0, "no loss notification");
	KUNIT_EXPECT_EQ(test, sink->lost, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, smbd_conn_error(cli), -ECONNRESET);
	KUNIT_EXPECT_EQ(test, smbd_test_cause(cli), SMBD_CAUSE_PEER_DISCONNECT);
	KUNIT_EXPECT_EQ(test, tl_send(cli, buf, 10), -ECONNRESET);
	smbd_disconnect(cli);
	smbd_disconnect(cli);
	msleep(100);
	KUNIT_EXPECT_EQ(test, sink->nlost, 1);
}

static struct kunit_case smbd_transport_live_cases[] = {
	KUNIT_CASE_PARAM(smbd_negotiate_both_ways, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbd_size_classes_both_ways, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbd_callbacks, tl_dev_gen_params),
	{}
};

static struct kunit_suite smbd_transport_live_suite = {
	.name = "smbdirect_transport_live",
	.test_cases = smbd_transport_live_cases,
};

kunit_test_suite(smbd_transport_live_suite);

MODULE_DESCRIPTION("Live tests of the smbdirect transport on rxe and siw");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
