/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SMB Direct buffer descriptor arithmetic (MS-SMBD 3.1.4.5, 3.1.4.6) and
 * fast-registration (FRWR) planning.
 *
 * Pure arithmetic: which pieces of a peer buffer (an array of Buffer
 * Descriptor V1 received from the peer) an RDMA Read or Write must target,
 * how many memory regions ib_map_mr_sg() needs for a DMA-mapped
 * scatterlist, and how many memory regions a connection's pool gets. No
 * verbs calls. See smbdirect/desc.c.
 *
 * Concurrency: no locking and no shared state; every function touches only
 * its arguments and may run in any context. Nothing sleeps or allocates.
 */
#ifndef _SMBDIRECT_DESC_H
#define _SMBDIRECT_DESC_H

#include <linux/types.h>
#include <smbdirect/pdu.h>

struct scatterlist;

/**
 * struct smbdx_rw_seg - one piece of a peer buffer an RDMA Read/Write
 *	work request targets
 * @addr: remote address (descriptor Offset + bytes skipped in it)
 * @rkey: descriptor Token
 * @len: bytes, never 0
 */
struct smbdx_rw_seg {
	u64 addr;
	u32 rkey;
	u32 len;
};

int smbdx_desc_total(const struct smbdx_buffer_desc_v1 *descs, u32 ndescs,
		     u32 max_descs, u64 *total);
int smbdx_desc_select(const struct smbdx_buffer_desc_v1 *descs, u32 ndescs,
		      u32 max_descs, u64 offset, u32 len,
		     struct smbdx_rw_seg *segs, u32 *nsegs);
int smbdx_frwr_count(struct scatterlist *sgl, int nents, u32 page_size,
		     u32 depth);
u32 smbdx_mr_pool_size(u32 depth, u32 page_size, u32 max_rw_size, u32 ird,
		       u32 max_mrs);

#endif /* _SMBDIRECT_DESC_H */
