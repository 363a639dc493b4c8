// SPDX-License-Identifier: GPL-2.0
/*
 * Push mode (draft-talpey-rdma-commit; Documentation/design.rst, "Push
 * mode"): the exported smbdx_push_*() API and its message-level path,
 * around the pure codec and engine of pushmsg.c.
 *
 * Normal operation. A responder registers a region (smbdx_push_register():
 * one fast-registration MR with remote write, mapped bidirectionally since
 * the CPU places the atomic value into it; persistent regions must be
 * persistent memory) and hands its descriptor to the peer through the
 * upper layer. The requester attaches the descriptor
 * (smbdx_push_attach()) and then:
 *  - smbdx_push_write(): an RDMA Write into the region (rw.c), waited for;
 *  - smbdx_push_commit() (and smbdx_push_flush(), smbdx_push_atomic_write()
 *    on top of it): a COMMIT_REQ control message, and a wait for the
 *    COMMIT_RESP. Commits are numbered; at most the peer's advertised
 *    push_ird (capped at SMBDX_PUSH_MAX_COMMITS) are outstanding, more
 *    callers wait their turn.
 * On the responder the receive handler (__smbdx_push_recv(), softirq)
 * checks each control message and puts a commit into the inbox; the push
 * work serves the inbox in order, in process context: it checks the
 * commit against the region (pushmsg.c), hands the buffer to the CPU,
 * writes the range back to persistent memory (arch_wb_cache_pmem(), then
 * pmem_wmb()) or orders it (global visibility), stores the 64-bit value
 * with one aligned release store (and writes it back when asked), hands
 * the buffer back to the device and answers. Serving commits one after
 * the other in arrival order is what places an atomic value after every
 * flush before it. A control message is an SMB Direct Data Transfer
 * message marked SMBDX_FLAG_PUSH, queued on the send queue like a
 * fragment (send.c, __smbdx_send_queue_io()): it waits for a send credit
 * like any message.
 *
 * Revoke: smbdx_push_revoke() sends REVOKE_REQ and waits (io_timeout) for
 * the REVOKE_ACK, then deregisters (LOCAL_INV) and frees the region. The
 * requester answers at once when nothing of its is outstanding on the
 * region, otherwise its last operation to end does; it refuses new ones
 * with -EKEYREVOKED. Commits sent before the requester saw the request
 * are still served: they arrive before the acknowledgment.
 *
 * The native path (IB_WR_FLUSH, IB_WR_ATOMIC_WRITE) needs a kernel that
 * lets a kernel QP post them; smbdirect/Kbuild looks for it
 * (SMBDX_HAVE_NATIVE_PUSH) and the native functions below are stubs until
 * it is written: every connection uses the message path.
 *
 * Locking: this file owns conn->push (struct smbdx_conn_push, smbd.h):
 * conn->lock (BH) protects the engine's state, the lists, the counts and
 * each region's and target's state and busy count; a region's and
 * target's other fields are set before it is listed and read-only after.
 * The receive handler runs under conn->lock in softirq and never sleeps:
 * what it answers at once (a commit on no region, a revoke with nothing
 * outstanding) it queues with a GFP_ATOMIC send buffer. The push work
 * holds a connection reference while queued and a region's busy count
 * while it touches the region's memory, inside smbdx_conn_enter() so
 * teardown does not unmap the registration under it; smbdx_push_revoke()
 * waits for the busy count before it deregisters. API calls that wait on
 * the peer do so between smbdx_conn_wait_begin() and _end(), bounded by
 * the connection's io_timeout.
 *
 * Transport recovery: a malformed, unexpected or unnegotiated control
 * message ends the connection with a named cause (causes.h, push_*). A
 * commit the responder refuses (range, alignment, revoked region, access)
 * is answered with its status and the connection ends once the answer is
 * sent; the requester ends it too on reading the status, and its call
 * returns the matching error. A commit or revoke not answered within
 * io_timeout ends the connection (push_timeout) and the call returns
 * -ETIMEDOUT. Errors a requester can see locally (a range outside the
 * descriptor, a misaligned value, an operation the region or the peer
 * does not offer, a revoked target) are returned without touching the
 * wire, and the connection stays up.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/ioport.h>
#include <linux/libnvdimm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "smbd.h"

/* A control message's send buffer: header, padding, body. */
#define SMBDX_PUSH_IO_SIZE	(SMBDX_DATA_PAYLOAD_OFFSET + SMBDX_PUSHMSG_LEN)

/**
 * struct smbdx_push_region - a region registered for the peer's push mode
 * @conn: connection (the registration holds a reference)
 * @node: entry in conn->push.regions
 * @reg: the memory registration (one MR)
 * @st: revoke state (conn->lock)
 * @busy: the push work is serving a commit on it (conn->lock)
 * @id: its id on the connection
 * @token: the MR's key
 * @iova: the address of its first byte for RDMA
 * @len: bytes
 * @access: SMBDX_PUSHACC_*
 * @nbv: entries of @bv
 * @bv: its memory, at most one page per entry, in order (the CPU's view)
 */
struct smbdx_push_region {
	struct smbdx_conn *conn;
	struct list_head node;
	struct smbdx_reg *reg;
	struct smbdx_push_rgn st;
	u32 busy;
	u32 id;
	u32 token;
	u64 iova;
	u32 len;
	u32 access;
	u32 nbv;
	struct bio_vec bv[];
};

/**
 * struct smbdx_push_target - a peer's region this end may push into
 * @conn: connection; a reference is held
 * @node: entry in conn->push.targets
 * @st: revoke state and operations in flight (conn->lock)
 * @region: the region's id
 * @token: its key
 * @iova: its first byte's address
 * @len: its length
 * @access: SMBDX_PUSHACC_* it was registered with
 */
struct smbdx_push_target {
	struct smbdx_conn *conn;
	struct list_head node;
	struct smbdx_push_tgt st;
	u32 region;
	u32 token;
	u64 iova;
	u32 len;
	u32 access;
};

/**
 * struct smbdx_push_wait - a commit waiting for its answer (on the
 *	caller's stack)
 * @node: entry in conn->push.waits, empty once answered
 * @seq: its number
 * @region: its region's id
 * @status: the answer's status
 * @done: answered
 */
struct smbdx_push_wait {
	struct list_head node;
	u32 seq;
	u32 region;
	u32 status;
	bool done;
};

static void smbdx_push_work(struct work_struct *w);

/* ---- the native path (not built yet) ------------------------------------ */

#ifdef SMBDX_HAVE_NATIVE_PUSH
/*
 * The kernel can post IB_WR_FLUSH and IB_WR_ATOMIC_WRITE from a kernel QP.
 * Using them (issue 30, item 3) also needs the peer's word that its
 * regions take them (a capability bit design.rst reserves) and the device
 * caps; until that is written nothing is native.
 */
static bool smbdx_push_native(struct smbdx_conn *conn)
{
	return false;
}

static int smbdx_push_native_commit(struct smbdx_push_target *t,
				    const struct smbdx_pushmsg *m)
{
	return -EOPNOTSUPP;
}
#else
static bool smbdx_push_native(struct smbdx_conn *conn)
{
	return false;
}

