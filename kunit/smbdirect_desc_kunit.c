// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: SMB Direct buffer descriptor arithmetic and FRWR planning
 * (smbdirect/desc.c), MS-SMBD 3.1.4.5 and 3.1.4.6: selection of the peer
 * buffer segments an RDMA Read/Write targets (trimming, every boundary,
 * zero-length descriptors, overflow, limits) cross-checked against a
 * byte-by-byte model on random arrays; descriptor totals; the number of
 * fast-registration regions a scatterlist needs, by hand and against the
 * kernel's own ib_sg_to_pages() on random lists, and what a region of a
 * given depth is sure to cover (one or two of them, at any offset); the
 * pool size.
 *
 * Pure: no device (ib_sg_to_pages() only walks the list and calls our
 * set_page callback on a fake region), no sleeping other than allocation.
 */

#include <kunit/test.h>
#include <smbdirect/ns.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include <smbdirect/pdu.h>
#include "desc.h"

MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));

#define MAXD 6

static u32 rnd(struct rnd_state *rs, u32 n)
{
	return n ? prandom_u32_state(rs) % n : 0;
}

static u64 rnd64(struct rnd_state *rs)
{
	return ((u64)prandom_u32_state(rs) << 32) | prandom_u32_state(rs);
}

/* Wire array one byte off alignment: descriptors arrive inside messages. */
static struct smbdx_buffer_desc_v1 *wire_descs(struct kunit *test,
					       const struct smbdx_buffer_desc *d,
					      u32 n)
{
	u8 *buf = kunit_kzalloc(test, n * sizeof(struct smbdx_buffer_desc_v1)
				+ 1, GFP_KERNEL);
	struct smbdx_buffer_desc_v1 *w;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	w = (struct smbdx_buffer_desc_v1 *)(buf + 1);
	for (i = 0; i < n; i++)
		smbdx_bd_v1_encode(&d[i], &w[i]);
	return w;
}

/* ---- descriptor selection by hand ----------------------------------- */

struct dset {
	u32 n;
	struct smbdx_buffer_desc d[MAXD];
};

static const struct dset ds_one = { 1, { { 0x1000, 7, 100 } } };
static const struct dset ds_abc = {
	3, { { 0x10000, 0xa, 100 }, { 0x20000, 0xb, 200 },
	     { 0x30000, 0xc, 300 } }
};

/* Zero-length descriptors at the start, in the middle and at the end. */
static const struct dset ds_zab = {
	5, { { 0x5000, 1, 0 }, { 0x10000, 0xa, 100 }, { 0x6000, 2, 0 },
	     { 0x20000, 0xb, 200 }, { 0x7000, 3, 0 } }
};

static const struct dset ds_big = {
	2, { { 0x100000000ULL, 1, 0xffffffff },
	     { 0x200000000ULL, 2, 0xffffffff } }
};

static const struct dset ds_ones = {
	3, { { 0x100, 1, 1 }, { 0x200, 2, 1 }, { 0x300, 3, 1 } }
};

static const struct dset ds_none = { 0 };
static const struct dset ds_zeros = { 2, { { 1, 1, 0 }, { 2, 2, 0 } } };
static const struct dset ds_over = { 1, { { U64_MAX, 1, 1 } } };
static const struct dset ds_top = { 1, { { U64_MAX - 5, 1, 5 } } };
static const struct dset ds_top1 = { 1, { { U64_MAX - 4, 1, 5 } } };
static const struct dset ds_ab_over = {
	3, { { 0x10000, 0xa, 100 }, { 0x20000, 0xb, 200 }, { U64_MAX, 1, 1 } }
};

static const struct dset ds_abc_over = {
	4, { { 0x10000, 0xa, 100 }, { 0x20000, 0xb, 200 },
	     { 0x30000, 0xc, 300 }, { U64_MAX - 1, 0xd, 2 } }
};

static const struct dset ds_top_empty = {
	2, { { 0x1000, 1, 10 }, { U64_MAX, 2, 0 } }
};

struct sel_case {
	const char *name;
	const struct dset *ds;
	u32 max;
	u64 off;
	u32 len;
	int ret;
	u32 nsegs;
	struct smbdx_rw_seg segs[MAXD];
};

