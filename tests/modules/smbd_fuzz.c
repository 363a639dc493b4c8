// SPDX-License-Identifier: GPL-2.0
/*
 * smbd_fuzz.ko: a seeded, reproducible fuzzer of smbdirect's receive side
 * (issue 15, item 3). A raw verbs peer (rdma_cm and ib verbs directly, not
 * smbdirect's API) sends mutated Negotiate and Data Transfer messages
 * ([MS-SMBD] 2.2) to an smbdirect endpoint that this module owns through
 * smbdirect's API, and checks how each connection ends.
 *
 *   /sys/kernel/debug/smbd_fuzz/control  write one command
 *   /sys/kernel/debug/smbd_fuzz/result   its output
 *
 *   run ADDR PORT role=passive|active msgs=N seed=S [first=K] [conns=N]
 *       [dense=1]
 *
 * role=passive: smbdirect listens on ADDR:PORT (smbdx_listen()) and the
 * raw peer connects and sends a Negotiate Request. role=active: the raw
 * peer listens on ADDR:PORT and smbdirect connects to it (smbdx_connect());
 * the raw peer answers the Negotiate Request with a Negotiate Response.
 * Then, on a connection that negotiated, the raw peer sends Data Transfer
 * messages. Connection K of a run (counted from 0) draws every choice from
 * a PRNG seeded with S and K only, so "seed=S first=K conns=1" replays it
 * alone. The run stops at the first failure, or when N messages were sent.
 *
 * Each message is built valid, then, with some probability, mutated: bit
 * flips, a field set to a boundary value (credits 0/1/65535, lengths and
 * offsets 0, at, just past and far past their limits, misaligned
 * DataOffset, RemainingDataLength inconsistent with the fragments,
 * versions, Status), truncation, padding up to or beyond smbdirect's
 * receive buffer, payload moved to another DataOffset. With dense=1 every
 * Data Transfer message is mutated, and one the model predicts fatal is
 * drawn again (up to FZ_DENSE_TRIES draws) unless it is the connection's
 * last: a connection then carries up to 200 mutated messages instead of
 * ending at the first fatal one, so a run mutates far more messages for
 * the same number of connections. The fuzzer then
 * reads the fields back from the bytes it sends and classifies the message
 * with its own model of the receive rules of [MS-SMBD] 3.1.5.6 - 3.1.5.8
 * as smbdirect documents them (Documentation/protocol-engine.rst,
 * smbdirect/frag.c: an empty message may come between fragments; a
 * fragment's RemainingDataLength must be the remaining count minus its
 * DataLength): accepted, or fatal with the verdict that must end the
 * connection. A message longer than smbdirect's receive buffer must end it
 * with a receive completion error.
 *
 * Checks, each a failure of the run:
 *  - accepted negotiate messages lead to a connection (the accept callback,
 *    or smbdx_connect() returning it) and a valid Negotiate Response
 *    (passive role); a refused version gets STATUS_NOT_SUPPORTED;
 *  - a fatal message ends the connection: the raw peer sees it go
 *    (DISCONNECTED or its QP flushed), and, on a connection smbdirect
 *    handed to us, the owner is told (-EPROTO for a protocol verdict) and
 *    smbdx_conn_show() names the predicted cause;
 *  - every whole message that the model says smbdirect accepted is
 *    delivered to the recv callback with the same length and CRC, in
 *    order, before the loss is reported;
 *  - what smbdirect sends the raw peer is a valid Data Transfer message
 *    and never uses more credits than the raw peer granted;
 *  - a connection ends promptly: the raw peer sees it gone within FZ_END_MS
 *    of a fatal message or a disconnect (the result's end_max_ms);
 *  - nothing hangs (every wait is bounded: FZ_WAIT_MS, FZ_GONE_MS for the
 *    end of a connection).
 * The result counts the connections to end by each cause ("cause NAME N");
 * tests/vm/smbd_fuzz.sh compares them with the change of smbdirect's
 * debugfs error counters over the run (negotiation failures included) and
 * checks that every connection was freed (connections_allocated 0).
 * Connections that the raw peer ends without a fatal message end by a
 * disconnect of either side: cause peer_disconnect for the raw peer's,
 * none for ours (smbdx_disconnect()).
 *
 * The result says how many messages, connections, accepted and fatal
 * messages, and the expected count by cause; on a failure it names the
 * seed, the connection and the message to replay.
 *
 * Locking: fz_mutex serialises commands and owns everything of a run. The
 * raw peer's CM handler (process context, RDMA CM work) and its
 * completions (softirq) share the per-endpoint counters under raw->lock
 * (spin_lock_bh) and wake raw->wq. smbdirect's callbacks (its workqueue)
 * touch their connection's case state (struct fz_case, one per connection,
 * the connection's context) under fz_case.lock and wake fz_case.wq; the
 * accept callback finds the current case under fz_run.lis_lock. A finished
 * connection, its raw peer and its case state go to the reaper (fz_wq),
 * which calls smbdx_destroy() (it waits for the callbacks) before it frees
 * the case state; module exit flushes fz_wq.
 */

#include <linux/module.h>
#include <linux/crc32.h>
#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/ktime.h>
#include <linux/prandom.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/unaligned.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <smbdirect/smbdirect.h>

#include "smbd_rawqp.h"

#define FZ_BUF		4096	/* each receive and send buffer */
#define FZ_NRECV	16	/* receives the raw peer keeps posted */
#define FZ_NSEND	8	/* sends in flight */
#define FZ_RESP_SLOT	FZ_NSEND	/* send buffer of the Negotiate Response */
#define FZ_NBUF		(FZ_NRECV + FZ_NSEND + 1)
#define FZ_WAIT_MS	10000
/* dense=1: draws of a data message before a fatal one is sent anyway */
#define FZ_DENSE_TRIES	16
/*
 * Waits for the end of a connection: rxe now and then loses a Disconnect
 * Request and the IB CM resends it seconds later (Documentation/testing.rst).
 */
#define FZ_GONE_MS	60000
/*
 * How soon the raw peer must see a connection end after a fatal message
 * or a disconnect: a lost Disconnect Request costs the IB CM one resend
 * (about 4 s), but a minute (a REP left retransmitting, whose cm_id
 * holds the end back, issue 34) is a defect; more fails the run.
 */
#define FZ_END_MS	15000
/*
 * RDMA connections that may fail to come up in a run (the peer never got
 * as far as a negotiate message), each retried with the same seed: when
 * the emulated machine stalls for seconds, the CM's own timers expire.
 */
#define FZ_SETUP_RETRIES	10
#define FZ_EXPECT_MAX	64	/* whole messages on their way to the recv callback */
#define FZ_STATS_BUF	8192
#define FZ_RESULT_MAX	16384
#define FZ_STATUS_NOT_SUPPORTED	0xC00000BB

/* Outcome the model predicts for a message: accepted, or a fatal cause. */
enum fz_outcome {
	FZ_ACCEPT = 0,
	/* SMBDX_ERR_* of <smbdirect/pdu_verdicts.h> in between */
	FZ_RECV_ERROR = SMBDX_VERDICT_COUNT,	/* longer than the receive buffer */
	FZ_PUSH_UNNEGOTIATED,	/* the push-mode Flags bit, never negotiated here */
	FZ_OUTCOMES
};

/* The verdicts' names, which smbdirect's debugfs counts causes by. */
static const struct fz_verdict {
	enum smbdx_verdict v;
	const char *name;
	const char *rule;
} fz_verdicts[] = {
#define SMBDX_VERDICT(id, ...) { SMBDX_ERR_##id, __VA_ARGS__ },
#include <smbdirect/pdu_verdicts.h>
#undef SMBDX_VERDICT
};

/* smbdirect's debugfs name of the cause an outcome must be counted as */
static const char *fz_cause_name(int o)
{
	u32 i;

	if (o == FZ_RECV_ERROR)
		return "recv_completion_error";
	if (o == FZ_PUSH_UNNEGOTIATED)
		return "push_unnegotiated";
	for (i = 0; i < ARRAY_SIZE(fz_verdicts); i++)
		if (fz_verdicts[i].v == o)
			return fz_verdicts[i].name;
	return "none";
}

/* One raw verbs endpoint: a connecting peer, a listener or its child. */
struct fz_raw {
	/* FZ_NBUF slots (smbd_rawqp.h): FZ_NRECV receive, then send buffers */
	struct smbd_rawqp q;
	bool connected;
	struct fz_rcqe {
		struct ib_cqe cqe;
		struct fz_raw *raw;
		u32 i;
	} rcqe[FZ_NRECV];
	struct ib_cqe send_cqe;
	struct fz_raw *child;		/* a listener: its one connection */
	/* Active role: the Negotiate Response to send (set before connect). */
	bool respond;
	u8 *resp;
	u32 resp_len;
	spinlock_t lock;		/* protects everything below */
	wait_queue_head_t wq;
	unsigned long events;		/* bit per RDMA CM event seen */
	int cm_bad;			/* first CM error event, or -1 */
	u32 sends_out;			/* posted, not completed */
	u32 send_errs;			/* unsuccessful, not flushed */
	u32 recv_errs;
	bool first_seen;		/* the first (negotiate) message */
	u8 first[64];
	u32 first_len;
	u32 rx_data;			/* Data Transfer messages received */
	u64 rx_granted;			/* their CreditsGranted */
	u32 rx_bad;			/* invalid ones */
	u32 rx_payload;			/* ones with a payload (we send none) */
	u32 rx_rr;			/* ones with RESPONSE_REQUESTED */
};

