/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verbs side of a raw RDMA CM test peer, one implementation for every
 * test that plays a peer without smbdirect (kunit/smbd_raw_peer.h and
 * kunit/smbdirect_cm_live_kunit.c, smbd_test's raw listener and raw
 * clients in tests/modules/smbd_test/raw.c and rawc.c, and
 * tests/modules/smbd_fuzz.c): on an rdma_cm_id that has a device, a PD,
 * @nslots buffers ("slots") of @slot bytes each, DMA-mapped both ways, a
 * CQ polled in softirq and an RC QP with one SGE per work request; a
 * receive into a slot, a signalled Send from a slot, and the release.
 *
 * What differs between the peers stays theirs: the CM event handler, the
 * completion handlers (each work request names its own struct ib_cqe),
 * what they wait for, and whether they disconnect.
 *
 * Header-only (static functions): every module that includes it gets its
 * own copy of the code, as the KUnit suites are one source file each.
 *
 * Locking: none of its own. Set-up and release run in process context
 * (the release sleeps: ib_drain_qp(), rdma_destroy_id()); posting and the
 * DMA syncs of a slot may run in any context, by the slot's one owner.
 */
#ifndef _SMBD_RAWQP_H
#define _SMBD_RAWQP_H

#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

struct smbd_rawqp_slot {
	void *buf;
	u64 dma;
};

struct smbd_rawqp {
	struct rdma_cm_id *id;		/* set by the user, destroyed here */
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool qp;			/* rdma_create_qp() succeeded */
	struct ib_device *dma_dev;	/* the slots are mapped on it */
	struct smbd_rawqp_slot *slots;
	u32 nslots, nmapped;
	u32 slot;			/* bytes per slot */
};

/**
 * struct smbd_rawqp_caps - what smbd_rawqp_setup() creates
 * @slot: bytes per slot
 * @nslots: slots
 * @cqe: CQ entries
 * @send_wr: the QP's max_send_wr
 * @recv_wr: the QP's max_recv_wr
 */
struct smbd_rawqp_caps {
	u32 slot;
	u32 nslots;
	int cqe;
	u32 send_wr;
	u32 recv_wr;
};

/* The buffer of slot @i. */
static inline void *smbd_rawqp_buf(struct smbd_rawqp *q, u32 i)
{
	return q->slots[i].buf;
}

/*
 * PD, slots, CQ (its context @cq_context) and QP on @q->id's device.
 * 0 or a negative errno; on an error what was made stays recorded in @q
 * for smbd_rawqp_release().
 */
static int __maybe_unused smbd_rawqp_setup(struct smbd_rawqp *q,
					   const struct smbd_rawqp_caps *caps,
					   void *cq_context)
{
	struct ib_device *dev = q->id->device;
	struct ib_qp_init_attr qpa = {};
	int rc;
	u32 i;

	q->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(q->pd)) {
		rc = PTR_ERR(q->pd);
		q->pd = NULL;
		return rc;
	}
	q->slots = kcalloc(caps->nslots, sizeof(*q->slots), GFP_KERNEL);
	if (!q->slots)
		return -ENOMEM;
	q->nslots = caps->nslots;
	q->slot = caps->slot;
	q->dma_dev = dev;
	for (i = 0; i < q->nslots; i++) {
		q->slots[i].buf = kzalloc(q->slot, GFP_KERNEL);
		if (!q->slots[i].buf)
			return -ENOMEM;
		q->slots[i].dma = ib_dma_map_single(dev, q->slots[i].buf,
						    q->slot, DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(dev, q->slots[i].dma))
			return -ENOMEM;
		q->nmapped++;
	}
	q->cq = ib_alloc_cq(dev, cq_context, caps->cqe, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(q->cq)) {
		rc = PTR_ERR(q->cq);
		q->cq = NULL;
		return rc;
	}
	qpa.send_cq = q->cq;
	qpa.recv_cq = q->cq;
	qpa.cap.max_send_wr = caps->send_wr;
	qpa.cap.max_recv_wr = caps->recv_wr;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	qpa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qpa.qp_type = IB_QPT_RC;
	rc = rdma_create_qp(q->id, q->pd, &qpa);
	if (rc)
		return rc;
	q->qp = true;
	return 0;
}

/* Post a receive of a whole slot @i; its completion goes to @cqe. */
static int __maybe_unused smbd_rawqp_post_recv(struct smbd_rawqp *q, u32 i,
					       struct ib_cqe *cqe)
{
	struct ib_sge sge = {
		.addr = q->slots[i].dma,
		.length = q->slot,
		.lkey = q->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	ib_dma_sync_single_for_device(q->dma_dev, sge.addr, q->slot,
				      DMA_FROM_DEVICE);
	return ib_post_recv(q->id->qp, &wr, NULL);
}

/* A receive into slot @i completed: make its bytes the CPU's. */
static void __maybe_unused smbd_rawqp_sync_recv(struct smbd_rawqp *q, u32 i)
{
	ib_dma_sync_single_for_cpu(q->dma_dev, q->slots[i].dma, q->slot,
				   DMA_FROM_DEVICE);
}

/*
 * Post a signalled Send of the first @len bytes of slot @i (at most
 * @q->slot, already written there); its completion goes to @cqe.
 */
static int __maybe_unused smbd_rawqp_post_send(struct smbd_rawqp *q, u32 i,
					       u32 len, struct ib_cqe *cqe)
{
	struct ib_sge sge = {
		.addr = q->slots[i].dma,
		.length = len,
		.lkey = q->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	ib_dma_sync_single_for_device(q->dma_dev, sge.addr, len, DMA_TO_DEVICE);
	return ib_post_send(q->id->qp, &wr, NULL);
}

/*
 * Before the release, when the QP may still have work posted: disconnect
 * first if @disconnect, then flush every posted work request (their
 * completions run, with IB_WC_WR_FLUSH_ERR). Nothing without a QP.
 */
static void __maybe_unused smbd_rawqp_drain(struct smbd_rawqp *q,
					    bool disconnect)
{
	if (!q->qp)
		return;
	if (disconnect)
		rdma_disconnect(q->id);
	ib_drain_qp(q->id->qp);
}

/*
 * Release everything smbd_rawqp_setup() made, and @q->id if set, in
 * reverse order; after smbd_rawqp_drain() if work may be posted.
 */
static void __maybe_unused smbd_rawqp_release(struct smbd_rawqp *q)
{
	u32 i;

	if (q->qp)
		rdma_destroy_qp(q->id);
	q->qp = false;
	if (q->cq)
		ib_free_cq(q->cq);
	q->cq = NULL;
	for (i = 0; i < q->nmapped; i++)
		ib_dma_unmap_single(q->dma_dev, q->slots[i].dma, q->slot,
				    DMA_BIDIRECTIONAL);
	q->nmapped = 0;
	if (q->pd)
		ib_dealloc_pd(q->pd);
	q->pd = NULL;
	if (q->id)
		rdma_destroy_id(q->id);
	q->id = NULL;
	for (i = 0; q->slots && i < q->nslots; i++)
		kfree(q->slots[i].buf);
	kfree(q->slots);
	q->slots = NULL;
	q->nslots = 0;
}

#endif /* _SMBD_RAWQP_H */
