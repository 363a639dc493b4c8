// SPDX-License-Identifier: GPL-2.0
/*
 * SMB Direct active side: smbdx_connect() (MS-SMBD 3.1.4.1).
 *
 * Normal operation: the caller's thread drives every step and sleeps in
 * between: resolve the address (the device is then known, and with it the
 * default port: 445 on IB/RoCE, 5445 on iWARP), resolve the route, create
 * the QP and receive buffers, post one receive for the Negotiate Response,
 * connect (with the appendix A IRD/ORD private data on iWARP), send the
 * Negotiate Request once the RDMA connection is established, and wait for
 * the response, which the receive completion processes (recv.c). The
 * Negotiation Timer (120 s by default) bounds the whole sequence.
 *
 * The CM event handler only records events and wakes the thread
 * (cm.c). Every call on the cm_id (resolve address, resolve route,
 * connect) and every resource set-up happens under res_mutex, after
 * checking that the connection is not released: in the thread, except
 * rdma_connect(), which a work item makes (connect_work, holding a
 * reference; smbdx_connect_work() says why) while the thread waits for
 * ESTABLISHED. Device removal (our ib_client or the CM's DEVICE_REMOVAL
 * event) tears down and destroys the cm_id under the same mutex, at any
 * point between the steps, so it either runs before a step and the step
 * sees the connection released (-ENODEV), or after it.
 *
 * Transport recovery: any failure (CM error, rejection, timeout, invalid
 * response, device removal, a signal) tears the connection down and
 * returns its first error; nothing is delivered to the callbacks of a
 * connection that smbdx_connect() did not return. The teardown of a failed
 * connection runs in a work item (teardown_work) that the thread waits for
 * killably: a fatal signal ends every wait of smbdx_connect() at once, and
 * the thread never makes the RDMA CM's uninterruptible teardown calls
 * itself (smbdx_connect_teardown()).
 */

#include <linux/module.h>

#include "smbd.h"

/* Sleep until @bit is set in cm_flags, or the connection fails. */
static int smbdx_wait_cm(struct smbdx_conn *conn, int bit)
{
	if (wait_event_interruptible(conn->wq,
				     test_bit(bit, &conn->cm_flags) ||
				     READ_ONCE(conn->error)))
		smbdx_conn_fail(conn, -EINTR, SMBDX_CAUSE_NONE);
	return READ_ONCE(conn->error);
}

static bool smbdx_negotiated_or_failed(struct smbdx_conn *conn)
{
	bool done;

	spin_lock_bh(&conn->lock);
	done = conn->negotiated || conn->error;
	spin_unlock_bh(&conn->lock);
	return done;
}

static void smbdx_set_state(struct smbdx_conn *conn, enum smbdx_conn_state s,
			    struct smbdx_connect_report *rep)
{
	if (rep)
		rep->step = s;
	spin_lock_bh(&conn->lock);
	smbdx_conn_set_state(conn, s);
	spin_unlock_bh(&conn->lock);
}

/* Start address resolution (the cm_id may be bound to a device by it). */
static int smbdx_connect_resolve_addr(struct smbdx_conn *conn,
				      const struct sockaddr *src,
				      unsigned long timeout_ms)
{
	int rc = -ENODEV;

	mutex_lock(&conn->res_mutex);
	if (!conn->released && conn->id)
		rc = rdma_resolve_addr(conn->id, (struct sockaddr *)src,
				       (struct sockaddr *)&conn->peer, timeout_ms);
	mutex_unlock(&conn->res_mutex);
	return rc;
}

/*
 * Address resolved: pick the default port for the device if asked to,
 * then start route resolution.
 */
static int smbdx_connect_addr_resolved(struct smbdx_conn *conn, bool def_port,
				       unsigned long timeout_ms,
				       struct smbdx_connect_report *rep)
{
	struct rdma_cm_id *id;
	int port, rc = 0;

	mutex_lock(&conn->res_mutex);
	id = conn->id;
	if (conn->released || !id || !id->device) {
		rc = -ENODEV;
		goto out;
	}
	WRITE_ONCE(conn->ibdev, id->device);
	if (def_port) {
		port = smbdx_device_port(id->device);
		if (port < 0) {
			rc = port;
			goto out;
		}
		smbdx_sockaddr_set_port((struct sockaddr *)&conn->peer, port);
		smbdx_sockaddr_set_port((struct sockaddr *)&id->route.addr.dst_addr,
					port);
	}
	smbdx_set_state(conn, SMBDX_CS_RESOLVE_ROUTE, rep);
	rc = rdma_resolve_route(id, timeout_ms);
out:
	mutex_unlock(&conn->res_mutex);
	return rc;
}