static const struct sel_case sel_cases[] = {
	{ "one: whole", &ds_one, 8, 0, 100, 0, 1, { { 0x1000, 7, 100 } } },
	{ "one: front trimmed", &ds_one, 8, 10, 90, 0, 1, { { 0x100a, 7, 90 } } },
	{ "one: back trimmed", &ds_one, 8, 0, 50, 0, 1, { { 0x1000, 7, 50 } } },
	{ "one: both trimmed", &ds_one, 8, 10, 20, 0, 1, { { 0x100a, 7, 20 } } },
	{ "one: first byte", &ds_one, 8, 0, 1, 0, 1, { { 0x1000, 7, 1 } } },
	{ "one: last byte", &ds_one, 8, 99, 1, 0, 1, { { 0x1063, 7, 1 } } },
	{ "one: one byte over", &ds_one, 8, 0, 101, -ERANGE, 0 },
	{ "one: last byte + 1", &ds_one, 8, 99, 2, -ERANGE, 0 },
	{ "whole buffer", &ds_abc, 8, 0, 600, 0, 3,
	  { { 0x10000, 0xa, 100 }, { 0x20000, 0xb, 200 },
	    { 0x30000, 0xc, 300 } } },
	{ "starts at an edge, ends at one", &ds_abc, 8, 100, 200, 0, 1,
	  { { 0x20000, 0xb, 200 } } },
	{ "starts at an edge, to the end", &ds_abc, 8, 100, 500, 0, 2,
	  { { 0x20000, 0xb, 200 }, { 0x30000, 0xc, 300 } } },
	{ "starts at the second edge", &ds_abc, 8, 300, 300, 0, 1,
	  { { 0x30000, 0xc, 300 } } },
	{ "ends at the first edge", &ds_abc, 8, 0, 100, 0, 1,
	  { { 0x10000, 0xa, 100 } } },
	{ "front trimmed, ends at an edge", &ds_abc, 8, 50, 250, 0, 2,
	  { { 0x10032, 0xa, 50 }, { 0x20000, 0xb, 200 } } },
	{ "straddles the first edge", &ds_abc, 8, 99, 2, 0, 2,
	  { { 0x10063, 0xa, 1 }, { 0x20000, 0xb, 1 } } },
	{ "straddles the second edge", &ds_abc, 8, 299, 2, 0, 2,
	  { { 0x200c7, 0xb, 1 }, { 0x30000, 0xc, 1 } } },
	{ "one byte of first and last", &ds_abc, 8, 99, 202, 0, 3,
	  { { 0x10063, 0xa, 1 }, { 0x20000, 0xb, 200 },
	    { 0x30000, 0xc, 1 } } },
	{ "inside the middle one", &ds_abc, 8, 150, 100, 0, 1,
	  { { 0x20032, 0xb, 100 } } },
	{ "inside the last one", &ds_abc, 8, 350, 200, 0, 1,
	  { { 0x30032, 0xc, 200 } } },
	{ "last byte", &ds_abc, 8, 599, 1, 0, 1, { { 0x3012b, 0xc, 1 } } },
	{ "len 0 at the start", &ds_abc, 8, 0, 0, 0, 0 },
	{ "len 0 at an edge", &ds_abc, 8, 300, 0, 0, 0 },
	{ "len 0 inside", &ds_abc, 8, 301, 0, 0, 0 },
	{ "len 0 exactly at the end", &ds_abc, 8, 600, 0, 0, 0 },
	{ "len 0 one past the end", &ds_abc, 8, 601, 0, -ERANGE, 0 },
	{ "one byte exactly at the end", &ds_abc, 8, 600, 1, -ERANGE, 0 },
	{ "one byte too long", &ds_abc, 8, 0, 601, -ERANGE, 0 },
	{ "whole length shifted by one", &ds_abc, 8, 1, 600, -ERANGE, 0 },
	{ "offset far past the end", &ds_abc, 8, 1ULL << 40, 1, -ERANGE, 0 },
	{ "offset + len = U64_MAX", &ds_abc, 8, U64_MAX - 1, 1, -ERANGE, 0 },
	{ "offset U64_MAX, len 0", &ds_abc, 8, U64_MAX, 0, -ERANGE, 0 },
	{ "offset + len overflows by one", &ds_abc, 8, U64_MAX, 1, -EOVERFLOW, 0 },
	{ "offset + len overflows by far", &ds_abc, 8, U64_MAX - 10, 0xffffffff,
	  -EOVERFLOW, 0 },
	{ "as many descriptors as allowed", &ds_abc, 3, 0, 600,
	  0, 3, { { 0x10000, 0xa, 100 }, { 0x20000, 0xb, 200 },
		  { 0x30000, 0xc, 300 } } },
	{ "one descriptor too many", &ds_abc, 2, 0, 1, -E2BIG, 0 },
	{ "one descriptor, none allowed", &ds_one, 0, 0, 0, -E2BIG, 0 },
	{ "no descriptors", &ds_none, 8, 0, 0, -EINVAL, 0 },
	{ "no descriptors, none allowed", &ds_none, 0, 0, 0, -EINVAL, 0 },
	{ "too many checked before overflow", &ds_ab_over, 2, 0, 1, -E2BIG,
	  0 },
	{ "Offset + Length overflows", &ds_over, 8, 0, 1, -EOVERFLOW, 0 },
	{ "Offset + Length = U64_MAX", &ds_top, 8, 0, 5, 0, 1, { { U64_MAX - 5, 1, 5 } } },
	{ "Offset + Length = U64_MAX, last byte", &ds_top, 8, 4, 1, 0, 1,
	  { { U64_MAX - 1, 1, 1 } } },
	{ "Offset + Length = U64_MAX + 1", &ds_top1, 8, 0, 5, -EOVERFLOW, 0 },
	{ "overflow in a descriptor not touched", &ds_abc_over, 8, 0, 1,
	  -EOVERFLOW, 0 },
	{ "overflow checked before the range", &ds_over, 8, 5, 0, -EOVERFLOW,
	  0 },
	{ "Offset U64_MAX, Length 0", &ds_top_empty, 8, 0, 10, 0, 1,
	  { { 0x1000, 1, 10 } } },
	{ "zero-length around: whole", &ds_zab, 8, 0, 300, 0, 2,
	  { { 0x10000, 0xa, 100 }, { 0x20000, 0xb, 200 } } },
	{ "zero-length around: at the middle edge", &ds_zab, 8, 100, 200, 0, 1,
	  { { 0x20000, 0xb, 200 } } },
	{ "zero-length around: straddling", &ds_zab, 8, 99, 2, 0, 2,
	  { { 0x10063, 0xa, 1 }, { 0x20000, 0xb, 1 } } },
	{ "zero-length around: first byte", &ds_zab, 8, 0, 1, 0, 1,
	  { { 0x10000, 0xa, 1 } } },
	{ "zero-length around: last byte", &ds_zab, 8, 299, 1, 0, 1,
	  { { 0x200c7, 0xb, 1 } } },
	{ "zero-length around: len 0 at the middle edge", &ds_zab, 8, 100, 0, 0, 0 },
	{ "zero-length around: len 0 at the end", &ds_zab, 8, 300, 0, 0, 0 },
	{ "zero-length around: past the end", &ds_zab, 8, 300, 1, -ERANGE, 0 },
	{ "only zero-length, len 0", &ds_zeros, 8, 0, 0, 0, 0 },
	{ "only zero-length, len 1", &ds_zeros, 8, 0, 1, -ERANGE, 0 },
	{ "4 GiB descriptors: second whole", &ds_big, 8, 0xffffffff, 0xffffffff, 0,
	  1, { { 0x200000000ULL, 2, 0xffffffff } } },
	{ "4 GiB descriptors: straddling", &ds_big, 8, 0x80000000, 0xffffffff, 0, 2,
	  { { 0x180000000ULL, 1, 0x7fffffff },
	    { 0x200000000ULL, 2, 0x80000000 } } },
	{ "4 GiB descriptors: one past", &ds_big, 8, 0x100000000ULL, 0xffffffff,
	  -ERANGE, 0 },
	{ "one byte each: all", &ds_ones, 8, 0, 3, 0, 3,
	  { { 0x100, 1, 1 }, { 0x200, 2, 1 }, { 0x300, 3, 1 } } },
	{ "one byte each: middle", &ds_ones, 8, 1, 1, 0, 1, { { 0x200, 2, 1 } } },
	{ "one byte each: last two", &ds_ones, 8, 1, 2, 0, 2,
	  { { 0x200, 2, 1 }, { 0x300, 3, 1 } } },
};