static int smbdx_push_native_commit(struct smbdx_push_target *t,
				    const struct smbdx_pushmsg *m)
{
	return -EOPNOTSUPP;
}
#endif

/* ---- set-up -------------------------------------------------------------- */

/**
 * smbdx_push_init() - set up a new connection's push part
 * @conn: connection being allocated, not yet visible
 */
void smbdx_push_init(struct smbdx_conn *conn)
{
	INIT_LIST_HEAD(&conn->push.regions);
	INIT_LIST_HEAD(&conn->push.targets);
	INIT_LIST_HEAD(&conn->push.waits);
	INIT_WORK(&conn->push.work, smbdx_push_work);
}

/**
 * smbdx_push_free() - free what the push part still holds
 * @conn: connection being freed (no work item runs)
 */
void smbdx_push_free(struct smbdx_conn *conn)
{
	kfree(conn->push.inbox);
	conn->push.inbox = NULL;
}

/**
 * smbdx_push_local_flags() - what this end serves in push mode
 *
 * Global visibility always; persistence where the kernel can write CPU
 * caches back to persistent memory; the atomic write where a 64-bit
 * store is single-copy atomic.
 *
 * Return: SMBDX_CAP_* bits for the CM blob.
 */
u8 smbdx_push_local_flags(void)
{
	u8 f = SMBDX_CAP_FLUSH_GLOBAL;

	if (IS_ENABLED(CONFIG_ARCH_HAS_PMEM_API))
		f |= SMBDX_CAP_FLUSH_PERSISTENT;
	if (IS_ENABLED(CONFIG_64BIT))
		f |= SMBDX_CAP_ATOMIC_WRITE;
	return f;
}

/*
 * The connection's push mode, worked out at the first use: the CM blobs
 * are final once it is established, which every caller checks first.
 */
static void __smbdx_push_setup(struct smbdx_conn *conn)
{
	struct smbdx_conn_push *p = &conn->push;

	lockdep_assert_held(&conn->lock);
	if (p->ready)
		return;
	smbdx_push_negotiate(&conn->caps.own, conn->caps.sent,
			     &conn->caps.peer,
			     conn->caps.peer_blob == SMBDX_PD_FOUND, &p->mode);
	smbdx_push_tx_init(&p->commit_tx, p->mode.commits);
	smbdx_push_rx_init(&p->commit_rx, p->mode.active ?
			   min_t(u32, conn->caps.own.push_ird,
				 SMBDX_PUSH_MAX_COMMITS) : 0);
	smbdx_push_tx_init(&p->revoke_tx, SMBDX_PUSH_MAX_REGIONS);
	smbdx_push_rx_init(&p->revoke_rx, SMBDX_PUSH_MAX_REGIONS);
	p->ready = true;
}

static int smbdx_push_cause(enum smbdx_pushmsg_verdict v)
{
	switch (v) {
	case SMBDX_PUSHMSG_E_SEQ:
		return SMBDX_CAUSE_PUSH_BAD_SEQ;
	case SMBDX_PUSHMSG_E_TOO_MANY:
		return SMBDX_CAUSE_PUSH_TOO_MANY;
	case SMBDX_PUSHMSG_E_UNNEGOTIATED:
		return SMBDX_CAUSE_PUSH_UNNEGOTIATED;
	default:
		return SMBDX_CAUSE_PUSH_BAD_MSG;
	}
}

static int smbdx_push_status_cause(enum smbdx_push_status st)
{
	switch (st) {
	case SMBDX_PUSH_ST_RANGE:
		return SMBDX_CAUSE_PUSH_RANGE;
	case SMBDX_PUSH_ST_ALIGN:
		return SMBDX_CAUSE_PUSH_ALIGN;
	case SMBDX_PUSH_ST_REVOKED:
		return SMBDX_CAUSE_PUSH_REVOKED;
	case SMBDX_PUSH_ST_ACCESS:
		return SMBDX_CAUSE_PUSH_ACCESS;
	default:
		return SMBDX_CAUSE_PUSH_FAILED;
	}
}

/* ---- sending control messages ------------------------------------------- */

/*
 * Queue control message @m in @io (NULL: allocated here, atomically).
 * @fail_cause: end the connection with it once the message is sent (a
 * refusal). Returns 0, or the connection's error (it failed, or fails now
 * for want of memory). conn->lock held; @io is consumed.
 */
static int __smbdx_push_send(struct smbdx_conn *conn,
			     const struct smbdx_pushmsg *m,
			     struct smbdx_send_io *io, int fail_cause)
{
	lockdep_assert_held(&conn->lock);
	if (conn->state != SMBDX_CS_ESTABLISHED) {
		kfree(io);
		return conn->error ? conn->error : -ENOTCONN;
	}
	if (!io)
		io = smbdx_send_io_alloc(conn, SMBDX_PUSH_IO_SIZE, GFP_ATOMIC);
	if (!io) {
		__smbdx_conn_fail(conn, -ENOMEM, SMBDX_CAUSE_NOMEM);
		return -ENOMEM;
	}
	if (WARN_ON_ONCE(smbdx_pushmsg_encode(m, io->buf +
					      SMBDX_DATA_PAYLOAD_OFFSET,
					      SMBDX_PUSHMSG_LEN) < 0)) {
		kfree(io);
		__smbdx_conn_fail(conn, -EIO, SMBDX_CAUSE_PUSH_BAD_MSG);
		return -EIO;
	}
	io->di.remaining_data_length = 0;
	io->di.data_offset = SMBDX_DATA_PAYLOAD_OFFSET;
	io->di.data_length = SMBDX_PUSHMSG_LEN;
	io->push_type = m->type;
	io->fail_verdict = fail_cause;
	smbdx_stat_inc(conn, SMBDX_STAT_TX_PUSH_MSGS);
	__smbdx_send_queue_io(conn, io);
	return conn->error;
}

/**
 * __smbdx_push_posted() - a control message was posted
 * @conn: connection, lock held
 * @type: its type
 *
 * An answer posted ends the request it answers, as the peer counts it
 * (pushmsg.c, smbdx_push_rx_request()).
 *
 * Context: the send loop (any context), conn->lock held.
 */
void __smbdx_push_posted(struct smbdx_conn *conn, u8 type)
{
	lockdep_assert_held(&conn->lock);
	if (type == SMBDX_PUSHMSG_COMMIT_RESP)
		smbdx_push_rx_answered(&conn->push.commit_rx);
	else if (type == SMBDX_PUSHMSG_REVOKE_ACK)
		smbdx_push_rx_answered(&conn->push.revoke_rx);
}

/* Answer commit @req with @st (conn->lock held); a refusal ends it all. */
static void __smbdx_push_answer(struct smbdx_conn *conn,
				const struct smbdx_pushmsg *req,
				enum smbdx_push_status st,
				struct smbdx_send_io *io)
{
	struct smbdx_pushmsg resp = {
		.type = SMBDX_PUSHMSG_COMMIT_RESP, .seq = req->seq,
		.region = req->region, .status = st,
	};

	if (st != SMBDX_PUSH_ST_OK)
		conn->push.refused = true;
	__smbdx_push_send(conn, &resp, io,
			  st == SMBDX_PUSH_ST_OK ? 0 : smbdx_push_status_cause(st));
}

