// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA Write to and RDMA Read from a peer buffer (MS-SMBD 3.1.4.5,
 * 3.1.4.6) with the kernel's rdma_rw API.
 *
 * Normal operation: smbdx_desc_select() (desc.c, pure) turns the peer's
 * Buffer Descriptor V1 array and an offset into the remote pieces the
 * local buffer maps onto. Each piece is cut into chunks of at most
 * conn->rw.chunk bytes; a chunk is one rdma_rw context over the matching
 * part of the local iov_iter, posted as one chain with only its last work
 * request signaled. The caller waits until every chunk completed, then the
 * contexts are destroyed (DMA unmapped, rdma_rw's own MRs returned).
 *
 * Local MR for Writes: rdma_rw writes from SGE lists, one work request per
 * max_send_sge entries, which on devices with few send SGEs (siw has 6)
 * means dozens of small work requests per chunk of scattered pages. Where
 * the QP has rdma_rw's MR pool (iWARP, which needs it for Read targets) and
 * a Write chunk would take more than SMBDX_RW_LMR_MIN_WRS work requests, the
 * chunk is registered with one of those MRs instead, for local access only,
 * and sent as REG_MR, one RDMA Write with a single SGE, LOCAL_INV. When no
 * MR is free or the pages have gaps an MR cannot map, the chunk goes
 * through rdma_rw as usual. Like rdma_rw, an MR taken from the pool is
 * invalidated first if its need_inval says it is still valid.
 *
 * Flow control: the QP's send queue was sized for conn->rw.ctxs contexts
 * of at most one chunk each (rdma_rw_init_qp() adds its share, and
 * smbdx_rw_plan() adds room for the work requests of a chunk); a context
 * is started only when one of the conn->rw.ctxs slots and enough of the
 * send-queue budget are free, and RDMA Read contexts in flight never
 * exceed the connection's ORD. Operations larger than the negotiated
 * MaxReadWriteSize are refused.
 *
 * Locking: this file owns conn->rw (struct smbdx_conn_rw, smbd.h).
 * conn->lock (BH) protects the slot and budget counters and the orphan
 * list, and is held while posting (after checking the state). The API
 * call counts in conn->mr.users (mr.c's gate) for its whole duration, so
 * teardown, which drains the QP first and then waits for mr.users,
 * destroys the QP only after every context was destroyed.
 *
 * Transport recovery: a failed completion (a remote access error after the
 * peer invalidated its buffer, say) terminates the connection and fails
 * the call with the connection's error (-EIO when the failure came first);
 * other connections are not affected. So does a call whose work requests
 * have not all completed within the connection's io_timeout (a peer that
 * never answers an RDMA Read): the connection ends (wr_timeout), and the
 * call returns -ETIMEDOUT once the flush has completed them
 * (smbdx_conn_wait_wr()). If a chain was
 * posted only in part, its context may still have work requests queued:
 * it is handed to the connection (rw.orphans) and destroyed at teardown
 * after the drain.
 *
 * The RDMA transform (smbdx_rdma_write_xform()): a Write of a payload the
 * caller sealed or signed is an ordinary Write, counted in xform_sealed or
 * xform_signed; the fault point xform_tamper then overwrites its first
 * octet in the peer's buffer with a second, one-octet Write.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <linux/uio.h>
#include <rdma/rw.h>

#include "smbd.h"
#include "desc.h"
#include "trace.h"

/* Largest chunk: 256 pages, and within one rdma_rw MR on iWARP reads. */
#define SMBDX_RW_CHUNK_PAGES	256

/* A Write chunk needing more work requests than this uses a local MR. */
#define SMBDX_RW_LMR_MIN_WRS	2

/**
 * struct smbdx_rw_op - one smbdx_rdma_read()/smbdx_rdma_write() call
 * @pending: chunks posted and not completed, plus one for the caller
 * @status: first failed work completion status
 * @done: @pending reached zero
 */
struct smbdx_rw_op {
	atomic_t pending;
	int status;
	struct completion done;
};

/**
 * struct smbdx_rw_chunk - one rdma_rw context
 * @list: entry in the call's list, or in conn->rw.orphans
 * @conn: connection
 * @op: the call, NULL for an orphan
 * @cqe: completion of the context's last work request
 * @err_cqe: completion of any other work request of the chunk: they are
 *	unsignaled, so it only ever sees a failure (or a flush)
 * @ctx: the rdma_rw context, valid if @ctx_ok
 * @ctx_ok: rdma_rw_ctx_init() succeeded
 * @slot: holds a context slot (and a read slot if @read)
 * @done: its last work request completed (set under conn->lock)
 * @read: RDMA Read (else Write)
 * @wrs: work requests the context uses (send-queue budget taken)
 * @len: bytes
 * @cid: completion id (tracepoints)
 * @sgt: the local pages
 * @lmr: local MR from the QP's rdma_rw pool (Write through a local MR)
 * @dma_nents: entries DMA-mapped for @lmr, 0 if not mapped
 * @inv_first: invalidates @lmr before registering it (its need_inval)
 * @inv_wr: that first LOCAL_INV
 * @reg_wr: REG_MR of @lmr
 * @wr: the RDMA Write through @lmr
 * @sge: its single SGE
 * @inv_last: the final LOCAL_INV, signaled
 */
struct smbdx_rw_chunk {
	struct list_head list;
	struct smbdx_conn *conn;
	struct smbdx_rw_op *op;
	struct ib_cqe cqe;
	struct ib_cqe err_cqe;
	struct rdma_rw_ctx ctx;
	bool ctx_ok;
	bool slot;
	bool done;
	bool read;
	u32 wrs;
	u32 len;
	u32 cid;
	struct sg_table sgt;
	struct ib_mr *lmr;
	int dma_nents;
	bool inv_first;
	struct ib_send_wr inv_wr;
	struct ib_reg_wr reg_wr;
	struct ib_rdma_wr wr;
	struct ib_sge sge;
	struct ib_send_wr inv_last;
};

/**
 * smbdx_rw_plan() - size the RDMA read/write resources before the QP exists
 * @conn: connection whose limits are known
 * @room: send queue entries the device still allows
 *
 * Return: send queue entries to add for the chunks' work requests (beyond
 * what rdma_rw_init_qp() adds by itself); conn->rw.ctxs is set to the
 * contexts that fit, at least one.
 */
u32 smbdx_rw_plan(struct smbdx_conn *conn, u32 room)
{
	u32 per_ctx, ctxs = max(smbdx_rw_ctxs, 1U);

	conn->rw.chunk = min_t(u32, SMBDX_RW_CHUNK_PAGES,
			       max(conn->limits.frwr_depth, 2U) - 1) * PAGE_SIZE;
	/* A chunk not starting on a page boundary touches one more page. */
	per_ctx = smbdx_dev_rw_wrs(&conn->limits, conn->rw.chunk / PAGE_SIZE + 1);
	while (ctxs > 1 && ctxs * per_ctx > room)
		ctxs--;
	conn->rw.ctxs = ctxs;
	conn->rw.wr_budget = ctxs * per_ctx;
	conn->rw.ctx_avail = ctxs;
	conn->rw.wr_avail = conn->rw.wr_budget;
	return conn->rw.wr_budget;
}

static void smbdx_rw_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smbdx_rw_chunk *ch = container_of(wc->wr_cqe,
						struct smbdx_rw_chunk, cqe);
	struct smbdx_conn *conn = ch->conn;
	struct smbdx_rw_op *op = ch->op;
	bool last;

	trace_smbdx_rw_done(conn, ch->cid, ch->read, ch->len, wc);
	spin_lock_bh(&conn->lock);
	if (__smbdx_conn_wc_failed(conn, wc, SMBDX_CAUSE_RW_ERROR)) {
		if (op && !op->status)
			op->status = wc->status;
	} else if (ch->lmr) {
		/* The chain ended with LOCAL_INV: the MR is invalid again. */
		ch->lmr->need_inval = false;
	}
	/* The caller may free @ch as soon as it sees this. */
	ch->done = true;
	last = op && atomic_dec_and_test(&op->pending);
	spin_unlock_bh(&conn->lock);
	wake_up_all(&conn->wq);
	if (last)
		complete(&op->done);
}