KUNIT_ARRAY_PARAM_DESC(sel, sel_cases, name);

static void desc_select_cases(struct kunit *test)
{
	const struct sel_case *c = test->param_value;
	struct smbdx_buffer_desc_v1 *w = wire_descs(test, c->ds->d, c->ds->n);
	struct smbdx_rw_seg segs[MAXD];
	u32 nsegs = 99, i;

	memset(segs, 0xa5, sizeof(segs));
	KUNIT_ASSERT_EQ(test, smbdx_desc_select(w, c->ds->n, c->max, c->off,
						c->len, segs, &nsegs), c->ret);
	KUNIT_ASSERT_EQ(test, nsegs, c->nsegs);
	for (i = 0; i < nsegs; i++) {
		KUNIT_EXPECT_EQ_MSG(test, segs[i].addr, c->segs[i].addr,
				    "segment %u", i);
		KUNIT_EXPECT_EQ_MSG(test, segs[i].rkey, c->segs[i].rkey,
				    "segment %u", i);
		KUNIT_EXPECT_EQ_MSG(test, segs[i].len, c->segs[i].len,
				    "segment %u", i);
	}
	/* Nothing written past the segments produced. */
	for (; i < MAXD; i++)
		KUNIT_EXPECT_EQ(test, segs[i].rkey, 0xa5a5a5a5);
}

/* ---- descriptor totals ---------------------------------------------- */

static const struct dset ds_six = {
	6, { { 0, 0, 0xffffffff }, { 0, 0, 0xffffffff }, { 0, 0, 0xffffffff },
	     { 0, 0, 0xffffffff }, { 0, 0, 0xffffffff }, { 0, 0, 0xffffffff } }
};

static const struct dset ds_a_over = {
	2, { { 0x10000, 0xa, 100 }, { U64_MAX - 1, 1, 2 } }
};

static const struct dset ds_a_top = {
	2, { { 0x10000, 0xa, 100 }, { U64_MAX - 2, 1, 2 } }
};

static const struct dset ds_a_top_empty = {
	2, { { 0x10000, 0xa, 100 }, { U64_MAX, 1, 0 } }
};

static const struct dset ds_max = { 1, { { 0, 1, 0xffffffff } } };

struct total_case {
	const char *name;
	const struct dset *ds;
	u32 max;
	int ret;
	u64 total;
};

static const struct total_case total_cases[] = {
	{ "three", &ds_abc, 8, 0, 600 },
	{ "zero-length around", &ds_zab, 8, 0, 300 },
	{ "only zero-length", &ds_zeros, 8, 0, 0 },
	{ "one byte each", &ds_ones, 8, 0, 3 },
	{ "six of 4 GiB - 1", &ds_six, 6, 0, 6ULL * 0xffffffff },
	{ "none", &ds_none, 8, -EINVAL, 0 },
	{ "one too many", &ds_abc, 2, -E2BIG, 0 },
	{ "exactly the limit", &ds_abc, 3, 0, 600 },
	{ "Offset + Length overflows", &ds_a_over, 8, -EOVERFLOW, 0 },
	{ "Offset + Length = U64_MAX", &ds_a_top, 8, 0, 102 },
	{ "Offset U64_MAX, Length 0", &ds_a_top_empty, 8, 0, 100 },
	{ "Offset 0, Length max", &ds_max, 8, 0, 0xffffffff },
};

KUNIT_ARRAY_PARAM_DESC(total, total_cases, name);

static void desc_total_cases(struct kunit *test)
{
	const struct total_case *c = test->param_value;
	struct smbdx_buffer_desc_v1 *w = wire_descs(test, c->ds->d, c->ds->n);
	u64 total = 12345;

	KUNIT_EXPECT_EQ(test, smbdx_desc_total(w, c->ds->n, c->max, &total),
			c->ret);
	KUNIT_EXPECT_EQ(test, total, c->total);
}

/* ---- descriptor selection against a byte-by-byte model -------------- */

