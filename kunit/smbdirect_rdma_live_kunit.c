// SPDX-License-Identifier: GPL-2.0
/*
 * Live KUnit suite for buffer registration and RDMA read/write (MS-SMBD
 * 3.1.4.3-3.1.4.6): a client registers buffers with smbdx_register() and
 * the accepted server connection, playing the peer, RDMA-writes into them
 * and RDMA-reads from them with smbdx_rdma_write()/smbdx_rdma_read(), on
 * each soft RDMA device of the test VM (rxe: RoCE, siw: iWARP).
 *
 * Cases: sizes from 1 byte to 8 MiB, in one virtually contiguous buffer
 * and in scattered pages, for each direction, every byte checked; random
 * offsets and lengths; remote invalidation (Send with Invalidate of the
 * registration's token) on and off, checked with the MR counters; access
 * with a descriptor that was deregistered fails and kills only that
 * connection pair; a buffer of one page more than max_reg_len in one
 * descriptor when page-aligned and in two when not, with remote
 * invalidation of the first; pool exhaustion makes SMBDX_REG_NOWAIT fail with -EAGAIN
 * and a blocking registration wait until an MR comes back; a registration
 * needing more MRs than the pool has is refused; a buffer in pieces with
 * gaps, more descriptors than allowed, is registered as a bounce copy with
 * SMBDX_REG_BOUNCE, the data checked both ways; the MS-SMB2 RDMA
 * transform's sealed and signed registration and write, with tampering
 * (smbdx_rdma_xform); bad descriptors and a
 * size above MaxReadWriteSize are local errors that keep the connection;
 * a connection destroyed with registrations outstanding releases them
 * (kmemleak, run by the VM runner afterwards, checks the rest).
 *
 * After RDMA-writing, the peer sends a reply that the owner receives
 * before it looks at or deregisters its buffer, as an SMB2 server answers
 * after writing: on iWARP a Write completes when sent, not when placed.
 *
 * Concurrency: only the test thread and, in the exhaustion case, one
 * kthread that blocks in smbdx_register() use the API; the results are
 * handed over with a completion.
 */

#include <crypto/aead.h>
#include <crypto/hash.h>
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>

#include <smbdirect/smbdirect.h>
#include "smbd.h"
#include "smbd_live_util.h"

/* A test buffer: one vmalloc area, or scattered single pages. */
struct rl_buf {
	u32 len;
	bool scattered;
	u32 first_off;		/* scattered: offset in the first page */
	void *flat;		/* contiguous data */
	struct page **pages;
	struct bio_vec *bv;
	u32 nbv;
};

static void rl_buf_release(void *data)
{
	struct rl_buf *b = data;
	u32 i;

	if (b->pages) {
		for (i = 0; i < b->nbv; i++)
			if (b->pages[i])
				__free_page(b->pages[i]);
	}
	kvfree(b->pages);
	kvfree(b->bv);
	vfree(b->flat);
}

static struct rl_buf *rl_buf_new(struct kunit *test, u32 len, bool scattered,
				 u32 first_off)
{
	struct rl_buf *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	u32 i, left, off;

	KUNIT_ASSERT_NOT_NULL(test, b);
	b->len = len;
	b->scattered = scattered;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rl_buf_release,
							b), 0);
	if (!scattered) {
		b->flat = vzalloc(max(len, 1U));
		KUNIT_ASSERT_NOT_NULL(test, b->flat);
		return b;
	}
	b->first_off = first_off;
	b->nbv = DIV_ROUND_UP(first_off + len, PAGE_SIZE);
	b->pages = kvcalloc(b->nbv, sizeof(*b->pages), GFP_KERNEL);
	b->bv = kvcalloc(b->nbv, sizeof(*b->bv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->pages);
	KUNIT_ASSERT_NOT_NULL(test, b->bv);
	left = len;
	off = first_off;
	for (i = 0; i < b->nbv; i++) {
		u32 n = min_t(u32, left, PAGE_SIZE - off);

		/* Pages from the allocator are rarely adjacent: real gaps. */
		b->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, b->pages[i]);
		bvec_set_page(&b->bv[i], b->pages[i], n, off);
		left -= n;
		off = 0;
	}
	return b;
}

static void rl_buf_iter(struct rl_buf *b, struct iov_iter *it,
			struct kvec *kv, unsigned int dir)
{
	if (b->scattered) {
		iov_iter_bvec(it, dir, b->bv, b->nbv, b->len);
	} else {
		kv->iov_base = b->flat;
		kv->iov_len = b->len;
		iov_iter_kvec(it, dir, kv, 1, b->len);
	}
}

/* Copy @len bytes at @off of the buffer to or from @data. */
static void rl_buf_copy(struct kunit *test, struct rl_buf *b, u32 off,
			void *data, u32 len, bool into_buf)
{
	struct iov_iter it;
	struct kvec kv;
	size_t n;

	rl_buf_iter(b, &it, &kv, into_buf ? ITER_DEST : ITER_SOURCE);
	iov_iter_advance(&it, off);
	if (into_buf)
		n = copy_to_iter(data, len, &it);
	else
		n = copy_from_iter(data, len, &it);
	KUNIT_ASSERT_EQ(test, n, (size_t)len);
}

static u8 rl_byte(u32 seed, u32 i)
{
	return (seed * 151 + i * 13 + (i >> 9) + (i >> 17)) & 0xff;
}

static void rl_fill(u8 *p, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = rl_byte(seed, i);
}

/* @p must hold pattern @seed for @len bytes; reports the first mismatch. */
static void rl_check(struct kunit *test, const u8 *p, u32 len, u32 seed,
		     const char *what)
{
	u32 i, bad = 0, first = 0;

	for (i = 0; i < len; i++) {
		if (p[i] != rl_byte(seed, i) && !bad++)
			first = i;
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "%s: %u of %u bytes differ, first at %u",
			    what, bad, len, first);
}

static struct smbdx_reg *rl_register(struct kunit *test, struct smbdx_conn *conn,
				     struct rl_buf *b, unsigned int flags)
{
	struct smbdx_reg *reg;
	struct iov_iter it;
	struct kvec kv;

	rl_buf_iter(b, &it, &kv, (flags & SMBDX_REG_REMOTE_WRITE) ?
		    ITER_DEST : ITER_SOURCE);
	reg = smbdx_register(conn, &it, flags);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(reg), "smbdx_register %u bytes: %ld",
			       b->len, PTR_ERR(reg));
	KUNIT_EXPECT_EQ(test, iov_iter_count(&it), (size_t)0);
	KUNIT_EXPECT_EQ(test, smbdx_reg_len(reg), b->len);
	return reg;
}

/* The descriptors cover exactly the buffer, in order. */
static void rl_check_descs(struct kunit *test, struct smbdx_reg *reg, u32 len)
{
	const struct smbdx_buffer_desc_v1 *d;
	u64 total = 0;
	u32 n, i;

	d = smbdx_reg_descs(reg, &n);
	KUNIT_ASSERT_GE(test, n, 1U);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_GT(test, le32_to_cpu(d[i].length), 0U);
		total += le32_to_cpu(d[i].length);
	}
	KUNIT_EXPECT_EQ(test, total, (u64)len);
	KUNIT_EXPECT_EQ(test, smbdx_reg_token(reg), le32_to_cpu(d[0].token));
}

static int rl_peer_io(struct smbdx_conn *peer, struct smbdx_reg *reg, u64 off,
		      void *data, u32 len, bool write)
{
	const struct smbdx_buffer_desc_v1 *d;
	struct kvec kv = { .iov_base = data, .iov_len = len };
	struct iov_iter it;
	u32 n;

	d = smbdx_reg_descs(reg, &n);
	if (write) {
		iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
		return smbdx_rdma_write(peer, &it, d, n, off);
	}
	iov_iter_kvec(&it, ITER_DEST, &kv, 1, len);
	return smbdx_rdma_read(peer, &it, d, n, off);
}

/*
 * The peer's reply after its RDMA Writes, as an SMB2 READ response follows
 * the data it wrote. A Send is ordered after the Writes before it on the
 * connection, so once the owner has received the reply the data is in its
 * buffer. On iWARP a Write completes when it has been sent, not when it
 * has been placed: without the reply the owner could look at, or
 * invalidate, its buffer before the data arrived.
 */
static void rl_peer_reply(struct kunit *test, struct smbdx_conn *peer,
			  struct smbdx_conn *owner)
{
	char data[] = "written";
	struct kvec kv = { .iov_base = data, .iov_len = sizeof(data) };
	struct smbdx_msg *msg;
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, sizeof(data));
	KUNIT_ASSERT_EQ(test, smbdx_send(peer, &it, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, smbdx_recv_msg(owner, msecs_to_jiffies(timeout_ms),
					     &msg), 0);
	KUNIT_EXPECT_EQ(test, smbdx_msg_len(msg), (u32)sizeof(data));
	smbdx_msg_free(msg);
}

/*
 * Register @len bytes, let the peer write all of it and read it back, each
 * time checking every byte on the other side.
 */
static void rl_roundtrip(struct kunit *test, struct tl_pair *p, u32 len,
			 bool scattered, u32 seed)
{
	struct rl_buf *b = rl_buf_new(test, len, scattered, scattered ? 100 : 0);
	u8 *tmp = vmalloc(len);
	struct smbdx_reg *reg;
	int rc;

	KUNIT_ASSERT_NOT_NULL(test, tmp);

	/* The peer writes into a buffer it may only write. */
	reg = rl_register(test, p->cli, b, SMBDX_REG_REMOTE_WRITE);
	rl_check_descs(test, reg, len);
	rl_fill(tmp, len, seed);
	rc = rl_peer_io(p->srvc, reg, 0, tmp, len, true);
	KUNIT_EXPECT_EQ_MSG(test, rc, 0, "RDMA write of %u bytes", len);
	rl_peer_reply(test, p->srvc, p->cli);
	KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);
	memset(tmp, 0, len);
	rl_buf_copy(test, b, 0, tmp, len, false);
	rl_check(test, tmp, len, seed, scattered ? "write, scattered" :
		 "write, contiguous");

	/* The peer reads a buffer it may only read. */
	rl_fill(tmp, len, seed + 1);
	rl_buf_copy(test, b, 0, tmp, len, true);
	reg = rl_register(test, p->cli, b, SMBDX_REG_REMOTE_READ);
	memset(tmp, 0, len);
	rc = rl_peer_io(p->srvc, reg, 0, tmp, len, false);
	KUNIT_EXPECT_EQ_MSG(test, rc, 0, "RDMA read of %u bytes", len);
	KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);
	rl_check(test, tmp, len, seed + 1, scattered ? "read, scattered" :
		 "read, contiguous");
	vfree(tmp);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p->cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p->srvc), 0);
}

