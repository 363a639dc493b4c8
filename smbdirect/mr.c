// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer registration for peer RDMA (MS-SMBD 3.1.4.3, 3.1.4.4) with
 * fast-registration MRs, and remote invalidation (3.1.4.2, 3.1.5.8).
 *
 * Normal operation: every connection owns a pool of MRs, set up with its
 * QP and sized by smbdx_mr_pool_size() from the device's fast-reg page list
 * length, MaxReadWriteSize and IRD; the verbs MRs themselves are allocated
 * by the first registrations that need them, up to mr_max_total over all
 * connections (a passive connection rarely registers anything). smbdx_register() turns a kernel
 * iov_iter into a scatterlist, DMA-maps it, works out how many MRs it
 * needs (smbdx_frwr_count(): gaps and full page lists start a new MR),
 * refuses a buffer needing more than the caller's SMBDX_REG_MAX_DESCS(),
 * takes them all at once from the pool (waiting, or -EAGAIN with
 * SMBDX_REG_NOWAIT), maps the pieces with ib_map_mr_sg(), gives each MR a
 * fresh key and posts one chain of REG_MR work requests, only the last
 * signaled, and waits for it: a failure is reported to the caller, as
 * 3.1.4.3 asks. With SMBDX_REG_POSTED it returns once the chain is posted:
 * the send queue executes it before any Send posted later, so the
 * descriptors can go out at once; a failure then terminates the
 * connection and smbdx_deregister() reports it, after waiting for the
 * chain's completion. The registration's Buffer Descriptor V1 array has
 * one entry per MR, in buffer order, with only the access asked for.
 *
 * Bounce copies: a buffer that needs more MRs than SMBDX_REG_MAX_DESCS()
 * allows (gaps between its pieces) is refused with -EMSGSIZE, unless the
 * caller asked for SMBDX_REG_BOUNCE. Then, if a page-aligned copy of its
 * length fits, smbdx_register() allocates that many kernel pages
 * (struct smbdx_bounce, at most MaxReadWriteSize bytes and max_descs MRs'
 * worth), copies the caller's data into them and registers those instead.
 * With SMBDX_REG_REMOTE_WRITE, smbdx_deregister() copies the pages back
 * into the caller's iterator once the peer has lost access and the pages
 * are unmapped (bytes the peer did not write come back unchanged, as they
 * were copied in). Allocation failure fails the call with -ENOMEM; nothing
 * is retried here.
 *
 * Transformed copies (the MS-SMB2 RDMA transform's client WRITE):
 * smbdx_register_xform() always registers a bounce copy, sealed or signed
 * into its pages in one pass (smbdx_bounce_xform(): the AEAD from the
 * caller's iterator into the pages, or copy and AES-CMAC page by page),
 * before it enters the connection, then hands the pages and their table
 * to the same registration path (smbdx_reg_make()), which owns them from
 * then on. The caller's pages are never registered. The fault point
 * xform_tamper inverts the copy's first octet before it is mapped.
 * REG_MR and LOCAL_INV chains complete through different entries (@reg_cqe,
 * @cqe), so a late REG_MR completion is never taken for the LOCAL_INV's.
 *
 * smbdx_deregister() returns MRs the peer invalidated with Send with
 * Invalidate straight to the pool: the receive handler marks an MR
 * remotely invalidated only if the completion says IB_WC_WITH_INVALIDATE
 * for exactly its current key. Every other MR gets a LOCAL_INV, chained
 * with only the last signaled, and is waited for; then the buffer is
 * unmapped. An MR whose REG_MR or LOCAL_INV failed is recycled
 * (deregistered, and allocated afresh when next needed).
 *
 * Locking: this file owns conn->mr (struct smbdx_conn_mr, smbd.h).
 * conn->lock (BH) protects the pool lists, the MR states, the
 * registration list and mr.users; work requests are posted with it held
 * after checking the state, like sends. A registration or deregistration
 * in progress counts in mr.users (smbdx_conn_enter()), which keeps the QP,
 * the PD and the DMA device alive: teardown drains the QP first (so every
 * chain it waits for completes, flushed), sets mr.dead, then waits for
 * mr.users to drop to zero, then unmaps and frees under no lock and sets
 * mr.released. A registration's own
 * fields (reg_wait, wr_status, the MRs' last flags) belong to its owner's
 * register or deregister call; the completion handler reads them only for
 * a chain that call posted and has not yet seen complete, and a
 * deregistration waits for an unwaited REG_MR chain before it posts the
 * LOCAL_INV chain that reuses them.
 *
 * Transport recovery: a failed completion terminates the connection (the
 * QP is in error anyway, so nothing stays remotely accessible). A chain
 * that does not complete within the connection's io_timeout (stuck on the
 * send queue behind Sends a peer never takes) terminates it too, and the
 * wait goes on until the flush (smbdx_conn_wait_wr()). A chain
 * posted only in part leaves work requests we will never hear of except
 * by a flush: its MRs are marked LOST and its registration is handed to
 * the connection, and both are released at teardown after the drain.
 * Registrations still held when the connection is torn down are unmapped
 * then; smbdx_deregister() on them only frees the handle (and copies a
 * bounce copy back: its pages are freed with the handle, never by
 * teardown, but for an orphan's).
 */

#include <crypto/aead.h>
#include <crypto/hash.h>
#include <linux/bvec.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <linux/uio.h>
#include <kunit/visibility.h>

#include "smbd.h"
#include "desc.h"
#include "trace.h"

/**
 * struct smbdx_bounce - kernel pages registered in place of a caller's buffer
 * @bv: the pages, each full from offset 0 but the last (a bvec array, so
 *	that the transform's cryptography can take them as an iterator)
 * @npages: entries of @bv
 * @orig: the caller's iterator as it was at registration (a shallow
 *	copy: its array and memory are the caller's)
 * @copy_back: copy the pages into @orig at deregistration
 *	(SMBDX_REG_REMOTE_WRITE: the peer writes into them)
 * @xform: 0 for a plain copy (SMBDX_REG_BOUNCE); SMBDX_XF_TYPE_ENCRYPTION
 *	or SMBDX_XF_TYPE_SIGNING for the sealed or signed copy of
 *	smbdx_register_xform() (counted apart from the plain copies)
 *
 * Owned by its registration; freed with it (smbdx_reg_free()).
 */
struct smbdx_bounce {
	struct bio_vec *bv;
	u32 npages;
	struct iov_iter orig;
	bool copy_back;
	u16 xform;
};

/**
 * struct smbdx_reg - a registered buffer (opaque to the upper layer)
 * @conn: connection; a reference is held
 * @node: entry in conn->mr.regs (under conn->lock)
 * @sgt: the buffer's pages
 * @mapped: DMA-mapped entries of @sgt, 0 once unmapped
 * @dir: DMA direction
 * @len: registered bytes
 * @orphan: the owner gave it up after a partial post; teardown frees it
 * @bounce: the copy registered in place of the caller's buffer, if any
 * @done: the signaled end of the LOCAL_INV chain completed
 * @reg_done: the signaled end of the REG_MR chain completed
 * @reg_wait: the REG_MR chain was posted and nobody waited for it yet
 * @wr_status: first failed completion status of the chain
 * @nmrs: MRs in @mrs and descriptors in @descs
 * @descs: Buffer Descriptor V1 array, wire format
 * @reg_wrs: one REG_MR work request per MR
 * @inv_wrs: one LOCAL_INV work request per MR, allocated with the
 *	registration so that deregistration never has to allocate
 * @mrs: the MRs, in buffer order
 *
 * The structure and its four arrays are one allocation, sized for the MRs
 * the buffer needs (smbdx_reg_alloc()).
 */
struct smbdx_reg {
	struct smbdx_conn *conn;
	struct list_head node;
	struct sg_table sgt;
	int mapped;
	enum dma_data_direction dir;
	u32 len;
	bool orphan;
	struct smbdx_bounce bounce;
	struct completion done;
	struct completion reg_done;
	bool reg_wait;
	int wr_status;
	u32 nmrs;
	struct smbdx_buffer_desc_v1 *descs;
	struct ib_reg_wr *reg_wrs;
	struct ib_send_wr *inv_wrs;
	struct smbdx_mr *mrs[];
};

/*
 * A zeroed registration for @n MRs, its arrays behind it in the same
 * allocation; n is at most the connection's pool size, so nothing
 * overflows.
 */
static struct smbdx_reg *smbdx_reg_alloc(u32 n)
{
	struct smbdx_reg *reg;
	size_t descs, reg_wrs, inv_wrs, size;

	descs = ALIGN(struct_size(reg, mrs, n), sizeof(u64));
	reg_wrs = ALIGN(descs + n * sizeof(*reg->descs),
			__alignof__(struct ib_reg_wr));
	inv_wrs = ALIGN(reg_wrs + n * sizeof(*reg->reg_wrs),
			__alignof__(struct ib_send_wr));
	size = inv_wrs + n * sizeof(*reg->inv_wrs);
	reg = kzalloc(size, GFP_KERNEL);
	if (!reg)
		return NULL;
	reg->descs = (void *)reg + descs;
	reg->reg_wrs = (void *)reg + reg_wrs;
	reg->inv_wrs = (void *)reg + inv_wrs;
	return reg;
}

/**
 * smbdx_sgt_alloc() - a flat (unchained) scatterlist of @n entries
 * @sgt: table to set up; nents starts at 0
 * @n: entries
 *
 * extract_iter_to_sg() fills entries by index, so the list must not be
 * chained, whatever its length.
 *
 * Return: 0 or -ENOMEM.
 */
int smbdx_sgt_alloc(struct sg_table *sgt, unsigned int n)
{
	memset(sgt, 0, sizeof(*sgt));
	sgt->sgl = kvcalloc(max(n, 1U), sizeof(*sgt->sgl), GFP_KERNEL);
	if (!sgt->sgl)
		return -ENOMEM;
	sg_init_table(sgt->sgl, max(n, 1U));
	sgt->orig_nents = max(n, 1U);
	return 0;
}

/**
 * smbdx_sgt_free() - free what smbdx_sgt_alloc() allocated
 * @sgt: table (may be unset)
 */
void smbdx_sgt_free(struct sg_table *sgt)
{
	kvfree(sgt->sgl);
	sgt->sgl = NULL;
}

/**
 * smbdx_sg_end() - mark the last filled entry of a table as its end
 * @sgt: table with @sgt->nents entries filled, maybe fewer than allocated
 */
void smbdx_sg_end(struct sg_table *sgt)
{
	struct scatterlist *sg, *last = NULL;
	unsigned int i;

	for_each_sg(sgt->sgl, sg, sgt->nents, i)
		last = sg;
	if (last)
		sg_mark_end(last);
}

/**
 * smbdx_conn_enter() - start an API call that uses the QP or the MRs
 * @conn: connection
 * @any_state: also when the connection already failed (deregistration
 *	must still invalidate); otherwise only while ESTABLISHED
 *
 * Return: 0, or the connection's error (-ENOTCONN if none) once teardown
 * started releasing (or, without @any_state, once it is not established).
 */
int smbdx_conn_enter(struct smbdx_conn *conn, bool any_state)
{
	int rc = 0;

	spin_lock_bh(&conn->lock);
	if (conn->mr.dead || !conn->mr.pool ||
	    (!any_state && conn->state != SMBDX_CS_ESTABLISHED))
		rc = conn->error ? conn->error : -ENOTCONN;
	else
		conn->mr.users++;
	spin_unlock_bh(&conn->lock);
	return rc;
}

/**
 * smbdx_conn_leave() - end what smbdx_conn_enter() started
 * @conn: connection
 */
void smbdx_conn_leave(struct smbdx_conn *conn)
{
	spin_lock_bh(&conn->lock);
	conn->mr.users--;
	spin_unlock_bh(&conn->lock);
	wake_up_all(&conn->wq);
}

/**
 * smbdx_mr_plan() - decide the pool's size and depth before the QP exists
 * @conn: connection whose limits are known
 *
 * Return: the number of MRs, also the number of send queue entries their
 * REG_MR and LOCAL_INV need (at most one of them is outstanding per MR).
 */
u32 smbdx_mr_plan(struct smbdx_conn *conn)
{
	u32 ird = conn->limits.ird;

	conn->mr.depth = conn->limits.frwr_depth;
	conn->mr.pool_size = smbdx_mr_pool_size(conn->mr.depth, PAGE_SIZE,
						conn->cfg.proto.max_read_write_size,
						ird, smbdx_mr_pool_max);
	return conn->mr.pool_size;
}

static void smbdx_mr_wr_done(struct ib_cq *cq, struct ib_wc *wc);
static void smbdx_mr_reg_wr_done(struct ib_cq *cq, struct ib_wc *wc);

/* Verbs MRs allocated by all connections, bounded by mr_max_total. */
static atomic_t smbdx_mrs_allocated = ATOMIC_INIT(0);

static void smbdx_mr_dealloc(struct smbdx_mr *mr)
{
	if (!mr->mr)
		return;
	ib_dereg_mr(mr->mr);
	mr->mr = NULL;
	atomic_dec(&smbdx_mrs_allocated);
}

/*
 * Give every MR of @reg a verbs MR: the ones never used yet, and the ones
 * whose last registration or invalidation failed (dropped by
 * smbdx_mr_put()). Process context, inside smbdx_conn_enter().
 */
static int smbdx_mr_materialize(struct smbdx_conn *conn, struct smbdx_reg *reg)
{
	struct ib_mr *ibmr;
	u32 i;

	for (i = 0; i < reg->nmrs; i++) {
		struct smbdx_mr *mr = reg->mrs[i];

		if (mr->mr)
			continue;
		if (atomic_inc_return(&smbdx_mrs_allocated) >
		    READ_ONCE(smbdx_mr_max_total)) {
			atomic_dec(&smbdx_mrs_allocated);
			smbdx_stat_inc(conn, SMBDX_STAT_MR_GLOBAL_LIMIT);
			return -ENOMEM;
		}
		ibmr = ib_alloc_mr(conn->pd, IB_MR_TYPE_MEM_REG, conn->mr.depth);
		if (IS_ERR(ibmr)) {
			atomic_dec(&smbdx_mrs_allocated);
			return PTR_ERR(ibmr);
		}
		mr->mr = ibmr;
		smbdx_stat_inc(conn, SMBDX_STAT_MR_ALLOCATED);
		trace_smbdx_mr_alloc(conn, mr);
	}
	return 0;
}

/**
 * smbdx_mr_pool_init() - set up the MR pool planned by smbdx_mr_plan()
 * @conn: connection with a PD
 *
 * Only the pool's slots: the verbs MRs (a page list each) are allocated by
 * the registrations that first need them, so a connection that never
 * registers memory (the passive side, mostly) costs none.
 *
 * Context: process, serialised with teardown (res_mutex or not visible).
 *
 * Return: 0 or -ENOMEM.
 */
int smbdx_mr_pool_init(struct smbdx_conn *conn)
{
	u32 i;

	INIT_LIST_HEAD(&conn->mr.free);
	INIT_LIST_HEAD(&conn->mr.busy);
	INIT_LIST_HEAD(&conn->mr.regs);
	INIT_LIST_HEAD(&conn->rw.orphans);
	conn->mr.pool = kcalloc(conn->mr.pool_size, sizeof(*conn->mr.pool),
				GFP_KERNEL);
	if (!conn->mr.pool)
		return -ENOMEM;
	/* The verbs MRs come with the first registrations that need them. */
	for (i = 0; i < conn->mr.pool_size; i++) {
		struct smbdx_mr *mr = &conn->mr.pool[i];

		mr->conn = conn;
		mr->cqe.done = smbdx_mr_wr_done;
		mr->reg_cqe.done = smbdx_mr_reg_wr_done;
		list_add_tail(&mr->list, &conn->mr.free);
	}
	conn->mr.free_count = conn->mr.pool_size;
	conn->mr.usable = conn->mr.pool_size;
	conn->mr.dead = false;
	conn->mr.released = false;
	return 0;
}

static void smbdx_reg_unmap(struct smbdx_reg *reg)
{
	struct smbdx_conn *conn = reg->conn;

	if (reg->mapped) {
		ib_dma_unmap_sg(conn->ibdev, reg->sgt.sgl, reg->sgt.nents,
				reg->dir);
		reg->mapped = 0;
	}
	smbdx_sgt_free(&reg->sgt);
}

static void smbdx_bounce_free(struct smbdx_bounce *bb)
{
	u32 i;

	for (i = 0; bb->bv && i < bb->npages; i++)
		if (bb->bv[i].bv_page)
			__free_page(bb->bv[i].bv_page);
	kvfree(bb->bv);
	bb->bv = NULL;
	bb->npages = 0;
}

/*
 * Would a bounce copy of @len bytes be allowed and fit in @max_descs MRs
 * (0: any number, the pool decides)? At most MaxReadWriteSize bytes: what
 * the peer may move with one operation, and the bound of the memory one
 * registration allocates. 0 or -EMSGSIZE.
 */
static int smbdx_bounce_fits(struct smbdx_conn *conn, size_t len,
			     u32 max_descs)
{
	u32 n = DIV_ROUND_UP(len, PAGE_SIZE);

	if (len > READ_ONCE(conn->params.max_read_write_size))
		return -EMSGSIZE;
	if (max_descs && (DIV_ROUND_UP(n, conn->mr.depth) > max_descs ||
			  DIV_ROUND_UP(n, conn->limits.mr_max_entries) > max_descs))
		return -EMSGSIZE;
	return 0;
}

/*
 * Fresh pages for @len bytes in @bb, described by @sgt (an unmapped
 * table, one entry per page); nothing is copied into them yet. They are
 * taken without retrying hard or warning: under memory pressure the
 * registration fails with -ENOMEM (on failure the caller frees @bb and
 * @sgt). Process context.
 */
static int smbdx_bounce_pages(struct smbdx_bounce *bb, size_t len,
			      struct sg_table *sgt)
{
	u32 n = DIV_ROUND_UP(len, PAGE_SIZE), i;
	size_t left = len, chunk;
	struct page *page;
	int rc;

	bb->bv = smbdx_fault(SMBDX_FAULT_REG_ALLOC) ? NULL :
		 kvcalloc(n, sizeof(*bb->bv), GFP_KERNEL);
	if (!bb->bv)
		return -ENOMEM;
	bb->npages = n;
	rc = smbdx_sgt_alloc(sgt, n);
	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		page = alloc_page(GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
		if (!page)
			return -ENOMEM;
		chunk = min_t(size_t, left, PAGE_SIZE);
		bvec_set_page(&bb->bv[i], page, chunk, 0);
		sg_set_page(&sgt->sgl[i], page, chunk, 0);
		left -= chunk;
	}
	sgt->nents = n;
	smbdx_sg_end(sgt);
	return 0;
}

/*
 * A copy of @len bytes of @orig in fresh pages (smbdx_bounce_pages()).
 * The caller's data is copied in whatever the direction: the peer reads
 * it (REMOTE_READ), or writes over it and what it leaves is copied back
 * unchanged (REMOTE_WRITE). Process context.
 */
static int smbdx_bounce_alloc(struct smbdx_bounce *bb,
			      const struct iov_iter *orig, size_t len,
			      unsigned int flags, struct sg_table *sgt)
{
	struct iov_iter src = *orig;
	u32 i;
	int rc;

	bb->orig = *orig;
	bb->copy_back = flags & SMBDX_REG_REMOTE_WRITE;
	rc = smbdx_bounce_pages(bb, len, sgt);
	if (rc)
		return rc;
	/* Read from the caller's buffer even when it is a destination. */
	src.data_source = ITER_SOURCE;
	for (i = 0; i < bb->npages; i++)
		if (copy_page_from_iter(bb->bv[i].bv_page, 0, bb->bv[i].bv_len,
					&src) != bb->bv[i].bv_len)
			return -EIO;
	return 0;
}

/*
 * The sealed or signed copy of smbdx_register_xform(): @len bytes of
 * @src transformed into fresh pages in one pass (AEAD from @src into the
 * pages; or copy and AES-CMAC page by page), the tag or signature in
 * @sig. Then, if SMBDX_FAULT_XFORM_TAMPER fires, the copy's first octet
 * is inverted: after the transform, before the pages are mapped and the
 * peer can read them. On failure the caller frees @bb and @sgt. Process
 * context, outside the connection (the cryptography may take long and
 * must not hold teardown up).
 */
static int smbdx_bounce_xform(struct smbdx_conn *conn, struct smbdx_bounce *bb,
			      const struct iov_iter *src, size_t len,
			      u32 max_descs, const struct smbdx_xform *xf,
			      u8 *sig, struct sg_table *sgt)
{
	struct iov_iter dst;
	u8 *p;
	int rc;

	rc = smbdx_bounce_fits(conn, len, max_descs);
	if (rc)
		return rc;
	rc = smbdx_bounce_pages(bb, len, sgt);
	if (rc)
		return rc;
	bb->xform = xf->type;
	if (xf->type == SMBDX_XF_TYPE_ENCRYPTION) {
		iov_iter_bvec(&dst, ITER_DEST, bb->bv, bb->npages, len);
		rc = smbdx_xf_seal(xf->aead, xf->cipher, xf->nonce, src, &dst,
				   len, sig);
	} else {
		rc = smbdx_xf_copy_sign(xf->shash, src, bb->bv, bb->npages,
					len, sig);
	}
	if (rc)
		return rc;
	if (smbdx_fault(SMBDX_FAULT_XFORM_TAMPER)) {
		p = kmap_local_page(bb->bv[0].bv_page);
		p[0] = ~p[0];
		kunmap_local(p);
	}
	return 0;
}

/* Copy a REMOTE_WRITE bounce copy into the caller's buffer; process context. */
static void smbdx_bounce_copy_back(struct smbdx_reg *reg)
{
	struct smbdx_bounce *bb = &reg->bounce;
	struct iov_iter dst = bb->orig;
	size_t left = reg->len, chunk;
	u32 i;

	if (!bb->copy_back)
		return;
	dst.data_source = ITER_DEST;
	for (i = 0; i < bb->npages && left; i++) {
		chunk = min_t(size_t, left, PAGE_SIZE);
		if (copy_page_to_iter(bb->bv[i].bv_page, 0, chunk, &dst) != chunk)
			break;
		left -= chunk;
	}
	bb->copy_back = false;
}

static void smbdx_reg_free(struct smbdx_reg *reg)
{
	struct smbdx_conn *conn = reg->conn;

	smbdx_bounce_free(&reg->bounce);
	kfree(reg);
	smbdx_conn_put(conn);
}

/**
 * smbdx_mr_release() - release every registration and MR at teardown
 * @conn: connection whose QP is drained (or never went live)
 *
 * Waits for the API calls in progress to finish (the drain completed
 * what they wait for), then unmaps what registrations still hold (their
 * owners' smbdx_deregister() then only frees the handle, since it can no
 * longer enter the connection), frees the orphans and the MRs.
 *
 * Context: process, under res_mutex, before the QP is destroyed.
 */
void smbdx_mr_release(struct smbdx_conn *conn)
{
	struct smbdx_reg *reg, *tmp;
	LIST_HEAD(regs);
	u32 i;

	if (!conn->mr.pool)
		return;
	spin_lock_bh(&conn->lock);
	conn->mr.dead = true;
	spin_unlock_bh(&conn->lock);
	wake_up_all(&conn->wq);
	wait_event(conn->wq, !READ_ONCE(conn->mr.users));

	smbdx_rw_release_orphans(conn);

	spin_lock_bh(&conn->lock);
	list_splice_init(&conn->mr.regs, &regs);
	spin_unlock_bh(&conn->lock);
	list_for_each_entry_safe(reg, tmp, &regs, node) {
		list_del_init(&reg->node);
		smbdx_reg_unmap(reg);
		/* Owners of the others only free the handle from now on. */
		if (reg->orphan)
			smbdx_reg_free(reg);
	}
	for (i = 0; i < conn->mr.pool_size; i++) {
		smbdx_mr_dealloc(&conn->mr.pool[i]);
		conn->mr.pool[i].reg = NULL;
	}
	spin_lock_bh(&conn->lock);
	INIT_LIST_HEAD(&conn->mr.free);
	INIT_LIST_HEAD(&conn->mr.busy);
	conn->mr.free_count = 0;
	conn->mr.usable = 0;
	conn->mr.released = true;
	spin_unlock_bh(&conn->lock);
	wake_up_all(&conn->wq);
}

/**
 * smbdx_mr_remote_invalidated() - the peer invalidated @rkey (3.1.5.8)
 * @conn: connection, lock held
 * @rkey: the token of the receive completion's IB_WC_WITH_INVALIDATE
 *
 * Marks the registered MR with exactly this key, so that deregistration
 * does not invalidate it again. A key that matches no registered MR is
 * only counted: deregistration then invalidates locally as usual.
 *
 * Context: the receive completion handler (softirq), conn->lock held.
 */
void smbdx_mr_remote_invalidated(struct smbdx_conn *conn, u32 rkey)
{
	struct smbdx_mr *mr;

	lockdep_assert_held(&conn->lock);
	if (conn->mr.pool) {
		list_for_each_entry(mr, &conn->mr.busy, list) {
			if (mr->state == SMBDX_MR_REGISTERED &&
			    mr->rkey == rkey) {
				mr->state = SMBDX_MR_REMOTE_INV;
				smbdx_stat_inc(conn, SMBDX_STAT_MR_REMOTE_INV);
				trace_smbdx_mr_remote_inv(conn, mr);
				return;
			}
		}
	}
	smbdx_stat_inc(conn, SMBDX_STAT_MR_REMOTE_INV_UNKNOWN);
}

/*
 * Completion of a REG_MR (@registering) or LOCAL_INV of @mr. Unsignaled
 * ones only complete here when they failed (or were flushed); the signaled
 * end of the chain completes the registration's reg_done or done, which
 * the registration or deregistration waits for.
 */
static void smbdx_mr_complete(struct smbdx_mr *mr, struct ib_wc *in,
			      bool registering)
{
	struct smbdx_conn *conn = mr->conn;
	struct smbdx_reg *reg = mr->reg;
	struct ib_wc injected, *wc = in;

	if (!in->status && smbdx_fault(SMBDX_FAULT_MR_WC)) {
		injected = *in;
		injected.status = IB_WC_GENERAL_ERR;
		wc = &injected;
	}
	spin_lock_bh(&conn->lock);
	if (__smbdx_conn_wc_failed(conn, wc, SMBDX_CAUSE_MR_ERROR)) {
		if (mr->state != SMBDX_MR_LOST)
			mr->state = SMBDX_MR_BROKEN;
		if (reg && !reg->wr_status)
			reg->wr_status = wc->status;
	}
	spin_unlock_bh(&conn->lock);
	if (registering)
		trace_smbdx_reg_mr_done(conn, mr, wc);
	else
		trace_smbdx_local_inv_done(conn, mr, wc);
	/* The waiter may free @reg as soon as this is done. */
	if (mr->last && reg)
		complete(registering ? &reg->reg_done : &reg->done);
}

static void smbdx_mr_wr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	smbdx_mr_complete(container_of(wc->wr_cqe, struct smbdx_mr, cqe), wc,
			  false);
}

static void smbdx_mr_reg_wr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	smbdx_mr_complete(container_of(wc->wr_cqe, struct smbdx_mr, reg_cqe),
			  wc, true);
}

/* Take @n MRs for @reg if the pool has them; conn->lock held. */
static int smbdx_mr_take(struct smbdx_conn *conn, struct smbdx_reg *reg, u32 n)
{
	struct smbdx_mr *mr;
	u32 i;

	if (conn->mr.dead || conn->state != SMBDX_CS_ESTABLISHED)
		return conn->error ? conn->error : -ENOTCONN;
	if (n > conn->mr.usable)
		return -EMSGSIZE;
	if (conn->mr.free_count < n)
		return -EAGAIN;
	for (i = 0; i < n; i++) {
		mr = list_first_entry(&conn->mr.free, struct smbdx_mr, list);
		list_move_tail(&mr->list, &conn->mr.busy);
		mr->state = SMBDX_MR_REGISTERING;
		mr->reg = reg;
		mr->last = false;
		reg->mrs[i] = mr;
	}
	conn->mr.free_count -= n;
	reg->nmrs = n;
	return 0;
}

/*
 * Give an MR back to the pool, recycling it first if its last work request
 * failed. A LOST MR stays off the pool until teardown. Process context.
 */
static void smbdx_mr_put(struct smbdx_conn *conn, struct smbdx_mr *mr)
{
	enum smbdx_mr_state state;

	spin_lock_bh(&conn->lock);
	state = mr->state;
	spin_unlock_bh(&conn->lock);
	if (state == SMBDX_MR_LOST)
		return;
	if (state == SMBDX_MR_BROKEN) {
		/* Its key may still be valid: a fresh one comes when needed. */
		trace_smbdx_mr_recycle(conn, mr);
		smbdx_mr_dealloc(mr);
		smbdx_stat_inc(conn, SMBDX_STAT_MR_RECYCLED);
	}

	/*
	 * Most recently used first: smbdx_mr_take() takes from the head, so
	 * a connection with few registrations in flight keeps reusing the
	 * same few MRs. They stay warm in the provider's caches and the pool
	 * materializes only as many as are ever in use at once; a FIFO
	 * order would cycle through, and so allocate, the whole pool. A key
	 * comes back after 256 registrations of one MR (ib_inc_rkey()); the
	 * MR is invalidated between two of them, so an older key does not
	 * work in between.
	 */
	spin_lock_bh(&conn->lock);
	mr->reg = NULL;
	mr->state = SMBDX_MR_FREE;
	list_move(&mr->list, &conn->mr.free);
	conn->mr.free_count++;
	spin_unlock_bh(&conn->lock);
}

static void smbdx_mr_put_all(struct smbdx_reg *reg)
{
	u32 i;

	for (i = 0; i < reg->nmrs; i++)
		smbdx_mr_put(reg->conn, reg->mrs[i]);
	reg->nmrs = 0;
	wake_up_all(&reg->conn->wq);
}

/*
 * Post @first under conn->lock if the QP may still take work. If only a
 * part of the chain was posted, the MRs of the whole chain are LOST.
 */
static int smbdx_mr_post(struct smbdx_conn *conn, struct smbdx_reg *reg,
			 struct ib_send_wr *first)
{
	const struct ib_send_wr *bad = NULL;
	int rc;
	u32 i;

	spin_lock_bh(&conn->lock);
	if (!conn->qp_live || conn->mr.dead) {
		spin_unlock_bh(&conn->lock);
		return conn->error ? conn->error : -ENOTCONN;
	}
	if (smbdx_fault(SMBDX_FAULT_MR_POST)) {
		rc = -ENOMEM;
		bad = first;
	} else {
		rc = ib_post_send(conn->id->qp, first, &bad);
	}
	if (rc) {
		if (bad != first) {
			for (i = 0; i < reg->nmrs; i++)
				reg->mrs[i]->state = SMBDX_MR_LOST;
			reg->orphan = true;
		}
		rc = __smbdx_conn_post_failed(conn, rc);
	}
	spin_unlock_bh(&conn->lock);
	return rc;
}

static int smbdx_reg_access(unsigned int flags)
{
	int access = 0;

	if (flags & SMBDX_REG_REMOTE_WRITE)
		access |= IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	if (flags & SMBDX_REG_REMOTE_READ)
		access |= IB_ACCESS_REMOTE_READ;
	return access;
}

/*
 * Wait for @reg's REG_MR chain: 0, or the connection's error if a part of
 * it failed or was flushed. Process context, inside smbdx_conn_enter().
 */
static int smbdx_reg_wait(struct smbdx_conn *conn, struct smbdx_reg *reg)
{
	reg->reg_wait = false;
	smbdx_conn_wait_wr(conn, &reg->reg_done);
	return reg->wr_status ? smbdx_conn_wc_errno(conn) : 0;
}

/*
 * DMA-map @sgt and count the MRs it needs. 0; -EIO when nothing could be
 * mapped (*@mapped is then 0), or smbdx_frwr_count()'s error (mapped).
 * Process context.
 */
static int smbdx_sgt_map(struct smbdx_conn *conn, struct sg_table *sgt,
			 enum dma_data_direction dir, int *mapped, int *need)
{
	*mapped = ib_dma_map_sg(conn->ibdev, sgt->sgl, sgt->nents, dir);
	if (!*mapped)
		return -EIO;
	*need = smbdx_frwr_count(sgt->sgl, *mapped, PAGE_SIZE, conn->mr.depth);
	if (*need < 0)
		return *need;
	/* Providers that count entries rather than pages may need more. */
	*need = max_t(int, *need, DIV_ROUND_UP(*mapped,
					       conn->limits.mr_max_entries));
	return 0;
}

/*
 * The buffer in @sgt needs more than @max_descs MRs: replace it by a bounce
 * copy (smbdx_bounce_alloc()) if one of @len bytes fits, mapped, with the
 * MRs it needs in @need. At most MaxReadWriteSize bytes, and nothing is
 * allocated for a copy that would not fit either. On failure the caller
 * frees @bb; @sgt is then unmapped (or empty). Process context.
 */
static int smbdx_bounce_setup(struct smbdx_conn *conn, struct smbdx_bounce *bb,
			      const struct iov_iter *orig, size_t len,
			      unsigned int flags, u32 max_descs,
			      struct sg_table *sgt, enum dma_data_direction dir,
			      int *mapped, int *need)
{
	int rc;

	ib_dma_unmap_sg(conn->ibdev, sgt->sgl, sgt->nents, dir);
	smbdx_sgt_free(sgt);
	*mapped = 0;
	rc = smbdx_bounce_fits(conn, len, max_descs);
	if (rc)
		return rc;
	rc = smbdx_bounce_alloc(bb, orig, len, flags, sgt);
	if (rc)
		return rc;
	rc = smbdx_sgt_map(conn, sgt, dir, mapped, need);
	if (rc)
		return rc;
	return *need > max_descs ? -EMSGSIZE : 0;
}

/* Map the pieces of the scatterlist onto reg->mrs and post the chain. */
static int smbdx_reg_post(struct smbdx_conn *conn, struct smbdx_reg *reg,
			  unsigned int flags)
{
	struct scatterlist *sg = reg->sgt.sgl;
	int left = reg->mapped;
	unsigned int off = 0;
	struct ib_reg_wr *wrs = reg->reg_wrs;
	u32 i;
	int n, rc, k;

	for (i = 0; i < reg->nmrs && (left > 0 || off); i++) {
		struct smbdx_mr *mr = reg->mrs[i];
		struct ib_mr *ibmr = mr->mr;
		struct smbdx_buffer_desc d;

		n = ib_map_mr_sg(ibmr, sg, min_t(int, left,
						 conn->limits.mr_max_entries),
				 &off, PAGE_SIZE);
		if (n < 0 || (n == 0 && !off))
			return n < 0 ? n : -EIO;
		for (k = 0; k < n; k++)
			sg = sg_next(sg);
		left -= n;
		ib_update_fast_reg_key(ibmr, ib_inc_rkey(ibmr->rkey));
		mr->rkey = ibmr->rkey;
		wrs[i].wr.opcode = IB_WR_REG_MR;
		wrs[i].wr.wr_cqe = &mr->reg_cqe;
		wrs[i].mr = ibmr;
		wrs[i].key = ibmr->rkey;
		wrs[i].access = smbdx_reg_access(flags);
		if (i)
			wrs[i - 1].wr.next = &wrs[i].wr;
		d.offset = ibmr->iova;
		d.token = ibmr->rkey;
		d.length = ibmr->length;
		smbdx_bd_v1_encode(&d, &reg->descs[i]);
		trace_smbdx_post_reg_mr(conn, mr);
	}
	/* Everything must be mapped by these MRs. */
	if (left > 0 || off)
		return -EIO;
	/* The provider packed it into fewer MRs than planned: give back the rest. */
	if (i < reg->nmrs) {
		u32 used = i;

		for (; i < reg->nmrs; i++)
			smbdx_mr_put(conn, reg->mrs[i]);
		reg->nmrs = used;
		wake_up_all(&conn->wq);
	}
	reg->mrs[reg->nmrs - 1]->last = true;
	wrs[reg->nmrs - 1].wr.send_flags = IB_SEND_SIGNALED;
	reinit_completion(&reg->reg_done);
	reg->wr_status = 0;
	rc = smbdx_mr_post(conn, reg, &wrs[0].wr);
	if (!rc && (flags & SMBDX_REG_POSTED))
		reg->reg_wait = true;	/* smbdx_deregister() waits */
	else if (!rc)
		rc = smbdx_reg_wait(conn, reg);
	return rc;
}

/**
 * smbdx_register() - register a buffer for the peer's RDMA (3.1.4.3)
 * @conn: established connection
 * @iter: the buffer: a kernel iterator (bvec, kvec, folio queue or
 *	xarray; user-backed iterators are refused). It is advanced by the
 *	registered length, all of iov_iter_count().
 * @flags: SMBDX_REG_REMOTE_READ and/or SMBDX_REG_REMOTE_WRITE: what the
 *	peer may do (nothing else is enabled); SMBDX_REG_NOWAIT to get
 *	-EAGAIN rather than wait when the connection's MR pool is short;
 *	SMBDX_REG_MAX_DESCS(n) when the buffer must be described by at most
 *	n Buffer Descriptors, SMBDX_REG_ONE_DESC by one (see
 *	smbdx_conn_info.max_reg_len); SMBDX_REG_POSTED to return once the
 *	registration is posted rather than completed (see below);
 *	SMBDX_REG_BOUNCE to register a copy of a buffer that needs more
 *	descriptors than that (see below)
 *
 * The buffer is DMA-mapped and registered with as many fast-registration
 * MRs as its size and layout need (a gap between pages or more pages than
 * one MR holds starts another one), each with a fresh key. Without
 * SMBDX_REG_NOWAIT the call waits until the pool has all of them free (MRs
 * are taken all at once, so concurrent registrations cannot deadlock), or
 * until the connection fails.
 *
 * Without SMBDX_REG_POSTED the call also waits until the provider
 * completed the registration. With it, the call returns once the
 * registration work requests are posted: the connection's send queue
 * executes them before any message or RDMA operation posted after the
 * call returns, so the descriptors can be sent to the peer at once. A
 * registration failing after the call returned terminates the connection
 * (its owner hears of it as of any connection error, nothing stays
 * remotely accessible) and smbdx_deregister() returns the error.
 *
 * With SMBDX_REG_BOUNCE, a buffer that SMBDX_REG_MAX_DESCS() descriptors
 * cannot describe (its pieces have gaps, or it starts too far into its
 * first page) is copied into freshly allocated kernel pages, which are
 * registered instead, provided it is at most the connection's negotiated
 * MaxReadWriteSize and the copy fits in those descriptors. With
 * SMBDX_REG_REMOTE_WRITE, smbdx_deregister() copies the pages back into the
 * buffer (bytes the peer did not write are unchanged): the memory @iter
 * describes, and its bvec or kvec array, must then stay valid and be left
 * alone until smbdx_deregister() returns, and the buffer holds the peer's
 * data only from then on. The registration is counted in the
 * mr_bounced_registrations and mr_bounced_bytes counters.
 *
 * Context: process, may sleep.
 *
 * Return: the registration (smbdx_reg_descs() gives its Buffer Descriptor
 * V1 array; smbdx_deregister() ends it), or an ERR_PTR: -EINVAL (bad
 * flags, empty or user-backed buffer), -EMSGSIZE (needs more MRs than the
 * pool has, or than SMBDX_REG_MAX_DESCS() allows, also as a bounce copy),
 * -EAGAIN (SMBDX_REG_NOWAIT and the pool is short), -ENOMEM (also when
 * the pages of a bounce copy could not be had: not retried),
 * or the connection's error, also when the registration's work requests
 * failed or were flushed (the connection is then terminated and nothing
 * stays remotely accessible): -EIO if the provider failed the
 * registration first.
 */
struct smbdx_reg *smbdx_register(struct smbdx_conn *conn, struct iov_iter *iter,
				 unsigned int flags)
{
	if (flags & SMBDX_REG_CPU_WRITES)
		return ERR_PTR(-EINVAL);
	return __smbdx_register(conn, iter, flags);
}
EXPORT_SYMBOL_NS_GPL(smbdx_register, SMBDX_NS);

/*
 * The registration itself, of @len bytes of @iter (advanced by them), or,
 * when @xb is given, of the pages of that bounce copy described by @xsgt
 * (smbdx_register_xform(): @iter is then unused). @xb and @xsgt become
 * the registration's, or are freed, whatever happens. The arguments were
 * checked. Process context.
 */
static struct smbdx_reg *smbdx_reg_make(struct smbdx_conn *conn,
					struct iov_iter *iter, size_t len,
					unsigned int flags,
					struct smbdx_bounce *xb,
					struct sg_table *xsgt)
{
	u32 max_descs = (flags & SMBDX_REG_DESCS_MASK) >> SMBDX_REG_DESCS_SHIFT;
	enum dma_data_direction dir;
	struct smbdx_reg *reg = NULL;
	struct smbdx_bounce bb = {};
	struct sg_table sgt = {};
	struct iov_iter copy;
	int npages, need, mapped = 0, rc;
	bool waited = false;
	ssize_t got;

	might_sleep();
	if (xb) {
		/* Ours from here on: freed on the error paths below. */
		bb = *xb;
		sgt = *xsgt;
	}
	rc = smbdx_conn_enter(conn, false);
	if (rc) {
		smbdx_sgt_free(&sgt);
		smbdx_bounce_free(&bb);
		return ERR_PTR(rc);
	}

	if (((flags & SMBDX_REG_REMOTE_READ) &&
	     (flags & SMBDX_REG_REMOTE_WRITE)) ||
	    (flags & SMBDX_REG_CPU_WRITES))
		dir = DMA_BIDIRECTIONAL;
	else if (flags & SMBDX_REG_REMOTE_WRITE)
		dir = DMA_FROM_DEVICE;
	else
		dir = DMA_TO_DEVICE;

	if (xb) {
		rc = smbdx_sgt_map(conn, &sgt, dir, &mapped, &need);
		if (!rc && max_descs && need > max_descs)
			rc = -EMSGSIZE;
		if (rc) {
			if (mapped)
				goto out_unmap;
			goto out_sg;
		}
		goto take;
	}
	copy = *iter;
	npages = iov_iter_npages(&copy, INT_MAX);
	rc = smbdx_sgt_alloc(&sgt, npages);
	if (rc)
		goto out_failed;
	sgt.nents = 0;
	got = extract_iter_to_sg(iter, len, &sgt, npages, 0);
	if (got != len) {
		rc = got < 0 ? got : -EIO;
		goto out_sg;
	}
	smbdx_sg_end(&sgt);
	rc = smbdx_sgt_map(conn, &sgt, dir, &mapped, &need);
	if (rc) {
		if (mapped)
			goto out_unmap;
		goto out_sg;
	}
	if (max_descs && need > max_descs) {
		if (!(flags & SMBDX_REG_BOUNCE)) {
			rc = -EMSGSIZE;
			goto out_unmap;
		}
		rc = smbdx_bounce_setup(conn, &bb, &copy, len, flags, max_descs,
					&sgt, dir, &mapped, &need);
		if (rc) {
			if (mapped)
				goto out_unmap;
			goto out_sg;
		}
	}
take:
	/* More than the pool has: smbdx_mr_take() says -EMSGSIZE. */
	reg = smbdx_fault(SMBDX_FAULT_REG_ALLOC) ? NULL :
	      smbdx_reg_alloc(min_t(u32, need, conn->mr.pool_size));
	if (!reg) {
		rc = -ENOMEM;
		goto out_unmap;
	}
	smbdx_conn_get(conn);
	reg->conn = conn;
	reg->len = len;
	reg->sgt = sgt;
	reg->mapped = mapped;
	reg->dir = dir;
	/* The registration owns the bounce pages (if any) from here on. */
	reg->bounce = bb;
	memset(&bb, 0, sizeof(bb));
	INIT_LIST_HEAD(&reg->node);
	init_completion(&reg->done);
	init_completion(&reg->reg_done);

	/* All the MRs at once: two half-served registrations never wait on each other. */
	for (;;) {
		spin_lock_bh(&conn->lock);
		rc = smbdx_mr_take(conn, reg, need);
		if (!rc)
			list_add_tail(&reg->node, &conn->mr.regs);
		spin_unlock_bh(&conn->lock);
		if (rc != -EAGAIN || (flags & SMBDX_REG_NOWAIT))
			break;
		if (!waited) {
			smbdx_stat_inc(conn, SMBDX_STAT_MR_REG_WAITS);
			waited = true;
		}
		wait_event(conn->wq,
			   READ_ONCE(conn->mr.free_count) >= need ||
			   READ_ONCE(conn->mr.dead) ||
			   READ_ONCE(conn->state) != SMBDX_CS_ESTABLISHED ||
			   need > READ_ONCE(conn->mr.usable));
	}
	if (rc)
		goto out_free;

	rc = smbdx_mr_materialize(conn, reg);
	if (!rc)
		rc = smbdx_reg_post(conn, reg, flags);
	if (rc) {
		spin_lock_bh(&conn->lock);
		if (!reg->orphan)
			list_del_init(&reg->node);
		spin_unlock_bh(&conn->lock);
		if (reg->orphan) {
			/* Teardown unmaps and frees it after the drain. */
			smbdx_stat_inc(conn, SMBDX_STAT_MR_REG_FAILED);
			smbdx_conn_leave(conn);
			return ERR_PTR(rc);
		}
		smbdx_mr_put_all(reg);
		goto out_free;
	}

	spin_lock_bh(&conn->lock);
	for (need = 0; need < reg->nmrs; need++)
		if (reg->mrs[need]->state == SMBDX_MR_REGISTERING)
			reg->mrs[need]->state = SMBDX_MR_REGISTERED;
	spin_unlock_bh(&conn->lock);
	smbdx_stat_inc(conn, SMBDX_STAT_MR_REGISTRATIONS);
	smbdx_stat_add(conn, SMBDX_STAT_MR_REGISTERED_BYTES, len);
	smbdx_stat_add(conn, SMBDX_STAT_MR_DESCS, reg->nmrs);
	if (reg->bounce.xform == SMBDX_XF_TYPE_ENCRYPTION) {
		smbdx_stat_inc(conn, SMBDX_STAT_XFORM_SEALED);
	} else if (reg->bounce.xform == SMBDX_XF_TYPE_SIGNING) {
		smbdx_stat_inc(conn, SMBDX_STAT_XFORM_SIGNED);
	} else if (reg->bounce.bv) {
		smbdx_stat_inc(conn, SMBDX_STAT_MR_BOUNCED);
		smbdx_stat_add(conn, SMBDX_STAT_MR_BOUNCED_BYTES, len);
	}
	smbdx_conn_leave(conn);
	return reg;

out_free:
	/* The registration owns the mapping and the table now. */
	smbdx_reg_unmap(reg);
	if (rc != -EAGAIN)
		smbdx_stat_inc(conn, SMBDX_STAT_MR_REG_FAILED);
	smbdx_reg_free(reg);
	smbdx_conn_leave(conn);
	return ERR_PTR(rc);
out_unmap:
	ib_dma_unmap_sg(conn->ibdev, sgt.sgl, sgt.nents, dir);
out_sg:
	smbdx_sgt_free(&sgt);
	smbdx_bounce_free(&bb);
out_failed:
	smbdx_stat_inc(conn, SMBDX_STAT_MR_REG_FAILED);
	smbdx_conn_leave(conn);
	return ERR_PTR(rc);
}

/**
 * __smbdx_register() - smbdx_register() with smbdirect's own flags
 * @conn: established connection
 * @iter: as for smbdx_register()
 * @flags: as for smbdx_register(), and SMBDX_REG_CPU_WRITES: the buffer is
 *	mapped DMA_BIDIRECTIONAL because the CPU writes into it while it is
 *	registered (push.c)
 *
 * Context: process, may sleep.
 *
 * Return: as smbdx_register().
 */
struct smbdx_reg *__smbdx_register(struct smbdx_conn *conn,
				   struct iov_iter *iter, unsigned int flags)
{
	size_t len = iov_iter_count(iter);

	if (!len || len > U32_MAX || user_backed_iter(iter) ||
	    !(flags & (SMBDX_REG_REMOTE_READ | SMBDX_REG_REMOTE_WRITE)) ||
	    (flags & ~(SMBDX_REG_REMOTE_READ | SMBDX_REG_REMOTE_WRITE |
		       SMBDX_REG_NOWAIT | SMBDX_REG_DESCS_MASK |
		       SMBDX_REG_POSTED | SMBDX_REG_BOUNCE |
		       SMBDX_REG_CPU_WRITES)))
		return ERR_PTR(-EINVAL);
	return smbdx_reg_make(conn, iter, len, flags, NULL, NULL);
}

/* The transform @xf describes is complete and one we implement: 0 or -EINVAL. */
static int smbdx_xform_check(const struct smbdx_xform *xf)
{
	switch (xf->type) {
	case SMBDX_XF_TYPE_ENCRYPTION:
		if (!xf->aead || !xf->nonce ||
		    crypto_aead_authsize(xf->aead) != SMBDX_XF_TAG_LEN)
			return -EINVAL;
		switch (xf->cipher) {
		case SMBDX_XF_AES128_CCM:
		case SMBDX_XF_AES128_GCM:
		case SMBDX_XF_AES256_CCM:
		case SMBDX_XF_AES256_GCM:
			return 0;
		}
		return -EINVAL;
	case SMBDX_XF_TYPE_SIGNING:
		if (!xf->shash || !xf->shash->tfm ||
		    crypto_shash_digestsize(xf->shash->tfm) != SMBDX_XF_TAG_LEN)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/**
 * smbdx_register_xform() - register a sealed or signed copy of a buffer
 *	for the peer's RDMA Read (MS-SMB2 RDMA transform, client WRITE)
 * @conn: established connection
 * @iter: the payload: a kernel iterator (bvec, kvec, folio queue or
 *	xarray; user-backed ones are refused), all of iov_iter_count(), at
 *	most the connection's negotiated MaxReadWriteSize. It is advanced
 *	by that length. Its memory is only read, during the call.
 * @flags: SMBDX_REG_REMOTE_READ (required: the peer only reads), and
 *	optionally SMBDX_REG_NOWAIT, SMBDX_REG_POSTED and
 *	SMBDX_REG_MAX_DESCS(n), as for smbdx_register(); SMBDX_REG_BOUNCE
 *	is implied and may be given
 * @xf: the transform: the sender's keyed AEAD, its cipher ID and the
 *	nonce the caller chose (SMBDX_XF_TYPE_ENCRYPTION), or the sender's
 *	keyed AES-CMAC descriptor (SMBDX_XF_TYPE_SIGNING)
 * @sig: receives the 16-octet authentication tag or signature, for the
 *	caller's SMB2_RDMA_CRYPTO_TRANSFORM; written only when the payload
 *	was transformed, meaningful only when the call succeeds
 *
 * The payload is sealed (AEAD, empty associated data, as smbdx_xf_seal())
 * or signed (AES-CMAC, as smbdx_xf_sign()) into pages the registration
 * allocates and owns, in one pass over the caller's memory: the cipher
 * reads the caller's buffer and writes the ciphertext into the pages, or
 * each page is copied and hashed at once. Those pages, never the caller's,
 * are registered for the peer's RDMA Read, so the caller's buffer may
 * change as soon as the call returns (a page-cache page written again)
 * without changing what the peer reads or making it disagree with @sig.
 *
 * The pages are allocated per call, like SMBDX_REG_BOUNCE's, without
 * retrying hard or warning (-ENOMEM under memory pressure), at most
 * MaxReadWriteSize bytes; the cryptography runs before the call enters
 * the connection, so a long transform does not hold its teardown up.
 * smbdx_deregister() ends the registration and frees the pages, also
 * after the connection was torn down. Successful registrations are
 * counted in xform_sealed or xform_signed (not in the
 * mr_bounced_* counters). The fault point xform_tamper, when it fires,
 * inverts the first octet of the transformed pages before they are
 * registered (Documentation/admin-guide.rst).
 *
 * Context: process, may sleep. The caller's transform objects must not be
 * rekeyed, nor @xf->shash used elsewhere, during the call.
 *
 * Return: the registration, as smbdx_register(), or an ERR_PTR: -EINVAL
 * (bad flags, REMOTE_WRITE, an empty or user-backed buffer, an incomplete
 * or unknown transform, an AEAD whose authsize or a hash whose digest is
 * not 16 octets), -EMSGSIZE (above MaxReadWriteSize, or more descriptors
 * than SMBDX_REG_MAX_DESCS() allows), -ENOMEM, -EAGAIN (SMBDX_REG_NOWAIT),
 * the cipher's or hash's error, or the connection's error as for
 * smbdx_register().
 */
struct smbdx_reg *smbdx_register_xform(struct smbdx_conn *conn,
				       struct iov_iter *iter,
				       unsigned int flags,
				       const struct smbdx_xform *xf, u8 *sig)
{
	u32 max_descs = (flags & SMBDX_REG_DESCS_MASK) >> SMBDX_REG_DESCS_SHIFT;
	struct smbdx_bounce bb = {};
	struct sg_table sgt = {};
	size_t len;
	int rc;

	might_sleep();
	if (!iter || !xf || !sig || !(flags & SMBDX_REG_REMOTE_READ) ||
	    (flags & ~(SMBDX_REG_REMOTE_READ | SMBDX_REG_NOWAIT |
		       SMBDX_REG_DESCS_MASK | SMBDX_REG_POSTED |
		       SMBDX_REG_BOUNCE)))
		return ERR_PTR(-EINVAL);
	len = iov_iter_count(iter);
	if (!len || len > SMBDX_XF_PAYLOAD_MAX || user_backed_iter(iter) ||
	    smbdx_xform_check(xf))
		return ERR_PTR(-EINVAL);
	rc = smbdx_bounce_xform(conn, &bb, iter, len, max_descs, xf, sig, &sgt);
	if (rc) {
		smbdx_sgt_free(&sgt);
		smbdx_bounce_free(&bb);
		smbdx_stat_inc(conn, SMBDX_STAT_MR_REG_FAILED);
		return ERR_PTR(rc);
	}
	/* Registered in full, as smbdx_register() would have. */
	iov_iter_advance(iter, len);
	return smbdx_reg_make(conn, NULL, len, flags | SMBDX_REG_BOUNCE, &bb,
			      &sgt);
}
EXPORT_SYMBOL_NS_GPL(smbdx_register_xform, SMBDX_NS);

/**
 * smbdx_reg_sync() - hand a registered buffer to the CPU, or back
 * @reg: registration, still mapped: the caller is inside
 *	smbdx_conn_enter() and owns @reg (so neither teardown nor a
 *	deregistration unmaps it meanwhile)
 * @for_cpu: true before the CPU reads what the peer wrote (or writes
 *	itself), false after the CPU wrote
 *
 * Nothing to do on devices that use virtual DMA (rxe, siw) or coherent
 * memory; on others, the whole buffer's caches.
 *
 * Context: any.
 */
void smbdx_reg_sync(struct smbdx_reg *reg, bool for_cpu)
{
	struct ib_device *dev = reg->conn->ibdev;

	if (!reg->mapped || ib_uses_virt_dma(dev))
		return;
	if (for_cpu)
		dma_sync_sg_for_cpu(dev->dma_device, reg->sgt.sgl,
				    reg->sgt.nents, reg->dir);
	else
		dma_sync_sg_for_device(dev->dma_device, reg->sgt.sgl,
				       reg->sgt.nents, reg->dir);
}

/**
 * smbdx_reg_descs() - the Buffer Descriptor V1 array of a registration
 * @reg: registration
 * @count: set to the number of entries
 *
 * The array (little-endian, ready to send) stays valid until
 * smbdx_deregister().
 *
 * Context: any.
 *
 * Return: the first entry.
 */
const struct smbdx_buffer_desc_v1 *smbdx_reg_descs(const struct smbdx_reg *reg,
						   u32 *count)
{
	*count = reg->nmrs;
	return reg->descs;
}
EXPORT_SYMBOL_NS_GPL(smbdx_reg_descs, SMBDX_NS);

/**
 * smbdx_reg_len() - bytes a registration covers
 * @reg: registration
 *
 * Return: the length registered.
 */
u32 smbdx_reg_len(const struct smbdx_reg *reg)
{
	return reg->len;
}
EXPORT_SYMBOL_NS_GPL(smbdx_reg_len, SMBDX_NS);

/**
 * smbdx_reg_token() - the token to pass to smbdx_send() for remote
 *	invalidation of a registration
 * @reg: registration
 *
 * The peer can invalidate one MR with Send with Invalidate; this is the
 * first descriptor's. The others are invalidated locally at
 * deregistration.
 *
 * Return: the first MR's key.
 */
u32 smbdx_reg_token(const struct smbdx_reg *reg)
{
	return le32_to_cpu(reg->descs[0].token);
}
EXPORT_SYMBOL_NS_GPL(smbdx_reg_token, SMBDX_NS);

/* Invalidate the MRs the peer did not, and wait; process context. */
static int smbdx_reg_invalidate(struct smbdx_conn *conn, struct smbdx_reg *reg)
{
	struct ib_send_wr *wrs = reg->inv_wrs, *first = NULL, *prev = NULL;
	struct smbdx_mr *last = NULL;
	u32 i, ninv = 0;
	int rc;

	memset(wrs, 0, reg->nmrs * sizeof(*wrs));
	spin_lock_bh(&conn->lock);
	for (i = 0; i < reg->nmrs; i++) {
		struct smbdx_mr *mr = reg->mrs[i];

		mr->last = false;
		if (mr->state != SMBDX_MR_REGISTERED)
			continue;
		wrs[ninv].opcode = IB_WR_LOCAL_INV;
		wrs[ninv].ex.invalidate_rkey = mr->rkey;
		wrs[ninv].wr_cqe = &mr->cqe;
		if (prev)
			prev->next = &wrs[ninv];
		else
			first = &wrs[ninv];
		prev = &wrs[ninv];
		last = mr;
		ninv++;
		trace_smbdx_post_local_inv(conn, mr);
	}
	spin_unlock_bh(&conn->lock);
	if (!ninv)
		return 0;
	prev->send_flags = IB_SEND_SIGNALED;
	last->last = true;
	reinit_completion(&reg->done);
	reg->wr_status = 0;
	rc = smbdx_mr_post(conn, reg, first);
	if (!rc) {
		smbdx_conn_wait_wr(conn, &reg->done);
		rc = reg->wr_status ? smbdx_conn_wc_errno(conn) : 0;
		smbdx_stat_add(conn, SMBDX_STAT_MR_LOCAL_INV, ninv);
	}
	return rc;
}

/*
 * An invalidation failed, or could not be posted: the MRs may still be
 * valid. Before the pages are unmapped the peer must lose all access: the
 * connection is terminated and its QP (the only one of its PD) moved to
 * the error state now, not when the disconnect work gets to it. MRs left
 * valid are recycled before reuse. Process context, inside
 * smbdx_conn_enter(), so the QP exists.
 */
static void smbdx_reg_fence(struct smbdx_conn *conn, struct smbdx_reg *reg,
			    int rc)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	u32 i;

	smbdx_conn_fail(conn, rc, SMBDX_CAUSE_MR_ERROR);
	if (conn->id && conn->id->qp)
		ib_modify_qp(conn->id->qp, &attr, IB_QP_STATE);
	spin_lock_bh(&conn->lock);
	for (i = 0; i < reg->nmrs; i++)
		if (reg->mrs[i]->state == SMBDX_MR_REGISTERED)
			reg->mrs[i]->state = SMBDX_MR_BROKEN;
	spin_unlock_bh(&conn->lock);
}

/**
 * smbdx_deregister() - end a registration (3.1.4.4)
 * @reg: registration from smbdx_register(); freed by this call
 *
 * MRs the peer invalidated with Send with Invalidate (the receive
 * completion named exactly their key) go straight back to the pool; the
 * others are invalidated with LOCAL_INV, and the call waits for that.
 * When it returns, the peer can no longer access the buffer with any of
 * the registration's descriptors, and the buffer is unmapped. If the
 * connection was already torn down, teardown did all this and the call
 * only frees @reg. A bounce copy (SMBDX_REG_BOUNCE) of a buffer the peer
 * could write is then copied into the caller's buffer, in every case, so
 * the data is there when this returns.
 *
 * Context: process, may sleep. Each registration is deregistered once.
 *
 * A registration made with SMBDX_REG_POSTED is first waited for, and its
 * failure reported here.
 *
 * Return: 0, or the connection's error if the registration (with
 * SMBDX_REG_POSTED) or an invalidation failed, was flushed or could not be
 * posted (the connection is then terminated: its QP is in error, so the
 * buffer is no longer accessible either): -EIO if the provider failed it
 * first.
 */
int smbdx_deregister(struct smbdx_reg *reg)
{
	struct smbdx_conn *conn = reg->conn;
	int rc;

	might_sleep();
	if (smbdx_conn_enter(conn, true)) {
		/* Teardown has (or is about to have) released it all. */
		wait_event(conn->wq, READ_ONCE(conn->mr.released) || !conn->mr.pool);
		/* Unmapped by teardown: the peer's data is in the pages. */
		smbdx_bounce_copy_back(reg);
		smbdx_reg_free(reg);
		return 0;
	}
	rc = reg->reg_wait ? smbdx_reg_wait(conn, reg) : 0;
	if (!rc)
		rc = smbdx_reg_invalidate(conn, reg);
	if (rc)
		smbdx_reg_fence(conn, reg, rc);
	if (rc && reg->orphan) {
		/*
		 * Left to teardown, which unmaps and frees it after the drain
		 * but not before this call leaves the connection. The QP is in
		 * error, so the peer no longer writes: hand over what it wrote.
		 */
		if (reg->bounce.copy_back && reg->mapped) {
			if (!ib_uses_virt_dma(conn->ibdev))
				dma_sync_sg_for_cpu(conn->ibdev->dma_device,
						    reg->sgt.sgl,
						    reg->sgt.nents, reg->dir);
			smbdx_bounce_copy_back(reg);
		}
		smbdx_conn_leave(conn);
		return rc;
	}
	spin_lock_bh(&conn->lock);
	list_del_init(&reg->node);
	spin_unlock_bh(&conn->lock);
	smbdx_reg_unmap(reg);
	/* Unmapped, and the peer has lost access: the data is final. */
	smbdx_bounce_copy_back(reg);
	smbdx_mr_put_all(reg);
	smbdx_conn_leave(conn);
	smbdx_reg_free(reg);
	return rc;
}
EXPORT_SYMBOL_NS_GPL(smbdx_deregister, SMBDX_NS);