/* Where byte @b of the peer buffer lives, one byte at a time. */
static u32 model_select(const struct smbdx_buffer_desc *d, u32 n, u64 off,
			u32 len, struct smbdx_rw_seg *out)
{
	u32 cnt = 0, last = U32_MAX, i;
	u64 b;

	for (b = off; b < off + len; b++) {
		u64 base = 0;

		for (i = 0; i < n; i++) {
			if (b < base + d[i].length)
				break;
			base += d[i].length;
		}
		if (cnt && last == i) {
			out[cnt - 1].len++;
			continue;
		}
		out[cnt].addr = d[i].offset + (b - base);
		out[cnt].rkey = d[i].token;
		out[cnt].len = 1;
		cnt++;
		last = i;
	}
	return cnt;
}

static u64 rnd_desc_offset(struct rnd_state *rs, u32 len)
{
	switch (rnd(rs, 4)) {
	case 0:
		return U64_MAX - len - rnd(rs, 3);
	case 1:
		return rnd(rs, 0x10000);
	default:
		return rnd64(rs) >> 16;
	}
}

static bool check_one_select(struct kunit *test,
			     const struct smbdx_buffer_desc_v1 *w,
			     const struct smbdx_buffer_desc *d, u32 n, u32 max,
			     int bad, u64 total, u64 off, u32 len)
{
	struct smbdx_rw_seg got[MAXD], want[MAXD];
	u32 ngot = 99, nwant = 0, i;
	int ret, wret;

	if (n > max)
		wret = -E2BIG;
	else if (bad)
		wret = -EOVERFLOW;
	else if (off > U64_MAX - len)
		wret = -EOVERFLOW;
	else if (off + len > total)
		wret = -ERANGE;
	else
		wret = 0;
	if (!wret)
		nwant = model_select(d, n, off, len, want);

	ret = smbdx_desc_select(w, n, max, off, len, got, &ngot);
	if (ret != wret || ngot != nwant) {
		KUNIT_FAIL(test, "n %u max %u off %llu len %u: ret %d nsegs %u, want %d %u",
			   n, max, off, len, ret, ngot, wret, nwant);
		return false;
	}
	for (i = 0; i < nwant; i++) {
		if (got[i].addr != want[i].addr ||
		    got[i].rkey != want[i].rkey || got[i].len != want[i].len) {
			KUNIT_FAIL(test, "n %u off %llu len %u seg %u: %llx/%x/%u, want %llx/%x/%u",
				   n, off, len, i, got[i].addr, got[i].rkey,
				   got[i].len, want[i].addr, want[i].rkey,
				   want[i].len);
			return false;
		}
	}
	return true;
}

static void desc_select_vs_model(struct kunit *test)
{
	struct smbdx_buffer_desc d[MAXD];
	struct rnd_state rs;
	unsigned long checks = 0, nonempty = 0;
	u32 iter;

	prandom_seed_state(&rs, 0x5bd0de5c);
	for (iter = 0; iter < 400; iter++) {
		u32 n = 1 + rnd(&rs, MAXD), max = MAXD, i, bad = 0;
		struct smbdx_buffer_desc_v1 *w;
		u64 total = 0, off;
		u32 len;

		for (i = 0; i < n; i++) {
			d[i].length = rnd(&rs, 4) ? 1 + rnd(&rs, 7) : 0;
			d[i].offset = rnd_desc_offset(&rs, d[i].length);
			d[i].token = prandom_u32_state(&rs);
		}
		/* Now and then a hostile array: Offset + Length > U64_MAX. */
		if (!rnd(&rs, 25)) {
			i = rnd(&rs, n);
			d[i].length = 1 + rnd(&rs, 7);
			d[i].offset = U64_MAX - rnd(&rs, d[i].length);
			bad = 1;
		}
		for (i = 0; i < n; i++)
			total += d[i].length;
		if (!rnd(&rs, 25))
			max = n - 1;
		w = wire_descs(test, d, n);

		for (off = 0; off <= total + 1; off++) {
			for (len = 0; len <= total + 1 - off; len++) {
				if (!check_one_select(test, w, d, n, max, bad,
						      total, off, len))
					return;
				checks++;
				nonempty += len && off + len <= total;
			}
		}
		/* Far and overflowing offsets. */
		for (i = 0; i < 4; i++) {
			off = U64_MAX - rnd(&rs, 4);
			len = rnd(&rs, 4) ? rnd(&rs, 8) : 0xffffffff;
			if (!check_one_select(test, w, d, n, max, bad, total,
					      off, len))
				return;
			checks++;
		}
		kunit_kfree(test, (u8 *)w - 1);
	}
	KUNIT_EXPECT_GT(test, nonempty, 10000UL);
	kunit_info(test, "%lu selections checked, %lu non-empty\n", checks,
		   nonempty);
}

/* ---- FRWR planning: the kernel's own page rules as reference -------- */

struct fake_mr {
	struct ib_mr mr;
	u32 npages;
	u32 depth;
	u64 last_page;
	bool misaligned;
};

static int fake_set_page(struct ib_mr *mr, u64 addr)
{
	struct fake_mr *f = container_of(mr, struct fake_mr, mr);

	if (f->npages == f->depth)
		return -ENOMEM;
	if (addr & (mr->page_size - 1))
		f->misaligned = true;
	f->npages++;
	f->last_page = addr;
	return 0;
}

/*
 * Map @sgl region after region with ib_sg_to_pages(), each call resuming
 * where the previous stopped, as registration code does. Returns the
 * number of regions, or -EINVAL when a call fails or makes no progress.
 */