static void smbdx_rdma_sizes(struct kunit *test)
{
	static const u32 sizes[] = {
		1, 100, 4095, 4096, 4097, 65536, 65536 + 123, 1048576,
		1048576 + 4096 * 3 + 7, 8388608,
	};
	struct tl_pair p;
	u32 i;

	tl_pair_up(test, &p, NULL, NULL);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		rl_roundtrip(test, &p, sizes[i], false, i);
		rl_roundtrip(test, &p, sizes[i], true, 100 + i);
	}
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_REGISTRATIONS),
			(u64)ARRAY_SIZE(sizes) * 4);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.srvc, SMBDX_STAT_RDMA_WRITES),
			(u64)ARRAY_SIZE(sizes) * 2);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.srvc, SMBDX_STAT_RDMA_READS),
			(u64)ARRAY_SIZE(sizes) * 2);
	/* No remote invalidation here: every MR was invalidated locally. */
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_REMOTE_INV), 0ULL);
	KUNIT_EXPECT_GE(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_LOCAL_INV),
			(u64)ARRAY_SIZE(sizes) * 4);
}

/* A source for the peer's RDMA Write: see smbdx_rdma_write_sources(). */
struct rl_src {
	void *flat;		/* vmalloc kind */
	struct page *high;	/* contiguous kind: one high-order page */
	unsigned int order;
	struct page **pages;	/* gappy kind: one piece per page */
	struct bio_vec *bv;
	u32 nbv;
};

static void rl_src_release(void *data)
{
	struct rl_src *s = data;
	u32 i;

	vfree(s->flat);
	if (s->high)
		__free_pages(s->high, s->order);
	for (i = 0; s->pages && i < s->nbv; i++)
		if (s->pages[i])
			__free_page(s->pages[i]);
	kvfree(s->pages);
	kvfree(s->bv);
}

#define RL_PIECE	2000

/*
 * Source @kind of @len bytes holding pattern @seed, and an iterator over it:
 * 0 one vmalloc area (a scatterlist entry per 4 KiB page), 1 one high-order
 * page in a single bvec (one entry), 2 pieces of RL_PIECE bytes in separate
 * pages (gaps that no MR can map).
 */
static void rl_src_new(struct kunit *test, struct rl_src *s, int kind,
		       u32 len, u32 seed, struct iov_iter *it, struct kvec *kv)
{
	u8 *tmp;
	u32 i;

	memset(s, 0, sizeof(*s));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rl_src_release,
							s), 0);
	if (kind == 0) {
		s->flat = vmalloc(len);
		KUNIT_ASSERT_NOT_NULL(test, s->flat);
		rl_fill(s->flat, len, seed);
		kv->iov_base = s->flat;
		kv->iov_len = len;
		iov_iter_kvec(it, ITER_SOURCE, kv, 1, len);
		return;
	}
	if (kind == 1) {
		s->order = get_order(len);
		s->high = alloc_pages(GFP_KERNEL | __GFP_RETRY_MAYFAIL, s->order);
		KUNIT_ASSERT_NOT_NULL(test, s->high);
		rl_fill(page_address(s->high), len, seed);
		s->bv = kvcalloc(1, sizeof(*s->bv), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, s->bv);
		bvec_set_page(&s->bv[0], s->high, len, 0);
		iov_iter_bvec(it, ITER_SOURCE, s->bv, 1, len);
		return;
	}
	s->nbv = DIV_ROUND_UP(len, RL_PIECE);
	s->pages = kvcalloc(s->nbv, sizeof(*s->pages), GFP_KERNEL);
	s->bv = kvcalloc(s->nbv, sizeof(*s->bv), GFP_KERNEL);
	tmp = vmalloc(len);
	if (tmp)
		rl_fill(tmp, len, seed);
	for (i = 0; tmp && s->pages && s->bv && i < s->nbv; i++) {
		u32 n = min_t(u32, RL_PIECE, len - i * RL_PIECE);

		s->pages[i] = alloc_page(GFP_KERNEL);
		if (!s->pages[i])
			break;
		memcpy(page_address(s->pages[i]), tmp + i * RL_PIECE, n);
		bvec_set_page(&s->bv[i], s->pages[i], n, 0);
	}
	vfree(tmp);
	KUNIT_ASSERT_EQ(test, i, s->nbv);
	iov_iter_bvec(it, ITER_SOURCE, s->bv, s->nbv, len);
}

/*
 * The peer RDMA-writes a little more than 1 MiB from each kind of source of
 * rl_src_new(); every byte is checked in the registered buffer. On iWARP
 * (rdma_rw's MR pool on the QP, siw's 6 send SGEs) the vmalloc source goes
 * through a local MR and the others through rdma_rw's SGE lists (one entry;
 * gaps); on RoCE all of them through the SGE lists.
 */
static void smbdx_rdma_write_sources(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	const u32 len = 1048576 + 5;
	struct rl_buf *b = rl_buf_new(test, len, true, 0);
	static const char * const what[] = { "vmalloc", "contiguous", "gappy" };
	const struct smbdx_buffer_desc_v1 *descs;
	u8 *tmp = vmalloc(len);
	struct tl_pair p;
	int kind;

	KUNIT_ASSERT_NOT_NULL(test, tmp);
	tl_pair_up(test, &p, NULL, NULL);
	for (kind = 0; kind < 3; kind++) {
		u64 lmrs = smbdx_test_stat(p.srvc, SMBDX_STAT_RDMA_LOCAL_MRS);
		struct smbdx_reg *reg;
		struct iov_iter it;
		struct rl_src *src = kunit_kzalloc(test, sizeof(*src),
						   GFP_KERNEL);
		struct kvec kv;
		u32 n;
		int rc;

		KUNIT_ASSERT_NOT_NULL(test, src);
		rl_src_new(test, src, kind, len, 40 + kind, &it, &kv);
		reg = rl_register(test, p.cli, b, SMBDX_REG_REMOTE_WRITE);
		descs = smbdx_reg_descs(reg, &n);
		rc = smbdx_rdma_write(p.srvc, &it, descs, n, 0);
		KUNIT_EXPECT_EQ_MSG(test, rc, 0, "write from %s", what[kind]);
		KUNIT_EXPECT_EQ(test, iov_iter_count(&it), (size_t)0);
		rl_peer_reply(test, p.srvc, p.cli);
		KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);
		memset(tmp, 0, len);
		rl_buf_copy(test, b, 0, tmp, len, false);
		rl_check(test, tmp, len, 40 + kind, what[kind]);
		lmrs = smbdx_test_stat(p.srvc, SMBDX_STAT_RDMA_LOCAL_MRS) - lmrs;
		if (d->iwarp && kind == 0)
			KUNIT_EXPECT_GT_MSG(test, lmrs, 0ULL, "%s", what[kind]);
		else
			KUNIT_EXPECT_EQ_MSG(test, lmrs, 0ULL, "%s", what[kind]);
	}
	vfree(tmp);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);
}

/* Random sub-ranges of a scattered 1 MiB buffer, both directions. */
static void smbdx_rdma_random_offsets(struct kunit *test)
{
	const u32 len = 1048576 + 333;
	struct rnd_state rnd;
	struct rl_buf *b;
	struct smbdx_reg *wreg, *rreg;
	struct tl_pair p;
	u8 *src, *chk;
	u32 i, off, n;
	int rc;

	tl_pair_up(test, &p, NULL, NULL);
	prandom_seed_state(&rnd, 0x5eed0004);
	b = rl_buf_new(test, len, true, 1000);
	src = tl_kvmalloc(test, len);
	chk = tl_kvmalloc(test, len);
	wreg = rl_register(test, p.cli, b, SMBDX_REG_REMOTE_WRITE |
			   SMBDX_REG_REMOTE_READ);
	for (i = 0; i < 24; i++) {
		off = prandom_u32_state(&rnd) % len;
		n = 1 + prandom_u32_state(&rnd) % (len - off);
		if (i & 1)
			n = min(n, 1U + prandom_u32_state(&rnd) % 9000);
		rl_fill(src, n, i);
		rc = rl_peer_io(p.srvc, wreg, off, src, n, true);
		KUNIT_ASSERT_EQ_MSG(test, rc, 0, "write %u at %u", n, off);
		rl_peer_reply(test, p.srvc, p.cli);
		rl_buf_copy(test, b, off, chk, n, false);
		rl_check(test, chk, n, i, "random write");
		memset(chk, 0, n);
		rc = rl_peer_io(p.srvc, wreg, off, chk, n, false);
		KUNIT_ASSERT_EQ_MSG(test, rc, 0, "read %u at %u", n, off);
		rl_check(test, chk, n, i, "random read");
	}
	KUNIT_EXPECT_EQ(test, smbdx_deregister(wreg), 0);

	/* A read-only registration: reading past its end is refused locally. */
	rreg = rl_register(test, p.cli, b, SMBDX_REG_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, rl_peer_io(p.srvc, rreg, len, chk, 1, false),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, rl_peer_io(p.srvc, rreg, len - 10, chk, 11, false),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, rl_peer_io(p.srvc, rreg, U64_MAX, chk, 2, false),
			-EOVERFLOW);
	KUNIT_EXPECT_EQ(test, rl_peer_io(p.srvc, rreg, len, chk, 0, false), 0);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.srvc, SMBDX_STAT_RW_BAD_DESC), 3ULL);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);
	KUNIT_EXPECT_EQ(test, smbdx_deregister(rreg), 0);
}

/* Send with Invalidate of the token, then deregistration skips LOCAL_INV. */
static void smbdx_rdma_remote_invalidation(struct kunit *test)
{
	struct rl_buf *b;
	struct smbdx_reg *reg;
	struct smbdx_msg *msg;
	struct tl_pair p;
	struct kvec kv;
	struct iov_iter it;
	u64 linv;
	u32 token = 0, tok;
	u8 data[64], *buf;
	int rc, round;

	tl_pair_up(test, &p, NULL, NULL);
	buf = tl_kvmalloc(test, 4096);
	for (round = 0; round < 2; round++) {
		bool remote = round == 0;

		b = rl_buf_new(test, 4096, false, 0);
		reg = rl_register(test, p.cli, b, SMBDX_REG_REMOTE_WRITE);
		tok = smbdx_reg_token(reg);
		rl_fill(buf, 4096, 7 + round);
		KUNIT_ASSERT_EQ(test, rl_peer_io(p.srvc, reg, 0, buf, 4096, true), 0);

		/* The peer's reply, with or without invalidation. */
		memset(data, round, sizeof(data));
		kv.iov_base = data;
		kv.iov_len = sizeof(data);
		iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, sizeof(data));
		rc = smbdx_send(p.srvc, &it, tok, remote ? SMBDX_SEND_INVALIDATE : 0);
		KUNIT_ASSERT_EQ(test, rc, 0);
		rc = smbdx_recv_msg(p.cli, msecs_to_jiffies(timeout_ms), &msg);
		KUNIT_ASSERT_EQ(test, rc, 0);
		KUNIT_EXPECT_EQ(test, smbdx_msg_invalidated(msg, &token), remote);
		if (remote)
			KUNIT_EXPECT_EQ(test, token, tok);
		smbdx_msg_free(msg);

		KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_REMOTE_INV),
				1ULL);
		linv = smbdx_test_stat(p.cli, SMBDX_STAT_MR_LOCAL_INV);
		KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);
		KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_LOCAL_INV),
				linv + (remote ? 0 : 1));
		rl_buf_copy(test, b, 0, buf, 4096, false);
		rl_check(test, buf, 4096, 7 + round, "data under invalidation");
	}
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.srvc, SMBDX_STAT_TX_INVALIDATE), 1ULL);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
}