/* What smbdirect's callbacks and the command share for one case. */
struct fz_case {
	spinlock_t lock;		/* protects all below */
	wait_queue_head_t wq;
	struct smbdx_conn *conn;	/* accepted (passive role) */
	int error;			/* the disconnected callback's */
	bool lost;
	u32 exp_len[FZ_EXPECT_MAX];
	u32 exp_crc[FZ_EXPECT_MAX];
	u32 exp_head, exp_tail;		/* ring of expected messages */
	u32 delivered;
	u32 mismatched;
	u32 bad_len, bad_want;		/* the first mismatch's lengths */
	u32 unexpected;
	u8 *rxbuf;			/* copy of a delivered message */
	u32 rxbuf_len;
};

struct fz_data;

/* The state of one run. */
struct fz_run {
	struct sockaddr_in sin;
	bool active;
	u64 seed;
	u64 msgs_max;
	u32 first, conns_max;
	struct smbdx_conn_config cfg;
	u32 rio;			/* smbdirect's receive buffer size */
	struct smbdx_listener *lis;	/* passive role */
	struct fz_raw *rlis;		/* active role: the raw listener */
	struct fz_case *cs;		/* the current case's, or NULL */
	spinlock_t lis_lock;		/* protects cs for the accept callback */
	struct fz_data *d;		/* the connection of the current case */
	struct rnd_state rnd;
	char *statbuf;			/* smbdx_conn_show()'s output */
	/* figures */
	u64 msgs, neg_msgs, data_msgs, accepted, fatal, delivered;
	u32 conns, conn_idx, msg_idx;
	u64 expect[FZ_OUTCOMES];
	u64 mutated, ovf_exact, peer_disconnects;
	u32 setup_failures;		/* RDMA connections that did not come up */
	s64 end_max_ms;			/* longest fz_wait_end() */
	bool dense;			/* every data message mutated, fatal last */
	u32 redrawn;			/* dense: fatal draws replaced */
	bool retry;			/* run the case again */
	bool failed;
	char *res;
	size_t res_len;
};

static DEFINE_MUTEX(fz_mutex);
static char *fz_result;			/* under fz_mutex */
static struct dentry *fz_dir;

static void fz_printf(struct fz_run *r, const char *fmt, ...) __printf(2, 3);
static void fz_printf(struct fz_run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->res_len >= FZ_RESULT_MAX - 1)
		return;
	va_start(ap, fmt);
	r->res_len += vscnprintf(r->res + r->res_len, FZ_RESULT_MAX - r->res_len,
				 fmt, ap);
	va_end(ap);
}

static void fz_dump(struct fz_run *r);

/* Record the run's first failure with what replays it; always false. */
static bool fz_fail(struct fz_run *r, const char *fmt, ...) __printf(2, 3);
static bool fz_fail(struct fz_run *r, const char *fmt, ...)
{
	struct va_format vaf;
	va_list ap;

	if (r->failed)
		return false;
	r->failed = true;
	va_start(ap, fmt);
	vaf.fmt = fmt;
	vaf.va = &ap;
	fz_printf(r, "FAIL seed=%llu conn=%u msg=%u: %pV\n", r->seed,
		  r->conn_idx, r->msg_idx, &vaf);
	pr_err("smbd_fuzz: FAIL seed=%llu conn=%u msg=%u: %pV\n", r->seed,
	       r->conn_idx, r->msg_idx, &vaf);
	va_end(ap);
	fz_printf(r, "replay: run %pI4 %u role=%s seed=%llu first=%u conns=1%s\n",
		  &r->sin.sin_addr, ntohs(r->sin.sin_port),
		  r->active ? "active" : "passive", r->seed, r->conn_idx,
		  r->dense ? " dense=1" : "");
	fz_dump(r);
	return false;
}

static u32 fz_rand(struct fz_run *r, u32 n)
{
	return n ? prandom_u32_state(&r->rnd) % n : 0;
}

/* True with probability @pct percent. */
static bool fz_pct(struct fz_run *r, u32 pct)
{
	return fz_rand(r, 100) < pct;
}

/* -------- the cause smbdirect gave a connection it handed us -------- */

/*
 * The cause in smbdx_conn_show()'s first line ("conn N ... cause=NAME"),
 * printed into a seq_file of our own buffer (the function only appends).
 */
static bool fz_conn_cause(struct fz_run *r, struct smbdx_conn *conn,
			  const char *want)
{
	struct seq_file m = { .buf = r->statbuf, .size = FZ_STATS_BUF };
	char *p, *e;

	smbdx_conn_show(conn, &m);
	if (m.count >= m.size)
		return fz_fail(r, "smbdx_conn_show() output too long");
	r->statbuf[m.count] = '\0';
	e = strchr(r->statbuf, '\n');
	if (e)
		*e = '\0';
	p = strstr(r->statbuf, " cause=");
	if (!p)
		return fz_fail(r, "no cause in \"%s\"", r->statbuf);
	p += 7;
	e = strchr(p, ' ');
	if (e)
		*e = '\0';
	if (strcmp(p, want))
		return fz_fail(r, "connection ended with cause %s, expected %s",
			       p, want);
	return true;
}

/*
 * The RDMA connection did not come up, before any negotiate message: not
 * an outcome of the fuzzing. Forget the case's message and run it again.
 */
static bool fz_setup_failed(struct fz_run *r, int o, int rc)
{
	r->msgs--;
	r->neg_msgs--;
	r->expect[o]--;
	if (++r->setup_failures > FZ_SETUP_RETRIES)
		return fz_fail(r, "%u RDMA connections did not come up (last: %d)",
			       r->setup_failures, rc);
	r->retry = true;
	return true;
}

/* Count the cause smbdirect's debugfs must show for the ended connection. */
static bool fz_check_end(struct fz_run *r, const char *cause)
{
	if (cause && !strcmp(cause, "peer_disconnect"))
		r->peer_disconnects++;
	return true;
}

/* -------- the raw peer -------- */

static int fz_post_recv(struct fz_raw *raw, u32 i)
{
	return smbd_rawqp_post_recv(&raw->q, i, &raw->rcqe[i].cqe);
}

/* The send buffer @slot (the slot after the receive buffers). */
static u8 *fz_send_buf(struct fz_raw *raw, u32 slot)
{
	return smbd_rawqp_buf(&raw->q, FZ_NRECV + slot);
}

static int fz_post_send(struct fz_raw *raw, u32 slot, u32 len)
{
	int rc;

	spin_lock_bh(&raw->lock);
	raw->sends_out++;
	spin_unlock_bh(&raw->lock);
	rc = smbd_rawqp_post_send(&raw->q, FZ_NRECV + slot, len, &raw->send_cqe);
	if (rc) {
		spin_lock_bh(&raw->lock);
		raw->sends_out--;
		spin_unlock_bh(&raw->lock);
	}
	return rc;
}

static void fz_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct fz_raw *raw = cq->cq_context;

	spin_lock(&raw->lock);
	raw->sends_out--;
	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		raw->send_errs++;
	spin_unlock(&raw->lock);
	wake_up_all(&raw->wq);
}

/* A message smbdirect sent after negotiation: check and count it. */
static void fz_rx_data(struct fz_raw *raw, const u8 *b, u32 len)
{
	u32 off, dl;
	u16 flags;

	if (len < SMBDX_DATA_HDR_LEN || !get_unaligned_le16(b)) {
		raw->rx_bad++;
		return;
	}
	raw->rx_data++;
	raw->rx_granted += get_unaligned_le16(b + 2);
	flags = get_unaligned_le16(b + 4);
	off = get_unaligned_le32(b + 12);
	dl = get_unaligned_le32(b + 16);
	if (flags & ~SMBDX_FLAG_RESPONSE_REQUESTED || !IS_ALIGNED(off, 8) ||
	    (u64)off + dl > len || (dl && off < SMBDX_DATA_HDR_LEN))
		raw->rx_bad++;
	if (flags & SMBDX_FLAG_RESPONSE_REQUESTED)
		raw->rx_rr++;
	if (dl)
		raw->rx_payload++;
}

/* A message from smbdirect: record or check it, post the receive again. */
static void fz_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct fz_rcqe *rc = container_of(wc->wr_cqe, struct fz_rcqe, cqe);
	struct fz_raw *raw = rc->raw;
	u32 i = rc->i;
	bool respond = false;
	const u8 *b;

	if (wc->status != IB_WC_SUCCESS) {
		spin_lock(&raw->lock);
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			raw->recv_errs++;
		spin_unlock(&raw->lock);
		wake_up_all(&raw->wq);
		return;
	}
	smbd_rawqp_sync_recv(&raw->q, i);
	b = smbd_rawqp_buf(&raw->q, i);
	spin_lock(&raw->lock);
	if (!raw->first_seen) {
		raw->first_seen = true;
		raw->first_len = wc->byte_len;
		memcpy(raw->first, b, min_t(u32, wc->byte_len, sizeof(raw->first)));
		respond = raw->respond;
	} else {
		fz_rx_data(raw, b, wc->byte_len);
	}
	spin_unlock(&raw->lock);
	/* Active role: answer the Negotiate Request at once (3.1.5.3). */
	if (respond)
		fz_post_send(raw, FZ_RESP_SLOT, raw->resp_len);
	fz_post_recv(raw, i);
	wake_up_all(&raw->wq);
}

static void fz_raw_release(struct fz_raw *raw)
{
	if (!raw)
		return;
	if (raw->connected)
		smbd_rawqp_drain(&raw->q, true);
	smbd_rawqp_release(&raw->q);
	kfree(raw->resp);
	kfree(raw);
}

