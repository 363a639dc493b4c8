// SPDX-License-Identifier: GPL-2.0
/*
 * smbd_test.ko, raw clients: bare RDMA CM connections, not smbdirect's,
 * that play a hostile SMB Direct client against a server (our ksmbd, or
 * smbdirect's own listeners) for tests/vm/ksmbd_hostile.sh and the memory
 * measurement (tests/stress/guest-memory.sh):
 *
 *   rawc open NAME ADDR PORT      connect and negotiate SMB Direct
 *   rawc stall NAME [requests=N] [interval_ms=I] [hold_ms=H]
 *   rawc half NAME [size=S]
 *   rawc close NAME|all
 *
 * open connects, sends a Negotiate Request and checks the server's
 * Negotiate Response. The server's Send Credits come only from the
 * CreditsGranted of our messages, and a raw client never grants any: the
 * server can never send it a message after the Negotiate Response.
 *
 * stall sends N (default 1) SMB2 NEGOTIATE requests, each a whole Data
 * Transfer message, so the server has responses to send and no credit to
 * send them with; then, every I ms (default 1000), an empty Data Transfer
 * message (a keepalive as far as the server's idle timer is concerned),
 * until the server ends the connection or H ms (default 30000) passed.
 * The result says when the connection ended, counted from the first
 * request ("ended=1 after_ms=T"), or "ended=0".
 *
 * half sends the first fragment of a message of S bytes (default 1 MiB):
 * DataLength as much as fits, RemainingDataLength the rest, which never
 * comes.
 *
 * Locking: commands run with svc_mutex held, which guards svc_rawcs and
 * the lifetime of every client on it. The RDMA CM calls the event handler
 * from its own work items; it only records events (rc->lock) and wakes
 * rc->wq, and never destroys anything (rdma_destroy_id() waits for it).
 * Completions (softirq) record under rc->lock too. A raw client must be
 * closed before its device is removed: the CM's DEVICE_REMOVAL waits for
 * rdma_destroy_id().
 *
 * A client's verbs resources are ../smbd_rawqp.h's: SVC_RAWC_NRECV
 * receive slots, then the send slot.
 */

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <smbdirect/pdu.h>

#include "smbd_rawqp.h"
#include "smbd_test.h"

#define SVC_RAWC_BUF		4096	/* each buffer slot */
#define SVC_RAWC_NRECV		4	/* receive slots, then one send slot */
#define SVC_RAWC_WAIT_MS	10000
#define SVC_RAWC_MAX_REQUESTS	64

/* rc->events bits */
enum {
	SVC_RAWC_ADDR,
	SVC_RAWC_ROUTE,
	SVC_RAWC_EST,
	SVC_RAWC_GONE,		/* disconnected, flushed, or a CM error */
	SVC_RAWC_RESP,		/* the Negotiate Response arrived */
};

struct svc_rawc;

struct svc_rawc_slot {
	struct ib_cqe cqe;
	struct svc_rawc *rc;
	u32 idx;
};

struct svc_rawc {
	struct list_head list;		/* svc_rawcs, under svc_mutex */
	char name[32];
	struct sockaddr_storage addr;
	struct smbd_rawqp q;		/* NRECV receive slots, one send slot */
	struct svc_rawc_slot rslot[SVC_RAWC_NRECV];
	struct ib_cqe send_cqe;
	spinlock_t lock;		/* the fields below */
	wait_queue_head_t wq;
	unsigned long events;
	int cm_error;
	u32 sends_done;
	int send_status;
	u32 received;
	u32 resp_len;
	struct smbdx_negotiate_resp resp;
	u16 credits;			/* send credits the server granted us */
	u32 max_send;			/* its MaxReceiveSize, our fragment size */
	ktime_t gone_at;
};

static LIST_HEAD(svc_rawcs);

static void svc_rawc_event(struct svc_rawc *rc, int bit)
{
	spin_lock_bh(&rc->lock);
	if (!test_and_set_bit(bit, &rc->events) && bit == SVC_RAWC_GONE)
		rc->gone_at = ktime_get();
	spin_unlock_bh(&rc->lock);
	wake_up_all(&rc->wq);
}

static bool svc_rawc_has(struct svc_rawc *rc, int bit)
{
	return test_bit(bit, &rc->events);
}