/*
 * An unsignaled work request of a chunk failed (the peer refused the
 * first Write of a chain, say). The completion of the chunk's last work
 * request follows, flushed; this one comes first and names the real
 * cause, which a flush alone would report as the peer's disconnect.
 */
static void smbdx_rw_wr_failed(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smbdx_rw_chunk *ch = container_of(wc->wr_cqe,
						 struct smbdx_rw_chunk, err_cqe);
	struct smbdx_conn *conn = ch->conn;

	trace_smbdx_rw_done(conn, ch->cid, ch->read, ch->len, wc);
	spin_lock_bh(&conn->lock);
	__smbdx_conn_wc_failed(conn, wc, SMBDX_CAUSE_RW_ERROR);
	if (ch->op && !ch->op->status)
		ch->op->status = wc->status;
	spin_unlock_bh(&conn->lock);
}

static void smbdx_rw_chunk_free(struct smbdx_conn *conn,
				struct smbdx_rw_chunk *ch)
{
	struct ib_qp *qp = conn->id->qp;

	if (ch->ctx_ok)
		rdma_rw_ctx_destroy(&ch->ctx, qp, conn->id->port_num,
				    ch->sgt.sgl, ch->sgt.nents,
				    ch->read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	if (ch->lmr)
		ib_mr_pool_put(qp, &qp->rdma_mrs, ch->lmr);
	if (ch->dma_nents)
		ib_dma_unmap_sg(qp->device, ch->sgt.sgl, ch->sgt.nents,
				DMA_TO_DEVICE);
	smbdx_sgt_free(&ch->sgt);
	kfree(ch);
}

/*
 * Free a chunk and give back its slot and send-queue budget, in that order:
 * the next holder of the slot may need the MR the chunk returns to the pool.
 */
static void smbdx_rw_chunk_put(struct smbdx_conn *conn, struct smbdx_rw_chunk *ch)
{
	bool slot = ch->slot, read = ch->read;
	u32 wrs = ch->wrs;

	smbdx_rw_chunk_free(conn, ch);
	if (slot) {
		spin_lock_bh(&conn->lock);
		conn->rw.ctx_avail++;
		if (read)
			conn->rw.rd_used--;
		conn->rw.wr_avail += wrs;
		spin_unlock_bh(&conn->lock);
	}
}

/*
 * Free the call's chunks that completed, so that a call larger than the
 * slots or the budget can go on with its own resources. Returns how many.
 */
static int smbdx_rw_reap(struct smbdx_conn *conn, struct list_head *list)
{
	struct smbdx_rw_chunk *ch, *tmp;
	int n = 0;

	list_for_each_entry_safe(ch, tmp, list, list) {
		bool done;

		/* Set under the lock, after the handler's last use of @ch. */
		spin_lock_bh(&conn->lock);
		done = ch->done;
		spin_unlock_bh(&conn->lock);
		if (!done)
			continue;
		list_del(&ch->list);
		smbdx_rw_chunk_put(conn, ch);
		n++;
	}
	if (n)
		wake_up_all(&conn->wq);
	return n;
}

static bool smbdx_rw_any_done(struct list_head *list)
{
	struct smbdx_rw_chunk *ch;

	list_for_each_entry(ch, list, list)
		if (READ_ONCE(ch->done))
			return true;
	return false;
}

/**
 * smbdx_rw_release_orphans() - destroy contexts posted only in part
 * @conn: connection whose QP is drained
 *
 * Context: process, teardown, before the QP is destroyed.
 */
void smbdx_rw_release_orphans(struct smbdx_conn *conn)
{
	struct smbdx_rw_chunk *ch, *tmp;
	LIST_HEAD(list);

	spin_lock_bh(&conn->lock);
	list_splice_init(&conn->rw.orphans, &list);
	spin_unlock_bh(&conn->lock);
	list_for_each_entry_safe(ch, tmp, &list, list) {
		list_del(&ch->list);
		smbdx_rw_chunk_free(conn, ch);
	}
}

/* RDMA Read contexts allowed in flight: the ORD, within the slots. */
static u32 smbdx_rw_rd_max(struct smbdx_conn *conn)
{
	return clamp_t(u32, READ_ONCE(conn->ord), 1, conn->rw.ctxs);
}

/*
 * Take a context slot (and a read slot); when none is free, free the
 * call's own completed chunks, or wait. 0 or the connection's error.
 */
static int smbdx_rw_get_slot(struct smbdx_conn *conn, bool read,
			     struct list_head *list)
{
	int rc;

