// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA CM event dispatch: the one event handler of every smbdirect cm_id
 * (smbdx_cm_handler()), which hands a listener's events to listen.c and
 * acts on a connection's own events here.
 *
 * Normal operation: the connecting thread (connect.c) drives address and
 * route resolution and the connect itself and sleeps in between; the
 * handler only records the events it waits for (cm_flags bits, woken on
 * conn->wq) and, on the active side's ESTABLISHED, the IRD/ORD the CM
 * reports and the peer's capabilities in the accept's private data.
 * Capabilities: smbdx_conn_privdata() builds the private data of our
 * connect request or accept, smbdx_conn_peer_caps() reads the peer's
 * (pure codec in privdata.c). A passive connection's CONNECT_REQUEST arrives on a new cm_id
 * whose context is still the listener's: listen.c creates the connection
 * and makes it the cm_id's context, so later events come here. On IB and
 * RoCE a passive connection's first receive (recv.c) or the QP's
 * communication-established event (qp.c) may come before the CM's
 * ESTABLISHED: smbdx_conn_comm_est() records it (a cm_flags bit, any
 * context) for the disconnect (connection.c, smbdx_conn_notify_est()).
 *
 * Transport recovery: an error event, a reject, an address change or the
 * peer's disconnect terminates the connection (connection.c's
 * __smbdx_conn_fail() or __smbdx_conn_fail_concrete(): an error event or
 * reject is what a flush or a peer disconnect seen first was a symptom
 * of). The peer's disconnect of an established connection with Receives
 * posted only queues the disconnect work: the flushes it causes end the
 * connection behind the Receives the peer filled last (design.rst, "The
 * peer's disconnect"). DEVICE_REMOVAL terminates it and queues its
 * teardown, because the CM waits until the cm_id is destroyed. The fault
 * point cm_event drops any other event, as a lost CM message would.
 *
 * Concurrency: the RDMA CM calls the handler in process context with the
 * cm_id's handler mutex held, one event at a time per cm_id. It takes
 * conn->lock (BH) for what the lock protects and never res_mutex (a
 * disconnect sleeps under res_mutex waiting for a CM event, and
 * rdma_destroy_id() under it waits for handlers); it never destroys the
 * connection's cm_id and returns 0 for it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "smbd.h"
#include "trace.h"

static void smbdx_conn_record_ird_ord(struct smbdx_conn *conn,
				      const struct rdma_conn_param *p)
{
	if (p->responder_resources)
		conn->ird = p->responder_resources;
	if (p->initiator_depth)
		conn->ord = p->initiator_depth;
}

/*
 * What we advertise: push mode (push.c) when the connection's push_mode
 * says so, with the commit requests the peer may have outstanding;
 * otherwise only that this end speaks the format (flags 0). The test
 * build may make it advertise anything (smbdx_test_own_caps()).
 */
static void smbdx_caps_local(struct smbdx_conn *conn, struct smbdx_caps *caps)
{
	caps->flags = conn->cfg.push_mode ? smbdx_push_local_flags() : 0;
	caps->push_ird = caps->flags ? SMBDX_PUSH_MAX_COMMITS : 0;
	smbdx_test_own_caps(caps);
	/* What the encoder sends: no reserved bit, no IRD without a flag. */
	caps->flags &= SMBDX_CAPS_KNOWN;
	if (!caps->flags)
		caps->push_ird = 0;
}

/**
 * smbdx_conn_privdata() - the private data of our connect request or accept
 * @conn: connection, before its connect request or accept is made
 * @ird_ord: MS-SMBD's IRD/ORD header to send first (iWARP), or NULL
 * @buf: the private data area
 * @size: its size (SMBDX_PD_IB_REQ_MAX or more)
 *
 * Adds our capability blob when the connection's configuration says so
 * (cm_caps). On iWARP only by agreement: when we connect, with
 * cm_caps_iwarp; when we accept, exactly when the connect request carried
 * a blob (smbdx_conn_peer_caps() ran first), so that a stock or legacy
 * peer never receives one. On iWARP the blob always follows an IRD/ORD
 * header (@ird_ord, or our negotiated values when the caller passed
 * none), since 8 octets alone would be read as one. Records what it
 * advertised in @conn->caps.
 *
 * Context: process; takes conn->lock.
 * Return: octets of private data to send (0: none), or -ENOSPC.
 */
int smbdx_conn_privdata(struct smbdx_conn *conn,
			const struct smbdx_ird_ord *ird_ord, void *buf, u32 size)
{
	bool iwarp = conn->limits.iwarp, iwarp_ok = false;
	struct smbdx_caps own = {};
	struct smbdx_ird_ord hdr;
	bool want;
	int n;

	if (iwarp && conn->cfg.cm_caps) {
		if (conn->role == SMBDX_ROLE_ACTIVE) {
			iwarp_ok = conn->cfg.cm_caps_iwarp;
		} else {
			spin_lock_bh(&conn->lock);
			iwarp_ok = conn->caps.peer_blob == SMBDX_PD_FOUND;
			spin_unlock_bh(&conn->lock);
		}
	}
	want = conn->cfg.cm_caps && (!iwarp || iwarp_ok);
	if (want && iwarp && !ird_ord) {
		hdr.ird = conn->role == SMBDX_ROLE_ACTIVE ? conn->limits.ird : conn->ird;
		hdr.ord = conn->role == SMBDX_ROLE_ACTIVE ? conn->limits.ord : conn->ord;
		ird_ord = &hdr;
	}
	if (want)
		smbdx_caps_local(conn, &own);
	n = smbdx_privdata_build(iwarp, iwarp_ok, ird_ord,
				 want ? &own : NULL, buf, size);
	if (n < 0)
		return n;
	want = want && n > (ird_ord ? SMBDX_IRD_ORD_LEN : 0);
	spin_lock_bh(&conn->lock);
	conn->caps.sent = want;
	if (want)
		conn->caps.own = own;
	spin_unlock_bh(&conn->lock);
	if (want)
		smbdx_stat_inc(conn, SMBDX_STAT_CM_CAPS_SENT);
	return n;
}

/**
 * smbdx_conn_peer_caps() - read the peer's capabilities
 * @conn: connection
 * @pd: the peer's private data (connect request or accept), may be NULL
 * @len: its length
 *
 * Whatever the peer sent, on any transport: an absent or malformed blob
 * means no capabilities and is only counted; nothing here refuses or
 * ends a connection.
 *
 * Context: any (a CM event handler); takes conn->lock.
 */
void smbdx_conn_peer_caps(struct smbdx_conn *conn, const void *pd, u8 len)
{
	enum smbdx_pd_result r;
	struct smbdx_caps peer;

	r = smbdx_caps_parse(pd, len, &peer, NULL);
	spin_lock_bh(&conn->lock);
	conn->caps.peer_blob = r;
	conn->caps.peer = peer;
	spin_unlock_bh(&conn->lock);
	if (r == SMBDX_PD_FOUND)
		smbdx_stat_inc(conn, SMBDX_STAT_CM_CAPS_FOUND);
	else if (r != SMBDX_PD_ABSENT)
		smbdx_stat_inc(conn, SMBDX_STAT_CM_CAPS_MALFORMED);
}

/**
 * smbdx_conn_cm_event() - a CM event on a connection's cm_id
 * @conn: connection (the cm_id's context)
 * @id: its cm_id
 * @event: the event
 *
 * Context: the RDMA CM's handler (process context, handler mutex held).
 * Records the event for the connecting thread, or terminates the
 * connection; never destroys the cm_id.
 *
 * Return: 0 (the CM must not destroy the cm_id).
 */
static int smbdx_conn_cm_event(struct smbdx_conn *conn, struct rdma_cm_id *id,
			       struct rdma_cm_event *event)
{
	pr_debug("connection %u: %s (%d)\n", conn->num,
		 rdma_event_msg(event->event), event->status);
	trace_smbdx_cm_event(conn, id, event);
	/* Lost CM messages: the timers and the peer must cope. */
	if (event->event != RDMA_CM_EVENT_DEVICE_REMOVAL &&
	    smbdx_fault(SMBDX_FAULT_CM_EVENT))
		return 0;

	switch (event->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		set_bit(SMBDX_CMF_ADDR_RESOLVED, &conn->cm_flags);
		wake_up_all(&conn->wq);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		set_bit(SMBDX_CMF_ROUTE_RESOLVED, &conn->cm_flags);
		wake_up_all(&conn->wq);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		/* The passive side keeps what it negotiated at the request. */
		if (conn->role == SMBDX_ROLE_ACTIVE) {
			spin_lock_bh(&conn->lock);
			smbdx_conn_record_ird_ord(conn, &event->param.conn);
			spin_unlock_bh(&conn->lock);
			smbdx_conn_peer_caps(conn, event->param.conn.private_data,
					     event->param.conn.private_data_len);
		}
		set_bit(SMBDX_CMF_ESTABLISHED, &conn->cm_flags);
		wake_up_all(&conn->wq);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		spin_lock_bh(&conn->lock);
		__smbdx_conn_fail_concrete(conn, event->status < 0 ?
					   event->status : -EHOSTUNREACH,
					   SMBDX_CAUSE_CM_ERROR);
		spin_unlock_bh(&conn->lock);
		break;
	case RDMA_CM_EVENT_REJECTED:
		spin_lock_bh(&conn->lock);
		__smbdx_conn_fail_concrete(conn, -ECONNREFUSED,
					   SMBDX_CAUSE_REJECTED);
		spin_unlock_bh(&conn->lock);
		break;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		smbdx_conn_fail(conn, -ENETRESET, SMBDX_CAUSE_CM_ERROR);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		spin_lock_bh(&conn->lock);
		set_bit(SMBDX_CMF_DISCONNECTED, &conn->cm_flags);
		/*
		 * Receives the peer's last Sends filled may still wait in the
		 * CQ (the CM's thread can run before the CQ is polled), and
		 * ending the connection now would drop their data. So while
		 * Receives are posted, the disconnect work moves the QP to
		 * the error state instead: their flushes, which complete
		 * behind them, end the connection (__smbdx_conn_wc_failed()).
		 */
		if (conn->state == SMBDX_CS_ESTABLISHED && conn->recv.posted) {
			spin_unlock_bh(&conn->lock);
			smbdx_conn_queue_work(conn, &conn->disc_work);
			break;
		}
		__smbdx_conn_fail(conn, -ECONNRESET, SMBDX_CAUSE_PEER_DISCONNECT);
		spin_unlock_bh(&conn->lock);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		smbdx_conn_fail(conn, -ENODEV, SMBDX_CAUSE_DEVICE_REMOVAL);
		/* The CM waits until this cm_id is destroyed. */
		smbdx_conn_queue_work(conn, &conn->teardown_work);
		break;
	default:
		break;
	}
	return 0;
}

/**
 * smbdx_conn_comm_est() - data arrived: the peer is connected
 * @conn: passive connection
 *
 * On IB and RoCE the accepting side's CM reports ESTABLISHED when the
 * peer's RTU arrives. The peer may send as soon as it has sent the RTU, so
 * our first receive can complete while the cm_id is still in REP_SENT,
 * where a disconnect of ours would reach the peer as a reject (destroying
 * the cm_id sends REJ, as no DREQ can be sent). The first receive, or the
 * QP's communication-established event on devices that raise it, proves
 * that the peer is connected; this records it, and a disconnect of ours
 * tells the CM first (rdma_notify(), smbdx_conn_notify_est()). The CM is
 * not told any earlier: a peer's DREQ handled between rdma_notify() and
 * the CM's own establish work leaves the REP retransmitting for a minute
 * (smbdx_conn_notify_est()), while a DREQ that finds the cm_id still in
 * REP_SENT cancels the REP. A lost RTU needs nothing from us either: the
 * CM resends the REP, and the peer's CM answers it with another RTU.
 * Nothing to do on iWARP.
 *
 * Context: any (softirq completion handler, QP event handler).
 */
void smbdx_conn_comm_est(struct smbdx_conn *conn)
{
	if (conn->role != SMBDX_ROLE_PASSIVE || !conn->limits.est_by_data ||
	    test_bit(SMBDX_CMF_ESTABLISHED, &conn->cm_flags) ||
	    test_bit(SMBDX_CMF_COMM_EST, &conn->cm_flags))
		return;
	set_bit(SMBDX_CMF_COMM_EST, &conn->cm_flags);
}

/**
 * smbdx_cm_handler() - the event handler of every smbdirect cm_id
 * @id: cm_id; its context is a connection or a listener
 * @event: the event
 *
 * A connect request arrives on a new cm_id whose context is still the
 * listener's; the listener makes a connection its context.
 *
 * Return: 0, or non-zero to have the CM destroy @id (refused connect
 * request only).
 */
int smbdx_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *event)
{
	enum smbdx_obj_kind *kind = id->context;

	if (*kind == SMBDX_OBJ_LISTENER)
		return smbdx_listener_cm_event(container_of(kind,
							   struct smbdx_listener,
							   kind), id, event);
	return smbdx_conn_cm_event(container_of(kind, struct smbdx_conn, kind),
				  id, event);
}