static int svc_rawc_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct svc_rawc *rc = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		svc_rawc_event(rc, SVC_RAWC_ADDR);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		svc_rawc_event(rc, SVC_RAWC_ROUTE);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		svc_rawc_event(rc, SVC_RAWC_EST);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		svc_rawc_event(rc, SVC_RAWC_GONE);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		spin_lock_bh(&rc->lock);
		rc->cm_error = ev->status ? ev->status : -ECONNREFUSED;
		spin_unlock_bh(&rc->lock);
		svc_rawc_event(rc, SVC_RAWC_GONE);
		break;
	default:
		break;
	}
	return 0;
}

static int svc_rawc_post_recv(struct svc_rawc *rc, u32 idx)
{
	return smbd_rawqp_post_recv(&rc->q, idx, &rc->rslot[idx].cqe);
}

static void svc_rawc_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct svc_rawc_slot *s = container_of(wc->wr_cqe, struct svc_rawc_slot,
					       cqe);
	struct svc_rawc *rc = s->rc;
	void *p = smbd_rawqp_buf(&rc->q, s->idx);
	bool first;

	if (wc->status != IB_WC_SUCCESS) {
		svc_rawc_event(rc, SVC_RAWC_GONE);
		return;
	}
	smbd_rawqp_sync_recv(&rc->q, s->idx);
	spin_lock_bh(&rc->lock);
	first = !rc->received++;
	if (first) {
		rc->resp_len = min_t(u32, wc->byte_len, sizeof(rc->resp));
		memcpy(&rc->resp, p, rc->resp_len);
	}
	spin_unlock_bh(&rc->lock);
	if (first)
		svc_rawc_event(rc, SVC_RAWC_RESP);
	else
		wake_up_all(&rc->wq);
	svc_rawc_post_recv(rc, s->idx);
}

static void svc_rawc_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct svc_rawc *rc = container_of(wc->wr_cqe, struct svc_rawc,
					   send_cqe);

	spin_lock_bh(&rc->lock);
	rc->sends_done++;
	if (wc->status != IB_WC_SUCCESS && !rc->send_status)
		rc->send_status = -EIO;
	spin_unlock_bh(&rc->lock);
	if (wc->status != IB_WC_SUCCESS)
		svc_rawc_event(rc, SVC_RAWC_GONE);
	wake_up_all(&rc->wq);
}

static bool svc_rawc_sent(struct svc_rawc *rc, u32 want)
{
	bool done;

	spin_lock_bh(&rc->lock);
	done = rc->sends_done >= want;
	spin_unlock_bh(&rc->lock);
	return done;
}

/* Send @len bytes of the send slot and wait for the completion. */
static int svc_rawc_send(struct svc_rawc *rc, u32 len)
{
	u32 want;
	int rc2;

	spin_lock_bh(&rc->lock);
	want = rc->sends_done + 1;
	spin_unlock_bh(&rc->lock);
	rc2 = smbd_rawqp_post_send(&rc->q, SVC_RAWC_NRECV, len, &rc->send_cqe);
	if (rc2)
		return rc2;
	if (!wait_event_timeout(rc->wq, svc_rawc_sent(rc, want),
				msecs_to_jiffies(SVC_RAWC_WAIT_MS)))
		return -ETIMEDOUT;
	spin_lock_bh(&rc->lock);
	rc2 = rc->send_status;
	spin_unlock_bh(&rc->lock);
	return rc2;
}

static void *svc_rawc_send_buf(struct svc_rawc *rc)
{
	return smbd_rawqp_buf(&rc->q, SVC_RAWC_NRECV);
}

/*
 * A Data Transfer message in the send slot: @data_len payload bytes (already
 * at SMBDX_DATA_PAYLOAD_OFFSET) of which @remaining more follow; it grants
 * no credit. Uses one of the server's credits; -ENOSPC when none is left.
 */
static int svc_rawc_send_data(struct svc_rawc *rc, u32 data_len, u32 remaining)
{
	struct smbdx_data_transfer *h = svc_rawc_send_buf(rc);

	spin_lock_bh(&rc->lock);
	if (!rc->credits) {
		spin_unlock_bh(&rc->lock);
		return -ENOSPC;
	}
	rc->credits--;
	spin_unlock_bh(&rc->lock);
	memset(h, 0, SMBDX_DATA_PAYLOAD_OFFSET);
	h->credits_requested = cpu_to_le16(255);
	h->credits_granted = 0;
	h->remaining_data_length = cpu_to_le32(remaining);
	h->data_offset = cpu_to_le32(data_len ? SMBDX_DATA_PAYLOAD_OFFSET : 0);
	h->data_length = cpu_to_le32(data_len);
	return svc_rawc_send(rc, data_len ? SMBDX_DATA_PAYLOAD_OFFSET + data_len :
			     SMBDX_DATA_HDR_LEN);
}

