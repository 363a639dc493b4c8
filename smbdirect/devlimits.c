// SPDX-License-Identifier: GPL-2.0
/*
 * Device limits: turn an RDMA device's attributes into the figures the
 * transport sizes its queues, SGE lists and MR pool from, and decide whether
 * the device can carry SMB Direct at all.
 *
 * Pure code, no locking: the caller owns both the attribute snapshot and
 * the result.
 */

#include <linux/minmax.h>
#include <rdma/ib_verbs.h>
#include <kunit/visibility.h>

#include "devlimits.h"

static u32 clamp_attr(int val, u32 max)
{
	if (val <= 0)
		return 0;
	return min_t(u32, val, max);
}

/**
 * smbd_dev_limits_compute() - derive smbdirect's limits from device attributes
 * @attr: the device's attributes (ib_device->attrs)
 * @iwarp: true when the device's transport is iWARP
 * @out: filled in whatever the verdict
 *
 * Return: %SMBD_DEV_OK when the device is usable, else the first reason it
 * is not (also stored in @out->verdict).
 */
enum smbd_dev_verdict smbd_dev_limits_compute(const struct ib_device_attr *attr,
					      bool iwarp,
					      struct smbd_dev_limits *out)
{
	enum smbd_dev_verdict v = SMBD_DEV_OK;

	out->iwarp = iwarp;
	out->port = iwarp ? SMBD_PORT_IWARP : SMBD_PORT_IB;
	out->max_send_sge = clamp_attr(attr->max_send_sge, SMBD_MAX_SGE);
	out->max_recv_sge = clamp_attr(attr->max_recv_sge, SMBD_MAX_SGE);
	out->max_sge_rd = clamp_attr(attr->max_sge_rd, SMBD_MAX_SGE);
	out->max_qp_wr = clamp_attr(attr->max_qp_wr, U32_MAX);
	out->max_cqe = clamp_attr(attr->max_cqe, U32_MAX);
	out->ird = clamp_attr(attr->max_qp_rd_atom, SMBD_MAX_RD_ATOM);
	out->ord = clamp_attr(attr->max_qp_init_rd_atom, SMBD_MAX_RD_ATOM);
	if (attr->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS)
		out->frwr_depth = min_t(u32, attr->max_fast_reg_page_list_len,
					SMBD_FRWR_MAX_DEPTH);
	else
		out->frwr_depth = 0;

	if (!out->frwr_depth)
		v = SMBD_DEV_NO_FRWR;
	else if (out->max_send_sge < SMBD_MIN_SEND_SGE)
		v = SMBD_DEV_FEW_SEND_SGE;
	else if (out->max_recv_sge < SMBD_MIN_RECV_SGE)
		v = SMBD_DEV_FEW_RECV_SGE;
	else if (out->max_qp_wr < SMBD_MIN_QP_WR || out->max_cqe < SMBD_MIN_QP_WR)
		v = SMBD_DEV_SMALL_QP;
	else if (!out->ird || !out->ord)
		v = SMBD_DEV_NO_RDMA_READ;

	out->verdict = v;
	return v;
}
EXPORT_SYMBOL_IF_KUNIT(smbd_dev_limits_compute);

/**
 * smbd_dev_verdict_str() - short text for a device verdict
 * @verdict: the verdict
 *
 * Return: a static string, "usable" for %SMBD_DEV_OK.
 */
const char *smbd_dev_verdict_str(enum smbd_dev_verdict verdict)
{
	switch (verdict) {
	case SMBD_DEV_OK:
		return "usable";
	case SMBD_DEV_NO_FRWR:
		return "no-frwr";
	case SMBD_DEV_FEW_SEND_SGE:
		return "few-send-sge";
	case SMBD_DEV_FEW_RECV_SGE:
		return "few-recv-sge";
	case SMBD_DEV_SMALL_QP:
		return "small-qp";
	case SMBD_DEV_NO_RDMA_READ:
		return "no-rdma-read";
	}
	return "unknown";
}
EXPORT_SYMBOL_IF_KUNIT(smbd_dev_verdict_str);