/*
 * Route resolved: QP, buffers, one receive, then the connect, which
 * smbdx_connect_work() makes.
 */
static int smbdx_connect_route_resolved(struct smbdx_conn *conn,
					struct smbdx_connect_report *rep)
{
	struct rdma_conn_param *param = &conn->connect_param;
	struct smbdx_ird_ord io;
	int rc;

	mutex_lock(&conn->res_mutex);
	if (conn->released || !conn->id) {
		rc = -ENODEV;
		goto out;
	}
	rc = smbdx_qp_setup(conn);
	if (rc)
		goto out;
	memcpy(&conn->local, &conn->id->route.addr.src_addr,
	       sizeof(conn->local));

	spin_lock_bh(&conn->lock);
	rc = conn->error ? conn->error : smbdx_post_recv_one(conn);
	conn->ird = conn->limits.ird;
	conn->ord = conn->limits.ord;
	spin_unlock_bh(&conn->lock);
	if (rc)
		goto out;

	memset(param, 0, sizeof(*param));
	param->responder_resources = conn->limits.ird;
	param->initiator_depth = conn->limits.ord;
	param->retry_count = 6;
	param->rnr_retry_count = 6;
	/*
	 * MS-SMBD appendix A 6.1 on iWARP: our own IRD and ORD; on IB/RoCE
	 * our capabilities, if configured (cm.c).
	 */
	io.ird = conn->limits.ird;
	io.ord = conn->limits.ord;
	rc = smbdx_conn_privdata(conn, conn->limits.ird_ord_private_data ?
				 &io : NULL, conn->connect_pd,
				 sizeof(conn->connect_pd));
	if (rc < 0)
		goto out;
	if (rc) {
		param->private_data = conn->connect_pd;
		param->private_data_len = rc;
	}
	rc = 0;
	smbdx_set_state(conn, SMBDX_CS_CONNECTING, rep);
out:
	mutex_unlock(&conn->res_mutex);
	if (rc)
		return rc;
	/* Killed meanwhile: no connect at all (nothing for the peer to see). */
	if (signal_pending(current))
		return -EINTR;
	smbdx_conn_queue_work(conn, &conn->connect_work);
	return 0;
}

/*
 * rdma_connect() in a work item, which has no signals. On iWARP the
 * provider makes the TCP connection in the calling thread (siw_connect()
 * connects a kernel socket, blocking), and a signal pending in that thread
 * makes the socket's connect fail after the TCP handshake: siw then closes
 * a TCP connection the peer has just seen established, before any MPA
 * request. A siw listener does not survive such a peer: the close reaches
 * its listening endpoint and frees it while it is still listed (a siw bug
 * of 6.12, Documentation/design.rst "Connecting and a fatal signal"). The
 * thread waits for the outcome with the ESTABLISHED wait (a failed call
 * fails the connection); a thread killed meanwhile leaves the work to
 * finish the connect and teardown_work to undo it, both under res_mutex.
 */
static void smbdx_connect_work(struct work_struct *w)
{
	struct smbdx_conn *conn = container_of(w, struct smbdx_conn,
					       connect_work);
	int rc = 0;

	mutex_lock(&conn->res_mutex);
	if (conn->released || !conn->id) {
		rc = -ENODEV;
	} else if (!READ_ONCE(conn->error)) {
		rc = rdma_connect(conn->id, &conn->connect_param);
		if (!rc)
			conn->qp_live = true;
	}
	mutex_unlock(&conn->res_mutex);
	if (rc)
		smbdx_conn_fail(conn, rc, SMBDX_CAUSE_NONE);
	smbdx_conn_put(conn);
}

/**
 * smbdx_connect() - connect to a peer and negotiate (active role)
 * @net: network namespace
 * @dst: peer's IPv4 or IPv6 address; port 0 means the default of the
 *	device the address resolves to (ib_port 445 on InfiniBand/RoCE,
 *	iwarp_port 5445 on iWARP, MS-SMBD 1.9)
 * @src: local address to bind to, or NULL
 * @cfg: settings, NULL for the defaults (smbdx_conn_config_init())
 * @ops: callbacks, or NULL (pull mode, no loss notification)
 * @ctx: returned by smbdx_conn_context()
 *
 * Returns once the connection has negotiated (3.1.5.7) or failed; the
 * Negotiation Timer (@cfg->negotiate_timeout_ms, 120 s by default) bounds
 * the wait. The callbacks are not called before this returns.
 *
 * Context: process, may sleep.
 *
 * Return: the connection, which the caller owns and must smbdx_destroy(),
 * or an ERR_PTR(): -ETIMEDOUT, -ECONNREFUSED (rejected, or the peer
 * refused the negotiation), -EPROTO (invalid response), -EHOSTUNREACH,
 * -ENODEV, -EINVAL (bad configuration), -EINTR, ...
 */