static void svc_rawc_free(struct svc_rawc *rc)
{
	smbd_rawqp_drain(&rc->q, true);
	smbd_rawqp_release(&rc->q);
	kfree(rc);
}

static int svc_rawc_wait(struct svc_rawc *rc, int bit)
{
	if (!wait_event_timeout(rc->wq, svc_rawc_has(rc, bit) ||
				svc_rawc_has(rc, SVC_RAWC_GONE),
				msecs_to_jiffies(SVC_RAWC_WAIT_MS)))
		return -ETIMEDOUT;
	if (svc_rawc_has(rc, bit))
		return 0;
	return rc->cm_error ? rc->cm_error : -ECONNRESET;
}

/* Slots, CQ and QP on the resolved device; every receive posted. */
static int svc_rawc_setup(struct svc_rawc *rc)
{
	static const struct smbd_rawqp_caps caps = {
		.slot = SVC_RAWC_BUF,
		.nslots = SVC_RAWC_NRECV + 1,
		.cqe = 2 * SVC_RAWC_NRECV + 4,
		.send_wr = 4,
		.recv_wr = SVC_RAWC_NRECV,
	};
	int err = smbd_rawqp_setup(&rc->q, &caps, rc);
	u32 i;

	if (err)
		return err;
	rc->send_cqe.done = svc_rawc_send_done;
	for (i = 0; i < SVC_RAWC_NRECV; i++) {
		rc->rslot[i].cqe.done = svc_rawc_recv_done;
		rc->rslot[i].rc = rc;
		rc->rslot[i].idx = i;
		err = svc_rawc_post_recv(rc, i);
		if (err)
			return err;
	}
	return 0;
}

/* Connect, negotiate (MS-SMBD 3.1.5.2), check the response. */
static int svc_rawc_connect(struct svc_rawc *rc)
{
	struct rdma_conn_param cp = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 6,
		.rnr_retry_count = 6,
	};
	struct smbdx_negotiate_req *req;
	struct rdma_cm_id *id;
	u32 status;
	int err;

	id = rdma_create_id(&init_net, svc_rawc_handler, rc, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	rc->q.id = id;
	err = rdma_resolve_addr(id, NULL, (struct sockaddr *)&rc->addr,
				SVC_RAWC_WAIT_MS);
	if (!err)
		err = svc_rawc_wait(rc, SVC_RAWC_ADDR);
	if (!err)
		err = rdma_resolve_route(id, SVC_RAWC_WAIT_MS);
	if (!err)
		err = svc_rawc_wait(rc, SVC_RAWC_ROUTE);
	if (!err)
		err = svc_rawc_setup(rc);
	if (!err)
		err = rdma_connect(id, &cp);
	if (!err)
		err = svc_rawc_wait(rc, SVC_RAWC_EST);
	if (err) {
		svc_printf("error: %s: connect to %pISpc: %d\n", rc->name,
			   &rc->addr, err);
		return err;
	}

	req = svc_rawc_send_buf(rc);
	memset(req, 0, sizeof(*req));
	req->min_version = cpu_to_le16(SMBDX_VERSION_1_0);
	req->max_version = cpu_to_le16(SMBDX_VERSION_1_0);
	req->credits_requested = cpu_to_le16(255);
	req->preferred_send_size = cpu_to_le32(SMBDX_DEF_MAX_SEND_SIZE);
	req->max_receive_size = cpu_to_le32(SVC_RAWC_BUF);
	req->max_fragmented_size = cpu_to_le32(SMBDX_PROTO_MIN_FRAG_SIZE);
	err = svc_rawc_send(rc, sizeof(*req));
	if (!err)
		err = svc_rawc_wait(rc, SVC_RAWC_RESP);
	if (err) {
		svc_printf("error: %s: negotiate: %d\n", rc->name, err);
		return err;
	}
	spin_lock_bh(&rc->lock);
	status = le32_to_cpu(rc->resp.status);
	rc->credits = le16_to_cpu(rc->resp.credits_granted);
	rc->max_send = min_t(u32, le32_to_cpu(rc->resp.max_receive_size),
			     SVC_RAWC_BUF);
	err = rc->resp_len < sizeof(rc->resp) || status || !rc->credits ||
	      rc->max_send <= SMBDX_DATA_PAYLOAD_OFFSET ? -EPROTO : 0;
	spin_unlock_bh(&rc->lock);
	if (err)
		svc_printf("error: %s: Negotiate Response of %u bytes, status %#x, %u credits\n",
			   rc->name, rc->resp_len, status, rc->credits);
	return err;
}

