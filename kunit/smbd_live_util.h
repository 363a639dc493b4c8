/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the live KUnit suites: the module parameters naming the
 * soft RDMA devices of the test VM and their addresses, the device
 * parameter array (rxe, siw), and a listener/client pair built on
 * smbdirect's exported API with KUnit deferred clean-up.
 *
 * Each suite is its own module, so the static definitions here exist once
 * per module. The listener's accept callback records the connection under
 * srv->lock and wakes the test thread; clean-up actions run in reverse
 * order of creation (connections before the listener).
 */
#ifndef _SMBD_LIVE_UTIL_H
#define _SMBD_LIVE_UTIL_H

#include <kunit/test.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <smbdirect/smbdirect.h>
#include "devlimits.h"

static __maybe_unused char *rxe_dev = "rxe0";
module_param(rxe_dev, charp, 0444);
MODULE_PARM_DESC(rxe_dev, "name of the RoCE (rxe) device under test");
static __maybe_unused char *rxe_addr = "192.0.2.1";
module_param(rxe_addr, charp, 0444);
MODULE_PARM_DESC(rxe_addr, "IPv4 address of the rxe device's interface");
static __maybe_unused char *rxe_netdev = "smbd-v0";
module_param(rxe_netdev, charp, 0444);
MODULE_PARM_DESC(rxe_netdev, "net device under the rxe device");
static __maybe_unused char *siw_netdev = "smbd-d0";
module_param(siw_netdev, charp, 0444);
MODULE_PARM_DESC(siw_netdev, "net device under the siw device");
static __maybe_unused char *siw_dev = "siw0";
module_param(siw_dev, charp, 0444);
MODULE_PARM_DESC(siw_dev, "name of the iWARP (siw) device under test");
static __maybe_unused char *siw_addr = "198.51.100.1";
module_param(siw_addr, charp, 0444);
MODULE_PARM_DESC(siw_addr, "IPv4 address of the siw device's interface");
static __maybe_unused unsigned int timeout_ms = 30000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "how long each step may take (the VM is emulated)");

#define TL_MAX_CONNS	80

struct tl_dev {
	const char *kind;
	char **dev;
	char **addr;
	char **netdev;
	bool iwarp;
};

static __maybe_unused const struct tl_dev tl_devs[] = {
	{ "rxe", &rxe_dev, &rxe_addr, &rxe_netdev, false },
	{ "siw", &siw_dev, &siw_addr, &siw_netdev, true },
};