struct smbdx_conn *smbdx_connect(struct net *net, const struct sockaddr *dst,
				 const struct sockaddr *src,
			       const struct smbdx_conn_config *cfg,
			       const struct smbdx_conn_ops *ops, void *ctx)
{
	return smbdx_connect_report(net, dst, src, cfg, ops, ctx, NULL);
}
EXPORT_SYMBOL_NS_GPL(smbdx_connect, SMBDX_NS);

/*
 * What smbdx_connect_report() tells of a failed connection. Device removal
 * or the disconnect work may hold res_mutex for as long as the CM makes a
 * disconnect wait (smbdx_connect_teardown()): a killed caller gives up the
 * device's name rather than wait for it.
 */
static void smbdx_report_failure(struct smbdx_conn *conn,
				 struct smbdx_connect_report *rep)
{
	struct rdma_cm_id *id;

	spin_lock_bh(&conn->lock);
	rep->cause = conn->cause;
	spin_unlock_bh(&conn->lock);
	rep->conn_id = conn->num;
	if (strcmp(conn->devname, "-")) {
		strscpy(rep->device, conn->devname, sizeof(rep->device));
	} else if (!mutex_lock_killable(&conn->res_mutex)) {
		id = conn->released ? NULL : conn->id;
		if (id && id->device)
			strscpy(rep->device, dev_name(&id->device->dev),
				sizeof(rep->device));
		mutex_unlock(&conn->res_mutex);
	}
	memcpy(&rep->local, &conn->local, sizeof(rep->local));
	memcpy(&rep->peer, &conn->peer, sizeof(rep->peer));
}

static bool smbdx_conn_destroyed(struct smbdx_conn *conn)
{
	bool done;

	spin_lock_bh(&conn->lock);
	done = conn->state == SMBDX_CS_DESTROYED;
	spin_unlock_bh(&conn->lock);
	return done;
}

/*
 * Tear a failed connection down from a work item and wait for it
 * killably. The RDMA CM's teardown may sleep uninterruptibly for as long
 * as the provider takes: on iWARP, rdma_disconnect() and rdma_destroy_id()
 * wait (iw_cm_disconnect(), destroy_cm_id()) until the provider reports
 * the outcome of the connect request, which siw does only when the peer
 * answers its MPA request or its MPA reply timer expires (10 s); and siw
 * discards the signals of a thread that waits for one of its endpoints
 * (siw_cep_set_inuse() calls flush_signals()), so a killed caller that
 * tore down itself could go on as if it had never been killed. The caller
 * never enters the CM's teardown: killed, it returns at once, and the
 * work item finishes with its own reference.
 *
 * Return: true if the caller was killed before the teardown finished.
 */
static bool smbdx_connect_teardown(struct smbdx_conn *conn)
{
	smbdx_conn_queue_work(conn, &conn->teardown_work);
	if (!wait_event_killable(conn->wq, smbdx_conn_destroyed(conn)))
		return false;
	smbdx_stat_inc(conn, SMBDX_STAT_CONNECT_KILLED);
	return true;
}

/**
 * smbdx_connect_report() - smbdx_connect() telling how far a failure got
 * @net: as for smbdx_connect()
 * @dst: as for smbdx_connect()
 * @src: as for smbdx_connect()
 * @cfg: as for smbdx_connect()
 * @ops: as for smbdx_connect()
 * @ctx: as for smbdx_connect()
 * @rep: NULL, or filled in: the last step begun, and on failure the
 *	cause, the connection's number, device and addresses (for the
 *	administrator's check, ctl.c)
 *
 * Context: process, may sleep.
 *
 * Return: as smbdx_connect().
 */
struct smbdx_conn *smbdx_connect_report(struct net *net, const struct sockaddr *dst,
					const struct sockaddr *src,
					const struct smbdx_conn_config *cfg,
					const struct smbdx_conn_ops *ops, void *ctx,
					struct smbdx_connect_report *rep)
{
	struct smbdx_conn_config c;
	struct smbdx_conn *conn;
	struct rdma_cm_id *id;
	unsigned long timeout_ms;
	bool def_port, killed;
	int rc;