/* Acknowledge the peer's REVOKE_REQ @seq for @region; conn->lock held. */
static void __smbdx_push_ack(struct smbdx_conn *conn, u32 seq, u32 region)
{
	struct smbdx_pushmsg ack = {
		.type = SMBDX_PUSHMSG_REVOKE_ACK, .seq = seq, .region = region,
	};

	if (!__smbdx_push_send(conn, &ack, NULL, 0))
		smbdx_stat_inc(conn, SMBDX_STAT_PUSH_REVOKE_ACKS);
}

/* ---- receiving control messages ----------------------------------------- */

static struct smbdx_push_region *__smbdx_push_region(struct smbdx_conn *conn,
						     u32 id)
{
	struct smbdx_push_region *r;

	list_for_each_entry(r, &conn->push.regions, node)
		if (r->id == id)
			return r;
	return NULL;
}

static struct smbdx_push_target *__smbdx_push_target(struct smbdx_conn *conn,
						     u32 region)
{
	struct smbdx_push_target *t;

	list_for_each_entry(t, &conn->push.targets, node)
		if (t->region == region)
			return t;
	return NULL;
}

/* The peer's commit request: to the inbox, or refused at once. */
static enum smbdx_pushmsg_verdict
__smbdx_push_recv_commit(struct smbdx_conn *conn, const struct smbdx_pushmsg *m)
{
	struct smbdx_conn_push *p = &conn->push;
	enum smbdx_pushmsg_verdict v;

	v = smbdx_push_rx_request(&p->commit_rx, m->seq);
	if (v)
		return v;
	if (p->refused)
		return SMBDX_PUSHMSG_OK;	/* ending; nothing more is served */
	if (!p->inbox) {
		/* We never registered a region. */
		__smbdx_push_answer(conn, m, SMBDX_PUSH_ST_REVOKED, NULL);
		return SMBDX_PUSHMSG_OK;
	}
	/* rx_request() bounds it by what we advertised, at most the ring. */
	if (WARN_ON_ONCE(p->in_count >= SMBDX_PUSH_MAX_COMMITS))
		return SMBDX_PUSHMSG_E_TOO_MANY;
	p->inbox[(p->in_head + p->in_count) % SMBDX_PUSH_MAX_COMMITS] = *m;
	p->in_count++;
	smbdx_conn_queue_work(conn, &p->work);
	return SMBDX_PUSHMSG_OK;
}

/* The answer to our oldest commit. */
static enum smbdx_pushmsg_verdict
__smbdx_push_recv_resp(struct smbdx_conn *conn, const struct smbdx_pushmsg *m)
{
	struct smbdx_conn_push *p = &conn->push;
	struct smbdx_push_wait *w;
	enum smbdx_pushmsg_verdict v;

	w = list_first_entry_or_null(&p->waits, struct smbdx_push_wait, node);
	if (!w || w->seq != m->seq || w->region != m->region)
		return SMBDX_PUSHMSG_E_SEQ;
	v = smbdx_push_tx_answer(&p->commit_tx, m->seq);
	if (v)
		return v;
	list_del_init(&w->node);
	w->status = m->status;
	w->done = true;
	wake_up_all(&conn->wq);
	if (m->status != SMBDX_PUSH_ST_OK)
		__smbdx_conn_fail(conn, smbdx_push_status_errno(m->status),
				  smbdx_push_status_cause(m->status));
	return SMBDX_PUSHMSG_OK;
}

/* The owner of a region we may have attached wants it back. */
static enum smbdx_pushmsg_verdict
__smbdx_push_recv_revoke(struct smbdx_conn *conn, const struct smbdx_pushmsg *m)
{
	struct smbdx_push_target *t;
	enum smbdx_pushmsg_verdict v;

	v = smbdx_push_rx_request(&conn->push.revoke_rx, m->seq);
	if (v)
		return v;
	t = __smbdx_push_target(conn, m->region);
	if (t && t->token != m->token)
		return SMBDX_PUSHMSG_E_FIELDS;
	/* Not attached: nothing of ours can be outstanding on it. */
	switch (t ? smbdx_push_tgt_revoke(&t->st, m->seq) : SMBDX_PUSH_ACK_NOW) {
	case SMBDX_PUSH_ACK_NOW:
		__smbdx_push_ack(conn, m->seq, m->region);
		break;
	case SMBDX_PUSH_ACK_LATER:
		break;
	default:
		return SMBDX_PUSHMSG_E_SEQ;
	}
	return SMBDX_PUSHMSG_OK;
}

/* The peer gave one of our regions back. */
static enum smbdx_pushmsg_verdict
__smbdx_push_recv_ack(struct smbdx_conn *conn, const struct smbdx_pushmsg *m)
{
	struct smbdx_push_region *r = __smbdx_push_region(conn, m->region);
	enum smbdx_pushmsg_verdict v;

	if (!r)
		return SMBDX_PUSHMSG_E_SEQ;
	v = smbdx_push_rgn_ack(&r->st, m->seq);
	if (v)
		return v;
	smbdx_push_tx_end(&conn->push.revoke_tx);
	wake_up_all(&conn->wq);
	return SMBDX_PUSHMSG_OK;
}

/**
 * __smbdx_push_recv() - a control message arrived
 * @conn: established connection, lock held
 * @body: the message's payload, inside the receive buffer
 * @di: its Data Transfer header (smbdx_data_decode() accepted it and the
 *	credit engine took its credits)
 * @invalidated: it came with Send with Invalidate (the receive path has
 *	marked the MR): never done with a control message, so an error
 *
 * Never delivered to the upper layer. Anything wrong with it ends the
 * connection with a push_* cause.
 *
 * Context: the receive completion (softirq), conn->lock held.
 */
void __smbdx_push_recv(struct smbdx_conn *conn, const void *body,
		       const struct smbdx_data_info *di, bool invalidated)
{
	enum smbdx_pushmsg_verdict v;
	struct smbdx_pushmsg m;

	lockdep_assert_held(&conn->lock);
	smbdx_stat_inc(conn, SMBDX_STAT_RX_PUSH_MSGS);
	__smbdx_push_setup(conn);
	if (!conn->push.mode.active) {
		v = SMBDX_PUSHMSG_E_UNNEGOTIATED;
	} else if (invalidated) {
		v = SMBDX_PUSHMSG_E_INVALIDATE;
	} else {
		v = smbdx_pushmsg_frame(di);
		if (!v)
			v = smbdx_pushmsg_decode(body, di->data_length, &m);
	}
	if (!v) {
		switch (m.type) {
		case SMBDX_PUSHMSG_COMMIT_REQ:
			v = __smbdx_push_recv_commit(conn, &m);
			break;
		case SMBDX_PUSHMSG_COMMIT_RESP:
			v = __smbdx_push_recv_resp(conn, &m);
			break;
		case SMBDX_PUSHMSG_REVOKE_REQ:
			v = __smbdx_push_recv_revoke(conn, &m);
			break;
		default:
			v = __smbdx_push_recv_ack(conn, &m);
			break;
		}
	}
	if (v) {
		pr_debug("connection %u: push-mode message refused: %s\n",
			 conn->num, smbdx_pushmsg_verdict_name(v));
		__smbdx_conn_fail(conn, -EPROTO, smbdx_push_cause(v));
	}
}