	for (;;) {
		spin_lock_bh(&conn->lock);
		if (conn->mr.dead || conn->state != SMBDX_CS_ESTABLISHED) {
			rc = conn->error ? conn->error : -ENOTCONN;
		} else if (conn->rw.ctx_avail &&
			   (!read || conn->rw.rd_used < smbdx_rw_rd_max(conn))) {
			conn->rw.ctx_avail--;
			if (read)
				conn->rw.rd_used++;
			rc = 0;
		} else {
			rc = -EAGAIN;
		}
		spin_unlock_bh(&conn->lock);
		if (rc != -EAGAIN)
			return rc;
		if (smbdx_rw_reap(conn, list))
			continue;
		wait_event(conn->wq,
			   (READ_ONCE(conn->rw.ctx_avail) &&
			    (!read || READ_ONCE(conn->rw.rd_used) <
			     smbdx_rw_rd_max(conn))) ||
			   smbdx_rw_any_done(list) ||
			   READ_ONCE(conn->mr.dead) ||
			   READ_ONCE(conn->state) != SMBDX_CS_ESTABLISHED);
	}
}

/* Take @wrs of the send-queue budget, waiting like smbdx_rw_get_slot(). */
static int smbdx_rw_get_wrs(struct smbdx_conn *conn, u32 wrs,
			    struct list_head *list)
{
	int rc;

