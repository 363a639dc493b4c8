/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What smbdirect can use of an RDMA device, derived from its attributes.
 *
 * Pure code: no verbs calls, no locking; callers pass a snapshot of the
 * device attributes and get a self-contained result.
 */
#ifndef _SMBDX_DEVLIMITS_H
#define _SMBDX_DEVLIMITS_H

#include <linux/types.h>

struct ib_device_attr;

/* Default listener/connect ports (MS-SMBD 2.1). */
#define SMBDX_PORT_IB		445
#define SMBDX_PORT_IWARP		5445

/* A message is an SMB Direct header plus payload: at least two send SGEs. */
#define SMBDX_MIN_SEND_SGE	2
#define SMBDX_MAX_SGE	16
#define SMBDX_MIN_RECV_SGE	1
/*
 * Pages one fast-registration MR covers, at most: 257, so that one MR
 * covers 1 MiB that starts anywhere in its first page (cifs's usual I/O
 * size in its one Buffer Descriptor per request).
 */
#define SMBDX_FRWR_MAX_DEPTH	257
/* Enough work requests for a small credit window plus registrations. */
#define SMBDX_MIN_QP_WR		32
/* IRD/ORD travel in 8-bit fields of the CM; MS-SMBD appendix A. */
#define SMBDX_MAX_RD_ATOM	255

/**
 * enum smbdx_dev_verdict - whether smbdirect can run on a device
 * @SMBDX_DEV_OK: usable
 * @SMBDX_DEV_NO_FRWR: no fast-registration memory windows (IB_WR_REG_MR)
 * @SMBDX_DEV_FEW_SEND_SGE: fewer than %SMBDX_MIN_SEND_SGE send SGEs
 * @SMBDX_DEV_FEW_RECV_SGE: fewer than %SMBDX_MIN_RECV_SGE receive SGEs
 * @SMBDX_DEV_SMALL_QP: fewer than %SMBDX_MIN_QP_WR work requests per QP or CQEs
 * @SMBDX_DEV_NO_RDMA_READ: the device cannot be the target or initiator of
 *	an RDMA Read (IRD or ORD is zero)
 */
enum smbdx_dev_verdict {
	SMBDX_DEV_OK,
	SMBDX_DEV_NO_FRWR,
	SMBDX_DEV_FEW_SEND_SGE,
	SMBDX_DEV_FEW_RECV_SGE,
	SMBDX_DEV_SMALL_QP,
	SMBDX_DEV_NO_RDMA_READ,
};

/**
 * struct smbdx_dev_limits - the part of a device smbdirect will use
 * @verdict: whether the device is usable, and if not the first reason
 * @iwarp: the device speaks iWARP (for display; the rest of smbdirect
 *	uses the capabilities below, never this)
 * @port: default SMB Direct port of the transport: 5445 on iWARP, 445 on
 *	InfiniBand and RoCE (MS-SMBD 1.9); the module parameters iwarp_port
 *	and ib_port may move them (smbdx_port_of())
 * @ird_ord_private_data: the connect request and reply carry MS-SMBD
 *	appendix A's IRD/ORD private data (iWARP, where the CM does not
 *	negotiate them reliably)
 * @est_by_data: the passive side tells the CM the connection is
 *	established when the peer's first message arrives before the CM saw
 *	the RTU (IB and RoCE; an iWARP connection is established by the MPA
 *	exchange before any data)
 * @rw_write_mr: an RDMA Write of scattered pages that rdma_rw would cut
 *	into many SGE work requests may go through one local MR instead
 *	(iWARP devices have few send SGEs, siw 6, and rdma_rw gives their QPs
 *	an MR pool)
 * @rw_read_mr: rdma_rw reads into local memory through an MR of its pool
 *	(REG_MR, RDMA Read, LOCAL_INV), never through SGE lists: iWARP, whose
 *	RDMA Read targets must be registered (rdma_rw_io_needs_mr())
 * @mr_max_entries: scatterlist entries one fast-registration MR maps, at
 *	most; some providers (siw) count entries rather than pages
 * @err_before_disconnect: move the QP to the error state before
 *	disconnecting it, so that everything posted is flushed: an iWARP QP
 *	that disconnects goes to CLOSING, and siw flushes neither its send
 *	queue nor its outstanding RDMA Reads there when its transmitter is
 *	idle (the flush would only come with the TCP close, after the drain)
 * @max_send_sge: send SGEs per work request, clamped to %SMBDX_MAX_SGE
 * @max_recv_sge: receive SGEs per work request, clamped likewise
 * @max_sge_rd: SGEs per RDMA Read work request
 * @frwr_depth: pages per fast-registration MR, clamped to %SMBDX_FRWR_MAX_DEPTH
 * @max_qp_wr: work requests per queue
 * @max_cqe: entries per completion queue
 * @ird: inbound RDMA Read depth (responder resources), at most 255
 * @ord: outbound RDMA Read depth (initiator depth), at most 255
 */
struct smbdx_dev_limits {
	enum smbdx_dev_verdict verdict;
	bool iwarp;
	u16 port;
	bool ird_ord_private_data;
	bool est_by_data;
	bool rw_write_mr;
	bool rw_read_mr;
	u32 mr_max_entries;
	bool err_before_disconnect;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_sge_rd;
	u32 frwr_depth;
	u32 max_qp_wr;
	u32 max_cqe;
	u8 ird;
	u8 ord;
};

enum smbdx_dev_verdict smbdx_dev_limits_compute(const struct ib_device_attr *attr,
						bool iwarp,
					      struct smbdx_dev_limits *out);
const char *smbdx_dev_verdict_str(enum smbdx_dev_verdict verdict);
u32 smbdx_dev_reg_len(const struct smbdx_dev_limits *l, u32 page_size);
u32 smbdx_dev_rw_wrs(const struct smbdx_dev_limits *l, u32 pages);

#endif /* _SMBDX_DEVLIMITS_H */