static struct fz_raw *fz_raw_alloc(void)
{
	struct fz_raw *raw = kzalloc(sizeof(*raw), GFP_KERNEL);

	if (!raw)
		return NULL;
	spin_lock_init(&raw->lock);
	init_waitqueue_head(&raw->wq);
	raw->cm_bad = -1;
	return raw;
}

/* Slots, CQ and QP on raw->q.id's device, every receive posted. */
static int fz_raw_setup(struct fz_raw *raw)
{
	/* Room in the CQ for every receive and send, and the drain's two. */
	static const struct smbd_rawqp_caps caps = {
		.slot = FZ_BUF,
		.nslots = FZ_NBUF,
		.cqe = FZ_NRECV + FZ_NSEND + 4,
		.send_wr = FZ_NSEND + 2,
		.recv_wr = FZ_NRECV + 1,
	};
	u32 i;
	int rc;

	rc = smbd_rawqp_setup(&raw->q, &caps, raw);
	if (rc)
		return rc;
	raw->send_cqe.done = fz_send_done;
	if (raw->respond)
		memcpy(fz_send_buf(raw, FZ_RESP_SLOT), raw->resp, raw->resp_len);
	for (i = 0; i < FZ_NRECV; i++) {
		raw->rcqe[i].cqe.done = fz_recv_done;
		raw->rcqe[i].raw = raw;
		raw->rcqe[i].i = i;
		rc = fz_post_recv(raw, i);
		if (rc)
			return rc;
	}
	return 0;
}

/* A raw listener's connect request: set up its child and accept. */
static int fz_raw_accept(struct fz_raw *lis, struct rdma_cm_id *id)
{
	struct rdma_conn_param cp = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.rnr_retry_count = 7,
	};
	struct fz_raw *c;
	int rc;

	spin_lock_bh(&lis->lock);
	c = lis->child;
	if (c && c->q.id)
		c = NULL;
	if (c)
		c->q.id = id;
	spin_unlock_bh(&lis->lock);
	if (!c)
		return -ECONNREFUSED;
	id->context = c;
	rc = fz_raw_setup(c);
	if (!rc)
		rc = rdma_accept(id, &cp);
	if (rc) {
		/* The CM destroys @id when we return non-zero. */
		if (c->q.qp)
			rdma_destroy_qp(id);
		c->q.qp = false;
		spin_lock_bh(&c->lock);
		c->cm_bad = RDMA_CM_EVENT_REJECTED;
		spin_unlock_bh(&c->lock);
		c->q.id = NULL;
		wake_up_all(&c->wq);
		return rc;
	}
	c->connected = true;
	return 0;
}

static int fz_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct fz_raw *raw = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return fz_raw_accept(raw, id);
	/*
	 * Answer the peer's disconnect at once (the DREP on IB/RoCE), as any
	 * RDMA CM user should: until then smbdirect's teardown waits in
	 * rdma_destroy_id() for the DREQ to time out (about a minute on rxe).
	 */
	if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
		rdma_disconnect(id);
	spin_lock_bh(&raw->lock);
	if (ev->event < BITS_PER_LONG)
		__set_bit(ev->event, &raw->events);
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (raw->cm_bad < 0)
			raw->cm_bad = ev->event;
		break;
	default:
		break;
	}
	spin_unlock_bh(&raw->lock);
	wake_up_all(&raw->wq);
	return 0;
}

static bool fz_raw_event(struct fz_raw *raw, int ev)
{
	bool done;

	spin_lock_bh(&raw->lock);
	done = test_bit(ev, &raw->events) || raw->cm_bad >= 0;
	spin_unlock_bh(&raw->lock);
	return done;
}

static bool fz_raw_established(struct fz_raw *raw)
{
	bool v;

	spin_lock_bh(&raw->lock);
	v = test_bit(RDMA_CM_EVENT_ESTABLISHED, &raw->events);
	spin_unlock_bh(&raw->lock);
	return v;
}

/* Wait for CM event @ev; 0, or -ETIMEDOUT / -ECONNABORTED on an error. */
static int fz_raw_wait(struct fz_raw *raw, int ev)
{
	if (!wait_event_timeout(raw->wq, fz_raw_event(raw, ev),
				msecs_to_jiffies(FZ_WAIT_MS)))
		return -ETIMEDOUT;
	return test_bit(ev, &raw->events) ? 0 : -ECONNABORTED;
}

