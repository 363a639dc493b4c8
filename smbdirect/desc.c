// SPDX-License-Identifier: GPL-2.0
/*
 * SMB Direct buffer descriptor arithmetic (MS-SMBD 3.1.4.5, 3.1.4.6) and
 * fast-registration (FRWR) planning.
 *
 * Peer buffers: the upper layer hands us an array of Buffer Descriptor V1
 * (2.2.3.1) the peer sent, and an offset and length within the buffer they
 * describe together (the concatenation of every descriptor's Length bytes,
 * in array order). smbdx_desc_select() walks the array consuming Lengths
 * until the offset falls inside a descriptor, trims that first descriptor
 * at the front and the last one at the back, and returns one segment
 * (address, rkey, length) per descriptor touched; descriptors of Length 0
 * never produce a segment. Every descriptor is hostile input: an Offset +
 * Length that does not fit in 64 bits, too many descriptors, or a range
 * past the end of the buffer is refused before anything is produced.
 *
 * FRWR planning: smbdx_frwr_count() predicts how many fast-registration
 * memory regions ib_map_mr_sg() fills for a DMA-mapped scatterlist when the
 * list is mapped piece by piece (one region after the other, each call
 * resuming where the previous one stopped). It follows the page rules of
 * ib_sg_to_pages() in the 6.12 kernel, including two of its properties a
 * caller must know:
 *
 * - An element after the first that does not start on a page boundary, or
 *   whose predecessor does not end on one, continues the region only if it
 *   is contiguous with the predecessor; otherwise the region ends there.
 * - When the page list fills in the middle of an element, the last page
 *   registered is not counted in the region's length: the next region
 *   starts again at that page. A region of one page can therefore never
 *   make progress inside an element that spans pages; such a list cannot
 *   be mapped this way and is refused.
 *
 * smbdx_mr_pool_size() sizes a connection's pool of regions.
 *
 * Concurrency: pure code, no locking and no shared state; every function
 * touches only its arguments. Nothing sleeps or allocates.
 */

#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <kunit/visibility.h>

#include "desc.h"

/**
 * smbdx_desc_total() - validate a peer's descriptor array and sum it
 * @descs: Buffer Descriptor V1 array as received (little-endian, any
 *	alignment)
 * @ndescs: entries in @descs
 * @max_descs: most entries the caller accepts
 * @total: sum of every descriptor's Length (0 on failure)
 *
 * Return: 0; -EINVAL if @ndescs is 0 (or @descs is NULL); -E2BIG if
 * @ndescs exceeds @max_descs; -EOVERFLOW if some descriptor's Offset +
 * Length does not fit in 64 bits. The sum itself cannot overflow (fewer
 * than 2^32 entries of less than 2^32 bytes).
 */
int smbdx_desc_total(const struct smbdx_buffer_desc_v1 *descs, u32 ndescs,
		     u32 max_descs, u64 *total)
{
	u64 sum = 0;
	u32 i;

	*total = 0;
	if (!ndescs || !descs)
		return -EINVAL;
	if (ndescs > max_descs)
		return -E2BIG;
	for (i = 0; i < ndescs; i++) {
		u64 off = le64_to_cpu(descs[i].offset);
		u32 len = le32_to_cpu(descs[i].length);

		if (off > U64_MAX - len)
			return -EOVERFLOW;
		sum += len;
	}
	*total = sum;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_desc_total);

/**
 * smbdx_desc_select() - the segments of a peer buffer a byte range covers
 * @descs: Buffer Descriptor V1 array as received (little-endian, any
 *	alignment)
 * @ndescs: entries in @descs
 * @max_descs: most entries the caller accepts
 * @offset: first byte of the peer buffer to access; the buffer is the
 *	concatenation of the descriptors' Lengths, in order
 * @len: bytes to access
 * @segs: output, room for at least @ndescs entries
 * @nsegs: number of entries written (0 on failure)
 *
 * Per 3.1.4.5 and 3.1.4.6: the first descriptor touched is trimmed at the
 * front (its address advanced and length reduced by the bytes of @offset
 * that fall inside it) and the last one at the back. Descriptors of Length
 * 0 are skipped. @len 0 with @offset at most the total length gives no
 * segments.
 *
 * Return: 0; the errors of smbdx_desc_total(); -EOVERFLOW if @offset + @len
 * does not fit in 64 bits; -ERANGE if @offset + @len is past the end of
 * the buffer.
 */
int smbdx_desc_select(const struct smbdx_buffer_desc_v1 *descs, u32 ndescs,
		      u32 max_descs, u64 offset, u32 len,
		     struct smbdx_rw_seg *segs, u32 *nsegs)
{
	u64 total, skip = offset;
	u32 i, n = 0, want = len;
	int ret;

	*nsegs = 0;
	ret = smbdx_desc_total(descs, ndescs, max_descs, &total);
	if (ret)
		return ret;
	if (offset > U64_MAX - len)
		return -EOVERFLOW;
	if (offset + len > total)
		return -ERANGE;

	for (i = 0; i < ndescs && want; i++) {
		u32 dlen = le32_to_cpu(descs[i].length);
		u32 take;

		/* Also steps over every descriptor of Length 0. */
		if (skip >= dlen) {
			skip -= dlen;
			continue;
		}
		take = min_t(u64, dlen - skip, want);
		segs[n].addr = le64_to_cpu(descs[i].offset) + skip;
		segs[n].rkey = le32_to_cpu(descs[i].token);
		segs[n].len = take;
		n++;
		want -= take;
		skip = 0;
	}
	*nsegs = n;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_desc_select);