/* ---- serving commits (responder) ----------------------------------------- */

/* Call @fn on the CPU addresses of bytes [@off, @off + @len) of @r. */
static void smbdx_push_walk(struct smbdx_push_region *r, u64 off, u64 len,
			    void (*fn)(void *addr, size_t n))
{
	u32 i;

	for (i = 0; i < r->nbv && len; i++) {
		const struct bio_vec *bv = &r->bv[i];
		size_t n;
		u8 *p;

		if (off >= bv->bv_len) {
			off -= bv->bv_len;
			continue;
		}
		n = min_t(u64, bv->bv_len - off, len);
		p = kmap_local_page(bv->bv_page);
		fn(p + bv->bv_offset + off, n);
		kunmap_local(p);
		len -= n;
		off = 0;
	}
}

static void smbdx_push_wb(void *addr, size_t n)
{
	arch_wb_cache_pmem(addr, n);
}

/*
 * Place the 64-bit value at @off of @r: one aligned store with release
 * semantics, so a reader on any CPU that loads it with acquire semantics
 * and sees it also sees everything made visible before it; written back
 * to persistent memory when asked.
 */
static int smbdx_push_place(struct smbdx_push_region *r, u64 off, u64 value,
			    bool persistent)
{
	u32 i;

	for (i = 0; i < r->nbv; i++) {
		const struct bio_vec *bv = &r->bv[i];
		u8 *p;

		if (off >= bv->bv_len) {
			off -= bv->bv_len;
			continue;
		}
		/* Registration made every entry boundary 8-byte aligned. */
		if (bv->bv_len - off < SMBDX_PUSH_ATOMIC_LEN)
			return -EIO;
		p = kmap_local_page(bv->bv_page);
		p += bv->bv_offset + off;
#ifdef CONFIG_64BIT
		/* Pairs with the reader's smp_load_acquire() of the record. */
		smp_store_release((u64 *)p, value);
#else
		kunmap_local(p);
		return -EOPNOTSUPP;	/* never advertised */
#endif
		if (persistent) {
			arch_wb_cache_pmem(p, SMBDX_PUSH_ATOMIC_LEN);
			pmem_wmb();
		}
		kunmap_local(p);
		return 0;
	}
	return -EIO;
}

/*
 * Do commit @m on @r (checked, busy held): the range first, then the
 * value. Process context, inside smbdx_conn_enter().
 */
static enum smbdx_push_status smbdx_push_do(struct smbdx_push_region *r,
					    const struct smbdx_pushmsg *m)
{
	u64 off = m->offset, len = m->length;

	/* What the peer's RDMA Writes placed, to the CPU's view. */
	smbdx_reg_sync(r->reg, true);
	if (m->flags & SMBDX_PUSHMSG_F_REGION) {
		off = 0;
		len = r->len;
	}
	if (m->flags & SMBDX_PUSHMSG_F_PERSISTENT) {
		smbdx_push_walk(r, off, len, smbdx_push_wb);
		pmem_wmb();
	} else if (m->flags & SMBDX_PUSHMSG_F_GLOBAL) {
		/* Ordinary memory: visible to every CPU once synced; ordered. */
		smp_mb();
	}
	if (m->flags & SMBDX_PUSHMSG_F_ATOMIC) {
		if (smbdx_push_place(r, m->atomic_offset, m->atomic_value,
				     m->flags & SMBDX_PUSHMSG_F_ATOMIC_PERSISTENT))
			return SMBDX_PUSH_ST_FAILED;
		/* The CPU's store, to the device's view. */
		smbdx_reg_sync(r->reg, false);
	}
	return SMBDX_PUSH_ST_OK;
}

/* Serve the inbox, in order, until it is empty or the connection ends. */
static void smbdx_push_work(struct work_struct *w)
{
	struct smbdx_conn *conn = container_of(w, struct smbdx_conn, push.work);
	struct smbdx_conn_push *p = &conn->push;
	struct smbdx_push_region *r;
	enum smbdx_push_status st;
	struct smbdx_send_io *io;
	struct smbdx_pushmsg m;

	for (;;) {
		io = smbdx_send_io_alloc(conn, SMBDX_PUSH_IO_SIZE, GFP_KERNEL);
		spin_lock_bh(&conn->lock);
		if (conn->state != SMBDX_CS_ESTABLISHED || !p->in_count ||
		    p->refused) {
			spin_unlock_bh(&conn->lock);
			kfree(io);
			break;
		}
		m = p->inbox[p->in_head];
		p->in_head = (p->in_head + 1) % SMBDX_PUSH_MAX_COMMITS;
		p->in_count--;
		r = __smbdx_push_region(conn, m.region);
		if (!r || r->token != m.token)
			st = SMBDX_PUSH_ST_REVOKED;
		else
			st = smbdx_push_rgn_commit(&r->st);
		if (st == SMBDX_PUSH_ST_OK)
			st = smbdx_push_commit_check(r->len, r->access, &m);
		if (st == SMBDX_PUSH_ST_OK)
			r->busy++;
		spin_unlock_bh(&conn->lock);

		if (st == SMBDX_PUSH_ST_OK) {
			if (smbdx_conn_enter(conn, false)) {
				st = SMBDX_PUSH_ST_FAILED;
			} else {
				st = smbdx_push_do(r, &m);
				smbdx_conn_leave(conn);
			}
			spin_lock_bh(&conn->lock);
			r->busy--;
			spin_unlock_bh(&conn->lock);
			wake_up_all(&conn->wq);
		}

		spin_lock_bh(&conn->lock);
		__smbdx_push_answer(conn, &m, st, io);
		spin_unlock_bh(&conn->lock);
		if (st == SMBDX_PUSH_ST_OK)
			smbdx_stat_inc(conn, SMBDX_STAT_PUSH_COMMITS_SERVED);
	}
	smbdx_conn_put(conn);
}

/* ---- the API: query ------------------------------------------------------- */

static u32 smbdx_push_max_len(struct smbdx_conn *conn)
{
	return conn->mr.depth > 1 ? (conn->mr.depth - 1) * PAGE_SIZE : 0;
}

/**
 * smbdx_push_query() - what push mode a connection offers
 * @conn: connection
 * @info: filled in (all zero but the limits when push mode is off)
 *
 * Push mode is offered when both peers advertised it in the CM private
 * data (struct smbdx_conn_config.push_mode and cm_caps on both sides, IB
 * or RoCE). The answer does not change for the connection's life.
 *
 * Context: any.
 *
 * Return: 0, -ENOTCONN if the connection is not established (yet), or
 * -EOPNOTSUPP if push mode is not offered.
 */
int smbdx_push_query(struct smbdx_conn *conn, struct smbdx_push_info *info)
{
	int rc = 0;

	memset(info, 0, sizeof(*info));
	info->max_regions = SMBDX_PUSH_MAX_REGIONS;
	info->max_targets = SMBDX_PUSH_MAX_TARGETS;
	spin_lock_bh(&conn->lock);
	if (!conn->negotiated) {
		rc = -ENOTCONN;
	} else {
		__smbdx_push_setup(conn);
		if (!conn->push.mode.active) {
			rc = -EOPNOTSUPP;
		} else {
			info->path = smbdx_push_native(conn) ?
				     SMBDX_PUSH_PATH_NATIVE :
				     SMBDX_PUSH_PATH_MESSAGE;
			info->ops = conn->push.mode.ops;
			info->served = conn->push.mode.served;
			info->max_commits = conn->push.mode.commits;
			info->max_region_len = smbdx_push_max_len(conn);
		}
	}
	spin_unlock_bh(&conn->lock);
	return rc;
}
EXPORT_SYMBOL_NS_GPL(smbdx_push_query, SMBDX_NS);

