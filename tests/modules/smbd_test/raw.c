// SPDX-License-Identifier: GPL-2.0
/*
 * smbd_test.ko, the raw listener: a bare RDMA CM listener, not smbdirect's,
 * that plays a broken SMB Direct server for the client's tests
 * (tests/vm/smb_shim_badpeer.sh):
 *
 *   listen raw ADDR PORT [grant=N] [status=X] [close=1] [hold=1]
 *
 * It accepts every connection request and keeps one receive posted, so
 * the client's Sends complete. Without grant= or status= it never sends
 * anything: a server that accepted the RDMA connection but never
 * negotiates. With grant=N it answers the first message (the Negotiate
 * Request) with an otherwise valid Negotiate Response that grants N send
 * credits (0 is a protocol error, [MS-SMBD] 3.1.5.2 and 3.2.5.2), and is
 * silent after that: it never grants more credits and never answers a
 * data message. With status=X (non-zero) the response is a failure
 * response with Status X (3.1.5.3). With close=1 it disconnects once the
 * response is sent, as a server ending a failed negotiation does. With
 * hold=1 it never answers the connection request at all (neither accepts
 * nor rejects it until unlisten): the client's connect waits for the
 * RDMA CM's own timeouts (on iWARP, siw's MPA reply timer).
 *
 * Locking: commands run with svc_mutex held, which guards svc_raw_listeners
 * and the lifetime of everything on it. The RDMA CM calls the event
 * handler from its own work items, and rdma_destroy_id() waits for a
 * running handler, so the handler never takes svc_mutex: it only adds
 * connections to its listener's list (under svc_lock), counts (atomics)
 * and, when a device goes away, queues the reaper, which destroys that
 * listener with svc_mutex held. Completions (softirq) touch only their
 * connection's buffer, QP and counters, and queue the connection's
 * disconnect work (close=1), which freeing the connection cancels once
 * its QP is drained (no completion can queue it again).
 *
 * A connection's verbs resources are ../smbd_rawqp.h's: slot 0 receives,
 * slot 1 sends the Negotiate Response.
 */

#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <smbdirect/pdu.h>

#include "smbd_rawqp.h"
#include "smbd_test.h"

#define SVC_RAW_BUF	4096	/* each of the receive and send halves */
#define SVC_RAW_SILENT	(-1)

struct svc_raw_listener;

/* What the CM handler's context points to: a listener or a connection. */
struct svc_raw_ep {
	bool listener;
};

struct svc_raw_conn {
	struct svc_raw_ep ep;
	struct list_head list;		/* under svc_lock */
	struct svc_raw_listener *rl;
	struct smbd_rawqp q;		/* slot 0 receives, slot 1 sends */
	bool answered;			/* the Negotiate Response was sent */
	struct work_struct disc_work;	/* close=1: rdma_disconnect() */
	struct ib_cqe recv_cqe;
	struct ib_cqe send_cqe;
};

struct svc_raw_listener {
	struct svc_raw_ep ep;
	struct list_head list;		/* svc_raw_listeners, under svc_mutex */
	struct rdma_cm_id *id;
	struct sockaddr_storage addr;
	u16 port;
	int grant;			/* SVC_RAW_SILENT: never answer */
	u32 status;			/* the response's Status */
	bool close;			/* disconnect once the response is sent */
	bool hold;			/* leave connection requests pending */
	bool removed;			/* its device went away */
	struct list_head conns;		/* under svc_lock */
	atomic64_t requests;		/* connection requests kept */
	atomic64_t accepted;
	atomic64_t received;		/* messages received */
	atomic64_t answered;		/* Negotiate Responses sent */
	atomic64_t disconnected;
};

static LIST_HEAD(svc_raw_listeners);
static void svc_raw_reaper_fn(struct work_struct *w);
static DECLARE_WORK(svc_raw_reaper, svc_raw_reaper_fn);

static int svc_raw_post_recv(struct svc_raw_conn *c)
{
	return smbd_rawqp_post_recv(&c->q, 0, &c->recv_cqe);
}

