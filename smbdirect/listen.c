// SPDX-License-Identifier: GPL-2.0
/*
 * SMB Direct passive side: listeners and connection arrival (MS-SMBD
 * 3.1.7.2).
 *
 * Normal operation: smbdx_listen() binds an RDMA CM id (port 445 on
 * IB/RoCE, 5445 on iWARP unless given, addr.c) and listens. A
 * CONNECT_REQUEST is handled in the CM handler: a connection object with
 * its QP and receive buffers is created, one receive is posted for the
 * Negotiate Request, the IRD/ORD values are negotiated (appendix A private
 * data where the device needs them), the request is accepted and the 5 s
 * Negotiation Timer starts. The connection then belongs to the listener
 * (on its list) until it has negotiated (recv.c); its upcall work
 * (deliver.c) then calls the accept callback, and from its return the
 * upper layer owns the connection.
 *
 * Transport recovery: a connection that fails before the hand-over is torn
 * down by its upcall work, which takes it off the list
 * (smbdx_listener_detach()). Destroying a listener first destroys its
 * cm_id (which waits for CONNECT_REQUEST handlers in progress), then fails
 * every connection still on its list and waits until their upcall works
 * have removed them. A listener whose device goes away loses its cm_id
 * (ib_client remove or the CM's DEVICE_REMOVAL event) and stays, inert,
 * until destroyed.
 *
 * Locking: smbdx_listeners_lock (a mutex no CM handler takes) protects the
 * list of listeners; listener->mutex protects listener->id;
 * listener->lock protects the connection list and the dying flag and is
 * taken before a connection's lock, never inside it.
 */

#include <linux/module.h>
#include <linux/slab.h>

#include "smbd.h"
#include "trace.h"

static atomic_t smbdx_listener_nums = ATOMIC_INIT(0);

/*
 * Protects smbdx_listeners. Never taken by a CM event handler, so device
 * removal may destroy listening cm_ids (which waits for the handlers)
 * with it held.
 */
DEFINE_MUTEX(smbdx_listeners_lock);
LIST_HEAD(smbdx_listeners);

/*
 * Take a connection off its listener's list; wake the listener's destroy
 * when the list empties. The wake-up happens under the lock, and the
 * listener takes the lock once more before freeing itself.
 */
void smbdx_listener_detach(struct smbdx_conn *conn)
{
	struct smbdx_listener *lis = conn->listener;

	conn->listener = NULL;
	spin_lock_bh(&lis->lock);
	list_del_init(&conn->lnode);
	lis->nconns--;
	if (list_empty(&lis->conns))
		wake_up_all(&lis->wq);
	spin_unlock_bh(&lis->lock);
}

static int smbdx_listener_connect_request(struct smbdx_listener *lis,
					  struct rdma_cm_id *id,
					 struct rdma_cm_event *event)
{
	struct rdma_conn_param param = {};
	u8 pd[SMBDX_IRD_ORD_LEN + SMBDX_CAPS_V1_LEN];
	struct smbdx_ird_ord local, cm, peer, out;
	enum smbdx_ird_ord_kind kind;
	struct smbdx_conn *conn;
	bool dying, busy;
	int rc;

	/*
	 * Peers that have not negotiated yet (and connections of this
	 * listener still being torn down) are bounded: an unauthenticated
	 * peer cannot make the listener hold more than max_negotiating.
	 */
	spin_lock_bh(&lis->lock);
	dying = lis->dying;
	busy = lis->nconns >= READ_ONCE(smbdx_max_negotiating);
	spin_unlock_bh(&lis->lock);
	if (dying)
		return -ECONNREFUSED;
	if (busy) {
		atomic64_inc(&lis->refused);
		atomic64_inc(&lis->over_limit);
		return -ECONNREFUSED;
	}

	conn = smbdx_conn_alloc(SMBDX_ROLE_PASSIVE, &lis->cfg);
	if (!conn)
		return -ENOMEM;
	trace_smbdx_cm_event(conn, id, event);
	conn->listener = lis;
	conn->ops = lis->ops->conn_ops;
	conn->id = id;
	memcpy(&conn->local, &id->route.addr.src_addr, sizeof(conn->local));
	memcpy(&conn->peer, &id->route.addr.dst_addr, sizeof(conn->peer));

	rc = smbdx_qp_setup(conn);
	if (rc)
		goto refuse;