static int ref_frwr_count(struct kunit *test, struct scatterlist *sgl,
			  int nents, u32 psize, u32 depth)
{
	struct fake_mr *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct scatterlist *sg = sgl, *s;
	u64 covered = 0, total = 0;
	unsigned int off = 0;
	int count = 0, i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	for_each_sg(sgl, s, nents, i)
		total += sg_dma_len(s);

	while (nents > 0) {
		unsigned int old = off;
		int n;

		f->mr.page_size = psize;
		f->npages = 0;
		f->depth = depth;
		n = ib_sg_to_pages(&f->mr, sg, nents, &off, fake_set_page);
		if (n < 0 || (!n && off <= old))
			goto fail;
		KUNIT_ASSERT_LE(test, n, nents);
		KUNIT_EXPECT_FALSE(test, f->misaligned);
		KUNIT_EXPECT_EQ(test, f->mr.iova, sg_dma_address(sg) + old);
		covered += f->mr.length;
		count++;
		KUNIT_ASSERT_LT(test, count, 1 << 20);
		nents -= n;
		while (n--)
			sg = sg_next(sg);
	}
	/* The regions together cover every byte of the list exactly once. */
	KUNIT_EXPECT_EQ(test, covered, total);
	kunit_kfree(test, f);
	return count;
fail:
	kunit_kfree(test, f);
	return -EINVAL;
}

KUNIT_DEFINE_ACTION_WRAPPER(desc_free_table, sg_free_table,
			    struct sg_table *);

static struct sg_table *test_sg_table(struct kunit *test, int nents)
{
	struct sg_table *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, sg_alloc_table(t, nents, GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   desc_free_table,
							   t));
	return t;
}

struct frwr_elem {
	u64 addr;
	u32 len;
};

struct frwr_case {
	const char *name;
	u32 psize, depth;
	int n;
	struct frwr_elem e[4];
	int want;
	bool no_ref;	/* ib_sg_to_pages() would wrap around 2^64 */
};

#define P 0x1000

static const struct frwr_case frwr_cases[] = {
	{ "one page", P, 1, 1, { { 0x10000, P } }, 1 },
	{ "one page, depth 8", P, 8, 1, { { 0x10000, P } }, 1 },
	{ "inside one page", P, 1, 1, { { 0x10010, 100 } }, 1 },
	{ "empty element", P, 1, 1, { { 0x10010, 0 } }, 1 },
	{ "unaligned start and end, two pages", P, 2, 1,
	  { { 0x10f00, 0x200 } }, 1 },
	{ "two pages, depth 1, unaligned", P, 1, 1, { { 0x10f00, 0x200 } },
	  -EINVAL },
	{ "two pages, depth 1, aligned", P, 1, 1, { { 0x10000, 2 * P } },
	  -EINVAL },
	{ "page list exactly full", P, 8, 1, { { 0x10000, 8 * P } }, 1 },
	{ "page list one page over", P, 8, 1, { { 0x10000, 9 * P } }, 2 },
	/* 8 pages of data on 9 pages: the second region redoes page 7. */
	{ "unaligned 8 pages on 9", P, 8, 1, { { 0x10800, 8 * P } }, 2 },
	/* Each full region gives up its last page to the next. */
	{ "16 pages, depth 8", P, 8, 1, { { 0x100000, 16 * P } }, 3 },
	{ "64 pages, depth 16", P, 16, 1, { { 0x100000, 64 * P } }, 5 },
	{ "unaligned 3 pages on 4, depth 2", P, 2, 1,
	  { { 0x10100, 3 * P } }, 3 },
	{ "contiguous halves share a page", P, 1, 2,
	  { { 0x10000, 0x800 }, { 0x10800, 0x800 } }, 1 },
	{ "gap after an unaligned end", P, 8, 2,
	  { { 0x10000, 0x800 }, { 0x20000, 0x800 } }, 2 },
	{ "gap before an unaligned start", P, 8, 2,
	  { { 0x10000, P }, { 0x20100, 0x100 } }, 2 },
	{ "two gaps", P, 8, 3,
	  { { 0x10000, 0x800 }, { 0x20000, 0x800 }, { 0x30000, 0x800 } }, 3 },
	{ "aligned pages far apart", P, 2, 2,
	  { { 0x10000, P }, { 0x30000, P } }, 1 },
	{ "aligned pages far apart, depth 1", P, 1, 2,
	  { { 0x10000, P }, { 0x30000, P } }, 2 },
	{ "contiguous, past the shared page", P, 3, 2,
	  { { 0x10000, 0x800 }, { 0x10800, 2 * P } }, 1 },
	{ "contiguous, past the shared page, depth 2", P, 2, 2,
	  { { 0x10000, 0x800 }, { 0x10800, 2 * P } }, 2 },
	{ "list fills at an unaligned seam", P, 2, 2,
	  { { 0x10000, 0x1800 }, { 0x11800, P } }, 2 },
	{ "aligned seam, list full after the first", P, 2, 3,
	  { { 0x10000, 2 * P }, { 0x12000, P }, { 0x13000, P } }, 2 },
	{ "64 KiB pages", 0x10000, 1, 1, { { 0x10000, 0x10000 } }, 1 },
	{ "64 KiB pages, straddling, depth 1", 0x10000, 1, 1,
	  { { 0x18000, 0x10000 } }, -EINVAL },
	{ "64 KiB pages, straddling, depth 2", 0x10000, 2, 1,
	  { { 0x18000, 0x10000 } }, 1 },
	{ "512-byte pages, full", 512, 8, 1, { { 0x1000, P } }, 1 },
	{ "512-byte pages, depth 4", 512, 4, 1, { { 0x1000, P } }, 3 },
	{ "near the top of the address space", P, 1, 1,
	  { { 0xffffffffffffd000ULL, P } }, 1 },
	{ "up to the top page", P, 1, 1,
	  { { 0xffffffffffffe000ULL, P } }, 1 },
	{ "in the top page", P, 1, 1,
	  { { 0xfffffffffffff000ULL, 0x800 } }, -EINVAL, true },
	{ "reaching the top page", P, 2, 1,
	  { { 0xffffffffffffe000ULL, 0x1001 } }, -EINVAL, true },
};