#define RL_POSTED_DESCS 16

/*
 * Register @b (one MR) with SMBDX_REG_NOWAIT and @flags until the pool is
 * empty, at most @max times; the count.
 */
static u32 rl_fill_pool(struct kunit *test, struct smbdx_conn *conn,
			struct rl_buf *b, struct smbdx_reg **regs, u32 max,
			unsigned int flags)
{
	struct smbdx_reg *r;
	struct iov_iter it;
	struct kvec kv;
	u32 n = 0;

	for (;;) {
		rl_buf_iter(b, &it, &kv, ITER_DEST);
		r = smbdx_register(conn, &it, SMBDX_REG_REMOTE_WRITE |
				   SMBDX_REG_NOWAIT | flags);
		if (IS_ERR(r))
			break;
		KUNIT_ASSERT_LT(test, n, max);
		regs[n++] = r;
	}
	KUNIT_EXPECT_EQ(test, PTR_ERR(r), -EAGAIN);
	return n;
}

/*
 * SMBDX_REG_POSTED as cifs uses it: the descriptors reach the peer in a
 * message posted after smbdx_register() returned, and the peer RDMA-writes
 * or -reads the buffer as soon as it has them, then replies (with Send
 * with Invalidate in half the rounds); every byte is checked at the other
 * end. A REG_MR not yet executed when the peer's access arrives would fail
 * it and end the pair. Then the whole pool registered and deregistered at
 * once, the REG_MRs possibly still in flight: deregistration waits for
 * them, and every MR is back in the pool.
 */
static void smbdx_rdma_reg_posted(struct kunit *test)
{
	static const u32 sizes[] = { 1, 4096, 4097, 65536, 262144 + 512,
				     1048576 };
	struct smbdx_buffer_desc_v1 descs[RL_POSTED_DESCS];
	const struct smbdx_buffer_desc_v1 *d;
	struct smbdx_reg *reg, **regs;
	struct smbdx_msg *msg;
	struct iov_iter it;
	struct kvec kv;
	struct tl_pair p;
	struct rl_buf *b;
	u32 i, n, len, round, pool, again, tok, nremote = 0, max = 1024;
	u64 regs0, rinv0;
	bool write, remote;
	u8 *tmp;
	int rc;

	tl_pair_up(test, &p, NULL, NULL);
	tmp = tl_kvmalloc(test, 1048576);
	regs0 = smbdx_test_stat(p.cli, SMBDX_STAT_MR_REGISTRATIONS);
	rinv0 = smbdx_test_stat(p.cli, SMBDX_STAT_MR_REMOTE_INV);
	for (round = 0; round < 2 * ARRAY_SIZE(sizes); round++) {
		len = sizes[round % ARRAY_SIZE(sizes)];
		write = !(round & 1);
		remote = !(round & 2);
		b = rl_buf_new(test, len, round & 4, round & 4 ? 100 : 0);
		if (!write) {
			rl_fill(tmp, len, round);
			rl_buf_copy(test, b, 0, tmp, len, true);
		}
		nremote += remote;
		reg = rl_register(test, p.cli, b, SMBDX_REG_POSTED |
				  (write ? SMBDX_REG_REMOTE_WRITE :
				   SMBDX_REG_REMOTE_READ));
		d = smbdx_reg_descs(reg, &n);
		KUNIT_ASSERT_LE(test, n, (u32)RL_POSTED_DESCS);
		tok = smbdx_reg_token(reg);

		/* The descriptors go out as a request's would. */
		kv.iov_base = (void *)d;
		kv.iov_len = n * sizeof(*d);
		iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, kv.iov_len);
		KUNIT_ASSERT_EQ(test, smbdx_send(p.cli, &it, 0, 0), 0);
		KUNIT_ASSERT_EQ(test, smbdx_recv_msg(p.srvc,
						     msecs_to_jiffies(timeout_ms),
						     &msg), 0);
		KUNIT_ASSERT_EQ(test, smbdx_msg_len(msg), n * (u32)sizeof(*d));
		kv.iov_base = descs;
		iov_iter_kvec(&it, ITER_DEST, &kv, 1, kv.iov_len);
		KUNIT_ASSERT_EQ(test, smbdx_msg_copy(msg, 0, &it), kv.iov_len);
		smbdx_msg_free(msg);

		/* The peer's RDMA at once, then its reply. */
		kv.iov_base = tmp;
		kv.iov_len = len;
		if (write) {
			rl_fill(tmp, len, round);
			iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
			rc = smbdx_rdma_write(p.srvc, &it, descs, n, 0);
		} else {
			memset(tmp, 0, len);
			iov_iter_kvec(&it, ITER_DEST, &kv, 1, len);
			rc = smbdx_rdma_read(p.srvc, &it, descs, n, 0);
		}
		KUNIT_ASSERT_EQ_MSG(test, rc, 0, "round %u: RDMA %s of %u bytes",
				    round, write ? "write" : "read", len);
		if (!write)
			rl_check(test, tmp, len, round, "read by the peer");
		kv.iov_base = tmp;
		kv.iov_len = 16;
		iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, 16);
		KUNIT_ASSERT_EQ(test, smbdx_send(p.srvc, &it, tok,
						 remote ? SMBDX_SEND_INVALIDATE : 0),
				0);
		KUNIT_ASSERT_EQ(test, smbdx_recv_msg(p.cli,
						     msecs_to_jiffies(timeout_ms),
						     &msg), 0);
		smbdx_msg_free(msg);
		KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);
		if (write) {
			rl_buf_copy(test, b, 0, tmp, len, false);
			rl_check(test, tmp, len, round, "written by the peer");
		}
	}
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_REGISTRATIONS),
			regs0 + 2 * ARRAY_SIZE(sizes));
	/* The token names the first MR of each. */
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_REMOTE_INV),
			rinv0 + nremote);

	/* The whole pool, deregistered right away, twice. */
	b = rl_buf_new(test, 4096, false, 0);
	regs = kunit_kcalloc(test, max, sizeof(*regs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, regs);
	pool = rl_fill_pool(test, p.cli, b, regs, max, SMBDX_REG_POSTED);
	KUNIT_EXPECT_GE(test, pool, 9U);
	for (i = 0; i < pool; i++)
		KUNIT_EXPECT_EQ(test, smbdx_deregister(regs[i]), 0);
	again = rl_fill_pool(test, p.cli, b, regs, max, SMBDX_REG_POSTED);
	KUNIT_EXPECT_EQ(test, again, pool);
	for (i = 0; i < again; i++)
		KUNIT_EXPECT_EQ(test, smbdx_deregister(regs[i]), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);
}

/* Both ends of @p failed within timeout_ms. */
static bool rl_pair_dies(struct tl_pair *p)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);

	while (!smbdx_conn_error(p->srvc) || !smbdx_conn_error(p->cli)) {
		if (time_after(jiffies, end))
			return false;
		msleep(20);
	}
	return true;
}

/* Access with a deregistered descriptor fails and kills only that pair. */
static void smbdx_rdma_stale_descriptor(struct kunit *test)
{
	const struct tl_dev *dev = test->param_value;
	const struct smbdx_buffer_desc_v1 *d;
	struct smbdx_buffer_desc_v1 old[4];
	struct tl_pair p, q;
	struct smbdx_reg *reg;
	struct rl_buf *b;
	struct kvec kv;
	struct iov_iter it;
	u8 *buf;
	u32 n;
	int rc;

	tl_pair_up(test, &p, NULL, NULL);
	/* A second pair on the same device and listener port range. */
	q.sin = p.sin;
	q.cli = tl_connect(test, &q.sin, NULL, NULL, NULL);
	q.srvc = tl_accepted(test, p.srv, 1);

	buf = tl_kvmalloc(test, 8192);
	b = rl_buf_new(test, 8192, false, 0);
	reg = rl_register(test, p.cli, b, SMBDX_REG_REMOTE_WRITE);
	d = smbdx_reg_descs(reg, &n);
	KUNIT_ASSERT_LE(test, n, (u32)ARRAY_SIZE(old));
	memcpy(old, d, n * sizeof(*d));
	KUNIT_ASSERT_EQ(test, smbdx_deregister(reg), 0);

	rl_fill(buf, 8192, 3);
	kv.iov_base = buf;
	kv.iov_len = 8192;
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, 8192);
	rc = smbdx_rdma_write(p.srvc, &it, old, n, 0);
	/*
	 * On IB/RoCE the target's NAK fails the write itself. On iWARP a
	 * write completes once sent; the target then terminates the
	 * connection. Either way the pair must die.
	 */
	if (!dev->iwarp)
		KUNIT_EXPECT_NE(test, rc, 0);
	KUNIT_EXPECT_TRUE_MSG(test, rl_pair_dies(&p),
			      "the pair survived a stale descriptor");
	/* Nothing reached the buffer. */
	rl_buf_copy(test, b, 0, buf, 8192, false);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(buf, 0, 8192));

	/* The other pair still moves data both ways. */
	b = rl_buf_new(test, 8192, true, 0);
	rl_fill(buf, 8192, 4);
	reg = rl_register(test, q.cli, b, SMBDX_REG_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, rl_peer_io(q.srvc, reg, 0, buf, 8192, true), 0);
	rl_peer_reply(test, q.srvc, q.cli);
	KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);
	rl_buf_copy(test, b, 0, buf, 8192, false);
	rl_check(test, buf, 8192, 4, "other connection");
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(q.cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(q.srvc), 0);
}

struct rl_waiter {
	struct smbdx_conn *conn;
	struct rl_buf *buf;
	struct smbdx_reg *reg;
	struct completion started;
	struct completion done;
};

static int rl_waiter_fn(void *data)
{
	struct rl_waiter *w = data;
	struct iov_iter it;
	struct kvec kv;

	rl_buf_iter(w->buf, &it, &kv, ITER_DEST);
	complete(&w->started);
	w->reg = smbdx_register(w->conn, &it, SMBDX_REG_REMOTE_WRITE);
	complete(&w->done);
	return 0;
}

/*
 * A Send with Invalidate on an empty message (3.1.5.8: a message whose
 * RemainingDataLength is 0 ends there, with its InvalidatedToken) still
 * invalidates the MR, but its token must not ride on the next, unrelated
 * message. Within one fragmented message, the token of its last
 * invalidating fragment is the message's (3.1.5.8: "overwriting any
 * previous value"); every MR it names is known to be invalidated.
 */