	if (wrs > conn->rw.wr_budget)
		return -E2BIG;
	for (;;) {
		spin_lock_bh(&conn->lock);
		if (conn->mr.dead || conn->state != SMBDX_CS_ESTABLISHED) {
			rc = conn->error ? conn->error : -ENOTCONN;
		} else if (conn->rw.wr_avail >= wrs) {
			conn->rw.wr_avail -= wrs;
			rc = 0;
		} else {
			rc = -EAGAIN;
		}
		spin_unlock_bh(&conn->lock);
		if (rc != -EAGAIN)
			return rc;
		if (smbdx_rw_reap(conn, list))
			continue;
		wait_event(conn->wq, READ_ONCE(conn->rw.wr_avail) >= wrs ||
			   smbdx_rw_any_done(list) ||
			   READ_ONCE(conn->mr.dead) ||
			   READ_ONCE(conn->state) != SMBDX_CS_ESTABLISHED);
	}
}

/*
 * Prepare a Write chunk to go through a local MR (see the top of the file):
 * map its pages, take an MR from the QP's rdma_rw pool and build the chain
 * [LOCAL_INV,] REG_MR, RDMA Write, LOCAL_INV. Returns its work requests, 0
 * when the chunk should go through rdma_rw instead, or a negative error.
 */
static int smbdx_rw_lmr_init(struct smbdx_conn *conn, struct smbdx_rw_chunk *ch,
			     const struct smbdx_rw_seg *seg)
{
	struct ib_qp *qp = conn->id->qp;
	u32 sge = max_t(u32, qp->max_write_sge, 1);
	struct ib_mr *mr;
	int n, wrs = 3;

	if (!conn->limits.rw_write_mr ||
	    ch->sgt.nents <= SMBDX_RW_LMR_MIN_WRS * sge)
		return 0;
	mr = ib_mr_pool_get(qp, &qp->rdma_mrs);
	if (!mr)
		return 0;
	ch->lmr = mr;
	ch->dma_nents = ib_dma_map_sg(qp->device, ch->sgt.sgl, ch->sgt.nents,
				      DMA_TO_DEVICE);
	if (!ch->dma_nents)
		return -ENOMEM;
	n = ib_map_mr_sg(mr, ch->sgt.sgl, ch->dma_nents, NULL, PAGE_SIZE);
	if (n != ch->dma_nents || mr->length != seg->len) {
		/* Gaps, or more pages than the MR holds: use rdma_rw. */
		ib_dma_unmap_sg(qp->device, ch->sgt.sgl, ch->sgt.nents,
				DMA_TO_DEVICE);
		ch->dma_nents = 0;
		ib_mr_pool_put(qp, &qp->rdma_mrs, mr);
		ch->lmr = NULL;
		return 0;
	}

	ch->inv_first = mr->need_inval;
	if (ch->inv_first) {
		ch->inv_wr.opcode = IB_WR_LOCAL_INV;
		ch->inv_wr.ex.invalidate_rkey = mr->lkey;
		ch->inv_wr.next = &ch->reg_wr.wr;
		wrs++;
	}
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->lkey));
	ch->reg_wr.wr.opcode = IB_WR_REG_MR;
	ch->reg_wr.wr.next = &ch->wr.wr;
	ch->reg_wr.mr = mr;
	ch->reg_wr.key = mr->lkey;
	ch->reg_wr.access = IB_ACCESS_LOCAL_WRITE;

	ch->sge.addr = mr->iova;
	ch->sge.length = mr->length;
	ch->sge.lkey = mr->lkey;
	ch->wr.wr.opcode = IB_WR_RDMA_WRITE;
	ch->wr.wr.sg_list = &ch->sge;
	ch->wr.wr.num_sge = 1;
	ch->wr.wr.next = &ch->inv_last;
	ch->wr.remote_addr = seg->addr;
	ch->wr.rkey = seg->rkey;

	ch->inv_last.opcode = IB_WR_LOCAL_INV;
	ch->inv_last.ex.invalidate_rkey = mr->lkey;
	ch->inv_last.send_flags = IB_SEND_SIGNALED;
	ch->inv_last.wr_cqe = &ch->cqe;
	return wrs;
}