static struct svc_rawc *svc_rawc_find(const char *name)
{
	struct svc_rawc *rc;

	list_for_each_entry(rc, &svc_rawcs, list)
		if (!strcmp(rc->name, name))
			return rc;
	return NULL;
}

static int svc_rawc_open(int argc, char **argv)
{
	struct svc_rawc *rc;
	int err;

	if (argc != 3 || strlen(argv[0]) >= sizeof(rc->name)) {
		svc_printf("error: rawc open NAME ADDR PORT\n");
		return -EINVAL;
	}
	if (svc_rawc_find(argv[0])) {
		svc_printf("error: %s exists\n", argv[0]);
		return -EEXIST;
	}
	rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	if (!rc)
		return -ENOMEM;
	strscpy(rc->name, argv[0], sizeof(rc->name));
	spin_lock_init(&rc->lock);
	init_waitqueue_head(&rc->wq);
	err = svc_parse_addr(argv[1], argv[2], &rc->addr);
	if (err) {
		svc_printf("error: cannot parse '%s' '%s'\n", argv[1], argv[2]);
		kfree(rc);
		return err;
	}
	err = svc_rawc_connect(rc);
	if (err) {
		svc_rawc_free(rc);
		return err;
	}
	list_add_tail(&rc->list, &svc_rawcs);
	svc_printf("%s: negotiated with %pISpc, %u send credits\n", rc->name,
		   &rc->addr, rc->credits);
	return 0;
}

static int svc_rawc_opt(const char *arg, const char *key, u32 *v)
{
	size_t n = strlen(key);

	if (strncmp(arg, key, n) || arg[n] != '=')
		return 1;
	return kstrtou32(arg + n + 1, 0, v) ? -EINVAL : 0;
}