/* ---- the API: the responder's regions ------------------------------------ */

static bool smbdx_push_pmem_page(struct page *page)
{
	return region_intersects(page_to_phys(page), PAGE_SIZE, IORESOURCE_MEM,
				 IORES_DESC_PERSISTENT_MEMORY) ==
	       REGION_INTERSECTS;
}

/*
 * The CPU's view of @iter's @len bytes: one entry per page piece, in
 * order, into @r->bv (room for @max entries). Kernel iterators only: the
 * pages are listed, not pinned; the caller keeps them.
 */
static int smbdx_push_pages(struct smbdx_push_region *r, struct iov_iter *iter,
			    u32 max)
{
	struct page *pages[16], **pp;
	size_t left = iov_iter_count(iter), off0;
	ssize_t got;
	u32 i;

	while (left) {
		pp = pages;
		got = iov_iter_extract_pages(iter, &pp, left, ARRAY_SIZE(pages),
					     0, &off0);
		if (got <= 0)
			return got < 0 ? got : -EIO;
		left -= got;
		for (i = 0; got > 0; i++) {
			size_t n = min_t(size_t, PAGE_SIZE - off0, got);

			if (r->nbv >= max)
				return -EIO;
			bvec_set_page(&r->bv[r->nbv++], pages[i], n, off0);
			got -= n;
			off0 = 0;
		}
	}
	return 0;
}

/* What the access asks of the pages; 0 or -EINVAL. */
static int smbdx_push_pages_fit(const struct smbdx_push_region *r)
{
	u32 i;

	for (i = 0; i < r->nbv; i++) {
		const struct bio_vec *bv = &r->bv[i];

		/* rxe refuses flush-persistent registrations the same way. */
		if ((r->access & SMBDX_PUSHACC_PERSISTENT) &&
		    !smbdx_push_pmem_page(bv->bv_page))
			return -EINVAL;
		/* An aligned 64-bit value never straddles two pieces. */
		if ((r->access & SMBDX_PUSHACC_ATOMIC) &&
		    (!IS_ALIGNED(bv->bv_offset, SMBDX_PUSH_ATOMIC_LEN) ||
		     (i + 1 < r->nbv &&
		      !IS_ALIGNED(bv->bv_len, SMBDX_PUSH_ATOMIC_LEN))))
			return -EINVAL;
	}
	return 0;
}

/**
 * smbdx_push_register() - register a region for the peer's push mode
 * @conn: established connection on which push mode is offered
 * @iter: the memory: a kernel iterator (bvec, kvec, ...; user-backed ones
 *	are refused), advanced by all of iov_iter_count() bytes, at most
 *	smbdx_push_info.max_region_len. The caller keeps the memory until
 *	smbdx_push_revoke() returned.
 * @access: SMBDX_PUSH_GLOBAL, _PERSISTENT and/or _ATOMIC: what the peer
 *	may ask (it may always write), within smbdx_push_info.served.
 *	_PERSISTENT needs persistent memory (every page in a region the
 *	kernel marks IORES_DESC_PERSISTENT_MEMORY); _ATOMIC needs the first
 *	byte 8-byte aligned and pieces whose lengths keep that alignment
 * @desc: filled in: the descriptor to hand to the peer
 *
 * The region is registered with one fast-registration MR for remote
 * write (smbdx_register() with SMBDX_REG_ONE_DESC), mapped bidirectionally
 * because this end stores the atomic value into it. It stays registered
 * until smbdx_push_revoke().
 *
 * Context: process, may sleep.
 *
 * Return: the region, or an ERR_PTR: -EOPNOTSUPP (push mode not offered,
 * or @access asks for more than this end serves), -EINVAL (bad @access,
 * empty or user-backed memory, ordinary pages for _PERSISTENT, misaligned
 * memory for _ATOMIC), -ENOSPC (SMBDX_PUSH_MAX_REGIONS regions already),
 * -EMSGSIZE (more than one MR's worth), -ENOMEM, or the connection's
 * error.
 */
struct smbdx_push_region *smbdx_push_register(struct smbdx_conn *conn,
					      struct iov_iter *iter,
					      u32 access,
					      struct smbdx_push_desc *desc)
{
	struct smbdx_conn_push *p = &conn->push;
	size_t len = iov_iter_count(iter);
	const struct smbdx_buffer_desc_v1 *d;
	struct smbdx_pushmsg *inbox = NULL;
	struct smbdx_push_region *r;
	struct iov_iter it;
	int npages, rc;
	u32 n, id = 0;

	might_sleep();
	if (!len || len > U32_MAX || user_backed_iter(iter) || !access ||
	    (access & ~SMBDX_PUSHACC_KNOWN))
		return ERR_PTR(-EINVAL);

	/* Reserve a place among the regions first. */
	spin_lock_bh(&conn->lock);
	if (conn->state != SMBDX_CS_ESTABLISHED) {
		rc = conn->error ? conn->error : -ENOTCONN;
	} else {
		__smbdx_push_setup(conn);
		if (!p->mode.active || (access & ~p->mode.served))
			rc = -EOPNOTSUPP;
		else if (p->nregions >= SMBDX_PUSH_MAX_REGIONS ||
			 p->next_region == U32_MAX)
			rc = -ENOSPC;
		else
			rc = 0;
	}
	if (!rc) {
		p->nregions++;
		id = ++p->next_region;	/* never reused, even if this fails */
	}
	spin_unlock_bh(&conn->lock);
	if (rc)
		return ERR_PTR(rc);

	it = *iter;
	npages = iov_iter_npages(&it, INT_MAX);
	r = kvzalloc(struct_size(r, bv, max(npages, 1)), GFP_KERNEL);
	if (!r) {
		rc = -ENOMEM;
		goto out_unreserve;
	}
	r->conn = conn;
	r->access = access;
	r->len = len;
	INIT_LIST_HEAD(&r->node);
	rc = smbdx_push_pages(r, iter, max(npages, 1));
	if (!rc)
		rc = smbdx_push_pages_fit(r);
	if (rc)
		goto out_free;
	if (!READ_ONCE(p->inbox)) {
		inbox = kcalloc(SMBDX_PUSH_MAX_COMMITS, sizeof(*inbox),
				GFP_KERNEL);
		if (!inbox) {
			rc = -ENOMEM;
			goto out_free;
		}
	}

	iov_iter_bvec(&it, ITER_DEST, r->bv, r->nbv, len);
	r->reg = __smbdx_register(conn, &it, SMBDX_REG_REMOTE_WRITE |
				  SMBDX_REG_ONE_DESC | SMBDX_REG_CPU_WRITES);
	if (IS_ERR(r->reg)) {
		rc = PTR_ERR(r->reg);
		goto out_free;
	}
	d = smbdx_reg_descs(r->reg, &n);
	r->token = le32_to_cpu(d[0].token);
	r->iova = le64_to_cpu(d[0].offset);