/* Build, account and post one chunk; on error it is still on @list. */
static int smbdx_rw_chunk_start(struct smbdx_conn *conn, struct smbdx_rw_op *op,
				struct list_head *list, struct iov_iter *iter,
			       const struct smbdx_rw_seg *seg, bool read)
{
	enum dma_data_direction dir = read ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr *first, *wr;
	struct smbdx_rw_chunk *ch;
	struct iov_iter copy;
	int npages, n, rc;
	ssize_t got;

	ch = smbdx_fault(SMBDX_FAULT_RW_ALLOC) ? NULL :
	     kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch)
		return -ENOMEM;
	ch->conn = conn;
	ch->op = op;
	ch->read = read;
	ch->len = seg->len;
	ch->cqe.done = smbdx_rw_done;
	ch->err_cqe.done = smbdx_rw_wr_failed;
	list_add_tail(&ch->list, list);

	rc = smbdx_rw_get_slot(conn, read, list);
	if (rc)
		return rc;
	ch->slot = true;

	copy = *iter;
	iov_iter_truncate(&copy, seg->len);
	npages = iov_iter_npages(&copy, INT_MAX);
	rc = smbdx_sgt_alloc(&ch->sgt, npages);
	if (rc)
		return rc;
	ch->sgt.nents = 0;
	got = extract_iter_to_sg(iter, seg->len, &ch->sgt, npages, 0);
	if (got != seg->len)
		return got < 0 ? got : -EIO;
	smbdx_sg_end(&ch->sgt);

	n = read ? 0 : smbdx_rw_lmr_init(conn, ch, seg);
	if (n < 0)
		return n;
	if (!n) {
		n = rdma_rw_ctx_init(&ch->ctx, conn->id->qp,
				     conn->id->port_num, ch->sgt.sgl,
				     ch->sgt.nents, 0, seg->addr, seg->rkey,
				     dir);
		if (n <= 0)
			return n < 0 ? n : -EIO;
		ch->ctx_ok = true;
	}
	rc = smbdx_rw_get_wrs(conn, n, list);
	if (rc)
		return rc;
	ch->wrs = n;
	if (ch->lmr)
		first = ch->inv_first ? &ch->inv_wr : &ch->reg_wr.wr;
	else
		first = rdma_rw_ctx_wrs(&ch->ctx, conn->id->qp,
					conn->id->port_num, &ch->cqe, NULL);
	/* Unsignaled ones report only failures, but to us. */
	for (wr = first; wr; wr = wr->next)
		if (!wr->wr_cqe)
			wr->wr_cqe = &ch->err_cqe;

	spin_lock_bh(&conn->lock);
	if (conn->mr.dead || conn->state != SMBDX_CS_ESTABLISHED ||
	    !conn->qp_live) {
		rc = conn->error ? conn->error : -ENOTCONN;
		spin_unlock_bh(&conn->lock);
		return rc;
	}
	ch->cid = ++conn->next_cid;
	atomic_inc(&op->pending);
	/* Valid from the REG_MR on, until the final LOCAL_INV completes. */
	if (ch->lmr)
		ch->lmr->need_inval = true;
	if (smbdx_fault(SMBDX_FAULT_RW_POST)) {
		rc = -ENOMEM;
		bad = first;
	} else {
		rc = ib_post_send(conn->id->qp, first, &bad);
	}
	if (rc) {
		atomic_dec(&op->pending);
		if (bad != first) {
			/* Queued in part: teardown destroys it after the drain. */
			ch->op = NULL;
			list_move_tail(&ch->list, &conn->rw.orphans);
		}
		rc = __smbdx_conn_post_failed(conn, rc);
	}
	spin_unlock_bh(&conn->lock);
	if (!rc) {
		smbdx_stat_add(conn, SMBDX_STAT_RDMA_WRS, n);
		if (ch->lmr)
			smbdx_stat_inc(conn, SMBDX_STAT_RDMA_LOCAL_MRS);
		trace_smbdx_rw_post(conn, ch->cid, read, ch->len, n);
	}
	return rc;
}