/* Parse KEY=N options into @vals (one per @keys entry). */
static int svc_rawc_opts(int argc, char **argv, const char * const *keys,
			 u32 *vals, int nkeys)
{
	int i, k, r;

	for (i = 0; i < argc; i++) {
		for (k = 0, r = 1; k < nkeys && r > 0; k++) {
			r = svc_rawc_opt(argv[i], keys[k], &vals[k]);
			if (!r)
				break;
		}
		if (r) {
			svc_printf("error: cannot parse '%s'\n", argv[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static int svc_rawc_stall(struct svc_rawc *rc, int argc, char **argv)
{
	static const char * const keys[] = { "requests", "interval_ms", "hold_ms" };
	u32 v[] = { 1, 1000, 30000 };
	ktime_t t0, end, gone;
	u32 i, len, keepalives = 0;
	int err;

	if (svc_rawc_opts(argc, argv, keys, v, ARRAY_SIZE(keys)))
		return -EINVAL;
	if (!v[0] || v[0] > SVC_RAWC_MAX_REQUESTS || !v[1]) {
		svc_printf("error: requests=1..%d, interval_ms > 0\n",
			   SVC_RAWC_MAX_REQUESTS);
		return -EINVAL;
	}
	t0 = ktime_get();
	end = ktime_add_ms(t0, v[2]);
	for (i = 0; i < v[0]; i++) {
		len = svc_smb2_negotiate_build(svc_rawc_send_buf(rc) +
					       SMBDX_DATA_PAYLOAD_OFFSET);
		if (SMBDX_DATA_PAYLOAD_OFFSET + len > rc->max_send) {
			svc_printf("error: %s: the server receives only %u bytes\n",
				   rc->name, rc->max_send);
			return -EMSGSIZE;
		}
		err = svc_rawc_send_data(rc, len, 0);
		if (err)
			break;
	}
	while (!svc_rawc_has(rc, SVC_RAWC_GONE) && ktime_before(ktime_get(), end)) {
		wait_event_timeout(rc->wq, svc_rawc_has(rc, SVC_RAWC_GONE),
				   msecs_to_jiffies(v[1]));
		if (svc_rawc_has(rc, SVC_RAWC_GONE) ||
		    !ktime_before(ktime_get(), end))
			break;
		if (svc_rawc_send_data(rc, 0, 0))
			break;
		keepalives++;
	}
	spin_lock_bh(&rc->lock);
	gone = rc->gone_at;
	spin_unlock_bh(&rc->lock);
	if (svc_rawc_has(rc, SVC_RAWC_GONE))
		svc_printf("%s: ended=1 after_ms=%lld requests=%u keepalives=%u received=%u\n",
			   rc->name, ktime_ms_delta(gone, t0), v[0], keepalives,
			   rc->received);
	else
		svc_printf("%s: ended=0 after_ms=%lld requests=%u keepalives=%u received=%u\n",
			   rc->name, ktime_ms_delta(ktime_get(), t0), v[0],
			   keepalives, rc->received);
	return 0;
}

static int svc_rawc_half(struct svc_rawc *rc, int argc, char **argv)
{
	static const char * const keys[] = { "size" };
	u32 v[] = { 1048576 };
	u32 first;
	int err;

	if (svc_rawc_opts(argc, argv, keys, v, ARRAY_SIZE(keys)))
		return -EINVAL;
	first = rc->max_send - SMBDX_DATA_PAYLOAD_OFFSET;
	if (v[0] <= first) {
		svc_printf("error: size must be above %u\n", first);
		return -EINVAL;
	}
	memset(svc_rawc_send_buf(rc) + SMBDX_DATA_PAYLOAD_OFFSET, 0x5a, first);
	err = svc_rawc_send_data(rc, first, v[0] - first);
	if (!err)
		svc_printf("%s: sent %u of %u bytes\n", rc->name, first, v[0]);
	return err;
}

static int svc_rawc_close(int argc, char **argv)
{
	struct svc_rawc *rc, *tmp;
	bool all = argc == 1 && !strcmp(argv[0], "all");
	int n = 0;

	if (argc != 1)
		return -EINVAL;
	list_for_each_entry_safe(rc, tmp, &svc_rawcs, list) {
		if (!all && strcmp(rc->name, argv[0]))
			continue;
		list_del(&rc->list);
		svc_rawc_free(rc);
		n++;
	}
	if (!all && !n)
		return -ENOENT;
	svc_printf("closed %d\n", n);
	return 0;
}

/**
 * svc_rawc_command() - rawc open|stall|half|close ...
 * @argc: number of arguments after "rawc"
 * @argv: the arguments
 *
 * Context: process context, with svc_mutex held; stall sleeps up to its
 * hold_ms.
 * Return: 0, or a negative errno (and an error line in the result).
 */
int svc_rawc_command(int argc, char **argv)
{
	struct svc_rawc *rc;

	if (argc < 2)
		return -EINVAL;
	if (!strcmp(argv[0], "open"))
		return svc_rawc_open(argc - 1, argv + 1);
	if (!strcmp(argv[0], "close"))
		return svc_rawc_close(argc - 1, argv + 1);
	rc = svc_rawc_find(argv[1]);
	if (!rc) {
		svc_printf("error: no raw client %s\n", argv[1]);
		return -ENOENT;
	}
	if (!strcmp(argv[0], "stall"))
		return svc_rawc_stall(rc, argc - 2, argv + 2);
	if (!strcmp(argv[0], "half"))
		return svc_rawc_half(rc, argc - 2, argv + 2);
	return -EINVAL;
}

/**
 * svc_rawc_show() - the raw clients' lines of the status file
 * @m: the status file
 *
 * Context: process context, with svc_mutex held.
 */
void svc_rawc_show(struct seq_file *m)
{
	struct svc_rawc *rc;

	list_for_each_entry(rc, &svc_rawcs, list)
		seq_printf(m, "rawc %s peer=%pISpc credits=%u received=%u gone=%d\n",
			   rc->name, &rc->addr, rc->credits, rc->received,
			   svc_rawc_has(rc, SVC_RAWC_GONE));
}

/**
 * svc_rawc_stop_all() - close every raw client
 *
 * Context: process context; takes svc_mutex.
 */
void svc_rawc_stop_all(void)
{
	struct svc_rawc *rc, *tmp;

	mutex_lock(&svc_mutex);
	list_for_each_entry_safe(rc, tmp, &svc_rawcs, list) {
		list_del(&rc->list);
		svc_rawc_free(rc);
	}
	mutex_unlock(&svc_mutex);
}