/* Passive role: connect a raw peer to smbdirect's listener. */
static int fz_raw_connect(struct fz_run *r, struct fz_raw **rawp)
{
	struct rdma_conn_param cp = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 6,
		.rnr_retry_count = 7,
	};
	struct rdma_cm_id *id;
	struct fz_raw *raw;
	int rc;

	*rawp = NULL;
	raw = fz_raw_alloc();
	if (!raw)
		return -ENOMEM;
	id = rdma_create_id(&init_net, fz_cm_handler, raw, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		rc = PTR_ERR(id);
		goto out;
	}
	raw->q.id = id;
	rc = rdma_resolve_addr(id, NULL, (struct sockaddr *)&r->sin,
			       FZ_WAIT_MS);
	if (!rc)
		rc = fz_raw_wait(raw, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (!rc)
		rc = rdma_resolve_route(id, FZ_WAIT_MS);
	if (!rc)
		rc = fz_raw_wait(raw, RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (!rc)
		rc = fz_raw_setup(raw);
	if (!rc)
		rc = rdma_connect(id, &cp);
	if (!rc)
		rc = fz_raw_wait(raw, RDMA_CM_EVENT_ESTABLISHED);
	if (!rc) {
		raw->connected = true;
		*rawp = raw;
		return 0;
	}
out:
	fz_raw_release(raw);
	return rc;
}

/* Active role: the raw listener on the run's address. */
static int fz_raw_listen(struct fz_run *r)
{
	struct fz_raw *raw = fz_raw_alloc();
	struct rdma_cm_id *id;
	int rc;

	if (!raw)
		return -ENOMEM;
	id = rdma_create_id(&init_net, fz_cm_handler, raw, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		fz_raw_release(raw);
		return PTR_ERR(id);
	}
	raw->q.id = id;
	rc = rdma_bind_addr(id, (struct sockaddr *)&r->sin);
	if (!rc)
		rc = rdma_listen(id, 4);
	if (rc) {
		fz_raw_release(raw);
		return rc;
	}
	r->rlis = raw;
	return 0;
}

/* Post one message of @len bytes from send slot @slot; wait for a slot. */
static int fz_send(struct fz_raw *raw, u32 slot, u32 len)
{
	if (!wait_event_timeout(raw->wq, READ_ONCE(raw->sends_out) < FZ_NSEND,
				msecs_to_jiffies(FZ_WAIT_MS)))
		return -ETIMEDOUT;
	return fz_post_send(raw, slot, len);
}

/* The raw peer's connection is gone: DISCONNECTED, or its QP failed. */
static bool fz_raw_gone(struct fz_raw *raw)
{
	bool gone;

	spin_lock_bh(&raw->lock);
	gone = test_bit(RDMA_CM_EVENT_DISCONNECTED, &raw->events) ||
	       raw->cm_bad >= 0 || raw->send_errs || raw->recv_errs;
	spin_unlock_bh(&raw->lock);
	return gone;
}

/*
 * Wait for the raw peer to see its connection end, at most FZ_GONE_MS;
 * false if it did not. Counts how long it took since @since in
 * end_max_ms, which fz_run_all() holds to FZ_END_MS.
 */
static bool fz_wait_end(struct fz_run *r, struct fz_raw *raw, ktime_t since)
{
	s64 ms;

	if (!wait_event_timeout(raw->wq, fz_raw_gone(raw),
				msecs_to_jiffies(FZ_GONE_MS)))
		return false;
	ms = ktime_ms_delta(ktime_get(), since);
	if (ms > r->end_max_ms)
		r->end_max_ms = ms;
	return true;
}

/* -------- smbdirect's side (our API) -------- */

static void fz_conn_recv(struct smbdx_conn *conn, struct smbdx_msg *msg)
{
	struct fz_case *cs = smbdx_conn_context(conn);
	u32 len = smbdx_msg_len(msg), crc = 0;
	struct iov_iter it;
	struct kvec kv;
	bool ok = false;

	if (cs && len <= cs->rxbuf_len) {
		kv.iov_base = cs->rxbuf;
		kv.iov_len = len;
		iov_iter_kvec(&it, ITER_DEST, &kv, 1, len);
		if (smbdx_msg_copy(msg, 0, &it) == len) {
			crc = crc32_le(~0, cs->rxbuf, len);
			ok = true;
		}
	}
	smbdx_msg_free(msg);
	if (!cs)
		return;
	spin_lock_bh(&cs->lock);
	if (cs->exp_head == cs->exp_tail) {
		cs->unexpected++;
	} else {
		u32 i = cs->exp_head++ % FZ_EXPECT_MAX;

		if (!ok || cs->exp_len[i] != len || cs->exp_crc[i] != crc) {
			if (!cs->mismatched++) {
				cs->bad_len = len;
				cs->bad_want = cs->exp_len[i];
			}
		}
		cs->delivered++;
	}
	spin_unlock_bh(&cs->lock);
	wake_up_all(&cs->wq);
}

static void fz_conn_disconnected(struct smbdx_conn *conn, int error)
{
	struct fz_case *cs = smbdx_conn_context(conn);

	if (!cs)
		return;
	spin_lock_bh(&cs->lock);
	cs->lost = true;
	cs->error = error;
	spin_unlock_bh(&cs->lock);
	wake_up_all(&cs->wq);
}

static const struct smbdx_conn_ops fz_conn_ops = {
	.recv = fz_conn_recv,
	.disconnected = fz_conn_disconnected,
};

static int fz_accept(struct smbdx_listener *lis, struct smbdx_conn *conn)
{
	struct fz_run *r = smbdx_listener_context(lis);
	struct fz_case *cs;
	int rc = -EBUSY;

	spin_lock_bh(&r->lis_lock);
	cs = r->cs;
	if (cs) {
		spin_lock(&cs->lock);
		if (!cs->conn) {
			cs->conn = conn;
			rc = 0;
		}
		spin_unlock(&cs->lock);
	}
	spin_unlock_bh(&r->lis_lock);
	if (rc)
		return rc;
	smbdx_conn_set_context(conn, cs);
	wake_up_all(&cs->wq);
	return 0;
}

static const struct smbdx_listener_ops fz_listener_ops = {
	.accept = fz_accept,
	.conn_ops = &fz_conn_ops,
};

static bool fz_case_cond(struct fz_case *cs, bool (*cond)(struct fz_case *))
{
	bool v;

	spin_lock_bh(&cs->lock);
	v = cond(cs);
	spin_unlock_bh(&cs->lock);
	return v;
}

static bool fz_have_conn(struct fz_case *cs)
{
	return cs->conn;
}

static bool fz_lost(struct fz_case *cs)
{
	return cs->lost;
}

static bool fz_all_delivered(struct fz_case *cs)
{
	return cs->exp_head == cs->exp_tail;
}

static bool fz_room(struct fz_case *cs)
{
	return cs->exp_tail - cs->exp_head < FZ_EXPECT_MAX;
}

static bool fz_case_wait(struct fz_case *cs, bool (*cond)(struct fz_case *))
{
	return wait_event_timeout(cs->wq, fz_case_cond(cs, cond),
				  msecs_to_jiffies(FZ_WAIT_MS));
}

/* -------- the messages and the model -------- */

/* Data Transfer header fields as read back from the bytes sent. */
struct fz_hdr {
	u16 cr, cg, flags;
	u32 rem, off, dl;
};

/* A connection in the data phase. */
struct fz_data {
	struct fz_raw *raw;
	struct smbdx_conn *conn;
	u32 max_len;		/* longest message sent unmutated */
	u32 max_pay;		/* payload of a full fragment */
	u32 max_frag;		/* smbdirect's MaxFragmentedRecvSize */
	u32 held_base;		/* credits the Negotiate Response granted us */
	u64 tx_granted;		/* credits we granted smbdirect */
	u32 tx_data;		/* Data Transfer messages sent */
	u32 tx;			/* messages sent (send slots) */
	u16 cr_max;		/* largest CreditsRequested smbdirect accepted */
	bool reasm;		/* a fragmented message is half sent */
	u32 remaining;		/* its bytes still to come */
	u32 total;
	u32 crc;
	bool inexact;		/* a keepalive request went out */
};

static void fz_raw_counts(struct fz_raw *raw, u64 *granted, u32 *rx,
			  u32 *bad)
{
	spin_lock_bh(&raw->lock);
	*granted = raw->rx_granted;
	*rx = raw->rx_data;
	*bad = raw->rx_bad + raw->rx_payload;
	spin_unlock_bh(&raw->lock);
}

/* What both ends knew when the run failed, for the result. */
static void fz_dump(struct fz_run *r)
{
	struct seq_file m = { .buf = r->statbuf, .size = FZ_STATS_BUF };
	struct fz_data *d = r->d;
	struct fz_raw *raw = d ? d->raw : NULL;

	if (raw) {
		spin_lock_bh(&raw->lock);
		fz_printf(r, "raw: tx_data=%u tx_granted=%llu held_base=%u",
			  d->tx_data, d->tx_granted, d->held_base);
		fz_printf(r, " rx_data=%u rx_granted=%llu sends_out=%u",
			  raw->rx_data, raw->rx_granted, raw->sends_out);
		fz_printf(r, " send_errs=%u recv_errs=%u events=%#lx\n",
			  raw->send_errs, raw->recv_errs, raw->events);
		spin_unlock_bh(&raw->lock);
	}
	if (r->cs) {
		spin_lock_bh(&r->cs->lock);
		fz_printf(r, "expected: %u delivered of %u, %u differ, %u unexpected\n",
			  r->cs->exp_head, r->cs->exp_tail, r->cs->mismatched,
			  r->cs->unexpected);
		spin_unlock_bh(&r->cs->lock);
	}
	if (d && d->conn) {
		smbdx_conn_show(d->conn, &m);
		if (m.count < m.size) {
			r->statbuf[m.count] = '\0';
			fz_printf(r, "%s", r->statbuf);
		}
	}
}

/* Credits we hold: granted by smbdirect, not used. */
static s64 fz_held(struct fz_data *d)
{
	u64 g;
	u32 rx, bad;

	fz_raw_counts(d->raw, &g, &rx, &bad);
	return (s64)d->held_base + g - d->tx_data;
}

static bool fz_can_send(struct fz_data *d)
{
	return fz_held(d) > 0 || fz_raw_gone(d->raw);
}

/* smbdirect's ReceiveCreditTarget low-water mark at its highest. */
static u32 fz_low_max(struct fz_run *r, struct fz_data *d)
{
	u32 cap = min_t(u32, d->cr_max, r->cfg.proto.recv_credit_max - 1);

	return cap >= 2 ? min(cap / 2, cap - 2) : 0;
}

static void fz_put_hdr(u8 *b, const struct fz_hdr *h)
{
	put_unaligned_le16(h->cr, b);
	put_unaligned_le16(h->cg, b + 2);
	put_unaligned_le16(h->flags, b + 4);
	put_unaligned_le16(0, b + 6);
	put_unaligned_le32(h->rem, b + 8);
	put_unaligned_le32(h->off, b + 12);
	put_unaligned_le32(h->dl, b + 16);
}

static void fz_get_hdr(const u8 *b, struct fz_hdr *h)
{
	h->cr = get_unaligned_le16(b);
	h->cg = get_unaligned_le16(b + 2);
	h->flags = get_unaligned_le16(b + 4);
	h->rem = get_unaligned_le32(b + 8);
	h->off = get_unaligned_le32(b + 12);
	h->dl = get_unaligned_le32(b + 16);
}

/* A valid next message: the next fragment, or a new message. */
static u32 fz_build_data(struct fz_run *r, struct fz_data *d, u8 *b, u16 cg)
{
	struct fz_hdr h = { .cr = 255, .cg = cg };
	u32 k, span;

	if (d->reasm) {
		h.dl = fz_pct(r, 70) ? d->max_pay : 1 + fz_rand(r, d->max_pay);
		h.dl = min(h.dl, d->remaining);
		h.rem = d->remaining - h.dl;
	} else {
		k = fz_rand(r, 100);
		if (k < 10) {
			h.dl = 0;
		} else if (k < 75) {
			h.dl = 1 + fz_rand(r, d->max_pay);
		} else {
			span = min(d->max_frag, 8 * d->max_pay) - d->max_pay;
			h.rem = 1 + fz_rand(r, span);
			if (fz_pct(r, 3))
				h.rem = d->max_frag - d->max_pay;
			h.dl = d->max_pay;
		}
	}
	if (fz_pct(r, 5))
		h.cr = 1 + fz_rand(r, 65535);
	h.off = h.dl ? SMBDX_DATA_PAYLOAD_OFFSET : 0;
	memset(b, 0, SMBDX_DATA_PAYLOAD_OFFSET);
	fz_put_hdr(b, &h);
	prandom_bytes_state(&r->rnd, b + SMBDX_DATA_PAYLOAD_OFFSET, h.dl);
	return h.dl ? SMBDX_DATA_PAYLOAD_OFFSET + h.dl : SMBDX_DATA_HDR_LEN;
}

static u32 fz_pick32(struct fz_run *r, const u32 *v, u32 n)
{
	return v[fz_rand(r, n)];
}

/* Pad @b from @len to @to bytes with random bytes. */
static void fz_pad(struct fz_run *r, u8 *b, u32 len, u32 to)
{
	if (to > len)
		prandom_bytes_state(&r->rnd, b + len, to - len);
}

/* Longer: within the receive buffer mostly, past it sometimes. */
static u32 fz_extend(struct fz_run *r, u8 *b, u32 len)
{
	u32 to;

	if (r->rio < FZ_BUF && fz_pct(r, 15))
		to = r->rio + 1 + fz_rand(r, FZ_BUF - r->rio);
	else if (len < r->rio)
		to = len + 1 + fz_rand(r, r->rio - len);
	else
		to = len;
	fz_pad(r, b, len, to);
	return to;
}

/* Flip 1 to 3 bits among the first @n bytes. */
static void fz_flip(struct fz_run *r, u8 *b, u32 n)
{
	u32 i, bit, k = 1 + fz_rand(r, 3);

	for (i = 0; i < k && n; i++) {
		bit = fz_rand(r, n * 8);
		b[bit / 8] ^= 1 << (bit % 8);
	}
}

/* Mutate a Data Transfer message in place; its new length. */
static u32 fz_mutate_data(struct fz_run *r, struct fz_data *d, u8 *b, u32 len,
			  u64 hi)
{
	struct fz_hdr h;
	u32 off, v;

	fz_get_hdr(b, &h);
	switch (fz_rand(r, 9)) {
	case 0:
	case 1:
		fz_flip(r, b, min_t(u32, len, SMBDX_DATA_PAYLOAD_OFFSET));
		return len;
	case 2:
		return fz_rand(r, len);
	case 3:
		return fz_extend(r, b, len);
	case 4:
		/* Payload elsewhere: aligned (valid) or not. */
		off = SMBDX_DATA_PAYLOAD_OFFSET + 8 * (1 + fz_rand(r, 4));
		if (fz_pct(r, 30))
			off = SMBDX_DATA_PAYLOAD_OFFSET + 1 + fz_rand(r, 7);
		if (!h.dl || off + h.dl > FZ_BUF)
			return len;
		memmove(b + off, b + h.off, h.dl);
		fz_pad(r, b, SMBDX_DATA_PAYLOAD_OFFSET, off);
		h.off = off;
		fz_put_hdr(b, &h);
		return off + h.dl;
	case 5: {
		static const u16 crs[] = { 0, 1, 2, 65535 };

		h.cr = crs[fz_rand(r, ARRAY_SIZE(crs))];
		break;
	}
	case 6:
		/* Credits granted: 0, 1, the most that fits, the most. */
		v = fz_rand(r, 4);
		h.cg = v == 0 ? 0 : v == 1 ? 1 : v == 2 ? U16_MAX - min_t(u64, hi, U16_MAX) :
		       U16_MAX;
		if (fz_pct(r, 20))
			h.flags |= SMBDX_FLAG_RESPONSE_REQUESTED;
		break;
	case 7: {
		u32 vals[] = { 0, 1, d->max_frag - h.dl, d->max_frag - h.dl + 1,
			       U32_MAX, d->remaining, d->remaining + 1,
			       d->remaining - 1, prandom_u32_state(&r->rnd) };

		h.rem = fz_pick32(r, vals, ARRAY_SIZE(vals));
		break;
	}
	default: {
		u32 offs[] = { 0, 8, 16, 20, 24, 25, 28, 32, len, len + 8,
			       0xfffffff8, U32_MAX };
		u32 dls[] = { 0, 1, len - h.off, len - h.off + 1, d->max_frag,
			      d->max_frag + 1, U32_MAX,
			      prandom_u32_state(&r->rnd) };

		if (fz_pct(r, 50))
			h.off = fz_pick32(r, offs, ARRAY_SIZE(offs));
		else
			h.dl = fz_pick32(r, dls, ARRAY_SIZE(dls));
		if (fz_pct(r, 10))
			h.flags = prandom_u32_state(&r->rnd);
		break;
	}
	}
	if (len < SMBDX_DATA_HDR_LEN)
		return len;
	fz_put_hdr(b, &h);
	return len;
}

/*
 * The model: what smbdirect must do with a Data Transfer message of @len
 * bytes (3.1.5.8 in smbdirect's documented order). @hi is the most send
 * credits smbdirect can hold when it gets the message, exact if @exact.
 * Return: FZ_ACCEPT, a fatal outcome, or -1 if the outcome depends on
 * timing (CreditsGranted could overflow smbdirect's credits or not).
 */
static int fz_classify_data(struct fz_run *r, struct fz_data *d, const u8 *b,
			    u32 len, u64 hi, bool exact, struct fz_hdr *h)
{
	u64 end;

	if (len > r->rio)
		return FZ_RECV_ERROR;
	if (len < SMBDX_DATA_HDR_LEN)
		return SMBDX_ERR_DATA_SHORT;
	fz_get_hdr(b, h);
	if (!h->cr)
		return SMBDX_ERR_DATA_CREDITS_REQUESTED;
	if (!IS_ALIGNED(h->off, SMBDX_DATA_ALIGN))
		return SMBDX_ERR_DATA_OFFSET_ALIGN;
	end = (u64)h->off + h->dl;
	if (end > U32_MAX)
		return SMBDX_ERR_DATA_OVERFLOW;
	if (end > len)
		return SMBDX_ERR_DATA_PAST_END;
	if ((u64)h->dl + h->rem > d->max_frag)
		return SMBDX_ERR_DATA_TOO_BIG;
	if (h->dl && h->off < SMBDX_DATA_HDR_LEN)
		return SMBDX_ERR_DATA_OFFSET_OVERLAP;
	if (hi + h->cg > U16_MAX)
		return exact ? SMBDX_ERR_SEND_CREDIT_OVERFLOW : -1;
	/* A push-mode control message, but neither side advertised push mode. */
	if (h->flags & SMBDX_FLAG_PUSH)
		return FZ_PUSH_UNNEGOTIATED;
	if (!h->dl || !d->reasm)
		return FZ_ACCEPT;
	if (h->dl > d->remaining || d->remaining - h->dl != h->rem)
		return SMBDX_ERR_REASM_MISMATCH;
	return FZ_ACCEPT;
}

/* An accepted message: follow reassembly; a whole message is expected. */
static void fz_accepted(struct fz_run *r, struct fz_data *d, const u8 *b,
			const struct fz_hdr *h)
{
	struct fz_case *cs = r->cs;
	u32 i;

	d->tx_granted += h->cg;
	d->cr_max = max(d->cr_max, h->cr);
	if (h->flags & SMBDX_FLAG_RESPONSE_REQUESTED)
		d->inexact = true;
	if (!h->dl)
		return;
	if (!d->reasm) {
		d->crc = ~0;
		d->total = h->dl + h->rem;
	}
	d->crc = crc32_le(d->crc, b + h->off, h->dl);
	d->reasm = h->rem;
	d->remaining = h->rem;
	if (h->rem)
		return;
	spin_lock_bh(&cs->lock);
	i = cs->exp_tail++ % FZ_EXPECT_MAX;
	cs->exp_len[i] = d->total;
	cs->exp_crc[i] = d->crc;
	spin_unlock_bh(&cs->lock);
}

/* The end of a connection after a fatal message (@o) or none (@o 0). */
static bool fz_end(struct fz_run *r, struct fz_data *d, int o)
{
	struct fz_case *cs = r->cs;
	ktime_t since = ktime_get();
	bool ours = false;
	u64 g;
	u32 rx, bad;
	int err;

	if (o == FZ_ACCEPT) {
		/* Every whole message accepted must arrive first. */
		if (!wait_event_timeout(cs->wq, fz_case_cond(cs, fz_all_delivered),
					msecs_to_jiffies(FZ_GONE_MS)))
			return fz_fail(r, "accepted messages not delivered (%u of %u)",
				       cs->exp_head, cs->exp_tail);
		ours = fz_pct(r, 50);
		if (ours) {
			smbdx_disconnect(d->conn);
			if (!fz_wait_end(r, d->raw, ktime_get()))
				return fz_fail(r, "raw peer still connected after our disconnect");
		} else {
			rdma_disconnect(d->raw->q.id);
		}
	}
	if (d->conn) {
		if (!wait_event_timeout(cs->wq, fz_case_cond(cs, fz_lost),
					msecs_to_jiffies(FZ_GONE_MS)))
			return fz_fail(r, "no loss reported to the owner (expected %s)",
				       o ? fz_cause_name(o) : "peer_disconnect");
		spin_lock_bh(&cs->lock);
		err = cs->error;
		spin_unlock_bh(&cs->lock);
		if (o && o != FZ_RECV_ERROR && err != -EPROTO)
			return fz_fail(r, "loss reported as %d, expected -EPROTO (%s)",
				       err, fz_cause_name(o));
		if (!fz_case_cond(cs, fz_all_delivered))
			return fz_fail(r, "loss reported before accepted messages (%u of %u)",
				       cs->exp_head, cs->exp_tail);
	}
	if (o && !fz_wait_end(r, d->raw, since))
		return fz_fail(r, "raw peer still connected after a fatal message (%s)",
			       fz_cause_name(o));
	fz_raw_counts(d->raw, &g, &rx, &bad);
	if (bad)
		return fz_fail(r, "smbdirect sent %u invalid messages", bad);
	if (d->conn && !fz_conn_cause(r, d->conn, o ? fz_cause_name(o) :
				      ours ? "none" : "peer_disconnect"))
		return false;
	if (o)
		return fz_check_end(r, fz_cause_name(o));
	return fz_check_end(r, ours ? NULL : "peer_disconnect");
}

/* Data Transfer messages until a fatal one or the budget; then the end. */
static bool fz_data_phase(struct fz_run *r, struct fz_data *d)
{
	u32 budget = 1 + fz_rand(r, 200);
	static const u32 rates[] = { 2, 5, 10, 30 };
	u32 rate = rates[fz_rand(r, ARRAY_SIZE(rates))];
	struct fz_case *cs = r->cs;
	u32 len, slot, rx, bad, n, tries;
	bool exact, mutated;
	struct fz_hdr h;
	s64 held;
	u64 g, hi;
	int o;
	u8 *b;

	d->max_pay = d->max_len - SMBDX_DATA_PAYLOAD_OFFSET;
	/* Nothing can be delivered before our first message: grow the copy. */
	if (d->max_frag > cs->rxbuf_len) {
		kvfree(cs->rxbuf);
		cs->rxbuf_len = 0;
		cs->rxbuf = kvmalloc(d->max_frag, GFP_KERNEL);
		if (!cs->rxbuf)
			return fz_fail(r, "out of memory");
		cs->rxbuf_len = d->max_frag;
	}
	for (n = 0; n < budget && r->msgs < r->msgs_max; n++) {
		r->msg_idx++;
		if (!wait_event_timeout(d->raw->wq, fz_can_send(d),
					msecs_to_jiffies(FZ_WAIT_MS)))
			return fz_fail(r, "no send credit from smbdirect within %d ms",
				       FZ_WAIT_MS);
		if (!fz_case_wait(cs, fz_room))
			return fz_fail(r, "accepted messages not delivered");
		/* The slot about to be written must have completed. */
		if (!wait_event_timeout(d->raw->wq,
					READ_ONCE(d->raw->sends_out) < FZ_NSEND,
					msecs_to_jiffies(FZ_WAIT_MS)))
			return fz_fail(r, "raw peer: sends do not complete");
		if (fz_raw_gone(d->raw) || fz_case_cond(cs, fz_lost))
			return fz_fail(r, "connection lost without a fatal message");
		fz_raw_counts(d->raw, &g, &rx, &bad);
		if (rx > d->tx_granted)
			return fz_fail(r, "smbdirect sent %u messages on %llu credits",
				       rx, d->tx_granted);
		hi = d->tx_granted - rx;
		held = (s64)d->held_base + g - d->tx_data;
		exact = !d->inexact && held >= fz_low_max(r, d) + 1;
		slot = d->tx++ % FZ_NSEND;
		b = fz_send_buf(d->raw, slot);
		g = hi < FZ_NRECV ? FZ_NRECV - hi : 0;
		tries = 0;
		for (;;) {
			len = fz_build_data(r, d, b, g);
			mutated = r->dense || fz_pct(r, rate);
			if (mutated)
				len = fz_mutate_data(r, d, b, len, hi);
			/*
			 * 3.1.5.1: our last credit must grant one if smbdirect
			 * may have none, or neither side can ever send again.
			 */
			if (held == 1 && !hi && len >= SMBDX_DATA_HDR_LEN &&
			    !get_unaligned_le16(b + 2))
				put_unaligned_le16(g, b + 2);
			o = fz_classify_data(r, d, b, len, hi, exact, &h);
			if (o < 0) {
				/* Not predictable now: grant normally instead. */
				put_unaligned_le16(g, b + 2);
				o = fz_classify_data(r, d, b, len, hi, exact, &h);
			}
			/* dense: a fatal draw is drawn again, but for the last */
			if (!r->dense || o == FZ_ACCEPT || n + 1 >= budget ||
			    r->msgs + 1 >= r->msgs_max || ++tries >= FZ_DENSE_TRIES)
				break;
			r->redrawn++;
		}
		if (mutated)
			r->mutated++;
		if (o == SMBDX_ERR_SEND_CREDIT_OVERFLOW)
			r->ovf_exact++;
		r->expect[o]++;
		r->msgs++;
		r->data_msgs++;
		d->tx_data++;
		/* Expect a message before it can be delivered. */
		if (o == FZ_ACCEPT)
			fz_accepted(r, d, b, &h);
		if (fz_send(d->raw, slot, len))
			return fz_fail(r, "raw peer: post send failed");
		if (o != FZ_ACCEPT) {
			r->fatal++;
			return fz_end(r, d, o);
		}
		r->accepted++;
	}
	return fz_end(r, d, FZ_ACCEPT);
}

/* The state of a new case, which the accept callback may now find. */
static int fz_case_new(struct fz_run *r)
{
	struct fz_case *cs = kzalloc(sizeof(*cs), GFP_KERNEL);

	if (!cs)
		return -ENOMEM;
	spin_lock_init(&cs->lock);
	init_waitqueue_head(&cs->wq);
	spin_lock_bh(&r->lis_lock);
	r->cs = cs;
	spin_unlock_bh(&r->lis_lock);
	return 0;
}

/* Passive role, the negotiate request: base values, then mutated. */
static u32 fz_build_req(struct fz_run *r, u8 *b)
{
	static const u16 vers[] = { 0, 0x00ff, 0x0100, 0x0101, 0x0200, 0xffff };
	static const u32 sizes[] = { 0, 1, 127, 128, 129, 1364, 131071, 131072,
				     U32_MAX };
	u32 len = SMBDX_NEGOTIATE_REQ_LEN;

	put_unaligned_le16(SMBDX_VERSION_1_0, b);
	put_unaligned_le16(SMBDX_VERSION_1_0, b + 2);
	put_unaligned_le16(0, b + 4);
	put_unaligned_le16(fz_pct(r, 50) ? 255 : 1 + fz_rand(r, 300), b + 6);
	put_unaligned_le32(128 + fz_rand(r, FZ_BUF - 127), b + 8);
	put_unaligned_le32(fz_pct(r, 50) ? FZ_BUF : 128 + fz_rand(r, FZ_BUF - 127),
			   b + 12);
	put_unaligned_le32(131072 + fz_rand(r, 1 << 20), b + 16);
	if (!fz_pct(r, 35))
		return len;
	r->mutated++;
	switch (fz_rand(r, 5)) {
	case 0:
		fz_flip(r, b, len);
		break;
	case 1:
		put_unaligned_le16(vers[fz_rand(r, ARRAY_SIZE(vers))],
				   b + 2 * fz_rand(r, 2));
		break;
	case 2:
		if (fz_pct(r, 50))
			put_unaligned_le16(fz_rand(r, 3) ? fz_rand(r, 2) : 0xffff, b + 6);
		else
			put_unaligned_le32(sizes[fz_rand(r, ARRAY_SIZE(sizes))],
					   b + 8 + 4 * fz_rand(r, 3));
		break;
	case 3:
		len = fz_rand(r, len);
		break;
	default:
		len = fz_extend(r, b, len);
		break;
	}
	return len;
}

static int fz_classify_req(struct fz_run *r, const u8 *b, u32 len)
{
	if (len > r->rio)
		return FZ_RECV_ERROR;
	if (len < SMBDX_NEGOTIATE_REQ_LEN)
		return SMBDX_ERR_NEG_REQ_SHORT;
	if (get_unaligned_le16(b) > SMBDX_VERSION_1_0 ||
	    get_unaligned_le16(b + 2) < SMBDX_VERSION_1_0)
		return SMBDX_ERR_NEG_REQ_VERSION;
	if (!get_unaligned_le16(b + 6))
		return SMBDX_ERR_NEG_REQ_CREDITS;
	if (get_unaligned_le32(b + 12) < SMBDX_PROTO_MIN_RECV_SIZE)
		return SMBDX_ERR_NEG_REQ_MAX_RECV;
	if (get_unaligned_le32(b + 16) < SMBDX_PROTO_MIN_FRAG_SIZE)
		return SMBDX_ERR_NEG_REQ_MAX_FRAG;
	return FZ_ACCEPT;
}

static bool fz_first_seen(struct fz_raw *raw)
{
	bool v;

	spin_lock_bh(&raw->lock);
	v = raw->first_seen;
	spin_unlock_bh(&raw->lock);
	return v;
}

/* One connection of the passive role: smbdirect is the listener. */
static bool fz_case_passive(struct fz_run *r)
{
	struct fz_data *d = r->d;
	struct fz_case *cs = r->cs;
	u32 len, st, cg, pref, mrs, mfs;
	u8 req[SMBDX_NEGOTIATE_REQ_LEN];
	const u8 *p;
	ktime_t since;
	int o, rc;
	u8 *b;

	rc = fz_raw_connect(r, &d->raw);
	if (rc) {
		/* Counted as if its message went, to share the undoing. */
		r->msgs++;
		r->neg_msgs++;
		r->expect[FZ_ACCEPT]++;
		return fz_setup_failed(r, FZ_ACCEPT, rc);
	}
	b = fz_send_buf(d->raw, 0);
	len = fz_build_req(r, b);
	memcpy(req, b, sizeof(req));
	o = fz_classify_req(r, b, len);
	r->msg_idx = 0;
	r->msgs++;
	r->neg_msgs++;
	r->expect[o]++;
	d->tx = 1;
	since = ktime_get();
	if (fz_send(d->raw, 0, len))
		return fz_fail(r, "raw peer: post send failed");
	if (o != FZ_ACCEPT) {
		r->fatal++;
		if (!fz_wait_end(r, d->raw, since))
			return fz_fail(r, "negotiate request (%s): not disconnected",
				       fz_cause_name(o));
		if (fz_case_cond(cs, fz_have_conn))
			return fz_fail(r, "negotiate request (%s): accepted",
				       fz_cause_name(o));
		if (o == SMBDX_ERR_NEG_REQ_VERSION) {
			/* 3.1.5.6: STATUS_NOT_SUPPORTED, then the end. */
			wait_event_timeout(d->raw->wq, fz_first_seen(d->raw),
					   msecs_to_jiffies(FZ_WAIT_MS));
			p = d->raw->first;
			if (!fz_first_seen(d->raw) || d->raw->first_len < 32 ||
			    get_unaligned_le32(p + 12) != FZ_STATUS_NOT_SUPPORTED)
				return fz_fail(r, "no response with STATUS_NOT_SUPPORTED");
		} else if (fz_first_seen(d->raw)) {
			return fz_fail(r, "negotiate request (%s): answered",
				       fz_cause_name(o));
		}
		return fz_check_end(r, fz_cause_name(o));
	}
	r->accepted++;
	if (!wait_event_timeout(d->raw->wq, fz_first_seen(d->raw) || fz_raw_gone(d->raw),
				msecs_to_jiffies(FZ_WAIT_MS)) || !fz_first_seen(d->raw))
		return fz_fail(r, "valid negotiate request: no response");
	if (!fz_case_wait(cs, fz_have_conn))
		return fz_fail(r, "valid negotiate request: not accepted");
	spin_lock_bh(&cs->lock);
	d->conn = cs->conn;
	spin_unlock_bh(&cs->lock);
	p = d->raw->first;
	st = get_unaligned_le32(p + 12);
	cg = get_unaligned_le16(p + 10);
	pref = get_unaligned_le32(p + 20);
	mrs = get_unaligned_le32(p + 24);
	mfs = get_unaligned_le32(p + 28);
	if (d->raw->first_len != SMBDX_NEGOTIATE_RESP_LEN || st ||
	    get_unaligned_le16(p + 4) != SMBDX_VERSION_1_0 || !cg ||
	    !get_unaligned_le16(p + 8) || mrs < SMBDX_PROTO_MIN_RECV_SIZE ||
	    mfs < SMBDX_PROTO_MIN_FRAG_SIZE ||
	    pref > get_unaligned_le32(req + 12)) {
		return fz_fail(r, "invalid Negotiate Response: %u bytes, status %#x",
			       d->raw->first_len, st);
	}
	d->held_base = cg;
	d->max_frag = mfs;
	d->max_len = min3(mrs, r->rio, (u32)FZ_BUF);
	d->cr_max = get_unaligned_le16(req + 6);
	return fz_data_phase(r, d);
}

/* Active role, the negotiate response: base values, then mutated. */
static u32 fz_build_resp(struct fz_run *r, u8 *b)
{
	static const u16 vers[] = { 0, 0x00ff, 0x0101, 0x0200, 0xffff };
	static const u32 status[] = { FZ_STATUS_NOT_SUPPORTED, 1, 0x80000000 };
	u32 ours = r->cfg.proto.max_receive_size;
	u32 sizes[] = { 0, 1, 127, 128, 129, ours, ours + 1, 131071, 131072,
			U32_MAX };
	u32 len = SMBDX_NEGOTIATE_RESP_LEN;

	memset(b, 0, len);
	put_unaligned_le16(SMBDX_VERSION_1_0, b);
	put_unaligned_le16(SMBDX_VERSION_1_0, b + 2);
	put_unaligned_le16(SMBDX_VERSION_1_0, b + 4);
	put_unaligned_le16(fz_pct(r, 50) ? 255 : 1 + fz_rand(r, 300), b + 8);
	put_unaligned_le16(fz_pct(r, 50) ? FZ_NRECV : 1 + fz_rand(r, FZ_NRECV),
			   b + 10);
	put_unaligned_le32(1 << 20, b + 16);
	put_unaligned_le32(fz_pct(r, 50) ? ours : 128 + fz_rand(r, ours - 127),
			   b + 20);
	put_unaligned_le32(FZ_BUF, b + 24);
	put_unaligned_le32(131072 + fz_rand(r, 1 << 20), b + 28);
	if (!fz_pct(r, 35))
		return len;
	r->mutated++;
	switch (fz_rand(r, 6)) {
	case 0:
		fz_flip(r, b, len);
		break;
	case 1:
		put_unaligned_le16(vers[fz_rand(r, ARRAY_SIZE(vers))],
				   b + 2 * fz_rand(r, 3));
		break;
	case 2:
		put_unaligned_le16(fz_rand(r, 3) ? fz_rand(r, 2) : 0xffff,
				   b + 8 + 2 * fz_rand(r, 2));
		if (fz_pct(r, 30))
			put_unaligned_le32(status[fz_rand(r, ARRAY_SIZE(status))],
					   b + 12);
		break;
	case 3:
		put_unaligned_le32(sizes[fz_rand(r, ARRAY_SIZE(sizes))],
				   b + 16 + 4 * fz_rand(r, 4));
		break;
	case 4:
		len = fz_rand(r, len);
		break;
	default:
		len = fz_extend(r, b, len);
		break;
	}
	return len;
}

static int fz_classify_resp(struct fz_run *r, const u8 *b, u32 len)
{
	if (len > r->rio)
		return FZ_RECV_ERROR;
	if (len < SMBDX_NEGOTIATE_RESP_LEN)
		return SMBDX_ERR_NEG_RESP_SHORT;
	/* smbdirect checks Status first (a failure response is all zeros). */
	if (get_unaligned_le32(b + 12))
		return SMBDX_ERR_NEG_RESP_STATUS;
	if (get_unaligned_le16(b + 4) != SMBDX_VERSION_1_0)
		return SMBDX_ERR_NEG_RESP_VERSION;
	if (get_unaligned_le32(b + 24) < SMBDX_PROTO_MIN_RECV_SIZE)
		return SMBDX_ERR_NEG_RESP_MAX_RECV;
	if (get_unaligned_le32(b + 28) < SMBDX_PROTO_MIN_FRAG_SIZE)
		return SMBDX_ERR_NEG_RESP_MAX_FRAG;
	if (!get_unaligned_le16(b + 10))
		return SMBDX_ERR_NEG_RESP_CREDITS_GRANTED;
	if (!get_unaligned_le16(b + 8))
		return SMBDX_ERR_NEG_RESP_CREDITS_REQUESTED;
	if (get_unaligned_le32(b + 20) > r->cfg.proto.max_receive_size)
		return SMBDX_ERR_NEG_RESP_PREF_SEND;
	return FZ_ACCEPT;
}

/* One connection of the active role: smbdirect connects to the raw peer. */
static bool fz_case_active(struct fz_run *r)
{
	struct fz_data *d = r->d;
	struct smbdx_conn *conn;
	struct fz_raw *c;
	u32 len, pref;
	ktime_t since;
	const u8 *q;
	int o, err;

	c = fz_raw_alloc();
	if (!c)
		return fz_fail(r, "out of memory");
	d->raw = c;
	c->resp = kzalloc(FZ_BUF, GFP_KERNEL);
	if (!c->resp)
		return fz_fail(r, "out of memory");
	len = fz_build_resp(r, c->resp);
	c->resp_len = len;
	c->respond = true;
	o = fz_classify_resp(r, c->resp, len);
	r->msg_idx = 0;
	r->msgs++;
	r->neg_msgs++;
	r->expect[o]++;
	d->tx = 0;
	spin_lock_bh(&r->rlis->lock);
	r->rlis->child = c;
	spin_unlock_bh(&r->rlis->lock);
	conn = smbdx_connect(&init_net, (struct sockaddr *)&r->sin, NULL,
			     &r->cfg, &fz_conn_ops, r->cs);
	since = ktime_get();
	spin_lock_bh(&r->rlis->lock);
	r->rlis->child = NULL;
	spin_unlock_bh(&r->rlis->lock);
	if (!IS_ERR(conn))
		d->conn = conn;
	else if (!fz_first_seen(c) && !fz_raw_established(c))
		return fz_setup_failed(r, o, PTR_ERR(conn));
	q = c->first;
	if (!fz_first_seen(c) || c->first_len != SMBDX_NEGOTIATE_REQ_LEN ||
	    get_unaligned_le16(q) != SMBDX_VERSION_1_0 ||
	    get_unaligned_le16(q + 2) != SMBDX_VERSION_1_0 ||
	    !get_unaligned_le16(q + 6) ||
	    get_unaligned_le32(q + 12) != r->cfg.proto.max_receive_size ||
	    get_unaligned_le32(q + 16) < SMBDX_PROTO_MIN_FRAG_SIZE)
		return fz_fail(r, "smbdirect's Negotiate Request missing or invalid (%u bytes)",
			       c->first_len);
	if (o != FZ_ACCEPT) {
		r->fatal++;
		if (!IS_ERR(conn))
			return fz_fail(r, "negotiate response (%s): connected",
				       fz_cause_name(o));
		err = PTR_ERR(conn);
		if (o != FZ_RECV_ERROR &&
		    err != (o == SMBDX_ERR_NEG_RESP_STATUS ? -ECONNREFUSED : -EPROTO))
			return fz_fail(r, "negotiate response (%s): smbdx_connect() returned %d",
				       fz_cause_name(o), err);
		if (!fz_wait_end(r, c, since))
			return fz_fail(r, "negotiate response (%s): raw peer still connected",
				       fz_cause_name(o));
		return fz_check_end(r, fz_cause_name(o));
	}
	r->accepted++;
	if (IS_ERR(conn))
		return fz_fail(r, "valid negotiate response: smbdx_connect() returned %ld",
			       PTR_ERR(conn));
	d->held_base = 0;
	d->tx_granted = get_unaligned_le16(c->resp + 10);
	d->max_frag = get_unaligned_le32(q + 16);
	pref = get_unaligned_le32(c->resp + 20);
	d->max_len = max_t(u32, min(r->cfg.proto.max_receive_size, pref),
			   SMBDX_PROTO_MIN_RECV_SIZE);
	d->max_len = min3(d->max_len, r->rio, (u32)FZ_BUF);
	d->cr_max = get_unaligned_le16(c->resp + 8);
	return fz_data_phase(r, d);
}

/*
 * A case's connection, raw peer and state, released in the background:
 * smbdx_destroy() and rdma_destroy_id() can wait a minute on rxe for the
 * IB CM to let a cm_id go, and the fuzzer need not wait with them.
 */
struct fz_reap {
	struct work_struct work;
	struct smbdx_conn *conn;
	struct fz_raw *raw;
	struct fz_case *cs;
};

static struct workqueue_struct *fz_wq;

/*
 * The longest release of a case (smbdx_destroy() of its connection and the
 * raw peer's rdma_destroy_id()), in ms, since the module was loaded:
 * debugfs reap_max_ms, which tests/vm/smbd_fuzz.sh holds to FZ_END_MS
 * once every connection is freed. A cm_id the IB CM keeps for a minute
 * (a REP left retransmitting, issue 34) shows here.
 */
static u64 fz_reap_max_ms;
static DEFINE_SPINLOCK(fz_reap_lock);

static void fz_reap_work(struct work_struct *w)
{
	struct fz_reap *rp = container_of(w, struct fz_reap, work);
	ktime_t t0 = ktime_get();
	s64 ms;

	if (rp->conn)
		smbdx_destroy(rp->conn);
	fz_raw_release(rp->raw);
	ms = ktime_ms_delta(ktime_get(), t0);
	spin_lock(&fz_reap_lock);
	if (ms > 0 && ms > fz_reap_max_ms)
		fz_reap_max_ms = ms;
	spin_unlock(&fz_reap_lock);
	if (rp->cs)
		kvfree(rp->cs->rxbuf);
	kfree(rp->cs);
	kfree(rp);
}

/* Hand what the case left to the reaper (or release it here). */
static void fz_case_cleanup(struct fz_run *r)
{
	struct fz_data *d = r->d;
	struct fz_reap *rp, one = {};

	rp = kzalloc(sizeof(*rp), GFP_KERNEL);
	if (!rp)
		rp = &one;
	rp->conn = d->conn;
	rp->raw = d->raw;
	spin_lock_bh(&r->lis_lock);
	rp->cs = r->cs;
	r->cs = NULL;
	spin_unlock_bh(&r->lis_lock);
	memset(d, 0, sizeof(*d));
	if (rp == &one) {
		if (one.conn)
			smbdx_destroy(one.conn);
		fz_raw_release(one.raw);
		if (one.cs)
			kvfree(one.cs->rxbuf);
		kfree(one.cs);
		return;
	}
	INIT_WORK(&rp->work, fz_reap_work);
	queue_work(fz_wq, &rp->work);
}

static int fz_run_all(struct fz_run *r)
{
	u64 t0 = ktime_get_ns(), ms;
	u32 k;
	int rc, i;

	if (r->active) {
		rc = fz_raw_listen(r);
	} else {
		r->lis = smbdx_listen(&init_net, (struct sockaddr *)&r->sin,
				      &r->cfg, &fz_listener_ops, r);
		rc = IS_ERR(r->lis) ? PTR_ERR(r->lis) : 0;
		if (rc)
			r->lis = NULL;
	}
	if (rc) {
		fz_printf(r, "error: cannot listen on %pISpc: %d\n", &r->sin, rc);
		return rc;
	}
	for (k = r->first; !r->failed && r->msgs < r->msgs_max &&
	     k - r->first < r->conns_max; k++) {
		if (r->retry) {
			r->retry = false;
			k--;
			r->conns--;
		}
		r->conn_idx = k;
		r->msg_idx = 0;
		prandom_seed_state(&r->rnd, r->seed ^ ((u64)k * 0x9e3779b97f4a7c15ULL));
		if (fz_case_new(r)) {
			fz_fail(r, "out of memory");
			break;
		}
		r->conns++;
		if (r->active)
			fz_case_active(r);
		else
			fz_case_passive(r);
		if (!r->failed && (r->cs->mismatched || r->cs->unexpected))
			fz_fail(r, "%u delivered differ (first: %u bytes, not %u), %u unexpected",
				r->cs->mismatched, r->cs->bad_len, r->cs->bad_want,
				r->cs->unexpected);
		r->delivered += r->cs->delivered;
		fz_case_cleanup(r);
		if (fatal_signal_pending(current)) {
			fz_fail(r, "interrupted");
			break;
		}
	}
	if (r->lis)
		smbdx_listener_destroy(r->lis);
	if (r->rlis)
		fz_raw_release(r->rlis);
	ms = div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC);
	fz_printf(r, "role=%s seed=%llu first=%u messages=%llu negotiate=%llu data=%llu",
		  r->active ? "active" : "passive", r->seed, r->first, r->msgs,
		  r->neg_msgs, r->data_msgs);
	fz_printf(r, " connections=%u accepted=%llu fatal=%llu mutated=%llu",
		  r->conns, r->accepted, r->fatal, r->mutated);
	fz_printf(r, " delivered=%llu credit_overflow=%llu setup_failures=%u",
		  r->delivered, r->ovf_exact, r->setup_failures);
	if (r->dense)
		fz_printf(r, " dense=1 redrawn=%u", r->redrawn);
	if (!r->failed && r->end_max_ms > FZ_END_MS)
		fz_fail(r, "a connection ended %lld ms after its end began (at most %d)",
			r->end_max_ms, FZ_END_MS);
	fz_printf(r, " end_max_ms=%lld ms=%llu result=%s\n", r->end_max_ms, ms,
		  r->failed ? "FAIL" : "pass");
	for (i = 1; i < FZ_OUTCOMES; i++)
		if (r->expect[i])
			fz_printf(r, "cause %s %llu\n", fz_cause_name(i),
				  r->expect[i]);
	if (r->peer_disconnects)
		fz_printf(r, "cause peer_disconnect %llu\n", r->peer_disconnects);
	return r->failed ? -EPROTO : 0;
}