/* Destroy the call's chunks and give back their slots. */
static void smbdx_rw_finish(struct smbdx_conn *conn, struct list_head *list)
{
	struct smbdx_rw_chunk *ch, *tmp;

	list_for_each_entry_safe(ch, tmp, list, list) {
		list_del(&ch->list);
		smbdx_rw_chunk_put(conn, ch);
	}
	wake_up_all(&conn->wq);
}

/*
 * One RDMA Read or Write call. @quiet: not counted in rdma_reads/writes
 * and their bytes (the tamper fault point's own write); failures are.
 */
static int smbdx_rw(struct smbdx_conn *conn, struct iov_iter *iter,
		    const struct smbdx_buffer_desc_v1 *descs, u32 ndescs,
		   u64 offset, bool read, bool quiet)
{
	size_t len = iov_iter_count(iter);
	struct smbdx_rw_seg *segs = NULL;
	struct smbdx_rw_op op;
	u32 max_rw, nsegs = 0, i, done, piece;
	u32 max_descs = READ_ONCE(smbdx_rw_max_descs);
	LIST_HEAD(chunks);
	int rc;

	might_sleep();
	if (len > U32_MAX || user_backed_iter(iter) || (ndescs && !descs))
		return -EINVAL;
	rc = smbdx_conn_enter(conn, false);
	if (rc)
		return rc;
	spin_lock_bh(&conn->lock);
	max_rw = conn->params.max_read_write_size;
	spin_unlock_bh(&conn->lock);
	if (len > max_rw) {
		smbdx_stat_inc(conn, SMBDX_STAT_RW_TOO_BIG);
		rc = -EMSGSIZE;
		goto out_leave;
	}
	if (ndescs > max_descs || !ndescs) {
		rc = ndescs ? -E2BIG : -EINVAL;
		smbdx_stat_inc(conn, SMBDX_STAT_RW_BAD_DESC);
		goto out_leave;
	}
	segs = kmalloc_array(ndescs, sizeof(*segs), GFP_KERNEL);
	if (!segs) {
		rc = -ENOMEM;
		goto out_leave;
	}
	rc = smbdx_desc_select(descs, ndescs, max_descs, offset, len, segs,
			       &nsegs);
	if (rc) {
		smbdx_stat_inc(conn, SMBDX_STAT_RW_BAD_DESC);
		goto out_free;
	}

	atomic_set(&op.pending, 1);
	op.status = 0;
	init_completion(&op.done);
	for (i = 0; i < nsegs && !rc; i++) {
		for (done = 0; done < segs[i].len && !rc; done += piece) {
			struct smbdx_rw_seg s;

			piece = min(segs[i].len - done, conn->rw.chunk);
			s.addr = segs[i].addr + done;
			s.rkey = segs[i].rkey;
			s.len = piece;
			rc = smbdx_rw_chunk_start(conn, &op, &chunks, iter, &s,
						  read);
		}
	}
	if (atomic_dec_and_test(&op.pending))
		complete(&op.done);
	smbdx_conn_wait_wr(conn, &op.done);
	if (!rc && op.status)
		rc = smbdx_conn_wc_errno(conn);
	smbdx_rw_finish(conn, &chunks);

	if (!rc && !quiet) {
		smbdx_stat_inc(conn, read ? SMBDX_STAT_RDMA_READS :
			      SMBDX_STAT_RDMA_WRITES);
		smbdx_stat_add(conn, read ? SMBDX_STAT_RDMA_READ_BYTES :
			      SMBDX_STAT_RDMA_WRITE_BYTES, len);
	}
out_free:
	kfree(segs);
out_leave:
	if (rc)
		smbdx_stat_inc(conn, SMBDX_STAT_RW_FAILED);
	smbdx_conn_leave(conn);
	return rc;
}