static void smbdx_rdma_invalidation_boundaries(struct kunit *test)
{
	struct smbdx_conn_info info;
	struct smbdx_reg *reg[2];
	struct smbdx_msg *msg;
	struct rl_buf *b;
	struct tl_pair p;
	struct kvec kv;
	struct iov_iter it;
	u32 tok[2], token, i, len;
	u64 linv, rinv;
	u8 *data;

	tl_pair_up(test, &p, NULL, NULL);
	KUNIT_ASSERT_EQ(test, smbdx_conn_query(p.srvc, &info), 0);
	/* Two fragments: the first says more follow. */
	len = info.params.max_send_size;
	data = tl_kvmalloc(test, len);
	memset(data, 0x5a, len);
	for (i = 0; i < 2; i++) {
		b = rl_buf_new(test, 4096, false, 0);
		reg[i] = rl_register(test, p.cli, b, SMBDX_REG_REMOTE_WRITE);
		tok[i] = smbdx_reg_token(reg[i]);
	}
	rinv = smbdx_test_stat(p.cli, SMBDX_STAT_MR_REMOTE_INV);

	/* An empty message invalidates the first MR... */
	kv.iov_base = data;
	kv.iov_len = 0;
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, 0);
	KUNIT_ASSERT_EQ(test, smbdx_send(p.srvc, &it, tok[0],
					 SMBDX_SEND_INVALIDATE), 0);
	/* ...and a plain message follows: it was not sent with invalidate. */
	kv.iov_len = 16;
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, 16);
	KUNIT_ASSERT_EQ(test, smbdx_send(p.srvc, &it, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, smbdx_recv_msg(p.cli, msecs_to_jiffies(timeout_ms),
					     &msg), 0);
	KUNIT_EXPECT_EQ(test, smbdx_msg_len(msg), 16U);
	KUNIT_EXPECT_FALSE(test, smbdx_msg_invalidated(msg, &token));
	smbdx_msg_free(msg);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_REMOTE_INV),
			rinv + 1);

	/* A fragmented message that invalidates the second MR on its last. */
	kv.iov_len = len;
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	KUNIT_ASSERT_EQ(test, smbdx_send(p.srvc, &it, tok[1],
					 SMBDX_SEND_INVALIDATE), 0);
	KUNIT_ASSERT_EQ(test, smbdx_recv_msg(p.cli, msecs_to_jiffies(timeout_ms),
					     &msg), 0);
	KUNIT_EXPECT_EQ(test, smbdx_msg_len(msg), len);
	KUNIT_EXPECT_TRUE(test, smbdx_msg_invalidated(msg, &token));
	KUNIT_EXPECT_EQ(test, token, tok[1]);
	smbdx_msg_free(msg);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_REMOTE_INV),
			rinv + 2);

	/* Both MRs were invalidated by the peer: no LOCAL_INV is needed. */
	linv = smbdx_test_stat(p.cli, SMBDX_STAT_MR_LOCAL_INV);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, smbdx_deregister(reg[i]), 0);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_LOCAL_INV), linv);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);
}

/*
 * A stale key hit by an RDMA Write that rdma_rw cuts into several work
 * requests (scattered pages, more than one WR's SGEs): the peer refuses the
 * first, unsignaled one. Its error completion, not the flush of the
 * signaled last one, must decide the cause: rdma_rw_completion_error, not
 * a peer disconnect. Before that was fixed every attempt said
 * peer_disconnect. The target's own disconnect (over the CM, not ordered
 * with its NAK) can still reach the writer first now and then, and flush
 * its QP before the NAK is processed: then nothing tells the two apart. So
 * several attempts are made, and at least one must name the access error.
 * On IB/RoCE only: an iWARP Write completes once sent and the target ends
 * the connection instead.
 */
#define RL_STALE_TRIES	15

static void smbdx_rdma_stale_multi_wr(struct kunit *test)
{
	const struct tl_dev *dev = test->param_value;
	const struct smbdx_buffer_desc_v1 *d;
	struct smbdx_buffer_desc_v1 old[4];
	struct smbdx_conn_info info;
	struct smbdx_reg *reg;
	struct rl_buf *src, *b;
	struct iov_iter it;
	struct kvec kv;
	struct tl_pair p;
	u32 n, len, named = 0;
	int rc, k;

	tl_pair_up(test, &p, NULL, NULL);
	for (k = 0; k < RL_STALE_TRIES; k++) {
		if (k) {
			p.cli = tl_connect(test, &p.sin, NULL, NULL, NULL);
			p.srvc = tl_accepted(test, p.srv, k);
		}
		KUNIT_ASSERT_EQ(test, smbdx_conn_query(p.srvc, &info), 0);
		/* Twice the SGEs one work request takes, one page each. */
		len = 2 * (info.max_sge + 1) * PAGE_SIZE;
		b = rl_buf_new(test, len, false, 0);
		reg = rl_register(test, p.cli, b, SMBDX_REG_REMOTE_WRITE);
		d = smbdx_reg_descs(reg, &n);
		KUNIT_ASSERT_LE(test, n, (u32)ARRAY_SIZE(old));
		memcpy(old, d, n * sizeof(*d));
		KUNIT_ASSERT_EQ(test, smbdx_deregister(reg), 0);

		src = rl_buf_new(test, len, true, 0);
		rl_buf_iter(src, &it, &kv, ITER_SOURCE);
		rc = smbdx_rdma_write(p.srvc, &it, old, n, 0);
		KUNIT_EXPECT_TRUE_MSG(test, rl_pair_dies(&p),
				      "the pair survived a stale descriptor");
		if (dev->iwarp)
			return;
		/* flushed after the peer disconnected: the connection's error */
		KUNIT_EXPECT_TRUE_MSG(test, rc == -EIO ||
				      rc == smbdx_conn_error(p.srvc),
				      "rc %d, connection error %d", rc,
				      smbdx_conn_error(p.srvc));
		if (smbdx_test_cause(p.srvc) == SMBDX_CAUSE_RW_ERROR)
			named++;
		else
			KUNIT_EXPECT_EQ_MSG(test, smbdx_test_cause(p.srvc),
					    SMBDX_CAUSE_PEER_DISCONNECT, "cause %s",
					    smbdx_cause_name(smbdx_test_cause(p.srvc)));
	}
	kunit_info(test, "%u of %u attempts named the access error", named,
		   RL_STALE_TRIES);
	KUNIT_EXPECT_GT(test, named, 0U);
}

/* Exhaust the pool: NOWAIT fails, a blocking registration waits. */
static void smbdx_rdma_pool_exhaustion(struct kunit *test)
{
	struct smbdx_reg **regs;
	struct rl_waiter w = {};
	struct task_struct *t;
	struct rl_buf *b, *gappy;
	struct iov_iter it;
	struct kvec kv;
	struct tl_pair p;
	struct smbdx_reg *r;
	u32 i, n, max = 1024;

	tl_pair_up(test, &p, NULL, NULL);
	b = rl_buf_new(test, 4096, false, 0);
	regs = kunit_kcalloc(test, max, sizeof(*regs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, regs);
	n = rl_fill_pool(test, p.cli, b, regs, max, 0);
	KUNIT_EXPECT_GE(test, n, 9U);
	kunit_info(test, "pool of %u MRs exhausted", n);

	/* More MRs than the pool has at all: one MR per gap. */
	gappy = rl_buf_new(test, 4096 * (n + 1), true, 0);
	for (i = 0; i < gappy->nbv; i++) {
		gappy->bv[i].bv_offset = 1;
		gappy->bv[i].bv_len = 100;
	}
	gappy->len = 100 * gappy->nbv;
	rl_buf_iter(gappy, &it, &kv, ITER_DEST);
	r = smbdx_register(p.cli, &it, SMBDX_REG_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(r), -EMSGSIZE);

	w.conn = p.cli;
	w.buf = rl_buf_new(test, 4096, false, 0);
	init_completion(&w.started);
	init_completion(&w.done);
	t = kthread_run(rl_waiter_fn, &w, "smbd-rl-wait");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&w.started);
	/* It must still be waiting a while later. */
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&w.done,
							  msecs_to_jiffies(500)),
			0UL);
	KUNIT_EXPECT_EQ(test, smbdx_deregister(regs[--n]), 0);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&w.done,
							  msecs_to_jiffies(timeout_ms)),
			0UL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(w.reg));
	KUNIT_EXPECT_GE(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_REG_WAITS), 1ULL);
	KUNIT_EXPECT_EQ(test, smbdx_deregister(w.reg), 0);
	while (n)
		KUNIT_EXPECT_EQ(test, smbdx_deregister(regs[--n]), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
}

/*
 * SMBDX_REG_MAX_DESCS(2), as our cifs registers an SMB2 READ's or WRITE's
 * buffer: max_reg_len + PAGE_SIZE bytes (1 MiB on siw's 256-page MRs) are
 * one descriptor when the buffer starts on a page boundary and two when it
 * does not (refused with one allowed); the peer moves the data across both
 * descriptors in each direction; the peer's Send with Invalidate names the
 * registration's token (the first descriptor's, as ksmbd takes it) and
 * deregistration invalidates exactly the other MR locally; a buffer that
 * needs three (gaps) is refused and leaves nothing registered.
 */