KUNIT_ARRAY_PARAM_DESC(frwr, frwr_cases, name);

static void frwr_count_cases(struct kunit *test)
{
	const struct frwr_case *c = test->param_value;
	struct sg_table *t = test_sg_table(test, c->n);
	struct scatterlist *sg;
	int i;

	for_each_sg(t->sgl, sg, c->n, i) {
		sg_dma_address(sg) = c->e[i].addr;
		sg_dma_len(sg) = c->e[i].len;
	}
	KUNIT_EXPECT_EQ(test, smbdx_frwr_count(t->sgl, c->n, c->psize,
					       c->depth), c->want);
	/* The expectation is the kernel's too. */
	if (!c->no_ref)
		KUNIT_EXPECT_EQ(test, ref_frwr_count(test, t->sgl, c->n,
						     c->psize, c->depth),
				c->want);
}

static void frwr_count_invalid(struct kunit *test)
{
	struct sg_table *t = test_sg_table(test, 1);

	sg_dma_address(t->sgl) = 0x10000;
	sg_dma_len(t->sgl) = P;
	KUNIT_EXPECT_EQ(test, smbdx_frwr_count(t->sgl, 1, P, 1), 1);
	KUNIT_EXPECT_EQ(test, smbdx_frwr_count(t->sgl, 0, P, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_frwr_count(t->sgl, -1, P, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_frwr_count(t->sgl, 1, P, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_frwr_count(t->sgl, 1, 0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_frwr_count(t->sgl, 1, 3000, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_frwr_count(t->sgl, 1, P + 1, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_frwr_count(t->sgl, 1, 0x80000000, 1), 1);
	KUNIT_EXPECT_EQ(test, smbdx_frwr_count(NULL, 1, P, 1), -EINVAL);
}

/* A chained list (more entries than one scatterlist page holds). */
static void frwr_count_chained(struct kunit *test)
{
	struct sg_table *t = test_sg_table(test, 300);
	struct scatterlist *sg;
	int i;

	KUNIT_ASSERT_GT(test, 300UL, (unsigned long)SG_MAX_SINGLE_ALLOC);
	for_each_sg(t->sgl, sg, 300, i) {
		sg_dma_address(sg) = 0x100000 + (u64)i * P;
		sg_dma_len(sg) = P;
	}
	/* Whole pages end each region on an element boundary. */
	KUNIT_EXPECT_EQ(test, smbdx_frwr_count(t->sgl, 300, P, 64), 5);
	KUNIT_EXPECT_EQ(test, ref_frwr_count(test, t->sgl, 300, P, 64), 5);
	KUNIT_EXPECT_EQ(test, smbdx_frwr_count(t->sgl, 300, P, 300), 1);
	KUNIT_EXPECT_EQ(test, smbdx_frwr_count(t->sgl, 300, P, 299), 2);
	KUNIT_EXPECT_EQ(test, smbdx_frwr_count(t->sgl, 300, P, 1), 300);
	KUNIT_EXPECT_EQ(test, ref_frwr_count(test, t->sgl, 300, P, 1), 300);
}

static u32 rnd_len(struct rnd_state *rs, u32 psize, u32 depth)
{
	switch (rnd(rs, 8)) {
	case 0:
		return rnd(rs, 40) ? 1 + rnd(rs, 64) : 0;
	case 1:
		return 1 + rnd(rs, 2 * psize);
	case 2:
		return psize * (1 + rnd(rs, 4));
	case 3:
		return psize * (1 + rnd(rs, 3 * depth));
	case 4:
		return 1 + rnd(rs, psize * (depth + 1));
	case 5:
		return psize - rnd(rs, 2);
	default:
		return 1 + rnd(rs, 3 * psize);
	}
}

static u64 rnd_addr(struct rnd_state *rs, u64 prev_end, u32 psize)
{
	switch (rnd(rs, 6)) {
	case 0:
	case 1:
		return prev_end;
	case 2:
		return round_up(prev_end, psize) + (u64)psize * rnd(rs, 3);
	case 3:
		return (rnd64(rs) >> 24) & ~(u64)(psize - 1);
	case 4:
		return prev_end + 1 + rnd(rs, psize);
	default:
		return (rnd64(rs) >> 24) + rnd(rs, psize);
	}
}

static void frwr_count_vs_kernel(struct kunit *test)
{
	static const u32 psizes[] = { 512, 4096, 4096, 65536 };
	static const u32 depths[] = { 1, 2, 3, 4, 8, 16, 32, 256 };
	unsigned long ok = 0, failed = 0, multi = 0;
	struct rnd_state rs;
	u32 iter;

	prandom_seed_state(&rs, 0xf12a11);
	for (iter = 0; iter < 3000; iter++) {
		u32 psize = psizes[rnd(&rs, ARRAY_SIZE(psizes))];
		u32 depth = depths[rnd(&rs, ARRAY_SIZE(depths))];
		int nents = rnd(&rs, 10) ? 1 + rnd(&rs, 12) :
					   100 + rnd(&rs, 200);
		struct sg_table t;
		struct scatterlist *sg;
		u64 prev_end = (u64)psize * rnd(&rs, 1 << 20);
		int i, got, want;

		KUNIT_ASSERT_EQ(test, sg_alloc_table(&t, nents, GFP_KERNEL),
				0);
		for_each_sg(t.sgl, sg, nents, i) {
			u64 addr = rnd_addr(&rs, prev_end, psize);
			u32 len = rnd_len(&rs, psize, depth);

			sg_dma_address(sg) = addr;
			sg_dma_len(sg) = len;
			prev_end = addr + len;
		}
		got = smbdx_frwr_count(t.sgl, nents, psize, depth);
		want = ref_frwr_count(test, t.sgl, nents, psize, depth);
		if (got != want) {
			KUNIT_FAIL(test, "#%u: page %u depth %u n %d: %d regions, kernel %d",
				   iter, psize, depth, nents, got, want);
			for_each_sg(t.sgl, sg, min(nents, 16), i)
				kunit_info(test, "  %llx + %x\n",
					   (u64)sg_dma_address(sg),
					   sg_dma_len(sg));
			sg_free_table(&t);
			return;
		}
		sg_free_table(&t);
		if (want < 0)
			failed++;
		else
			ok++;
		multi += want > 1;
	}
	/* The mix must exercise both outcomes and multi-region lists. */
	KUNIT_EXPECT_GT(test, ok, 1000UL);
	KUNIT_EXPECT_GT(test, failed, 50UL);
	KUNIT_EXPECT_GT(test, multi, 500UL);
	kunit_info(test, "%lu lists mapped, %lu refused, %lu multi-region\n",
		   ok, failed, multi);
}

/*
 * Lay a gap-free buffer of @len bytes starting @off bytes into a page out
 * as @t's first entries, the way an upper layer's iterators do: @kind 0,
 * one element (virtually and physically contiguous: a kvec, a large
 * folio); 1, one element per page (user pages or page cache folios of one
 * page), each page anywhere; 2, contiguous memory cut at random points, at
 * least half a page apart. @t has room for 2 * (@len / @psize) + 3
 * entries. Returns the number of entries used.
 */
static int span_layout(struct rnd_state *rs, struct sg_table *t, int kind,
		       u32 off, u32 len, u32 psize)
{
	u64 base = (u64)psize * (0x100 + rnd(rs, 1 << 16));
	struct scatterlist *sg = t->sgl;
	u32 done = 0;
	int n = 0;

	while (done < len) {
		u32 room = len - done, piece;
		u64 addr = base + off + done;

		if (kind == 0) {
			piece = room;
		} else if (kind == 1) {
			piece = min(room, psize - (u32)((off + done) % psize));
			/* Each page at a page boundary of its own. */
			addr = (u64)psize * (0x100 + rnd(rs, 1 << 20)) +
			       (off + done) % psize;
		} else {
			/* At least half a page: 2 * depth + 1 entries at most. */
			piece = min(room, psize / 2 + rnd(rs, 3 * psize));
		}
		sg_dma_address(sg) = addr;
		sg_dma_len(sg) = piece;
		done += piece;
		n++;
		sg = sg_next(sg);
	}
	return n;
}

/*
 * What smbdx_conn_info.max_reg_len promises, for one MR of @depth pages:
 * (depth - 1) pages of a gap-free buffer at any offset are one region;
 * one page more (depth pages) is one region when the buffer starts on a
 * page boundary and two at any other offset, however the buffer is cut
 * into elements. An upper layer sizes its I/O and the descriptors it can
 * send from this (cifs: a 1 MiB I/O on siw's 256-page MRs).
 */
static void frwr_count_span_bound(struct kunit *test)
{
	static const u32 depths[] = { 2, 3, 8, 255, 256, 257 };
	static const u32 psizes[] = { 4096, 512 };
	unsigned long cases = 0, two = 0;
	struct rnd_state rs;
	u32 di, pi, r;
	int kind;

	prandom_seed_state(&rs, 0x5b0d);
	for (pi = 0; pi < ARRAY_SIZE(psizes); pi++) {
		for (di = 0; di < ARRAY_SIZE(depths); di++) {
			u32 psize = psizes[pi], depth = depths[di];
			struct sg_table *t = test_sg_table(test, 3 * depth + 4);

			for (kind = 0; kind < 3; kind++) {
				for (r = 0; r < 24; r++) {
					/* Offsets 0, 1, psize - 1, then random ones. */
					u32 off = r == 0 ? 0 : r == 1 ? 1 :
						  r == 2 ? psize - 1 :
						  rnd(&rs, psize);
					u32 len = (depth - 1) * psize;
					int n, got;

					n = span_layout(&rs, t, kind, off, len, psize);
					got = smbdx_frwr_count(t->sgl, n, psize, depth);
					KUNIT_EXPECT_EQ_MSG(test, got, 1,
							    "%u pages of %u at %u, kind %d, depth %u",
							    depth - 1, psize, off, kind, depth);
					len += psize;
					n = span_layout(&rs, t, kind, off, len, psize);
					got = smbdx_frwr_count(t->sgl, n, psize, depth);
					KUNIT_EXPECT_EQ_MSG(test, got,
							    ref_frwr_count(test, t->sgl, n,
									   psize, depth),
							    "kernel, offset %u kind %d depth %u",
							    off, kind, depth);
					if (!off)
						KUNIT_EXPECT_EQ_MSG(test, got, 1,
								    "aligned %u pages, kind %d",
								    depth, kind);
					else
						KUNIT_EXPECT_TRUE_MSG(test, got == 1 || got == 2,
								      "%u pages at %u: %d regions, kind %d depth %u",
								      depth, off, got, kind, depth);
					cases++;
					two += got == 2;
				}
			}
		}
	}
	/* Unaligned buffers of depth pages do take the second region. */
	KUNIT_EXPECT_GT(test, two, cases / 2);
	kunit_info(test, "%lu buffers of depth pages, %lu in two regions\n",
		   cases, two);
}

/* ---- pool size --------------------------------------------------------- */

struct pool_case {
	const char *name;
	u32 depth, psize, max_rw, ird, max_mrs, want;
};

#define MIB 0x100000

static const struct pool_case pool_cases[] = {
	/* 256 pages of 4 KiB: 1 MiB per region, 8 MiB -> 8 + 1. */
	{ "8 MiB, ird 16", 256, P, 8 * MIB, 16, 1000, 144 },
	{ "8 MiB, ird 16, capped", 256, P, 8 * MIB, 16, 100, 100 },
	{ "8 MiB, cap below one I/O", 256, P, 8 * MIB, 16, 5, 5 },
	{ "8 MiB, cap exactly one I/O", 256, P, 8 * MIB, 16, 9, 9 },
	{ "8 MiB, cap 0", 256, P, 8 * MIB, 16, 0, 0 },
	{ "8 MiB, ird 0 counts as 1", 256, P, 8 * MIB, 0, 1000, 9 },
	{ "8 MiB, ird 1", 256, P, 8 * MIB, 1, 1000, 9 },
	{ "8 MiB + 1", 256, P, 8 * MIB + 1, 1, 1000, 10 },
	{ "8 MiB - 1", 256, P, 8 * MIB - 1, 1, 1000, 9 },
	{ "1 MiB", 256, P, MIB, 2, 1000, 4 },
	{ "1 byte", 256, P, 1, 3, 1000, 6 },
	{ "0 bytes", 256, P, 0, 3, 1000, 3 },
	{ "depth 1", 1, P, 8 * MIB, 1, 100000, 2049 },
	{ "depth 0 counts as one byte", 0, P, 100, 1, 1000, 101 },
	{ "page size 0 counts as one byte", 256, 0, 100, 2, 1000, 202 },
	{ "largest I/O by one byte", 0, 0, U32_MAX, 1, U32_MAX, U32_MAX },
	{ "largest I/O by one byte, cap", 0, 0, U32_MAX, 1, 77, 77 },
	{ "per_io * ird above 2^32", 1, P, U32_MAX, 4096, U32_MAX, U32_MAX },
	{ "per_io * ird above 2^32, cap", 1, P, U32_MAX, 4096, 7, 7 },
	{ "per_io * ird above 2^64 / 2", 0, 0, U32_MAX, U32_MAX, U32_MAX,
	  U32_MAX },
	{ "depth * page size above 2^32", U32_MAX, U32_MAX, U32_MAX, U32_MAX,
	  U32_MAX, U32_MAX },
	{ "depth * page size above 2^32, small ird", 0x10000, 0x10000,
	  U32_MAX, 3, 1000, 6 },
	{ "ird U32_MAX, per_io 2", 0x10000, 0x10000, 1, U32_MAX, 1000, 1000 },
	{ "64 KiB pages", 16, 0x10000, 8 * MIB, 4, 1000, 36 },
};

KUNIT_ARRAY_PARAM_DESC(pool, pool_cases, name);

static void mr_pool_size_cases(struct kunit *test)
{
	const struct pool_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, smbdx_mr_pool_size(c->depth, c->psize, c->max_rw,
						 c->ird, c->max_mrs), c->want);
}

/* Properties over a sweep: bounded by the cap, one I/O always fits. */
static void mr_pool_size_properties(struct kunit *test)
{
	struct rnd_state rs;
	u32 iter;

	prandom_seed_state(&rs, 0x9001);
	for (iter = 0; iter < 20000; iter++) {
		u32 depth = 1 + rnd(&rs, 512), psize = 1U << (9 + rnd(&rs, 8));
		u32 max_rw = rnd(&rs, 4) ? rnd(&rs, 16 * MIB) :
					   prandom_u32_state(&rs);
		u32 ird = rnd(&rs, 64), max_mrs = rnd(&rs, 1 << 16);
		u64 unit = (u64)depth * psize;
		u64 per_io = (max_rw / unit) + !!(max_rw % unit) + 1;
		u32 got = smbdx_mr_pool_size(depth, psize, max_rw, ird, max_mrs);

		KUNIT_ASSERT_LE(test, got, max_mrs);
		KUNIT_ASSERT_GE(test, (u64)got, min_t(u64, per_io, max_mrs));
		KUNIT_ASSERT_EQ(test, got, smbdx_mr_pool_size(depth, psize,
							      max_rw,
							     ird ? ird : 1,
							     max_mrs));
		if ((u64)per_io * (ird ? ird : 1) <= max_mrs)
			KUNIT_ASSERT_EQ(test, (u64)got,
					per_io * (ird ? ird : 1));
		KUNIT_ASSERT_GE(test, smbdx_mr_pool_size(depth, psize, max_rw,
							 ird + 1, max_mrs), got);
	}
}

static struct kunit_case desc_cases[] = {
	KUNIT_CASE_PARAM(desc_select_cases, sel_gen_params),
	KUNIT_CASE_PARAM(desc_total_cases, total_gen_params),
	KUNIT_CASE(desc_select_vs_model),
	KUNIT_CASE_PARAM(frwr_count_cases, frwr_gen_params),
	KUNIT_CASE(frwr_count_invalid),
	KUNIT_CASE(frwr_count_chained),
	KUNIT_CASE(frwr_count_vs_kernel),
	KUNIT_CASE(frwr_count_span_bound),
	KUNIT_CASE_PARAM(mr_pool_size_cases, pool_gen_params),
	KUNIT_CASE(mr_pool_size_properties),
	{}
};

static struct kunit_suite desc_suite = {
	.name = "smbdirect_desc",
	.test_cases = desc_cases,
};

kunit_test_suite(desc_suite);

MODULE_DESCRIPTION("KUnit tests for SMB Direct buffer descriptors and FRWR planning");
MODULE_LICENSE("GPL");