	/* MS-SMBD appendix A: IRD/ORD, with private data on iWARP only. */
	local.ird = conn->limits.ird;
	local.ord = conn->limits.ord;
	cm.ird = event->param.conn.initiator_depth;
	cm.ord = event->param.conn.responder_resources;
	kind = smbdx_ird_ord_parse(conn->limits.ird_ord_private_data,
				   event->param.conn.private_data,
				  event->param.conn.private_data_len, &cm, &peer);
	if (smbdx_ird_ord_negotiate(&local, &peer, &out)) {
		atomic64_inc(&conn->stats.errors[SMBDX_ERR_IRD_ORD_ZERO]);
		atomic64_inc(&smbdx_global_stats.errors[SMBDX_ERR_IRD_ORD_ZERO]);
		smbdx_conn_log_error(conn, SMBDX_ERR_IRD_ORD_ZERO);
		rc = -EINVAL;
		goto refuse;
	}
	conn->ird = out.ird;
	conn->ord = out.ord;
	param.responder_resources = out.ird;
	param.initiator_depth = out.ord;
	param.rnr_retry_count = 6;
	/* Appendix A 6.2 for a legacy iWARP peer; our capabilities (cm.c). */
	smbdx_conn_peer_caps(conn, event->param.conn.private_data,
			     event->param.conn.private_data_len);
	rc = smbdx_conn_privdata(conn, kind == SMBDX_IRD_ORD_LEGACY ? &out : NULL,
				 pd, sizeof(pd));
	if (rc < 0)
		goto refuse;
	if (rc) {
		param.private_data = pd;
		param.private_data_len = rc;
	}

	/* 3.1.7.2: one receive of at least 512 bytes for the request. */
	spin_lock_bh(&conn->lock);
	smbdx_conn_set_state(conn, SMBDX_CS_NEGOTIATING);
	rc = smbdx_post_recv_one(conn);
	spin_unlock_bh(&conn->lock);
	if (rc)
		goto refuse;

	spin_lock_bh(&lis->lock);
	list_add_tail(&conn->lnode, &lis->conns);
	lis->nconns++;
	spin_unlock_bh(&lis->lock);

	/*
	 * From rdma_accept() on, the peer may send at once (garbage, or a
	 * reset), and the connection may fail and be torn down by its upcall
	 * work before we get back here: teardown must find the QP live (to
	 * drain it), and the timer is armed only if it has not failed yet.
	 */
	id->context = conn;
	conn->qp_live = true;
	rc = rdma_accept(id, &param);
	if (rc) {
		conn->qp_live = false;
		id->context = lis;
		spin_lock_bh(&lis->lock);
		list_del_init(&conn->lnode);
		lis->nconns--;
		spin_unlock_bh(&lis->lock);
		goto refuse;
	}
	spin_lock_bh(&conn->lock);
	smbdx_neg_timer_start(conn);
	spin_unlock_bh(&conn->lock);
	smbdx_conn_publish(conn);
	return 0;

refuse:
	/* The CM destroys @id when we return non-zero; the QP goes first. */
	atomic64_inc(&lis->refused);
	conn->listener = NULL;
	smbdx_qp_free(conn);
	conn->id = NULL;
	conn->released = true;
	smbdx_conn_put(conn);
	return rc;
}

static void smbdx_listener_remove_work(struct work_struct *w)
{
	struct smbdx_listener *lis = container_of(w, struct smbdx_listener,
						 remove_work);

	mutex_lock(&lis->mutex);
	if (lis->id) {
		rdma_destroy_id(lis->id);
		lis->id = NULL;
	}
	mutex_unlock(&lis->mutex);
}

/**
 * smbdx_listener_cm_event() - a CM event on a listener's cm_id
 * @lis: the listener
 * @id: the listening cm_id, or a new one for a connect request
 * @event: the event
 *
 * Context: the RDMA CM's handler.
 *
 * Return: 0, or non-zero to refuse a connect request (the CM destroys the
 * new cm_id).
 */
int smbdx_listener_cm_event(struct smbdx_listener *lis, struct rdma_cm_id *id,
			    struct rdma_cm_event *event)
{
	switch (event->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return smbdx_listener_connect_request(lis, id, event);
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		spin_lock_bh(&lis->lock);
		lis->error = -ENODEV;
		spin_unlock_bh(&lis->lock);
		queue_work(smbdx_wq, &lis->remove_work);
		return 0;
	default:
		return 0;
	}
}