static void smbdx_rdma_two_descriptors(struct kunit *test)
{
	struct smbdx_conn_info info;
	struct smbdx_reg *reg;
	struct smbdx_msg *msg;
	struct rl_buf *b;
	struct iov_iter it;
	struct kvec kv;
	u64 linv, rinv, regs0, descs0;
	u32 len, n, token = 0;
	struct tl_pair p;
	u8 *tmp, data[16];
	int round;

	tl_pair_up(test, &p, NULL, NULL);
	KUNIT_ASSERT_EQ(test, smbdx_conn_query(p.cli, &info), 0);
	KUNIT_ASSERT_GE(test, info.max_reg_len, (u32)PAGE_SIZE);
	len = info.max_reg_len + PAGE_SIZE;
	kunit_info(test, "%s: %u bytes", info.device, len);
	tmp = tl_kvmalloc(test, len);

	/* Page-aligned: one descriptor. */
	b = rl_buf_new(test, len, true, 0);
	descs0 = smbdx_test_stat(p.cli, SMBDX_STAT_MR_DESCS);
	reg = rl_register(test, p.cli, b, SMBDX_REG_REMOTE_WRITE |
			  SMBDX_REG_MAX_DESCS(2));
	smbdx_reg_descs(reg, &n);
	KUNIT_EXPECT_EQ(test, n, 1U);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_DESCS),
			descs0 + 1);
	KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);

	for (round = 0; round < 2; round++) {
		bool write = round == 0;
		unsigned int acc = write ? SMBDX_REG_REMOTE_WRITE :
					   SMBDX_REG_REMOTE_READ;

		/* One byte into its first page: two descriptors. */
		b = rl_buf_new(test, len, true, PAGE_SIZE - 1);
		regs0 = smbdx_test_stat(p.cli, SMBDX_STAT_MR_REGISTRATIONS);
		rl_buf_iter(b, &it, &kv, write ? ITER_DEST : ITER_SOURCE);
		reg = smbdx_register(p.cli, &it, acc | SMBDX_REG_ONE_DESC);
		KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(reg), -EMSGSIZE);
		KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli,
						      SMBDX_STAT_MR_REGISTRATIONS),
				regs0);
		if (!write) {
			rl_fill(tmp, len, 91);
			rl_buf_copy(test, b, 0, tmp, len, true);
		}
		descs0 = smbdx_test_stat(p.cli, SMBDX_STAT_MR_DESCS);
		reg = rl_register(test, p.cli, b, acc | SMBDX_REG_POSTED |
				  SMBDX_REG_MAX_DESCS(2));
		smbdx_reg_descs(reg, &n);
		KUNIT_EXPECT_EQ(test, n, 2U);
		KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_DESCS),
				descs0 + 2);
		rl_check_descs(test, reg, len);
		/*
		 * Posted, not waited for: the descriptors must reach the peer
		 * in a message posted after the REG_MRs, as cifs's request
		 * does, or its access may arrive first (seen on rxe).
		 */
		rl_peer_reply(test, p.cli, p.srvc);
		if (write)
			rl_fill(tmp, len, 90);
		else
			memset(tmp, 0, len);
		KUNIT_EXPECT_EQ(test, rl_peer_io(p.srvc, reg, 0, tmp, len, write), 0);
		if (!write)
			rl_check(test, tmp, len, 91, "read across two descriptors");

		/* The reply invalidates the first MR, as ksmbd's does. */
		rinv = smbdx_test_stat(p.cli, SMBDX_STAT_MR_REMOTE_INV);
		memset(data, 0, sizeof(data));
		kv.iov_base = data;
		kv.iov_len = sizeof(data);
		iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, sizeof(data));
		KUNIT_ASSERT_EQ(test, smbdx_send(p.srvc, &it, smbdx_reg_token(reg),
						 SMBDX_SEND_INVALIDATE), 0);
		KUNIT_ASSERT_EQ(test, smbdx_recv_msg(p.cli,
						     msecs_to_jiffies(timeout_ms),
						     &msg), 0);
		KUNIT_EXPECT_TRUE(test, smbdx_msg_invalidated(msg, &token));
		KUNIT_EXPECT_EQ(test, token, smbdx_reg_token(reg));
		smbdx_msg_free(msg);
		linv = smbdx_test_stat(p.cli, SMBDX_STAT_MR_LOCAL_INV);
		KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);
		KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_REMOTE_INV),
				rinv + 1);
		KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_LOCAL_INV),
				linv + 1);
		if (write) {
			memset(tmp, 0, len);
			rl_buf_copy(test, b, 0, tmp, len, false);
			rl_check(test, tmp, len, 90, "written across two descriptors");
		}
	}

	/* Three pieces with gaps between them: three MRs, refused. */
	b = rl_buf_new(test, 3 * PAGE_SIZE, true, 0);
	b->bv[0].bv_len = 100;
	b->bv[1].bv_offset = 8;
	b->bv[1].bv_len = 100;
	b->len = 200 + PAGE_SIZE;
	regs0 = smbdx_test_stat(p.cli, SMBDX_STAT_MR_REGISTRATIONS);
	rl_buf_iter(b, &it, &kv, ITER_DEST);
	reg = smbdx_register(p.cli, &it, SMBDX_REG_REMOTE_WRITE |
			     SMBDX_REG_MAX_DESCS(2));
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(reg), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_REGISTRATIONS),
			regs0);
	/* ...and taken with three. */
	reg = rl_register(test, p.cli, b, SMBDX_REG_REMOTE_WRITE |
			  SMBDX_REG_MAX_DESCS(3));
	smbdx_reg_descs(reg, &n);
	KUNIT_EXPECT_EQ(test, n, 3U);
	KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);
}

/*
 * SMBDX_REG_ONE_DESC (cifs advertises one descriptor per request): a
 * buffer of max_reg_len bytes at any offset in its first page fits one
 * descriptor and carries data; one page more, or a gap, is refused with
 * -EMSGSIZE and leaves nothing registered, while the same buffer without
 * the flag gets several descriptors.
 */
static void smbdx_rdma_one_descriptor(struct kunit *test)
{
	struct smbdx_conn_info info;
	struct smbdx_reg *reg;
	struct rl_buf *b;
	struct iov_iter it;
	struct kvec kv;
	u32 len, n, regs0;
	struct tl_pair p;
	u8 *tmp;
	int rc;

	tl_pair_up(test, &p, NULL, NULL);
	KUNIT_ASSERT_EQ(test, smbdx_conn_query(p.cli, &info), 0);
	KUNIT_ASSERT_GE(test, info.max_reg_len, (u32)PAGE_SIZE);
	len = info.max_reg_len;
	kunit_info(test, "max_reg_len %u", len);

	b = rl_buf_new(test, len, true, PAGE_SIZE - 1);
	tmp = vmalloc(len);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	reg = rl_register(test, p.cli, b, SMBDX_REG_REMOTE_WRITE |
			  SMBDX_REG_ONE_DESC);
	smbdx_reg_descs(reg, &n);
	KUNIT_EXPECT_EQ(test, n, 1U);
	rl_check_descs(test, reg, len);
	rl_fill(tmp, len, 77);
	rc = rl_peer_io(p.srvc, reg, 0, tmp, len, true);
	KUNIT_EXPECT_EQ(test, rc, 0);
	rl_peer_reply(test, p.srvc, p.cli);
	KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);
	memset(tmp, 0, len);
	rl_buf_copy(test, b, 0, tmp, len, false);
	rl_check(test, tmp, len, 77, "one descriptor");
	vfree(tmp);

	regs0 = smbdx_test_stat(p.cli, SMBDX_STAT_MR_REGISTRATIONS);
	b = rl_buf_new(test, len + PAGE_SIZE + 1, true, PAGE_SIZE - 1);
	rl_buf_iter(b, &it, &kv, ITER_DEST);
	reg = smbdx_register(p.cli, &it, SMBDX_REG_REMOTE_WRITE |
			     SMBDX_REG_ONE_DESC);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(reg), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_MR_REGISTRATIONS),
			(u64)regs0);
	reg = rl_register(test, p.cli, b, SMBDX_REG_REMOTE_WRITE);
	smbdx_reg_descs(reg, &n);
	KUNIT_EXPECT_GE(test, n, 2U);
	KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);

	/* Two pieces of one page each with a gap between them. */
	b = rl_buf_new(test, 2 * PAGE_SIZE, true, 0);
	b->bv[0].bv_len = 100;
	b->len = 100 + PAGE_SIZE;
	rl_buf_iter(b, &it, &kv, ITER_DEST);
	reg = smbdx_register(p.cli, &it, SMBDX_REG_REMOTE_WRITE |
			     SMBDX_REG_ONE_DESC);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(reg), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);
}

/* Local refusals keep the connection; above MaxReadWriteSize too. */
static void smbdx_rdma_local_errors(struct kunit *test)
{
	struct smbdx_conn_info info;
	struct smbdx_buffer_desc_v1 d[2];
	struct smbdx_reg *reg;
	struct rl_buf *b;
	struct tl_pair p;
	struct iov_iter it;
	struct kvec kv;
	u8 *big;

	tl_pair_up(test, &p, NULL, NULL);
	KUNIT_ASSERT_EQ(test, smbdx_conn_query(p.srvc, &info), 0);
	big = tl_kvmalloc(test, info.params.max_read_write_size + 1);
	b = rl_buf_new(test, info.params.max_read_write_size + 1, false, 0);
	reg = rl_register(test, p.cli, b, SMBDX_REG_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, rl_peer_io(p.srvc, reg, 0, big,
					 info.params.max_read_write_size + 1,
					 true), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.srvc, SMBDX_STAT_RW_TOO_BIG), 1ULL);
	KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);

	/* Zero descriptors, and an Offset + Length that overflows. */
	kv.iov_base = big;
	kv.iov_len = 16;
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, 16);
	KUNIT_EXPECT_EQ(test, smbdx_rdma_write(p.srvc, &it, d, 0, 0), -EINVAL);
	d[0].offset = cpu_to_le64(U64_MAX - 4);
	d[0].token = cpu_to_le32(1);
	d[0].length = cpu_to_le32(16);
	KUNIT_EXPECT_EQ(test, smbdx_rdma_write(p.srvc, &it, d, 1, 0), -EOVERFLOW);

	/* Flags: no access, unknown bits, empty buffer. */
	rl_buf_iter(b, &it, &kv, ITER_DEST);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(smbdx_register(p.cli, &it, 0)),
			-EINVAL);
	reg = smbdx_register(p.cli, &it, 0x80 | SMBDX_REG_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(reg), -EINVAL);
	iov_iter_kvec(&it, ITER_DEST, &kv, 1, 0);
	reg = smbdx_register(p.cli, &it, SMBDX_REG_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(reg), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);
}

/* A connection destroyed with registrations outstanding. */
static void smbdx_rdma_teardown_outstanding(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct smbdx_reg *regs[3];
	struct tl_server *srv;
	struct smbdx_conn *cli, *srvc;
	struct sockaddr_in sin;
	struct rl_buf *b;
	int i;

	tl_addr(test, d, &sin);
	srv = tl_listen(test, &sin, NULL, &tl_pull_ops);
	/* Not through tl_connect: this test destroys it itself. */
	cli = smbdx_connect(&init_net, (struct sockaddr *)&sin, NULL, NULL, NULL,
			    NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cli));
	srvc = tl_accepted(test, srv, 0);
	for (i = 0; i < 3; i++) {
		b = rl_buf_new(test, 65536 * (i + 1), i & 1, 0);
		regs[i] = rl_register(test, cli, b, i == 2 ? SMBDX_REG_REMOTE_READ :
				      SMBDX_REG_REMOTE_WRITE);
	}
	smbdx_destroy(cli);
	/* Teardown released them; deregistration now only frees handles. */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, smbdx_deregister(regs[i]), 0);
	(void)srvc;
}

/* Three 2000-byte pieces, each 100 bytes into a page of its own. */
#define RL_GAP_PIECES	3
#define RL_GAP_OFF	100
#define RL_GAP_LEN	2000
#define RL_GAP_TOTAL	(RL_GAP_PIECES * RL_GAP_LEN)

static void rl_free_page(void *page)
{
	__free_page((struct page *)page);
}

static void rl_fault_disarm(void *data)
{
	smbdx_fault_arm(SMBDX_FAULT_REG_ALLOC, 0);
}

/*
 * The gapped buffer of rl_bounce_one() as an iterator: kvecs into a
 * vmalloc area of three pages, or bvecs of three separate pages.
 */
static void rl_gap_iter(struct iov_iter *it, bool kvec, u8 *area,
			struct kvec *kv, struct bio_vec *bv, struct page **pages,
			unsigned int dir)
{
	u32 i;

	for (i = 0; i < RL_GAP_PIECES; i++) {
		kv[i].iov_base = area + i * PAGE_SIZE + RL_GAP_OFF;
		kv[i].iov_len = RL_GAP_LEN;
		bvec_set_page(&bv[i], pages[i], RL_GAP_LEN, RL_GAP_OFF);
	}
	if (kvec)
		iov_iter_kvec(it, dir, kv, RL_GAP_PIECES, RL_GAP_TOTAL);
	else
		iov_iter_bvec(it, dir, bv, RL_GAP_PIECES, RL_GAP_TOTAL);
}

/* Copy the gapped buffer's bytes to or from @flat (RL_GAP_TOTAL bytes). */
static void rl_gap_copy(bool kvec, u8 *area, struct page **pages, u8 *flat,
			bool into_buf)
{
	u32 i;

	for (i = 0; i < RL_GAP_PIECES; i++) {
		u8 *piece = kvec ? area + i * PAGE_SIZE + RL_GAP_OFF :
				   page_address(pages[i]) + RL_GAP_OFF;

		if (into_buf)
			memcpy(piece, flat + i * RL_GAP_LEN, RL_GAP_LEN);
		else
			memcpy(flat + i * RL_GAP_LEN, piece, RL_GAP_LEN);
	}
}