	might_sleep();
	if (rep) {
		memset(rep, 0, sizeof(*rep));
		rep->step = SMBDX_CS_CREATED;
		rep->cause = SMBDX_CAUSE_NONE;
	}
	if (!dst || (dst->sa_family != AF_INET && dst->sa_family != AF_INET6))
		return ERR_PTR(-EAFNOSUPPORT);
	if (cfg)
		c = *cfg;
	else
		smbdx_conn_config_init(&c);
	smbdx_conn_config_resolve(&c, false);
	if (smbdx_config_validate(&c.proto))
		return ERR_PTR(-EINVAL);

	conn = smbdx_conn_alloc(SMBDX_ROLE_ACTIVE, &c);
	if (!conn)
		return ERR_PTR(-ENOMEM);
	conn->ops = ops;
	conn->ctx = ctx;
	INIT_WORK(&conn->connect_work, smbdx_connect_work);
	memcpy(&conn->peer, dst, smbdx_sockaddr_len(dst));
	def_port = !smbdx_sockaddr_port(dst);

	id = rdma_create_id(net, smbdx_cm_handler, conn, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		conn->released = true;
		smbdx_conn_put(conn);
		return ERR_CAST(id);
	}
	conn->id = id;
	smbdx_conn_publish(conn);
	spin_lock_bh(&conn->lock);
	smbdx_neg_timer_start(conn);
	spin_unlock_bh(&conn->lock);
	timeout_ms = min_t(unsigned long, c.negotiate_timeout_ms, 60000);

	/*
	 * From here on the cm_id is only touched under res_mutex: device
	 * removal may destroy it between any two steps.
	 */
	smbdx_set_state(conn, SMBDX_CS_RESOLVE_ADDR, rep);
	rc = smbdx_connect_resolve_addr(conn, src, timeout_ms);
	if (!rc)
		rc = smbdx_wait_cm(conn, SMBDX_CMF_ADDR_RESOLVED);
	if (rc)
		goto fail;
	smbdx_connect_step(conn, SMBDX_CS_RESOLVE_ROUTE);
	rc = smbdx_connect_addr_resolved(conn, def_port, timeout_ms, rep);
	if (!rc)
		rc = smbdx_wait_cm(conn, SMBDX_CMF_ROUTE_RESOLVED);
	if (rc)
		goto fail;
	smbdx_connect_step(conn, SMBDX_CS_CONNECTING);
	rc = smbdx_connect_route_resolved(conn, rep);
	if (!rc)
		rc = smbdx_wait_cm(conn, SMBDX_CMF_ESTABLISHED);
	if (rc)
		goto fail;

	/* 3.1.5.2: the first message is the Negotiate Request. */
	smbdx_connect_step(conn, SMBDX_CS_NEGOTIATING);
	smbdx_set_state(conn, SMBDX_CS_NEGOTIATING, rep);
	rc = smbdx_send_negotiate_req(conn);
	if (rc)
		goto fail;
	if (wait_event_interruptible(conn->wq, smbdx_negotiated_or_failed(conn)))
		smbdx_conn_fail(conn, -EINTR, SMBDX_CAUSE_NONE);

	spin_lock_bh(&conn->lock);
	rc = conn->error;
	if (!rc) {
		conn->handed_over = true;
		if (!list_empty(&conn->recv.ready) && ops && ops->recv)
			smbdx_conn_queue_work(conn, &conn->recv.upcall_work);
	}
	spin_unlock_bh(&conn->lock);
	if (rc)
		goto fail;
	return conn;

fail:
	smbdx_conn_fail(conn, rc, SMBDX_CAUSE_NONE);
	if (rep)
		smbdx_report_failure(conn, rep);
	killed = smbdx_connect_teardown(conn);
	/*
	 * Unless the caller was killed, the CM's handlers have run by now
	 * (teardown destroyed the cm_id): a rejection that came just after
	 * the flush it caused has named the cause and the error
	 * (__smbdx_conn_fail_concrete()).
	 */
	spin_lock_bh(&conn->lock);
	rc = killed ? -EINTR : conn->error;
	if (rep)
		rep->cause = conn->cause;
	spin_unlock_bh(&conn->lock);
	smbdx_conn_put(conn);
	return ERR_PTR(rc);
}