/*
 * run ADDR PORT role=passive|active msgs=N seed=S [first=K] [conns=N]
 *     [dense=1]
 */
static int fz_parse(char *p, struct fz_run *r)
{
	char *tok, *addr = NULL;
	u32 port = 0, argn = 0;
	int rc = 0;

	r->msgs_max = 1000;
	r->conns_max = U32_MAX;
	while ((tok = strsep(&p, " \t\n")) && !rc) {
		if (!*tok)
			continue;
		if (argn == 0 && strcmp(tok, "run"))
			rc = -EINVAL;
		else if (argn == 1)
			addr = tok;
		else if (argn == 2)
			rc = kstrtou32(tok, 0, &port);
		else if (!strcmp(tok, "role=active"))
			r->active = true;
		else if (!strcmp(tok, "role=passive"))
			r->active = false;
		else if (!strncmp(tok, "msgs=", 5))
			rc = kstrtou64(tok + 5, 0, &r->msgs_max);
		else if (!strncmp(tok, "seed=", 5))
			rc = kstrtou64(tok + 5, 0, &r->seed);
		else if (!strncmp(tok, "first=", 6))
			rc = kstrtou32(tok + 6, 0, &r->first);
		else if (!strncmp(tok, "conns=", 6))
			rc = kstrtou32(tok + 6, 0, &r->conns_max);
		else if (!strcmp(tok, "dense=1"))
			r->dense = true;
		else if (argn > 2)
			rc = -EINVAL;
		argn++;
	}
	if (rc || !addr || !port || port > 65535 || !r->conns_max)
		return -EINVAL;
	r->sin.sin_family = AF_INET;
	r->sin.sin_port = htons(port);
	if (!in4_pton(addr, -1, (u8 *)&r->sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	return 0;
}

static ssize_t fz_control_write(struct file *f, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct fz_data *d = NULL;
	struct fz_run *r;
	char *buf;
	int rc;

	if (len > 256)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (r) {
		r->res = kzalloc(FZ_RESULT_MAX, GFP_KERNEL);
		r->statbuf = kmalloc(FZ_STATS_BUF, GFP_KERNEL);
		d = kzalloc(sizeof(*d), GFP_KERNEL);
	}
	rc = r && r->res && r->statbuf && d ? fz_parse(strim(buf), r) : -ENOMEM;
	if (!rc) {
		r->d = d;
		spin_lock_init(&r->lis_lock);
		smbdx_conn_config_init(&r->cfg);
		r->cfg.negotiate_timeout_ms = FZ_WAIT_MS / 2;
		r->rio = max_t(u32, r->cfg.proto.max_receive_size,
			       SMBDX_PROTO_NEG_RECV_SIZE);
	}
	mutex_lock(&fz_mutex);
	if (!rc)
		rc = fz_run_all(r);
	kfree(fz_result);
	fz_result = NULL;
	if (r && r->res && r->res_len)
		fz_result = kstrdup(r->res, GFP_KERNEL);
	else
		fz_result = kasprintf(GFP_KERNEL, "error: %d\n", rc);
	mutex_unlock(&fz_mutex);
	if (r) {
		kfree(r->statbuf);
		kfree(r->res);
	}
	kfree(d);
	kfree(r);
	kfree(buf);
	return rc ? rc : len;
}

static const struct file_operations fz_control_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = fz_control_write,
};

static int fz_result_show(struct seq_file *m, void *unused)
{
	mutex_lock(&fz_mutex);
	if (fz_result)
		seq_puts(m, fz_result);
	mutex_unlock(&fz_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fz_result);

static int __init fz_init(void)
{
	fz_wq = alloc_workqueue("smbd_fuzz", WQ_UNBOUND, 0);
	if (!fz_wq)
		return -ENOMEM;
	fz_dir = debugfs_create_dir("smbd_fuzz", NULL);
	debugfs_create_file("control", 0200, fz_dir, NULL, &fz_control_fops);
	debugfs_create_file("result", 0444, fz_dir, NULL, &fz_result_fops);
	debugfs_create_u64("reap_max_ms", 0444, fz_dir, &fz_reap_max_ms);
	return 0;
}

static void __exit fz_exit(void)
{
	debugfs_remove_recursive(fz_dir);
	destroy_workqueue(fz_wq);
	kfree(fz_result);
}

module_init(fz_init);
module_exit(fz_exit);
MODULE_DESCRIPTION("smbdirect receive-side fuzzer: a raw verbs peer sending mutated SMB Direct messages");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SMBDX_NS);