/*
 * One direction of smbdx_rdma_bounce() on one kind of iterator: refused
 * without SMBDX_REG_BOUNCE, registered as a copy with it (one descriptor,
 * counted), the peer's RDMA moves the data, and after deregistration the
 * buffer holds what the peer wrote where it wrote and its own bytes
 * elsewhere (the peer writes all but the last 1000 bytes).
 */
static void rl_bounce_one(struct kunit *test, struct tl_pair *p, bool kvec,
			  bool write)
{
	const char *what = kvec ? (write ? "kvec, peer writes" : "kvec, peer reads") :
				  (write ? "bvec, peer writes" : "bvec, peer reads");
	unsigned int acc = write ? SMBDX_REG_REMOTE_WRITE : SMBDX_REG_REMOTE_READ;
	unsigned int dir = write ? ITER_DEST : ITER_SOURCE;
	u32 part = write ? RL_GAP_TOTAL - 1000 : RL_GAP_TOTAL;
	struct kvec kv[RL_GAP_PIECES];
	struct bio_vec bv[RL_GAP_PIECES];
	struct page *pages[RL_GAP_PIECES];
	u8 *area = NULL, *tmp, *want;
	u64 regs0, bounced0, bbytes0, fail0;
	struct smbdx_reg *reg;
	struct iov_iter it;
	u32 n, i;

	tmp = tl_kvmalloc(test, RL_GAP_TOTAL);
	want = tl_kvmalloc(test, RL_GAP_TOTAL);
	if (kvec)
		area = tl_kvmalloc(test, RL_GAP_PIECES * PAGE_SIZE);
	for (i = 0; i < RL_GAP_PIECES; i++) {
		/* Pages from the allocator are rarely adjacent: real gaps. */
		pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rl_free_page,
								pages[i]), 0);
	}
	rl_fill(want, RL_GAP_TOTAL, 7);
	rl_gap_copy(kvec, area, pages, want, true);

	/* Three MRs are needed, two allowed: refused without a copy. */
	regs0 = smbdx_test_stat(p->cli, SMBDX_STAT_MR_REGISTRATIONS);
	rl_gap_iter(&it, kvec, area, kv, bv, pages, dir);
	reg = smbdx_register(p->cli, &it, acc | SMBDX_REG_MAX_DESCS(2));
	KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(reg), -EMSGSIZE, "%s", what);
	if (!IS_ERR(reg))
		smbdx_deregister(reg);

	/* No pages for the copy: -ENOMEM, no retry, the connection lives. */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rl_fault_disarm,
							NULL), 0);
	fail0 = smbdx_test_stat(p->cli, SMBDX_STAT_MR_REG_FAILED);
	smbdx_fault_arm(SMBDX_FAULT_REG_ALLOC, 1);
	rl_gap_iter(&it, kvec, area, kv, bv, pages, dir);
	reg = smbdx_register(p->cli, &it, acc | SMBDX_REG_BOUNCE |
			     SMBDX_REG_MAX_DESCS(2));
	smbdx_fault_arm(SMBDX_FAULT_REG_ALLOC, 0);
	KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(reg), -ENOMEM, "%s", what);
	if (!IS_ERR(reg))
		smbdx_deregister(reg);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p->cli, SMBDX_STAT_MR_REG_FAILED),
			fail0 + 1);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p->cli, SMBDX_STAT_MR_REGISTRATIONS),
			regs0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p->cli), 0);

	/* With SMBDX_REG_BOUNCE: a copy, in one descriptor. */
	bounced0 = smbdx_test_stat(p->cli, SMBDX_STAT_MR_BOUNCED);
	bbytes0 = smbdx_test_stat(p->cli, SMBDX_STAT_MR_BOUNCED_BYTES);
	rl_gap_iter(&it, kvec, area, kv, bv, pages, dir);
	reg = smbdx_register(p->cli, &it, acc | SMBDX_REG_BOUNCE |
			     SMBDX_REG_MAX_DESCS(2));
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(reg), "%s: smbdx_register: %ld",
			       what, PTR_ERR(reg));
	KUNIT_EXPECT_EQ(test, iov_iter_count(&it), (size_t)0);
	KUNIT_EXPECT_EQ(test, smbdx_reg_len(reg), (u32)RL_GAP_TOTAL);
	smbdx_reg_descs(reg, &n);
	KUNIT_EXPECT_EQ_MSG(test, n, 1U, "%s", what);
	rl_check_descs(test, reg, RL_GAP_TOTAL);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p->cli, SMBDX_STAT_MR_BOUNCED),
			bounced0 + 1);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p->cli, SMBDX_STAT_MR_BOUNCED_BYTES),
			bbytes0 + RL_GAP_TOTAL);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p->cli, SMBDX_STAT_MR_REGISTRATIONS),
			regs0 + 1);

	if (write) {
		rl_fill(tmp, part, 8);
		KUNIT_EXPECT_EQ(test, rl_peer_io(p->srvc, reg, 0, tmp, part, true), 0);
		rl_peer_reply(test, p->srvc, p->cli);
		KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);
		rl_fill(want, part, 8);
	} else {
		memset(tmp, 0, RL_GAP_TOTAL);
		KUNIT_EXPECT_EQ(test, rl_peer_io(p->srvc, reg, 0, tmp, part, false), 0);
		KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(tmp, want, RL_GAP_TOTAL), 0,
				    "%s: the peer read other bytes", what);
	}
	/* The caller's buffer: the peer's bytes where it wrote, else its own. */
	memset(tmp, 0, RL_GAP_TOTAL);
	rl_gap_copy(kvec, area, pages, tmp, false);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(tmp, want, RL_GAP_TOTAL), 0,
			    "%s: the buffer after deregistration differs", what);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p->cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p->srvc), 0);
}

/*
 * SMBDX_REG_BOUNCE, as our cifs registers an O_DIRECT READ's or WRITE's
 * user buffer: three 2000-byte pieces, each 100 bytes into a page of its
 * own, need three MRs (an MR cannot describe a gap), more than the two
 * descriptors cifs can send. Without the flag the registration is refused
 * (cifs then retried the I/O for ever); with it the pieces are copied into
 * two kernel pages registered in one descriptor, the peer's RDMA Read sees
 * the data and its RDMA Write lands in the caller's pieces at
 * deregistration, for kvec and bvec iterators; a copy whose pages cannot
 * be allocated fails with -ENOMEM and leaves the connection working. The
 * stock 6.12 cifs has no such fallback (it registers one MR per I/O and
 * retries a buffer that does not fit, Documentation/interop.rst).
 */
static void smbdx_rdma_bounce(struct kunit *test)
{
	struct tl_pair p;

	tl_pair_up(test, &p, NULL, NULL);
	rl_bounce_one(test, &p, false, true);
	rl_bounce_one(test, &p, false, false);
	rl_bounce_one(test, &p, true, true);
	rl_bounce_one(test, &p, true, false);
}

/* ---- the RDMA transform (smbdx_register_xform(), smbdx_rdma_write_xform()) ---- */

/* Scattered, 100 bytes into its first page: two pages, two bounce pages. */
#define RX_LEN		(PAGE_SIZE + 123)
#define RX_TIME_LEN	(256 * 1024)

/* The two ends' crypto: the sender's keyed objects, the receiver uses the same keys. */
struct rx_crypto {
	struct crypto_aead *aead;
	struct crypto_shash *cmac;
	struct shash_desc *desc;
	u8 nonce[SMBDX_XF_GCM_NONCE_LEN];
};

static void rx_crypto_release(void *data)
{
	struct rx_crypto *c = data;

	kfree_sensitive(c->desc);
	if (!IS_ERR_OR_NULL(c->cmac))
		crypto_free_shash(c->cmac);
	if (!IS_ERR_OR_NULL(c->aead))
		crypto_free_aead(c->aead);
}

static struct rx_crypto *rx_crypto_new(struct kunit *test)
{
	static const u8 key[16] = "smbdirect-xform";
	struct rx_crypto *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_crypto_release,
							c), 0);
	c->aead = crypto_alloc_aead("gcm(aes)", 0, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(c->aead), "gcm(aes): %ld",
			       PTR_ERR(c->aead));
	KUNIT_ASSERT_EQ(test, crypto_aead_setkey(c->aead, key, sizeof(key)), 0);
	KUNIT_ASSERT_EQ(test, crypto_aead_setauthsize(c->aead, 16), 0);
	c->cmac = crypto_alloc_shash("cmac(aes)", 0, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(c->cmac), "cmac(aes): %ld",
			       PTR_ERR(c->cmac));
	KUNIT_ASSERT_EQ(test, crypto_shash_setkey(c->cmac, key, sizeof(key)), 0);
	c->desc = kzalloc(sizeof(*c->desc) + crypto_shash_descsize(c->cmac),
			  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->desc);
	c->desc->tfm = c->cmac;
	get_random_bytes(c->nonce, sizeof(c->nonce));
	return c;
}

static void rx_xform_init(struct rx_crypto *c, struct smbdx_xform *xf, u16 type)
{
	memset(xf, 0, sizeof(*xf));
	xf->type = type;
	xf->cipher = SMBDX_XF_AES128_GCM;
	xf->aead = c->aead;
	xf->nonce = c->nonce;
	xf->shash = c->desc;
}

static void rx_fault_disarm(void *data)
{
	smbdx_fault_arm(SMBDX_FAULT_XFORM_TAMPER, 0);
	smbdx_fault_arm(SMBDX_FAULT_REG_ALLOC, 0);
}

/* The receiving end's check of @len bytes at @p: 0 or -EBADMSG. */
static int rx_open(struct rx_crypto *c, u16 type, u8 *p, u32 len, const u8 *sig)
{
	struct kvec kv = { .iov_base = p, .iov_len = len };
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_DEST, &kv, 1, len);
	if (type == SMBDX_XF_TYPE_ENCRYPTION)
		return smbdx_xf_open(c->aead, SMBDX_XF_AES128_GCM, c->nonce, &it,
				     NULL, len, sig);
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	return smbdx_xf_verify(c->desc, &it, len, sig);
}

/*
 * The client's WRITE: @b (pattern @seed) registered sealed or signed, the
 * caller's buffer then overwritten, the peer RDMA-reads what was
 * registered and opens or verifies it. Return what the check said; with
 * 0 the peer got the original payload.
 */