/**
 * smbdx_listeners_device_removed() - stop listening on a removed device
 * @ibdev: the device
 *
 * Context: process (ib_client remove).
 */
void smbdx_listeners_device_removed(struct ib_device *ibdev)
{
	struct smbdx_listener *lis;

	mutex_lock(&smbdx_listeners_lock);
	list_for_each_entry(lis, &smbdx_listeners, node) {
		mutex_lock(&lis->mutex);
		if (lis->id && lis->ibdev == ibdev) {
			rdma_destroy_id(lis->id);
			lis->id = NULL;
			spin_lock_bh(&lis->lock);
			lis->error = -ENODEV;
			spin_unlock_bh(&lis->lock);
		}
		mutex_unlock(&lis->mutex);
	}
	mutex_unlock(&smbdx_listeners_lock);
}

/**
 * smbdx_listen() - listen for SMB Direct connections (passive role)
 * @net: network namespace
 * @addr: IPv4 or IPv6 address to listen on; the wildcard address listens
 *	on every RDMA device. Port 0 means the default of the device the
 *	address belongs to: ib_port (445) on InfiniBand/RoCE, iwarp_port
 *	(5445) on iWARP (MS-SMBD 1.9). The IPv4 wildcard address with port 0
 *	listens on every device at that device's default port, and only
 *	there, following devices and IPv4 addresses as they come and go (one
 *	listener per address, listen_dev.c; smbdx_listener_port() then
 *	returns 0); IPv6 is not supported that way (-EAFNOSUPPORT).
 * @cfg: settings of every accepted connection, NULL for the defaults
 * @ops: callbacks; @ops->accept is required
 * @ctx: returned by smbdx_listener_context()
 *
 * Every connection that arrives is accepted at the RDMA level, must send
 * a valid Negotiate Request within the Negotiation Timer (5 s by default)
 * and is then handed to @ops->accept.
 *
 * Context: process, may sleep.
 *
 * Return: the listener or an ERR_PTR().
 */
struct smbdx_listener *smbdx_listen(struct net *net, const struct sockaddr *addr,
				    const struct smbdx_conn_config *cfg,
				  const struct smbdx_listener_ops *ops,
				  void *ctx)
{
	struct smbdx_listener *lis;
	struct rdma_cm_id *id;
	int rc, port;

	might_sleep();
	if (!ops || !ops->accept || !addr)
		return ERR_PTR(-EINVAL);
	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return ERR_PTR(-EAFNOSUPPORT);

	lis = kzalloc(sizeof(*lis), GFP_KERNEL);
	if (!lis)
		return ERR_PTR(-ENOMEM);
	lis->kind = SMBDX_OBJ_LISTENER;
	lis->num = atomic_inc_return(&smbdx_listener_nums);
	INIT_LIST_HEAD(&lis->node);
	mutex_init(&lis->mutex);
	spin_lock_init(&lis->lock);
	init_waitqueue_head(&lis->wq);
	INIT_LIST_HEAD(&lis->conns);
	INIT_WORK(&lis->remove_work, smbdx_listener_remove_work);
	if (cfg)
		lis->cfg = *cfg;
	else
		smbdx_conn_config_init(&lis->cfg);
	smbdx_conn_config_resolve(&lis->cfg, true);
	rc = -EINVAL;
	if (smbdx_config_validate(&lis->cfg.proto))
		goto out_free;
	lis->ops = ops;
	lis->ctx = ctx;
	memcpy(&lis->addr, addr, smbdx_sockaddr_len(addr));

	port = smbdx_sockaddr_port(addr);
	if (!port) {
		if (smbdx_sockaddr_any(addr)) {
			/* Every device at its own port: listen_dev.c. */
			rc = smbdx_lgroup_start(net, lis);
			if (rc)
				goto out_free;
			return lis;
		}
		port = smbdx_addr_port(net, (struct sockaddr *)&lis->addr);
		if (port < 0) {
			rc = port;
			goto out_free;
		}
		smbdx_sockaddr_set_port((struct sockaddr *)&lis->addr, port);
	}
	lis->port = port;

	id = rdma_create_id(net, smbdx_cm_handler, lis, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		rc = PTR_ERR(id);
		goto out_free;
	}
	rc = rdma_bind_addr(id, (struct sockaddr *)&lis->addr);
	if (rc)
		goto out_id;
	lis->ibdev = id->device;
	strscpy(lis->devname, id->device ? dev_name(&id->device->dev) : "-",
		sizeof(lis->devname));
	rc = rdma_listen(id, 128);
	if (rc)
		goto out_id;
	lis->id = id;

	mutex_lock(&smbdx_listeners_lock);
	list_add_tail(&lis->node, &smbdx_listeners);
	mutex_unlock(&smbdx_listeners_lock);
	return lis;

out_id:
	rdma_destroy_id(id);
out_free:
	kfree(lis);
	return ERR_PTR(rc);
}
EXPORT_SYMBOL_NS_GPL(smbdx_listen, SMBDX_NS);