/*
 * frwr_one_mr() - what one ib_sg_to_pages() call on an empty region of
 * @depth pages does with the list @sgl (@nents entries), starting @off
 * bytes into the first entry. Returns how many entries the region fully
 * takes, with @off set to where the next region must start in the entry
 * after them (0 unless the region stopped inside that entry), or -EINVAL
 * if the region makes no progress at all.
 */
static int frwr_one_mr(struct scatterlist *sgl, int nents, u32 *off,
		       u64 psize, u32 depth)
{
	u64 mask = ~(psize - 1);
	u64 last_end = 0, used = 0;
	struct scatterlist *sg;
	bool last_aligned = true;
	u32 skip = *off;
	int i;

	for_each_sg(sgl, sg, nents, i) {
		u64 base = sg_dma_address(sg);
		u64 start = base + skip;
		u64 end = start + (sg_dma_len(sg) - skip);
		u64 first, npages, room, resume;

		/*
		 * Rounded up to a page, the element must end at or below
		 * 2^64 - page size, or ib_sg_to_pages()'s page walk wraps
		 * (no DMA address is there).
		 */
		if (base > U64_MAX - psize + 1 - sg_dma_len(sg))
			return -EINVAL;

		if (i && (!last_aligned || (start & ~mask))) {
			/* A gap that is not on page boundaries ends the region. */
			if (start != last_end)
				break;
			/* Contiguous: the page holding @start is registered. */
			first = (start & mask) + psize;
			npages = end > first ?
				 div64_u64(end - first + psize - 1, psize) : 0;
		} else {
			first = start & mask;
			npages = end > first ?
				 div64_u64(end - first + psize - 1, psize) : 0;
			/* An empty first element still registers its page. */
			npages = max_t(u64, npages, 1);
		}

		room = depth - used;
		if (npages > room) {
			/*
			 * The list fills here. ib_sg_to_pages() resumes at the
			 * last page it registered (or at @start if it
			 * registered none from this element).
			 */
			resume = room ? first + (room - 1) * psize : start;
			if (!i && resume <= start)
				return -EINVAL;
			*off = resume - base;
			return i;
		}
		used += npages;
		last_end = end;
		last_aligned = !(end & ~mask);
		skip = 0;
	}
	*off = 0;
	return i;
}

/**
 * smbdx_frwr_count() - memory regions needed to map a scatterlist
 * @sgl: DMA-mapped scatterlist (sg_dma_address()/sg_dma_len() are used)
 * @nents: entries in @sgl
 * @page_size: region page size (a power of two)
 * @depth: pages per region (its fast-registration page list length)
 *
 * Counts the ib_map_mr_sg() calls of registration code that maps as much
 * as one region takes, then continues with the next region from where it
 * stopped (inside an element through the sg_offset argument, or at the
 * element after a gap), following the rules of ib_sg_to_pages(); see the
 * file comment.
 *
 * Return: the number of regions (at least 1); -EINVAL if @nents <= 0,
 * @depth is 0, @page_size is not a power of two, an element reaches into
 * the last page of the 64-bit address space, or the list cannot be mapped
 * that way (@depth 1 and an element that crosses a page boundary:
 * ib_map_mr_sg() would fail or never progress); -EOVERFLOW if the count
 * does not fit in an int.
 */
int smbdx_frwr_count(struct scatterlist *sgl, int nents, u32 page_size,
		     u32 depth)
{
	struct scatterlist *sg = sgl;
	u32 off = 0;
	int count = 0;

	if (nents <= 0 || !sgl || !depth || !is_power_of_2(page_size))
		return -EINVAL;

	while (nents > 0) {
		int n = frwr_one_mr(sg, nents, &off, page_size, depth);

		if (n < 0)
			return n;
		if (count == INT_MAX)
			return -EOVERFLOW;
		count++;
		nents -= n;
		while (n--)
			sg = sg_next(sg);
	}
	return count;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_frwr_count);

/**
 * smbdx_mr_pool_size() - memory regions a connection's pool gets
 * @depth: pages per region (the device's fast-registration page list
 *	length, already clamped)
 * @page_size: bytes per page
 * @max_rw_size: negotiated MaxReadWriteSize
 * @ird: the connection's inbound RDMA Read depth (how many peer reads of
 *	our buffers can run at once)
 * @max_mrs: upper bound (module parameter or device max_mr)
 *
 * One I/O of @max_rw_size bytes needs DIV_ROUND_UP(@max_rw_size, @depth *
 * @page_size) regions, plus one for a buffer that does not start on a page
 * boundary (per_io). The pool holds per_io for each of max(@ird, 1) I/Os,
 * at most @max_mrs. A @depth or @page_size of 0 counts as one byte per
 * region. No intermediate result overflows.
 *
 * Return: min(per_io * max(@ird, 1), @max_mrs): at least per_io unless
 * @max_mrs is smaller, and 0 only if @max_mrs is 0.
 */
u32 smbdx_mr_pool_size(u32 depth, u32 page_size, u32 max_rw_size, u32 ird,
		       u32 max_mrs)
{
	u64 unit = max_t(u64, (u64)depth * page_size, 1);
	u64 per_io = div64_u64((u64)max_rw_size + unit - 1, unit) + 1;

	/* per_io <= 2^32 and ird < 2^32: the product fits in 64 bits. */
	return min_t(u64, per_io * max_t(u32, ird, 1), max_mrs);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_mr_pool_size);