/* The Negotiate Response to @req, granting @grant credits. */
static int svc_raw_answer(struct svc_raw_conn *c,
			  const struct smbdx_negotiate_req *req, u16 grant)
{
	struct smbdx_negotiate_resp *r = smbd_rawqp_buf(&c->q, 1);

	memset(r, 0, sizeof(*r));
	r->min_version = cpu_to_le16(SMBDX_VERSION_1_0);
	r->max_version = cpu_to_le16(SMBDX_VERSION_1_0);
	r->negotiated_version = cpu_to_le16(SMBDX_VERSION_1_0);
	r->credits_requested = cpu_to_le16(255);
	r->credits_granted = cpu_to_le16(grant);
	r->status = cpu_to_le32(c->rl->status);
	r->max_read_write_size = cpu_to_le32(1048576);
	r->preferred_send_size =
		cpu_to_le32(min_t(u32, le32_to_cpu(req->max_receive_size), 1364));
	r->max_receive_size = cpu_to_le32(1364);
	r->max_fragmented_size = cpu_to_le32(131072);
	return smbd_rawqp_post_send(&c->q, 1, sizeof(*r), &c->send_cqe);
}

static void svc_raw_disc_fn(struct work_struct *w)
{
	struct svc_raw_conn *c = container_of(w, struct svc_raw_conn,
					      disc_work);

	rdma_disconnect(c->q.id);
}

/* close=1: the response is out, end the connection (process context). */
static void svc_raw_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct svc_raw_conn *c = container_of(wc->wr_cqe, struct svc_raw_conn,
					      send_cqe);

	if (wc->status == IB_WC_SUCCESS && c->rl->close)
		queue_work(system_wq, &c->disc_work);
}

/* A message arrived: answer the first if asked to, post the receive again. */
static void svc_raw_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct svc_raw_conn *c = container_of(wc->wr_cqe, struct svc_raw_conn,
					      recv_cqe);
	struct smbdx_negotiate_req req;

	if (wc->status != IB_WC_SUCCESS)
		return;
	atomic64_inc(&c->rl->received);
	smbd_rawqp_sync_recv(&c->q, 0);
	if (!c->answered && c->rl->grant != SVC_RAW_SILENT &&
	    wc->byte_len >= sizeof(req)) {
		memcpy(&req, smbd_rawqp_buf(&c->q, 0), sizeof(req));
		c->answered = true;
		if (!svc_raw_answer(c, &req, c->rl->grant))
			atomic64_inc(&c->rl->answered);
	}
	svc_raw_post_recv(c);
}

/* Release a connection's verbs resources and its CM id. */
static void svc_raw_conn_free(struct svc_raw_conn *c)
{
	if (c->q.qp) {
		smbd_rawqp_drain(&c->q, true);
		/* Drained: no completion queues the work again. */
		cancel_work_sync(&c->disc_work);
	}
	smbd_rawqp_release(&c->q);
	kfree(c);
}

/* Slots, CQ and QP on @c->q.id's device, one receive posted. */
static int svc_raw_setup(struct svc_raw_conn *c)
{
	static const struct smbd_rawqp_caps caps = {
		.slot = SVC_RAW_BUF,
		.nslots = 2,
		.cqe = 8,
		.send_wr = 4,
		.recv_wr = 4,
	};
	int rc = smbd_rawqp_setup(&c->q, &caps, c);

	if (rc)
		return rc;
	c->recv_cqe.done = svc_raw_recv_done;
	c->send_cqe.done = svc_raw_send_done;
	return svc_raw_post_recv(c);
}

/* A connection request on @rl: accept it (non-zero: the CM rejects). */
static int svc_raw_accept(struct svc_raw_listener *rl, struct rdma_cm_id *id)
{
	struct rdma_conn_param cp = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.rnr_retry_count = 6,
	};
	struct svc_raw_conn *c;
	int rc;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->rl = rl;
	c->q.id = id;
	id->context = &c->ep;
	INIT_WORK(&c->disc_work, svc_raw_disc_fn);
	if (rl->hold) {
		/* Neither accepted nor rejected until unlisten destroys it. */
		rc = 0;
		goto listed;
	}
	rc = svc_raw_setup(c);
	if (!rc)
		rc = rdma_accept(id, &cp);
	if (rc) {
		/* The CM destroys @id when we return non-zero. */
		c->q.id = NULL;
		if (c->q.qp)
			rdma_destroy_qp(id);
		c->q.qp = false;
		svc_raw_conn_free(c);
		return rc;
	}
	atomic64_inc(&rl->accepted);