	spin_lock_bh(&conn->lock);
	if (!p->inbox) {
		p->inbox = inbox;
		inbox = NULL;
	}
	r->id = id;
	r->st.state = SMBDX_PUSH_RS_ACTIVE;
	list_add_tail(&r->node, &p->regions);
	spin_unlock_bh(&conn->lock);
	kfree(inbox);

	desc->region = cpu_to_le32(r->id);
	desc->token = cpu_to_le32(r->token);
	desc->offset = cpu_to_le64(r->iova);
	desc->length = cpu_to_le32(r->len);
	desc->access = cpu_to_le32(r->access);
	smbdx_stat_inc(conn, SMBDX_STAT_PUSH_REGIONS);
	return r;

out_free:
	kfree(inbox);
	kvfree(r);
out_unreserve:
	spin_lock_bh(&conn->lock);
	p->nregions--;
	spin_unlock_bh(&conn->lock);
	return ERR_PTR(rc);
}
EXPORT_SYMBOL_NS_GPL(smbdx_push_register, SMBDX_NS);

static bool smbdx_push_revoked(struct smbdx_conn *conn,
			       struct smbdx_push_region *r)
{
	bool done;

	spin_lock_bh(&conn->lock);
	done = r->st.state == SMBDX_PUSH_RS_REVOKED || conn->error;
	spin_unlock_bh(&conn->lock);
	return done;
}

static bool smbdx_push_idle(struct smbdx_conn *conn, struct smbdx_push_region *r)
{
	bool idle;

	spin_lock_bh(&conn->lock);
	idle = !r->busy;
	spin_unlock_bh(&conn->lock);
	return idle;
}

/**
 * smbdx_push_revoke() - take a region back from the peer and free it
 * @region: region from smbdx_push_register(); freed by this call
 *
 * The graceful path of the draft's security section: the peer is asked
 * to give the region back (REVOKE_REQ); it stops issuing operations on
 * it, waits for its outstanding ones and acknowledges; commits it sent
 * before are served first. Then the region is invalidated (LOCAL_INV)
 * and freed. A peer that does not acknowledge within the connection's
 * io_timeout ends the connection (push_timeout); so does a failure of
 * the invalidation. On a connection that already ended the region is
 * only invalidated (or was, by the teardown) and freed.
 *
 * When it returns the peer can no longer reach the memory and the caller
 * may reuse it.
 *
 * Context: process, may sleep. Each region is revoked once.
 *
 * Return: 0 when the peer gave the region back; otherwise the
 * connection's error (-ETIMEDOUT if the peer did not answer, the error
 * that ended it before, or of the invalidation). The region is freed
 * whatever the result.
 */
int smbdx_push_revoke(struct smbdx_push_region *region)
{
	struct smbdx_push_region *r = region;
	struct smbdx_conn *conn = r->conn;
	struct smbdx_conn_push *p = &conn->push;
	struct smbdx_send_io *io;
	struct smbdx_pushmsg m;
	bool asked = false;
	int rc = 0, rc2;
	u32 seq;

	might_sleep();
	io = smbdx_send_io_alloc(conn, SMBDX_PUSH_IO_SIZE, GFP_KERNEL);
	smbdx_conn_wait_begin(conn);
	spin_lock_bh(&conn->lock);
	if (conn->state != SMBDX_CS_ESTABLISHED) {
		/* Nobody to ask: teardown took the peer's access away. */
	} else if (!io) {
		/* No memory for the request: the region must go anyway. */
		__smbdx_conn_fail(conn, -ENOMEM, SMBDX_CAUSE_NOMEM);
	} else if (r->st.state == SMBDX_PUSH_RS_ACTIVE &&
		   !smbdx_push_tx_begin(&p->revoke_tx, &seq)) {
		/* At most one per region, so never more than the limit. */
		smbdx_push_rgn_revoke(&r->st, seq);
		m = (struct smbdx_pushmsg){
			.type = SMBDX_PUSHMSG_REVOKE_REQ, .seq = seq,
			.region = r->id, .token = r->token,
		};
		rc = __smbdx_push_send(conn, &m, io, 0);
		io = NULL;
		asked = !rc;
	}
	spin_unlock_bh(&conn->lock);
	kfree(io);

	if (asked) {
		smbdx_stat_inc(conn, SMBDX_STAT_PUSH_REVOKES);
		wait_event_timeout(conn->wq, smbdx_push_revoked(conn, r),
				   conn->io_timeout_j);
	}
	spin_lock_bh(&conn->lock);
	if (r->st.state != SMBDX_PUSH_RS_REVOKED) {
		if (!conn->error)
			__smbdx_conn_fail(conn, -ETIMEDOUT,
					  SMBDX_CAUSE_PUSH_TIMEOUT);
		rc = conn->error;
	}
	spin_unlock_bh(&conn->lock);

	/*
	 * The push work may still be placing a value into it; once it is
	 * off the list (in the same section that found it idle) the work
	 * cannot find it again.
	 */
	for (;;) {
		spin_lock_bh(&conn->lock);
		if (!r->busy) {
			list_del_init(&r->node);
			p->nregions--;
			spin_unlock_bh(&conn->lock);
			break;
		}
		spin_unlock_bh(&conn->lock);
		wait_event(conn->wq, smbdx_push_idle(conn, r));
	}
	smbdx_conn_wait_end(conn);
	rc2 = smbdx_deregister(r->reg);
	kvfree(r);
	return rc ? rc : rc2;
}
EXPORT_SYMBOL_NS_GPL(smbdx_push_revoke, SMBDX_NS);

/* ---- the API: the requester's targets ------------------------------------ */

/**
 * smbdx_push_attach() - take a peer region's descriptor for push mode
 * @conn: established connection on which push mode is offered
 * @desc: the descriptor the peer's smbdx_push_register() filled in, as
 *	the upper layer received it (hostile input: checked here)
 *
 * Context: process.
 *
 * Return: the target, to use with smbdx_push_write() and
 * smbdx_push_commit() until smbdx_push_detach(), or an ERR_PTR:
 * -EOPNOTSUPP (push mode not offered, or the peer serves nothing),
 * -EINVAL (region id 0, empty region, unknown access bits, a region
 * whose end passes 2^64), -EEXIST (that region is attached already),
 * -ENOSPC (SMBDX_PUSH_MAX_TARGETS attached), -ENOMEM, or the
 * connection's error.
 */