static int rx_client_write(struct kunit *test, struct tl_pair *p,
			   struct rx_crypto *c, struct rl_buf *b, u16 type,
			   u32 seed)
{
	const char *what = type == SMBDX_XF_TYPE_ENCRYPTION ? "sealed" : "signed";
	enum smbdx_stat st = type == SMBDX_XF_TYPE_ENCRYPTION ?
			     SMBDX_STAT_XFORM_SEALED : SMBDX_STAT_XFORM_SIGNED;
	u64 n0 = smbdx_test_stat(p->cli, st);
	u64 b0 = smbdx_test_stat(p->cli, SMBDX_STAT_MR_BOUNCED);
	u8 *tmp = tl_kvmalloc(test, b->len);
	u8 sig[SMBDX_XF_TAG_LEN] = {};
	struct smbdx_xform xf;
	struct smbdx_reg *reg;
	struct iov_iter it;
	struct kvec kv;
	int rc;

	rl_fill(tmp, b->len, seed);
	rl_buf_copy(test, b, 0, tmp, b->len, true);
	rx_xform_init(c, &xf, type);
	rl_buf_iter(b, &it, &kv, ITER_SOURCE);
	reg = smbdx_register_xform(p->cli, &it, SMBDX_REG_REMOTE_READ |
				   SMBDX_REG_MAX_DESCS(2), &xf, sig);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(reg), "%s: smbdx_register_xform: %ld",
			       what, PTR_ERR(reg));
	KUNIT_EXPECT_EQ(test, iov_iter_count(&it), (size_t)0);
	KUNIT_EXPECT_EQ(test, smbdx_reg_len(reg), b->len);
	rl_check_descs(test, reg, b->len);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p->cli, st), n0 + 1);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p->cli, SMBDX_STAT_MR_BOUNCED), b0);

	/* The caller's pages change: what the peer reads must not. */
	rl_fill(tmp, b->len, seed + 50);
	rl_buf_copy(test, b, 0, tmp, b->len, true);

	memset(tmp, 0, b->len);
	KUNIT_EXPECT_EQ(test, rl_peer_io(p->srvc, reg, 0, tmp, b->len, false), 0);
	KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);
	rc = rx_open(c, type, tmp, b->len, sig);
	if (!rc)
		rl_check(test, tmp, b->len, seed, what);
	return rc;
}

/*
 * The server's READ: its data sealed or signed in place, RDMA-written with
 * smbdx_rdma_write_xform() into the client's registered buffer; the client
 * opens or verifies what landed. Return what the check said.
 */
static int rx_server_read(struct kunit *test, struct tl_pair *p,
			  struct rx_crypto *c, struct rl_buf *b, u16 type,
			  u32 seed)
{
	const char *what = type == SMBDX_XF_TYPE_ENCRYPTION ? "READ sealed" :
			   "READ signed";
	enum smbdx_stat st = type == SMBDX_XF_TYPE_ENCRYPTION ?
			     SMBDX_STAT_XFORM_SEALED : SMBDX_STAT_XFORM_SIGNED;
	u64 n0 = smbdx_test_stat(p->srvc, st);
	u64 w0 = smbdx_test_stat(p->srvc, SMBDX_STAT_RDMA_WRITES);
	u8 *data = tl_kvmalloc(test, b->len), *tmp = tl_kvmalloc(test, b->len);
	struct kvec kv = { .iov_base = data, .iov_len = b->len };
	u8 sig[SMBDX_XF_TAG_LEN];
	const struct smbdx_buffer_desc_v1 *d;
	struct smbdx_reg *reg;
	struct iov_iter it;
	u32 n;
	int rc;

	rl_fill(data, b->len, seed);
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, b->len);
	if (type == SMBDX_XF_TYPE_ENCRYPTION)
		KUNIT_ASSERT_EQ(test, smbdx_xf_seal(c->aead, SMBDX_XF_AES128_GCM,
						    c->nonce, &it, NULL, b->len,
						    sig), 0);
	else
		KUNIT_ASSERT_EQ(test, smbdx_xf_sign(c->desc, &it, b->len, sig), 0);
	memcpy(tmp, data, b->len);

	reg = rl_register(test, p->cli, b, SMBDX_REG_REMOTE_WRITE);
	d = smbdx_reg_descs(reg, &n);
	KUNIT_EXPECT_EQ(test, smbdx_rdma_write_xform(p->srvc, &it, d, n, 0, type), 0);
	KUNIT_EXPECT_EQ(test, iov_iter_count(&it), (size_t)0);
	rl_peer_reply(test, p->srvc, p->cli);
	KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p->srvc, st), n0 + 1);
	/* The tamper point's own write is not an rdma_write of the caller's. */
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p->srvc, SMBDX_STAT_RDMA_WRITES),
			w0 + 1);
	/* The server's own buffer is never tampered with. */
	KUNIT_EXPECT_EQ_MSG(test, memcmp(tmp, data, b->len), 0,
			    "%s: the server's buffer changed", what);

	rl_buf_copy(test, b, 0, tmp, b->len, false);
	rc = rx_open(c, type, tmp, b->len, sig);
	if (!rc)
		rl_check(test, tmp, b->len, seed, what);
	return rc;
}

/* Every bad argument is refused before anything is allocated or counted. */
static void rx_bad_args(struct kunit *test, struct tl_pair *p,
			struct rx_crypto *c, struct rl_buf *b)
{
	u64 regs0 = smbdx_test_stat(p->cli, SMBDX_STAT_MR_REGISTRATIONS);
	u64 sealed0 = smbdx_test_stat(p->cli, SMBDX_STAT_XFORM_SEALED);
	u64 fail0 = smbdx_test_stat(p->cli, SMBDX_STAT_MR_REG_FAILED);
	struct smbdx_conn_info info;
	struct crypto_shash *hmac;
	struct smbdx_xform xf;
	u8 sig[SMBDX_XF_TAG_LEN];
	struct smbdx_reg *reg;
	struct rl_buf *big;
	struct iov_iter it;
	struct kvec kv;
	u8 byte = 0;
	struct {
		const char *what;
		unsigned int flags;
		u16 type;
		u16 cipher;
		bool no_aead, no_nonce, no_shash, no_xf, no_sig, empty;
	} bad[] = {
		{ "no access", 0, SMBDX_XF_TYPE_ENCRYPTION },
		{ "remote write", SMBDX_REG_REMOTE_WRITE, SMBDX_XF_TYPE_ENCRYPTION },
		{ "read and write", SMBDX_REG_REMOTE_READ | SMBDX_REG_REMOTE_WRITE,
		  SMBDX_XF_TYPE_SIGNING },
		{ "unknown flag", SMBDX_REG_REMOTE_READ | 0x80, SMBDX_XF_TYPE_SIGNING },
		{ "type 0", SMBDX_REG_REMOTE_READ, 0 },
		{ "type 3", SMBDX_REG_REMOTE_READ, 3 },
		{ "cipher 0", SMBDX_REG_REMOTE_READ, SMBDX_XF_TYPE_ENCRYPTION, 0 },
		{ "cipher 5", SMBDX_REG_REMOTE_READ, SMBDX_XF_TYPE_ENCRYPTION, 5 },
		{ "no aead", SMBDX_REG_REMOTE_READ, SMBDX_XF_TYPE_ENCRYPTION,
		  SMBDX_XF_AES128_GCM, .no_aead = true },
		{ "no nonce", SMBDX_REG_REMOTE_READ, SMBDX_XF_TYPE_ENCRYPTION,
		  SMBDX_XF_AES128_GCM, .no_nonce = true },
		{ "no shash", SMBDX_REG_REMOTE_READ, SMBDX_XF_TYPE_SIGNING,
		  .no_shash = true },
		{ "no xform", SMBDX_REG_REMOTE_READ, SMBDX_XF_TYPE_SIGNING,
		  .no_xf = true },
		{ "no sig", SMBDX_REG_REMOTE_READ, SMBDX_XF_TYPE_SIGNING,
		  .no_sig = true },
		{ "empty", SMBDX_REG_REMOTE_READ, SMBDX_XF_TYPE_SIGNING,
		  .empty = true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		rx_xform_init(c, &xf, bad[i].type);
		if (bad[i].type == SMBDX_XF_TYPE_ENCRYPTION)
			xf.cipher = bad[i].cipher;
		if (bad[i].no_aead)
			xf.aead = NULL;
		if (bad[i].no_nonce)
			xf.nonce = NULL;
		if (bad[i].no_shash)
			xf.shash = NULL;
		rl_buf_iter(b, &it, &kv, ITER_SOURCE);
		if (bad[i].empty)
			iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, 0);
		reg = smbdx_register_xform(p->cli, &it, bad[i].flags,
					   bad[i].no_xf ? NULL : &xf,
					   bad[i].no_sig ? NULL : sig);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(reg), -EINVAL, "%s",
				    bad[i].what);
		if (!IS_ERR(reg))
			smbdx_deregister(reg);
	}
	/* An AEAD whose tag is not 16 octets; a 32-octet digest (HMAC-SHA256). */
	rx_xform_init(c, &xf, SMBDX_XF_TYPE_ENCRYPTION);
	KUNIT_ASSERT_EQ(test, crypto_aead_setauthsize(c->aead, 12), 0);
	rl_buf_iter(b, &it, &kv, ITER_SOURCE);
	reg = smbdx_register_xform(p->cli, &it, SMBDX_REG_REMOTE_READ, &xf, sig);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(reg), -EINVAL);
	KUNIT_ASSERT_EQ(test, crypto_aead_setauthsize(c->aead, 16), 0);
	hmac = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (!IS_ERR(hmac)) {
		struct shash_desc *hd = kzalloc(sizeof(*hd) +
						crypto_shash_descsize(hmac),
						GFP_KERNEL);

		if (hd) {
			hd->tfm = hmac;
			rx_xform_init(c, &xf, SMBDX_XF_TYPE_SIGNING);
			xf.shash = hd;
			rl_buf_iter(b, &it, &kv, ITER_SOURCE);
			reg = smbdx_register_xform(p->cli, &it,
						   SMBDX_REG_REMOTE_READ, &xf, sig);
			KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(reg), -EINVAL);
			kfree(hd);
		}
		crypto_free_shash(hmac);
	}
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p->cli, SMBDX_STAT_MR_REG_FAILED),
			fail0);

	/* Above MaxReadWriteSize; more descriptors than allowed. */
	KUNIT_ASSERT_EQ(test, smbdx_conn_query(p->cli, &info), 0);
	big = rl_buf_new(test, info.params.max_read_write_size + 1, false, 0);
	rx_xform_init(c, &xf, SMBDX_XF_TYPE_SIGNING);
	rl_buf_iter(big, &it, &kv, ITER_SOURCE);
	reg = smbdx_register_xform(p->cli, &it, SMBDX_REG_REMOTE_READ, &xf, sig);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(reg), -EMSGSIZE);
	rl_buf_iter(big, &it, &kv, ITER_SOURCE);
	/* A copy starts on a page boundary: two pages more need two MRs. */
	iov_iter_truncate(&it, info.max_reg_len + 2 * PAGE_SIZE);
	reg = smbdx_register_xform(p->cli, &it, SMBDX_REG_REMOTE_READ |
				   SMBDX_REG_ONE_DESC, &xf, sig);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(reg), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p->cli, SMBDX_STAT_MR_REG_FAILED),
			fail0 + 2);

	/* No pages: -ENOMEM, not retried, the connection lives. */
	smbdx_fault_arm(SMBDX_FAULT_REG_ALLOC, 1);
	rl_buf_iter(b, &it, &kv, ITER_SOURCE);
	reg = smbdx_register_xform(p->cli, &it, SMBDX_REG_REMOTE_READ, &xf, sig);
	smbdx_fault_arm(SMBDX_FAULT_REG_ALLOC, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(reg), -ENOMEM);
	if (!IS_ERR(reg))
		smbdx_deregister(reg);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p->cli, SMBDX_STAT_MR_REG_FAILED),
			fail0 + 3);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p->cli, SMBDX_STAT_MR_REGISTRATIONS),
			regs0);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p->cli, SMBDX_STAT_XFORM_SEALED),
			sealed0);

	/* The write side: an unknown type or an empty payload. */
	kv.iov_base = &byte;
	kv.iov_len = 1;
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, 1);
	KUNIT_EXPECT_EQ(test, smbdx_rdma_write_xform(p->srvc, &it, NULL, 0, 0, 0),
			-EINVAL);
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, 0);
	KUNIT_EXPECT_EQ(test, smbdx_rdma_write_xform(p->srvc, &it, NULL, 0, 0,
						     SMBDX_XF_TYPE_SIGNING),
			-EINVAL);

	/* The negotiated transforms: known bits only. */
	KUNIT_EXPECT_EQ(test, smbdx_conn_set_xform(p->cli, 0x04), -EINVAL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->cli->xform), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_set_xform(p->cli, SMBDX_XF_KNOWN), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->cli->xform), SMBDX_XF_KNOWN);
	KUNIT_EXPECT_EQ(test, smbdx_conn_set_xform(p->cli, 0), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->cli->xform), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p->cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p->srvc), 0);
}