/**
 * smbdx_rdma_write() - RDMA Write a local buffer into a peer buffer (3.1.4.5)
 * @conn: established connection
 * @from: the data: a kernel iterator (bvec, kvec, folio queue or xarray);
 *	advanced by what was written
 * @descs: the peer's Buffer Descriptor V1 array, as received
 * @ndescs: its entries (at most the rw_max_descriptors parameter)
 * @offset: where in the peer buffer (the descriptors' Lengths, in order)
 *	the data goes
 *
 * Writes iov_iter_count(@from) bytes (at most the negotiated
 * MaxReadWriteSize) with as many RDMA Write work requests as needed, in
 * flight at most rw_contexts contexts at a time, and waits for all of
 * them.
 *
 * Context: process, may sleep.
 *
 * Return: 0; -EINVAL, -E2BIG, -EOVERFLOW or -ERANGE for descriptors that
 * do not cover the range (the connection stays up); -EMSGSIZE above
 * MaxReadWriteSize; -ENOMEM; or the connection's error, also when a work
 * request failed or was flushed (the connection is then terminated): -EIO
 * if the provider failed a work request first (the peer refused the
 * access, for instance), -ENODEV after a device removal, -ECONNRESET
 * after the peer's disconnect, -ETIMEDOUT if the work requests did not
 * complete within the connection's io_timeout.
 */
int smbdx_rdma_write(struct smbdx_conn *conn, struct iov_iter *from,
		     const struct smbdx_buffer_desc_v1 *descs, u32 ndescs,
		    u64 offset)
{
	return smbdx_rw(conn, from, descs, ndescs, offset, false, false);
}
EXPORT_SYMBOL_NS_GPL(smbdx_rdma_write, SMBDX_NS);

/*
 * SMBDX_FAULT_XFORM_TAMPER for smbdx_rdma_write_xform(): once the payload
 * @data (not advanced) is in the peer's buffer, its first octet is written
 * there again, inverted, with a one-octet RDMA Write, as an attacker on the
 * wire would change it. The caller's buffer is left alone. Process
 * context, outside the connection.
 */