struct smbdx_push_target *smbdx_push_attach(struct smbdx_conn *conn,
					    const struct smbdx_push_desc *desc)
{
	struct smbdx_conn_push *p = &conn->push;
	struct smbdx_push_target *t;
	int rc;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return ERR_PTR(-ENOMEM);
	t->region = le32_to_cpu(desc->region);
	t->token = le32_to_cpu(desc->token);
	t->iova = le64_to_cpu(desc->offset);
	t->len = le32_to_cpu(desc->length);
	t->access = le32_to_cpu(desc->access);
	if (!t->region || !t->len || (t->access & ~SMBDX_PUSHACC_KNOWN) ||
	    t->iova > U64_MAX - t->len) {
		kfree(t);
		return ERR_PTR(-EINVAL);
	}
	t->conn = conn;
	t->st.state = SMBDX_PUSH_TS_ATTACHED;

	spin_lock_bh(&conn->lock);
	if (conn->state != SMBDX_CS_ESTABLISHED) {
		rc = conn->error ? conn->error : -ENOTCONN;
	} else {
		__smbdx_push_setup(conn);
		if (!p->mode.active || !p->mode.ops)
			rc = -EOPNOTSUPP;
		else if (__smbdx_push_target(conn, t->region))
			rc = -EEXIST;
		else if (p->ntargets >= SMBDX_PUSH_MAX_TARGETS)
			rc = -ENOSPC;
		else
			rc = 0;
	}
	if (!rc) {
		list_add_tail(&t->node, &p->targets);
		p->ntargets++;
	}
	spin_unlock_bh(&conn->lock);
	if (rc) {
		kfree(t);
		return ERR_PTR(rc);
	}
	smbdx_conn_get(conn);
	return t;
}
EXPORT_SYMBOL_NS_GPL(smbdx_push_attach, SMBDX_NS);

/**
 * smbdx_push_detach() - forget a peer region
 * @target: target from smbdx_push_attach(), with no call of the caller's
 *	still running on it; freed by this call
 *
 * A revoke request for the region that arrives later is acknowledged at
 * once.
 *
 * Context: process.
 */
void smbdx_push_detach(struct smbdx_push_target *target)
{
	struct smbdx_conn *conn = target->conn;

	spin_lock_bh(&conn->lock);
	list_del_init(&target->node);
	conn->push.ntargets--;
	spin_unlock_bh(&conn->lock);
	kfree(target);
	smbdx_conn_put(conn);
}
EXPORT_SYMBOL_NS_GPL(smbdx_push_detach, SMBDX_NS);

/* An operation on @t starts: 0, or why it may not. */
static int smbdx_push_op_begin(struct smbdx_push_target *t)
{
	struct smbdx_conn *conn = t->conn;
	int rc;

	spin_lock_bh(&conn->lock);
	if (conn->state != SMBDX_CS_ESTABLISHED)
		rc = conn->error ? conn->error : -ENOTCONN;
	else
		rc = smbdx_push_tgt_begin(&t->st);
	spin_unlock_bh(&conn->lock);
	return rc;
}

/* An operation on @t ended; the last one of a revoke acknowledges it. */
static void smbdx_push_op_end(struct smbdx_push_target *t)
{
	struct smbdx_conn *conn = t->conn;

	spin_lock_bh(&conn->lock);
	if (smbdx_push_tgt_end(&t->st))
		__smbdx_push_ack(conn, t->st.seq, t->region);
	spin_unlock_bh(&conn->lock);
}

/**
 * smbdx_push_write() - RDMA Write into a peer region
 * @target: target from smbdx_push_attach()
 * @offset: where the data goes, from the region's start
 * @from: the data: a kernel iterator, advanced by what was written; at
 *	most the negotiated MaxReadWriteSize bytes per call
 *
 * Waits until the Write completed. The data is placed in the peer's
 * memory but neither known to be visible nor persistent: a commit
 * (smbdx_push_commit(), smbdx_push_flush()) after it makes it so.
 *
 * Context: process, may sleep.
 *
 * Return: 0; -EINVAL (empty), -ERANGE (past the region's end),
 * -EKEYREVOKED (the peer took the region back); otherwise as
 * smbdx_rdma_write().
 */
int smbdx_push_write(struct smbdx_push_target *target, u64 offset,
		     struct iov_iter *from)
{
	struct smbdx_push_target *t = target;
	struct smbdx_buffer_desc d = {
		.offset = t->iova, .token = t->token, .length = t->len,
	};
	struct smbdx_buffer_desc_v1 bd;
	size_t len = iov_iter_count(from);
	int rc;

	might_sleep();
	rc = smbdx_push_range_check(t->len, offset, len);
	if (rc)
		return rc;
	rc = smbdx_push_op_begin(t);
	if (rc)
		return rc;
	smbdx_bd_v1_encode(&d, &bd);
	rc = smbdx_rdma_write(t->conn, from, &bd, 1, offset);
	smbdx_push_op_end(t);
	if (!rc) {
		smbdx_stat_inc(t->conn, SMBDX_STAT_PUSH_WRITES);
		smbdx_stat_add(t->conn, SMBDX_STAT_PUSH_WRITE_BYTES, len);
	}
	return rc;
}
EXPORT_SYMBOL_NS_GPL(smbdx_push_write, SMBDX_NS);

static bool smbdx_push_answered(struct smbdx_conn *conn,
				struct smbdx_push_wait *w)
{
	bool done;

	spin_lock_bh(&conn->lock);
	done = w->done || conn->error;
	spin_unlock_bh(&conn->lock);
	return done;
}

static bool smbdx_push_slot(struct smbdx_conn *conn)
{
	bool free;

	spin_lock_bh(&conn->lock);
	free = conn->push.commit_tx.open < conn->push.commit_tx.limit ||
	       conn->error;
	spin_unlock_bh(&conn->lock);
	return free;
}

/* The message path: send @m, wait for its answer. */
static int smbdx_push_commit_msg(struct smbdx_push_target *t,
				 struct smbdx_pushmsg *m)
{
	struct smbdx_conn *conn = t->conn;
	struct smbdx_conn_push *p = &conn->push;
	unsigned long deadline = jiffies + conn->io_timeout_j;
	struct smbdx_push_wait w = { .region = t->region };
	struct smbdx_send_io *io;
	long left;
	int rc;

	io = smbdx_send_io_alloc(conn, SMBDX_PUSH_IO_SIZE, GFP_KERNEL);
	if (!io)
		return -ENOMEM;
	INIT_LIST_HEAD(&w.node);
	smbdx_conn_wait_begin(conn);
	for (;;) {
		spin_lock_bh(&conn->lock);
		if (conn->state != SMBDX_CS_ESTABLISHED) {
			rc = conn->error ? conn->error : -ENOTCONN;
			break;
		}
		rc = smbdx_push_tx_begin(&p->commit_tx, &m->seq);
		if (!rc) {
			w.seq = m->seq;
			list_add_tail(&w.node, &p->waits);
			rc = __smbdx_push_send(conn, m, io, 0);
			io = NULL;
			break;
		}
		spin_unlock_bh(&conn->lock);
		/* max_commits outstanding: wait for one to be answered. */
		left = (long)(deadline - jiffies);
		if (left <= 0 ||
		    !wait_event_timeout(conn->wq, smbdx_push_slot(conn), left)) {
			spin_lock_bh(&conn->lock);
			rc = -ETIMEDOUT;
			break;
		}
	}
	spin_unlock_bh(&conn->lock);
	kfree(io);

	if (!rc) {
		left = max_t(long, (long)(deadline - jiffies), 1);
		wait_event_timeout(conn->wq, smbdx_push_answered(conn, &w), left);
	}
	spin_lock_bh(&conn->lock);
	if (!rc && !w.done && !conn->error)
		rc = -ETIMEDOUT;
	if (rc == -ETIMEDOUT && !conn->error)
		__smbdx_conn_fail(conn, -ETIMEDOUT, SMBDX_CAUSE_PUSH_TIMEOUT);
	if (!list_empty(&w.node))
		list_del_init(&w.node);
	if (!rc)
		rc = w.done ? smbdx_push_status_errno(w.status) : conn->error;
	spin_unlock_bh(&conn->lock);
	smbdx_conn_wait_end(conn);
	return rc;
}

