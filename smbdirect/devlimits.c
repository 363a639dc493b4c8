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
 * smbdx_dev_limits_compute() - derive smbdirect's limits from device attributes
 * @attr: the device's attributes (ib_device->attrs)
 * @iwarp: true when the device's transport is iWARP
 * @out: filled in whatever the verdict
 *
 * Return: %SMBDX_DEV_OK when the device is usable, else the first reason it
 * is not (also stored in @out->verdict).
 */
enum smbdx_dev_verdict smbdx_dev_limits_compute(const struct ib_device_attr *attr,
						bool iwarp,
					      struct smbdx_dev_limits *out)
{
	enum smbdx_dev_verdict v = SMBDX_DEV_OK;

	out->iwarp = iwarp;
	out->port = iwarp ? SMBDX_PORT_IWARP : SMBDX_PORT_IB;
	out->ird_ord_private_data = iwarp;
	out->est_by_data = !iwarp;
	out->rw_write_mr = iwarp;
	out->rw_read_mr = iwarp;
	out->err_before_disconnect = iwarp;
	out->max_send_sge = clamp_attr(attr->max_send_sge, SMBDX_MAX_SGE);
	out->max_recv_sge = clamp_attr(attr->max_recv_sge, SMBDX_MAX_SGE);
	out->max_sge_rd = clamp_attr(attr->max_sge_rd, SMBDX_MAX_SGE);
	out->max_qp_wr = clamp_attr(attr->max_qp_wr, U32_MAX);
	out->max_cqe = clamp_attr(attr->max_cqe, U32_MAX);
	out->ird = clamp_attr(attr->max_qp_rd_atom, SMBDX_MAX_RD_ATOM);
	out->ord = clamp_attr(attr->max_qp_init_rd_atom, SMBDX_MAX_RD_ATOM);
	if (attr->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS)
		out->frwr_depth = min_t(u32, attr->max_fast_reg_page_list_len,
					SMBDX_FRWR_MAX_DEPTH);
	else
		out->frwr_depth = 0;
	out->mr_max_entries = out->frwr_depth;

	if (!out->frwr_depth)
		v = SMBDX_DEV_NO_FRWR;
	else if (out->max_send_sge < SMBDX_MIN_SEND_SGE)
		v = SMBDX_DEV_FEW_SEND_SGE;
	else if (out->max_recv_sge < SMBDX_MIN_RECV_SGE)
		v = SMBDX_DEV_FEW_RECV_SGE;
	else if (out->max_qp_wr < SMBDX_MIN_QP_WR || out->max_cqe < SMBDX_MIN_QP_WR)
		v = SMBDX_DEV_SMALL_QP;
	else if (!out->ird || !out->ord)
		v = SMBDX_DEV_NO_RDMA_READ;

	out->verdict = v;
	return v;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_dev_limits_compute);

/**
 * smbdx_dev_verdict_str() - short text for a device verdict
 * @verdict: the verdict
 *
 * Return: a static string, "usable" for %SMBDX_DEV_OK.
 */
const char *smbdx_dev_verdict_str(enum smbdx_dev_verdict verdict)
{
	switch (verdict) {
	case SMBDX_DEV_OK:
		return "usable";
	case SMBDX_DEV_NO_FRWR:
		return "no-frwr";
	case SMBDX_DEV_FEW_SEND_SGE:
		return "few-send-sge";
	case SMBDX_DEV_FEW_RECV_SGE:
		return "few-recv-sge";
	case SMBDX_DEV_SMALL_QP:
		return "small-qp";
	case SMBDX_DEV_NO_RDMA_READ:
		return "no-rdma-read";
	}
	return "unknown";
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_dev_verdict_str);

/**
 * smbdx_dev_reg_len() - bytes one registration on a device surely covers
 * @l: the device's limits
 * @page_size: the page size registrations map
 *
 * One MR of @l->frwr_depth pages covers (depth - 1) pages of a buffer that
 * starts anywhere in its first page: what a connection on the device
 * reports as &smbdx_conn_info.max_reg_len.
 *
 * Return: the bytes, or 0 for a device smbdirect cannot use or whose MRs
 * map fewer than two pages.
 */
u32 smbdx_dev_reg_len(const struct smbdx_dev_limits *l, u32 page_size)
{
	if (l->verdict != SMBDX_DEV_OK || l->frwr_depth < 2)
		return 0;
	return (l->frwr_depth - 1) * page_size;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_dev_reg_len);

/*
 * Work requests of a Write through a local MR: [LOCAL_INV,] REG_MR, the
 * Write, LOCAL_INV (rw.c); also the most an MR-based Read of rdma_rw takes.
 */
#define SMBDX_RW_MR_WRS	4

/**
 * smbdx_dev_rw_wrs() - send queue entries one RDMA read/write chunk may need
 * @l: the device's limits
 * @pages: pages the chunk may touch (its length in pages, one more for a
 *	start inside a page)
 *
 * A Write goes in SGE lists of max_send_sge entries, or through a local
 * MR (%SMBDX_RW_MR_WRS); a Read in SGE lists of max_sge_rd entries, except
 * where rdma_rw reads through an MR (@l->rw_read_mr), which takes at most
 * %SMBDX_RW_MR_WRS. Sizing iWARP's Reads for siw's one SGE per Read made
 * its send queue more than four times what it needs (issue 34).
 *
 * Return: the most work requests one chunk takes, at least
 * %SMBDX_RW_MR_WRS.
 */
u32 smbdx_dev_rw_wrs(const struct smbdx_dev_limits *l, u32 pages)
{
	u32 wrs = max_t(u32, DIV_ROUND_UP(pages, max(l->max_send_sge, 1U)),
			SMBDX_RW_MR_WRS);

	if (!l->rw_read_mr)
		wrs = max(wrs, DIV_ROUND_UP(pages, max(l->max_sge_rd, 1U)));
	return wrs;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_dev_rw_wrs);