static int smbdx_rw_tamper(struct smbdx_conn *conn,
			   const struct iov_iter *data,
			   const struct smbdx_buffer_desc_v1 *descs,
			   u32 ndescs, u64 offset)
{
	struct iov_iter src = *data, one;
	struct kvec kv;
	u8 *octet;
	int rc;

	/* DMA-mapped: not on the stack. */
	octet = kmalloc(1, GFP_KERNEL);
	if (!octet)
		return -ENOMEM;
	if (copy_from_iter(octet, 1, &src) != 1) {
		rc = -EIO;
		goto out;
	}
	*octet = ~*octet;
	kv.iov_base = octet;
	kv.iov_len = 1;
	iov_iter_kvec(&one, ITER_SOURCE, &kv, 1, 1);
	rc = smbdx_rw(conn, &one, descs, ndescs, offset, false, true);
out:
	kfree(octet);
	return rc;
}

/**
 * smbdx_rdma_write_xform() - RDMA Write a sealed or signed payload into a
 *	peer buffer (MS-SMB2 RDMA transform, server READ)
 * @conn: established connection
 * @from: the payload the caller already sealed or signed (smbdx_xf_seal()
 *	in place, smbdx_xf_sign()), as for smbdx_rdma_write(); advanced by
 *	what was written
 * @descs: the peer's Buffer Descriptor V1 array, as received
 * @ndescs: its entries
 * @offset: where in the peer buffer the data goes
 * @type: SMBDX_XF_TYPE_ENCRYPTION or SMBDX_XF_TYPE_SIGNING: what was done
 *	to the payload
 *
 * smbdx_rdma_write() for data the caller marks as transformed: the same
 * transfer, then counted in xform_sealed or xform_signed. This is also
 * where the fault point xform_tamper acts on this direction: when it
 * fires, the payload's first octet is written again into the peer's
 * buffer, inverted, after the payload and before the call returns (so
 * before the caller's response can tell the peer to look), without
 * touching the caller's buffer and without counting that write in
 * rdma_writes.
 *
 * Context: process, may sleep.
 *
 * Return: as smbdx_rdma_write(); -EINVAL also for an unknown @type or an
 * empty payload.
 */
int smbdx_rdma_write_xform(struct smbdx_conn *conn, struct iov_iter *from,
			   const struct smbdx_buffer_desc_v1 *descs,
			   u32 ndescs, u64 offset, u16 type)
{
	struct iov_iter data;
	int rc;

	if (!from || !iov_iter_count(from) ||
	    (type != SMBDX_XF_TYPE_ENCRYPTION && type != SMBDX_XF_TYPE_SIGNING))
		return -EINVAL;
	data = *from;
	rc = smbdx_rw(conn, from, descs, ndescs, offset, false, false);
	if (rc)
		return rc;
	smbdx_stat_inc(conn, type == SMBDX_XF_TYPE_ENCRYPTION ?
		       SMBDX_STAT_XFORM_SEALED : SMBDX_STAT_XFORM_SIGNED);
	if (smbdx_fault(SMBDX_FAULT_XFORM_TAMPER))
		rc = smbdx_rw_tamper(conn, &data, descs, ndescs, offset);
	return rc;
}
EXPORT_SYMBOL_NS_GPL(smbdx_rdma_write_xform, SMBDX_NS);

/**
 * smbdx_rdma_read() - RDMA Read a peer buffer into a local buffer (3.1.4.6)
 * @conn: established connection
 * @to: where the data goes: a kernel iterator; advanced by what was read.
 *	On iWARP, whose RDMA Read targets need an MR, the pages of one chunk
 *	must have no gaps (page-aligned except at the ends).
 * @descs: the peer's Buffer Descriptor V1 array, as received
 * @ndescs: its entries
 * @offset: where in the peer buffer to start
 *
 * Reads iov_iter_count(@to) bytes like smbdx_rdma_write() writes, with no
 * more RDMA Read contexts in flight than the connection's ORD.
 *
 * Context: process, may sleep.
 *
 * Return: as smbdx_rdma_write().
 */
int smbdx_rdma_read(struct smbdx_conn *conn, struct iov_iter *to,
		    const struct smbdx_buffer_desc_v1 *descs, u32 ndescs,
		   u64 offset)
{
	return smbdx_rw(conn, to, descs, ndescs, offset, true, false);
}
EXPORT_SYMBOL_NS_GPL(smbdx_rdma_read, SMBDX_NS);
