// SPDX-License-Identifier: GPL-2.0
/*
 * A connection's verbs resources: the PD, one CQ polled in softirq, the RC
 * QP, the MR pool and the receive buffers, sized from the connection's
 * configuration and what its device allows (devlimits.c).
 *
 * Sizing: the send queue holds SendCreditTarget + 2 Sends (every Send is
 * signaled, one SGE each: header and payload share a buffer), one slot for
 * ib_drain_qp(), one REG_MR or LOCAL_INV per MR of the pool (at most one
 * is outstanding per MR, mr.c) and what the rdma_rw contexts need (rw.c
 * plans them in the room left); the receive queue holds ReceiveCreditMax
 * receives plus the drain's; the CQ has room for every one of them, since
 * flushed work requests complete even when unsignaled.
 *
 * Normal operation: smbdx_qp_setup() runs once the cm_id has a device
 * (address resolved, or a connect request), before connecting or
 * accepting, so the negotiate processing in softirq never allocates the
 * receive buffers.
 *
 * Transport recovery: smbdx_qp_free() releases what set-up created, in the
 * reverse order, after teardown drained the QP (or before it was ever
 * connected); no completion handler runs once the CQ is freed, so the
 * receive buffers go last but one. Both run in process context under the
 * connection's res_mutex (or before the connection is visible). Whether
 * the QP exists is the cm_id's qp pointer (rdma_create_qp() sets it on
 * success, rdma_destroy_qp() clears it); no flag of ours repeats it.
 */

#include <linux/module.h>

#include "smbd.h"

static void smbdx_qp_event(struct ib_event *event, void *context)
{
	struct smbdx_conn *conn = context;

	/* Fatal QP errors also flush the queues; the completions fail it. */
	ibdev_dbg(conn->ibdev, KBUILD_MODNAME ": connection %u: QP event %s\n",
		  conn->num, ib_event_msg(event->event));
	if (event->event == IB_EVENT_COMM_EST)
		smbdx_conn_comm_est(conn);
}

/**
 * smbdx_qp_setup() - create the verbs resources on conn->id's device
 * @conn: connection whose cm_id has a device (address resolved, or a
 *	connect request)
 *
 * PD, one CQ polled in softirq, an RC QP (sends use one SGE: header and
 * payload share a buffer) with room for the drain work requests, the MR
 * pool's registrations and invalidations and the rdma_rw contexts, the
 * MR pool (mr.c) and the receive buffers. On failure everything created is
 * released again.
 *
 * Context: process; the caller serialises with teardown (res_mutex, or the
 * connection is not yet visible).
 *
 * Return: 0 or a negative errno.
 */
int smbdx_qp_setup(struct smbdx_conn *conn)
{
	struct ib_device *ibdev = conn->id->device;
	struct ib_qp_init_attr qpa = {};
	u32 cqe, sq, nmrs;
	int rc;

	if (!smbdx_device_limits(ibdev, &conn->limits))
		return -ENODEV;
	if (conn->limits.verdict != SMBDX_DEV_OK)
		return -EOPNOTSUPP;
	conn->ibdev = ibdev;
	strscpy(conn->devname, dev_name(&ibdev->dev), sizeof(conn->devname));

	conn->recv.depth = conn->cfg.proto.recv_credit_max;
	conn->send.depth = conn->cfg.proto.send_credit_target + 2;
	if (conn->send.depth + 1 > conn->limits.max_qp_wr)
		conn->send.depth = conn->limits.max_qp_wr - 1;
	if (conn->recv.depth + 1 > conn->limits.max_qp_wr)
		return -EINVAL;
	/* One REG_MR or LOCAL_INV at a time per MR, then the RDMA contexts. */
	nmrs = smbdx_mr_plan(conn);
	if (conn->send.depth + 1 + nmrs > conn->limits.max_qp_wr)
		return -EINVAL;
	sq = conn->send.depth + 1 + nmrs;
	sq += smbdx_rw_plan(conn, conn->limits.max_qp_wr - sq);
	/* Flushed work requests complete even when unsignaled. */
	cqe = sq + 3 * conn->rw.ctxs + conn->recv.depth + 2;
	if (cqe > conn->limits.max_cqe)
		return -EINVAL;
	conn->recv.rio_size = max_t(u32, conn->cfg.proto.max_receive_size,
				    SMBDX_PROTO_NEG_RECV_SIZE);

	conn->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(conn->pd)) {
		rc = PTR_ERR(conn->pd);
		conn->pd = NULL;
		return rc;
	}

	conn->cq = ib_alloc_cq_any(ibdev, conn, cqe, IB_POLL_SOFTIRQ);
	if (IS_ERR(conn->cq)) {
		rc = PTR_ERR(conn->cq);
		conn->cq = NULL;
		goto out;
	}

	qpa.event_handler = smbdx_qp_event;
	qpa.qp_context = conn;
	qpa.send_cq = conn->cq;
	qpa.recv_cq = conn->cq;
	qpa.cap.max_send_wr = sq;
	qpa.cap.max_recv_wr = conn->recv.depth + 1;
	/* Sends use one SGE; RDMA Write contexts use what the device has. */
	qpa.cap.max_send_sge = conn->limits.max_send_sge;
	qpa.cap.max_rdma_ctxs = conn->rw.ctxs;
	qpa.port_num = conn->id->port_num;
	qpa.cap.max_recv_sge = 1;
	qpa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qpa.qp_type = IB_QPT_RC;
	rc = rdma_create_qp(conn->id, conn->pd, &qpa);
	if (rc)
		goto out;
	conn->cq_id = conn->cq->res.id;
	conn->qpn = conn->id->qp->qp_num;
	/*
	 * rdma_rw_init_qp() adds its own entries and then clamps the send
	 * queue to the device's limit; the provider reports what it made.
	 * If that is less than planned, the RDMA read/write budget gives way,
	 * never the Sends' or the drain's slots.
	 */
	if (qpa.cap.max_send_wr < sq) {
		u32 short_by = sq - qpa.cap.max_send_wr;

		if (short_by >= conn->rw.wr_budget) {
			rc = -ENOSPC;
			goto out;
		}
		conn->rw.wr_budget -= short_by;
		conn->rw.wr_avail = conn->rw.wr_budget;
	}

	rc = smbdx_mr_pool_init(conn);
	if (rc)
		goto out;
	rc = smbdx_recv_bufs_alloc(conn);
	if (rc)
		goto out;
	return 0;
out:
	smbdx_qp_free(conn);
	return rc;
}

/**
 * smbdx_qp_free() - release what smbdx_qp_setup() created
 * @conn: connection whose QP is drained or was never connected
 *
 * Context: process, serialised with set-up and teardown.
 */
void smbdx_qp_free(struct smbdx_conn *conn)
{
	smbdx_mr_release(conn);
	/* rdma_create_qp() sets id->qp on success, rdma_destroy_qp() clears it. */
	if (conn->id && conn->id->qp)
		rdma_destroy_qp(conn->id);
	/* No completion handler runs once the CQ is freed. */
	if (conn->cq) {
		ib_free_cq(conn->cq);
		conn->cq = NULL;
	}
	smbdx_send_reclaim(conn);
	smbdx_recv_bufs_free(conn);
	if (conn->pd) {
		ib_dealloc_pd(conn->pd);
		conn->pd = NULL;
	}
}