static __maybe_unused void tl_dev_desc(const struct tl_dev *d, char *desc)
{
	strscpy(desc, d->kind, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tl_dev, tl_devs, tl_dev_desc);

/* What a listener and the connections' callbacks saw. */
struct tl_server {
	struct kunit *test;
	struct smbdx_listener *lis;
	spinlock_t lock;		/* protects the fields below */
	wait_queue_head_t wq;
	struct smbdx_conn *conns[TL_MAX_CONNS];
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
	struct smbdx_msg *msg;
};

static __maybe_unused int tl_accept(struct smbdx_listener *lis, struct smbdx_conn *conn)
{
	struct tl_server *srv = smbdx_listener_context(lis);
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

static __maybe_unused const struct smbdx_listener_ops tl_pull_ops = {
	.accept = tl_accept,
};

static __maybe_unused void tl_sink_recv(struct smbdx_conn *conn, struct smbdx_msg *msg)
{
	struct tl_sink *sink = smbdx_conn_context(conn);
	struct tl_msg *m = kmalloc(sizeof(*m), GFP_KERNEL);

	if (!m) {
		smbdx_msg_free(msg);
		return;
	}
	m->msg = msg;
	spin_lock_bh(&sink->lock);
	list_add_tail(&m->list, &sink->msgs);
	sink->nmsgs++;
	spin_unlock_bh(&sink->lock);
	wake_up_all(&sink->wq);
}

static __maybe_unused void tl_sink_disconnected(struct smbdx_conn *conn, int error)
{
	struct tl_sink *sink = smbdx_conn_context(conn);

	spin_lock_bh(&sink->lock);
	sink->lost = error;
	sink->nlost++;
	spin_unlock_bh(&sink->lock);
	wake_up_all(&sink->wq);
}

static __maybe_unused const struct smbdx_conn_ops tl_sink_ops = {
	.recv = tl_sink_recv,
	.disconnected = tl_sink_disconnected,
};

static __maybe_unused void tl_sink_release(void *data)
{
	struct tl_sink *sink = data;
	struct tl_msg *m, *tmp;

	list_for_each_entry_safe(m, tmp, &sink->msgs, list) {
		list_del(&m->list);
		smbdx_msg_free(m->msg);
		kfree(m);
	}
}

static __maybe_unused struct tl_sink *tl_sink_new(struct kunit *test)
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

static __maybe_unused void tl_put_device(void *dev)
{
	ib_device_put(dev);
}

static __maybe_unused void tl_listener_destroy(void *lis)
{
	smbdx_listener_destroy(lis);
}

static __maybe_unused void tl_conn_destroy(void *conn)
{
	smbdx_destroy(conn);
}

static __maybe_unused void tl_kvfree(void *p)
{
	kvfree(p);
}

static __maybe_unused void *tl_kvmalloc(struct kunit *test, size_t len)
{
	void *p = kvmalloc(max_t(size_t, len, 1), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_kvfree, p), 0);
	return p;
}

/* The device must exist and @sin (port 0) must be its address. */
static __maybe_unused void tl_addr(struct kunit *test, const struct tl_dev *d,
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

static __maybe_unused struct tl_server *tl_listen(struct kunit *test, struct sockaddr_in *sin,
						  const struct smbdx_conn_config *cfg,
						  const struct smbdx_listener_ops *ops)
{
	struct tl_server *srv = kunit_kzalloc(test, sizeof(*srv), GFP_KERNEL);
	struct smbdx_listener *lis;

	KUNIT_ASSERT_NOT_NULL(test, srv);
	srv->test = test;
	spin_lock_init(&srv->lock);
	init_waitqueue_head(&srv->wq);
	lis = smbdx_listen(&init_net, (struct sockaddr *)sin, cfg, ops, srv);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(lis), "smbdx_listen %pISpc: %ld",
			       sin, PTR_ERR(lis));
	srv->lis = lis;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_listener_destroy,
							lis), 0);
	return srv;
}

static __maybe_unused struct smbdx_conn *tl_connect(struct kunit *test, struct sockaddr_in *sin,
						    const struct smbdx_conn_config *cfg,
						   const struct smbdx_conn_ops *ops, void *ctx)
{
	struct smbdx_conn *conn;

	conn = smbdx_connect(&init_net, (struct sockaddr *)sin, NULL, cfg, ops,
			     ctx);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(conn), "smbdx_connect %pISpc: %ld",
			       sin, PTR_ERR(conn));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_conn_destroy,
							conn), 0);
	return conn;
}

static __maybe_unused int tl_nconns(struct tl_server *srv)
{
	int n;

	spin_lock_bh(&srv->lock);
	n = srv->nconns;
	spin_unlock_bh(&srv->lock);
	return n;
}

/* Wait for the @idx-th accepted connection; the test then owns it. */
static __maybe_unused struct smbdx_conn *tl_accepted(struct kunit *test, struct tl_server *srv,
						     int idx)
{
	struct smbdx_conn *conn;
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

/* A connected pair on @d's default port, server side in pull mode. */
struct tl_pair {
	struct tl_server *srv;
	struct smbdx_conn *cli;
	struct smbdx_conn *srvc;
	struct sockaddr_in sin;
};

static __maybe_unused void tl_pair_up(struct kunit *test, struct tl_pair *p,
				      const struct smbdx_conn_config *ccfg,
				      const struct smbdx_conn_config *scfg)
{
	const struct tl_dev *d = test->param_value;

	tl_addr(test, d, &p->sin);
	p->srv = tl_listen(test, &p->sin, scfg, &tl_pull_ops);
	KUNIT_ASSERT_EQ(test, smbdx_listener_port(p->srv->lis),
			d->iwarp ? SMBDX_PORT_IWARP : SMBDX_PORT_IB);
	p->cli = tl_connect(test, &p->sin, ccfg, NULL, NULL);
	p->srvc = tl_accepted(test, p->srv, 0);
}

#endif /* _SMBD_LIVE_UTIL_H */