/**
 * smbdx_push_commit() - make a range of a peer region visible or
 *	persistent, then place a 64-bit value
 * @target: target from smbdx_push_attach()
 * @commit: what to do (struct smbdx_push_commit)
 *
 * The range (or the whole region) reaches the state asked for before the
 * call returns 0: globally visible (every CPU of the peer sees what
 * earlier writes placed) and/or persistent (in the peer's persistent
 * memory). The value, if any, is placed after that and after every
 * earlier commit on the connection completed, with one aligned 64-bit
 * store, itself persistent with SMBDX_PUSH_ATOMIC_PERSISTENT.
 *
 * On the message path this is one round trip through the peer's
 * smbdirect (not its upper layer); at most smbdx_push_info.max_commits
 * commits are outstanding per connection, more callers wait their turn
 * within io_timeout.
 *
 * Context: process, may sleep.
 *
 * Return: 0 when done. Local errors leave the connection up: -EINVAL (no
 * operation, an empty range, a misaligned value), -ERANGE (outside the
 * region), -EACCES (the region was not registered for it), -EOPNOTSUPP
 * (the peer does not serve it), -EKEYREVOKED (the peer took the region
 * back), -ENOMEM. A refusal by the peer ends the connection with a named
 * cause and returns the same errors; -ETIMEDOUT if no answer came within
 * io_timeout (the connection ends); or the connection's error.
 */
int smbdx_push_commit(struct smbdx_push_target *target,
		      const struct smbdx_push_commit *commit)
{
	struct smbdx_push_target *t = target;
	struct smbdx_conn *conn = t->conn;
	u32 f = commit->flags, need = 0, ops;
	struct smbdx_pushmsg m = {
		.type = SMBDX_PUSHMSG_COMMIT_REQ, .region = t->region,
		.token = t->token,
	};
	enum smbdx_push_status st;
	int rc;

	might_sleep();
	if (f & ~(SMBDX_PUSH_GLOBAL | SMBDX_PUSH_PERSISTENT | SMBDX_PUSH_ATOMIC |
		  SMBDX_PUSH_REGION | SMBDX_PUSH_ATOMIC_PERSISTENT))
		return -EINVAL;
	if (f & SMBDX_PUSH_GLOBAL)
		m.flags |= SMBDX_PUSHMSG_F_GLOBAL;
	if (f & SMBDX_PUSH_PERSISTENT)
		m.flags |= SMBDX_PUSHMSG_F_PERSISTENT;
	if (f & SMBDX_PUSH_REGION)
		m.flags |= SMBDX_PUSHMSG_F_REGION;
	if (f & SMBDX_PUSH_ATOMIC)
		m.flags |= SMBDX_PUSHMSG_F_ATOMIC;
	if (f & SMBDX_PUSH_ATOMIC_PERSISTENT)
		m.flags |= SMBDX_PUSHMSG_F_ATOMIC_PERSISTENT;
	if ((m.flags & SMBDX_PUSHMSG_F_FLUSH) && !(f & SMBDX_PUSH_REGION)) {
		m.offset = commit->offset;
		m.length = commit->length;
	}
	if (f & SMBDX_PUSH_ATOMIC) {
		m.atomic_offset = commit->atomic_offset;
		m.atomic_value = commit->value;
	}
	/* What the peer would refuse, refused here with the connection up. */
	if (smbdx_pushmsg_check(&m))
		return -EINVAL;
	st = smbdx_push_commit_check(t->len, t->access, &m);
	if (st)
		return smbdx_push_status_errno(st);

	need = f & (SMBDX_PUSH_GLOBAL | SMBDX_PUSH_PERSISTENT | SMBDX_PUSH_ATOMIC);
	if (f & SMBDX_PUSH_ATOMIC_PERSISTENT)
		need |= SMBDX_PUSH_PERSISTENT;
	spin_lock_bh(&conn->lock);
	ops = conn->push.mode.ops;
	spin_unlock_bh(&conn->lock);
	if (need & ~ops)
		return -EOPNOTSUPP;

	rc = smbdx_push_op_begin(t);
	if (rc)
		return rc;
	if (smbdx_push_native(conn))
		rc = smbdx_push_native_commit(t, &m);
	else
		rc = smbdx_push_commit_msg(t, &m);
	smbdx_push_op_end(t);
	if (!rc)
		smbdx_stat_inc(conn, SMBDX_STAT_PUSH_COMMITS);
	return rc;
}
EXPORT_SYMBOL_NS_GPL(smbdx_push_commit, SMBDX_NS);

/**
 * smbdx_push_flush() - make a range of a peer region visible or persistent
 * @target: target from smbdx_push_attach()
 * @offset: first byte, from the region's start (0 with SMBDX_PUSH_REGION)
 * @length: bytes (0 with SMBDX_PUSH_REGION)
 * @flags: SMBDX_PUSH_GLOBAL and/or SMBDX_PUSH_PERSISTENT, optionally
 *	SMBDX_PUSH_REGION for the whole region
 *
 * smbdx_push_commit() without a value.
 *
 * Context: process, may sleep.
 *
 * Return: as smbdx_push_commit().
 */
int smbdx_push_flush(struct smbdx_push_target *target, u64 offset,
		     u64 length, u32 flags)
{
	struct smbdx_push_commit c = {
		.offset = offset, .length = length,
	};

	if (flags & ~(SMBDX_PUSH_GLOBAL | SMBDX_PUSH_PERSISTENT |
		      SMBDX_PUSH_REGION))
		return -EINVAL;
	c.flags = flags;
	return smbdx_push_commit(target, &c);
}
EXPORT_SYMBOL_NS_GPL(smbdx_push_flush, SMBDX_NS);

/**
 * smbdx_push_atomic_write() - place a 64-bit value into a peer region
 * @target: target from smbdx_push_attach()
 * @offset: where, from the region's start: 8-byte aligned
 * @value: the value
 * @flags: 0, or SMBDX_PUSH_PERSISTENT to make the value persistent too
 *
 * The value is placed with one aligned store after every earlier commit
 * on the connection completed (smbdx_push_commit() without a range).
 *
 * Context: process, may sleep.
 *
 * Return: as smbdx_push_commit().
 */
int smbdx_push_atomic_write(struct smbdx_push_target *target, u64 offset,
			    u64 value, u32 flags)
{
	struct smbdx_push_commit c = {
		.atomic_offset = offset, .value = value,
		.flags = SMBDX_PUSH_ATOMIC,
	};

	if (flags & ~SMBDX_PUSH_PERSISTENT)
		return -EINVAL;
	if (flags & SMBDX_PUSH_PERSISTENT)
		c.flags |= SMBDX_PUSH_ATOMIC_PERSISTENT;
	return smbdx_push_commit(target, &c);
}
EXPORT_SYMBOL_NS_GPL(smbdx_push_atomic_write, SMBDX_NS);