listed:
	spin_lock_bh(&svc_lock);
	list_add_tail(&c->list, &rl->conns);
	spin_unlock_bh(&svc_lock);
	atomic64_inc(&rl->requests);
	return 0;
}

static int svc_raw_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct svc_raw_ep *ep = id->context;
	struct svc_raw_listener *rl;

	if (ep->listener)
		rl = container_of(ep, struct svc_raw_listener, ep);
	else
		rl = container_of(ep, struct svc_raw_conn, ep)->rl;
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return svc_raw_accept(rl, id);
	case RDMA_CM_EVENT_DISCONNECTED:
		atomic64_inc(&rl->disconnected);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* The device waits for rdma_destroy_id(): the reaper's. */
		WRITE_ONCE(rl->removed, true);
		queue_work(system_wq, &svc_raw_reaper);
		break;
	default:
		break;
	}
	return 0;
}

static void svc_raw_free(struct svc_raw_listener *rl)
{
	struct svc_raw_conn *c;

	lockdep_assert_held(&svc_mutex);
	list_del(&rl->list);
	/* No new connection once the listening id is gone. */
	rdma_destroy_id(rl->id);
	for (;;) {
		spin_lock_bh(&svc_lock);
		c = list_first_entry_or_null(&rl->conns, struct svc_raw_conn,
					     list);
		if (c)
			list_del(&c->list);
		spin_unlock_bh(&svc_lock);
		if (!c)
			break;
		svc_raw_conn_free(c);
	}
	kfree(rl);
}

static void svc_raw_reaper_fn(struct work_struct *w)
{
	struct svc_raw_listener *rl, *tmp;

	mutex_lock(&svc_mutex);
	list_for_each_entry_safe(rl, tmp, &svc_raw_listeners, list)
		if (READ_ONCE(rl->removed))
			svc_raw_free(rl);
	mutex_unlock(&svc_mutex);
}

/* One OPTION=VALUE of listen raw into @rl; non-zero if it does not parse. */
static int svc_raw_opt(struct svc_raw_listener *rl, const char *arg)
{
	u32 v;

	if (!strncmp(arg, "grant=", 6)) {
		if (kstrtou32(arg + 6, 0, &v) || v > U16_MAX)
			return -EINVAL;
		rl->grant = v;
	} else if (!strncmp(arg, "status=", 7)) {
		if (kstrtou32(arg + 7, 0, &v) || !v)
			return -EINVAL;
		rl->status = v;
	} else if (!strncmp(arg, "close=", 6)) {
		if (kstrtou32(arg + 6, 0, &v) || v > 1)
			return -EINVAL;
		rl->close = v;
	} else if (!strncmp(arg, "hold=", 5)) {
		if (kstrtou32(arg + 5, 0, &v) || v > 1)
			return -EINVAL;
		rl->hold = v;
	} else {
		return -EINVAL;
	}
	return 0;
}

/**
 * svc_raw_listen() - listen raw ADDR PORT [grant=N] [status=X] [close=1]
 *	[hold=1]
 * @argc: number of arguments
 * @argv: the arguments after "listen raw"
 *
 * Context: process context, with svc_mutex held.
 * Return: 0, or a negative errno (and an error line in the result).
 */