/**
 * smbdx_listener_context() - the context given to smbdx_listen()
 * @lis: listener
 *
 * Return: the context.
 */
void *smbdx_listener_context(struct smbdx_listener *lis)
{
	return lis->ctx;
}
EXPORT_SYMBOL_NS_GPL(smbdx_listener_context, SMBDX_NS);

/**
 * smbdx_listener_port() - the port a listener listens on
 * @lis: listener
 *
 * Return: the port (the default chosen when 0 was given); 0 for the
 * IPv4 wildcard address with port 0, which listens on each device's
 * default port.
 */
int smbdx_listener_port(struct smbdx_listener *lis)
{
	return lis->port;
}
EXPORT_SYMBOL_NS_GPL(smbdx_listener_port, SMBDX_NS);

/**
 * smbdx_listener_owned_by() - a listener whose callbacks are in a module
 * @mod: the module
 *
 * Groups' children carry their group's callbacks: call this once no group
 * of @mod is left (smbdx_lgroup_owned_by()).
 *
 * Return: a listener on smbdx_listeners whose listener_ops are in @mod's
 * memory, or NULL. The caller destroys it (smbdx_module_going()).
 *
 * Context: process; takes smbdx_listeners_lock.
 */
struct smbdx_listener *smbdx_listener_owned_by(struct module *mod)
{
	struct smbdx_listener *lis, *found = NULL;

	mutex_lock(&smbdx_listeners_lock);
	list_for_each_entry(lis, &smbdx_listeners, node) {
		if (within_module((unsigned long)lis->ops, mod)) {
			found = lis;
			break;
		}
	}
	mutex_unlock(&smbdx_listeners_lock);
	return found;
}

/**
 * smbdx_listener_destroy() - stop listening and free a listener
 * @lis: listener
 *
 * No connect request is accepted once this starts; connections still
 * negotiating are disconnected and freed; connections already handed to
 * the accept callback are not affected. Returns once no callback of the
 * listener runs.
 *
 * Context: process, may sleep; not from the listener's accept callback.
 */
void smbdx_listener_destroy(struct smbdx_listener *lis)
{
	struct smbdx_conn *conn;

	might_sleep();
	if (lis->group)
		smbdx_lgroup_stop(lis);
	spin_lock_bh(&lis->lock);
	lis->dying = true;
	spin_unlock_bh(&lis->lock);

	mutex_lock(&smbdx_listeners_lock);
	list_del_init(&lis->node);
	mutex_unlock(&smbdx_listeners_lock);

	/* Waits for connect request handlers in progress. */
	mutex_lock(&lis->mutex);
	if (lis->id) {
		rdma_destroy_id(lis->id);
		lis->id = NULL;
	}
	mutex_unlock(&lis->mutex);
	cancel_work_sync(&lis->remove_work);

	spin_lock_bh(&lis->lock);
	list_for_each_entry(conn, &lis->conns, lnode)
		smbdx_conn_fail(conn, -ESHUTDOWN, SMBDX_CAUSE_NONE);
	spin_unlock_bh(&lis->lock);

	wait_event(lis->wq, ({
		bool empty;

		spin_lock_bh(&lis->lock);
		empty = list_empty(&lis->conns);
		spin_unlock_bh(&lis->lock);
		empty;
	}));
	/* Whoever emptied the list has let go of the lock. */
	spin_lock_bh(&lis->lock);
	spin_unlock_bh(&lis->lock);
	kfree(lis);
}
EXPORT_SYMBOL_NS_GPL(smbdx_listener_destroy, SMBDX_NS);