/*
 * What a transformed registration costs beside the cryptography, for
 * design.rst's "pool or not" decision: 256 KiB sealed into a buffer
 * allocated beforehand, a plain registration of the same buffer,
 * smbdx_register_xform() of it (pages allocated per call, sealed,
 * registered), and the 64 pages alone allocated and freed, which is
 * what a per-connection pool would save. The best of three runs of each
 * is printed; only the results are checked. On rxe only, and not under
 * KASAN, where the times mean nothing and AES costs seconds.
 */
static void rx_time(struct kunit *test, struct tl_pair *p, struct rx_crypto *c)
{
	const struct tl_dev *d = test->param_value;
	u64 t0, seal = U64_MAX, plain = U64_MAX, xform = U64_MAX, pages = U64_MAX;
	struct page *pg[RX_TIME_LEN / PAGE_SIZE];
	struct kvec kv = { .iov_len = RX_TIME_LEN };
	u8 sig[SMBDX_XF_TAG_LEN];
	struct iov_iter it, dst;
	struct smbdx_xform xf;
	struct smbdx_reg *reg;
	struct rl_buf *b;
	int run, i;

	if (IS_ENABLED(CONFIG_KASAN) || d->iwarp)
		return;
	b = rl_buf_new(test, RX_TIME_LEN, true, 0);
	kv.iov_base = tl_kvmalloc(test, RX_TIME_LEN);
	rx_xform_init(c, &xf, SMBDX_XF_TYPE_ENCRYPTION);
	for (run = 0; run < 3; run++) {
		rl_buf_iter(b, &it, NULL, ITER_SOURCE);
		iov_iter_kvec(&dst, ITER_DEST, &kv, 1, RX_TIME_LEN);
		t0 = ktime_get_ns();
		KUNIT_EXPECT_EQ(test, smbdx_xf_seal(c->aead, SMBDX_XF_AES128_GCM,
						    c->nonce, &it, &dst,
						    RX_TIME_LEN, sig), 0);
		seal = min(seal, ktime_get_ns() - t0);

		t0 = ktime_get_ns();
		reg = rl_register(test, p->cli, b, SMBDX_REG_REMOTE_READ);
		plain = min(plain, ktime_get_ns() - t0);
		KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);

		rl_buf_iter(b, &it, NULL, ITER_SOURCE);
		t0 = ktime_get_ns();
		reg = smbdx_register_xform(p->cli, &it, SMBDX_REG_REMOTE_READ,
					   &xf, sig);
		xform = min(xform, ktime_get_ns() - t0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(reg));
		KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);

		t0 = ktime_get_ns();
		for (i = 0; i < ARRAY_SIZE(pg); i++)
			pg[i] = alloc_page(GFP_KERNEL | __GFP_NORETRY |
					   __GFP_NOWARN);
		for (i = 0; i < ARRAY_SIZE(pg); i++)
			if (pg[i])
				__free_page(pg[i]);
		pages = min(pages, ktime_get_ns() - t0);
	}
	kunit_info(test, "256 KiB, best of 3: seal %llu us, plain registration %llu us, sealed registration %llu us, its 64 pages allocated and freed %llu us\n",
		   seal / 1000, plain / 1000, xform / 1000, pages / 1000);
}

/*
 * The MS-SMB2 RDMA transform's RDMA side (Documentation/rdma-transform.rst,
 * step D), both directions, with AES-128-GCM and AES-CMAC:
 * - the client's WRITE: smbdx_register_xform() seals or signs a
 *   scattered payload into pages of its own and registers those; the
 *   caller's pages are then overwritten (the stable-pages problem), the
 *   peer RDMA-reads, opens or verifies with the tag the call returned and
 *   gets the original payload; counted in xform_sealed/xform_signed, not
 *   as a plain bounce;
 * - the server's READ: a payload sealed or signed in place goes out with
 *   smbdx_rdma_write_xform(), the client opens or verifies what landed;
 * - the fault point xform_tamper, armed once, makes exactly one of them
 *   fail with -EBADMSG in each direction and type (the next one opens);
 *   the server's own buffer is never changed; rejections counted through
 *   smbdx_xform_count_rejected(), per connection and globally;
 * - bad arguments refused, and a transformed registration outstanding when
 *   its connection is destroyed: teardown releases it, deregistration
 *   frees its pages (kmemleak, run by the VM runner, checks that nothing
 *   leaks).
 * Linux 6.12 has no RDMA transform at all (cifs and ksmbd send signed or
 * sealed I/O inline).
 */
static void smbdx_rdma_xform(struct kunit *test)
{
	static const u16 types[] = {
		SMBDX_XF_TYPE_ENCRYPTION, SMBDX_XF_TYPE_SIGNING,
	};
	struct rx_crypto *c = rx_crypto_new(test);
	struct smbdx_conn *cli, *srvc;
	struct smbdx_xform xf;
	u8 sig[SMBDX_XF_TAG_LEN];
	struct smbdx_reg *reg;
	struct rl_buf *b;
	struct tl_pair p;
	struct iov_iter it;
	struct kvec kv;
	u64 rej0, grej0;
	size_t i;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_fault_disarm,
							NULL), 0);
	tl_pair_up(test, &p, NULL, NULL);
	b = rl_buf_new(test, RX_LEN, true, RL_GAP_OFF);
	rej0 = smbdx_test_stat(p.cli, SMBDX_STAT_XFORM_REJECTED);
	grej0 = smbdx_test_global_stat(SMBDX_STAT_XFORM_REJECTED);

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		const char *what = types[i] == SMBDX_XF_TYPE_ENCRYPTION ?
				   "sealed" : "signed";
		int rc;

		KUNIT_EXPECT_EQ_MSG(test, rx_client_write(test, &p, c, b, types[i],
							  10 + i), 0,
				    "WRITE %s", what);
		KUNIT_EXPECT_EQ_MSG(test, rx_server_read(test, &p, c, b, types[i],
							 20 + i), 0,
				    "READ %s", what);

		/* Tampered once: exactly the next I/O fails, each direction. */
		smbdx_fault_arm(SMBDX_FAULT_XFORM_TAMPER, 1);
		rc = rx_client_write(test, &p, c, b, types[i], 30 + i);
		KUNIT_EXPECT_EQ_MSG(test, rc, -EBADMSG, "WRITE %s tampered", what);
		if (rc)
			smbdx_xform_count_rejected(p.srvc);
		KUNIT_EXPECT_EQ(test, smbdx_fault_left(SMBDX_FAULT_XFORM_TAMPER), 0);
		KUNIT_EXPECT_EQ_MSG(test, rx_client_write(test, &p, c, b, types[i],
							  40 + i), 0,
				    "WRITE %s after the tampered one", what);

		smbdx_fault_arm(SMBDX_FAULT_XFORM_TAMPER, 1);
		rc = rx_server_read(test, &p, c, b, types[i], 50 + i);
		KUNIT_EXPECT_EQ_MSG(test, rc, -EBADMSG, "READ %s tampered", what);
		if (rc)
			smbdx_xform_count_rejected(p.cli);
		KUNIT_EXPECT_EQ(test, smbdx_fault_left(SMBDX_FAULT_XFORM_TAMPER), 0);
		KUNIT_EXPECT_EQ_MSG(test, rx_server_read(test, &p, c, b, types[i],
							 60 + i), 0,
				    "READ %s after the tampered one", what);
	}
	smbdx_fault_arm(SMBDX_FAULT_XFORM_TAMPER, 0);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_XFORM_REJECTED),
			rej0 + 2);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.srvc, SMBDX_STAT_XFORM_REJECTED),
			2ULL);
	KUNIT_EXPECT_EQ(test, smbdx_test_global_stat(SMBDX_STAT_XFORM_REJECTED),
			grej0 + 4);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);

	rx_bad_args(test, &p, c, b);
	rx_time(test, &p, c);

	/* Outstanding when the connection dies: teardown releases it. */
	cli = smbdx_connect(&init_net, (struct sockaddr *)&p.sin, NULL, NULL,
			    NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cli));
	srvc = tl_accepted(test, p.srv, 1);
	rx_xform_init(c, &xf, SMBDX_XF_TYPE_ENCRYPTION);
	rl_buf_iter(b, &it, &kv, ITER_SOURCE);
	reg = smbdx_register_xform(cli, &it, SMBDX_REG_REMOTE_READ, &xf, sig);
	KUNIT_ASSERT_FALSE(test, IS_ERR(reg));
	smbdx_destroy(cli);
	KUNIT_EXPECT_EQ(test, smbdx_deregister(reg), 0);
	(void)srvc;
}

static struct kunit_case smbdx_rdma_live_cases[] = {
	KUNIT_CASE_PARAM_ATTR(smbdx_rdma_sizes, tl_dev_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM(smbdx_rdma_write_sources, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_rdma_random_offsets, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_rdma_remote_invalidation, tl_dev_gen_params),
	KUNIT_CASE_PARAM_ATTR(smbdx_rdma_reg_posted, tl_dev_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM(smbdx_rdma_invalidation_boundaries, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_rdma_stale_descriptor, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_rdma_stale_multi_wr, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_rdma_pool_exhaustion, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_rdma_one_descriptor, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_rdma_two_descriptors, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_rdma_bounce, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_rdma_xform, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_rdma_local_errors, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_rdma_teardown_outstanding, tl_dev_gen_params),
	{}
};

static struct kunit_suite smbdx_rdma_live_suite = {
	.name = "smbdirect_rdma_live",
	.test_cases = smbdx_rdma_live_cases,
};

kunit_test_suite(smbdx_rdma_live_suite);

MODULE_DESCRIPTION("smbdirect live KUnit tests: registration and RDMA read/write");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SMBDX_NS);
MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));