int svc_raw_listen(int argc, char **argv)
{
	struct svc_raw_listener *rl;
	struct rdma_cm_id *id;
	u16 port;
	int i, rc;

	if (argc < 2 || argc > 6 || kstrtou16(argv[1], 0, &port) || !port) {
		svc_printf("error: listen raw ADDR PORT [grant=N] [status=X] [close=1] [hold=1]\n");
		return -EINVAL;
	}
	rl = kzalloc(sizeof(*rl), GFP_KERNEL);
	if (!rl)
		return -ENOMEM;
	rl->grant = SVC_RAW_SILENT;
	for (i = 2; i < argc; i++) {
		if (svc_raw_opt(rl, argv[i])) {
			kfree(rl);
			svc_printf("error: cannot parse '%s'\n", argv[i]);
			return -EINVAL;
		}
	}
	/* A failure response is an answer too; its credits are 0. */
	if (rl->status && rl->grant == SVC_RAW_SILENT)
		rl->grant = 0;
	rc = svc_parse_addr(argv[0], argv[1], &rl->addr);
	if (rc) {
		kfree(rl);
		svc_printf("error: cannot parse '%s'\n", argv[0]);
		return rc;
	}
	rl->ep.listener = true;
	rl->port = port;
	INIT_LIST_HEAD(&rl->conns);
	id = rdma_create_id(&init_net, svc_raw_handler, &rl->ep, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		kfree(rl);
		return PTR_ERR(id);
	}
	rl->id = id;
	rc = rdma_bind_addr(id, (struct sockaddr *)&rl->addr);
	if (!rc)
		rc = rdma_listen(id, 8);
	if (rc) {
		rdma_destroy_id(id);
		svc_printf("error: raw listen on %pISpc: %d\n", &rl->addr, rc);
		kfree(rl);
		return rc;
	}
	list_add_tail(&rl->list, &svc_raw_listeners);
	if (rl->hold)
		svc_printf("listening (raw, holding requests) on %pISc port %u\n",
			   &rl->addr, port);
	else if (rl->grant == SVC_RAW_SILENT)
		svc_printf("listening (raw, silent) on %pISc port %u\n",
			   &rl->addr, port);
	else
		svc_printf("listening (raw, granting %d, status %#x%s) on %pISc port %u\n",
			   rl->grant, rl->status, rl->close ? ", closing" : "",
			   &rl->addr, port);
	return 0;
}

/**
 * svc_raw_unlisten() - stop raw listeners
 * @ss: their address, or NULL for all
 * @port: their port, 0 for any
 *
 * Context: process context, with svc_mutex held.
 * Return: how many were stopped.
 */
int svc_raw_unlisten(const struct sockaddr_storage *ss, u16 port)
{
	struct svc_raw_listener *rl, *tmp;
	int n = 0;

	list_for_each_entry_safe(rl, tmp, &svc_raw_listeners, list) {
		if (ss && (!svc_addr_eq(&rl->addr, ss, false) ||
			   (port && port != rl->port)))
			continue;
		svc_raw_free(rl);
		n++;
	}
	return n;
}

/**
 * svc_raw_show() - the raw listeners' lines of the status file
 * @m: the status file
 *
 * Context: process context, with svc_mutex held.
 */
void svc_raw_show(struct seq_file *m)
{
	struct svc_raw_listener *rl;

	list_for_each_entry(rl, &svc_raw_listeners, list) {
		seq_printf(m, "listener raw %pISc port=%u requests=%lld accepted=%lld received=%lld answered=%lld disconnected=%lld",
			   &rl->addr, rl->port,
			   (long long)atomic64_read(&rl->requests),
			   (long long)atomic64_read(&rl->accepted),
			   (long long)atomic64_read(&rl->received),
			   (long long)atomic64_read(&rl->answered),
			   (long long)atomic64_read(&rl->disconnected));
		if (rl->grant == SVC_RAW_SILENT)
			seq_puts(m, " grant=none");
		else
			seq_printf(m, " grant=%d", rl->grant);
		seq_printf(m, " status=%#x close=%d hold=%d\n", rl->status,
			   rl->close, rl->hold);
	}
}

/**
 * svc_raw_stop_all() - stop every raw listener, then the reaper
 *
 * Context: process context; takes svc_mutex.
 */
void svc_raw_stop_all(void)
{
	mutex_lock(&svc_mutex);
	svc_raw_unlisten(NULL, 0);
	mutex_unlock(&svc_mutex);
	cancel_work_sync(&svc_raw_reaper);
}
