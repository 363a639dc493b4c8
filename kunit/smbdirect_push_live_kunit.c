// SPDX-License-Identifier: GPL-2.0
/*
 * Live KUnit suite for push mode (smbdirect/push.c; design.rst, "Push
 * mode") on the soft RDMA devices of the test VM. Two smbdirect ends with
 * cm_caps and push_mode on: the server registers a region, the client
 * attaches its descriptor, writes into it and commits with an atomic
 * write, many times, while a kthread on the server polls the commit
 * record and checks, each time it sees a new one, that the data it
 * guards is already there (never the record before the data). Also: push
 * mode is not offered when either end did not advertise it, nor on iWARP
 * (item 1 never sends the blob there); a persistent region of ordinary
 * pages is refused; local errors keep the connection; a revoke is
 * acknowledged, later calls on the target say -EKEYREVOKED and the
 * connection stays up; a commit on a revoked region is refused.
 *
 * Written in the session that built the message path, compiled but not
 * yet run (the VM was booked): the first run may need fixes.
 *
 * Concurrency: the test thread uses the API; one kthread only reads the
 * server's region (smp_load_acquire() of the record, then the data) and
 * reports through atomics and a wait queue.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include <smbdirect/smbdirect.h>
#include "smbd.h"
#include "smbd_live_util.h"

#define PL_DATA		4096		/* the data a record guards */
#define PL_REC		PL_DATA		/* the record's offset */
#define PL_LEN		(2 * PAGE_SIZE)	/* the region */
#define PL_ROUNDS	64

static_assert(PL_REC + 8 <= PL_LEN);

static u8 pl_byte(u64 round, u32 k)
{
	return round * 31 + k;
}

static void pl_free_pages(void *p)
{
	free_pages((unsigned long)p, get_order(PL_LEN));
}

/* A page-aligned, zeroed region buffer, freed with the test. */
static u8 *pl_buf(struct kunit *test)
{
	u8 *p = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
				       get_order(PL_LEN));

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pl_free_pages, p),
			0);
	return p;
}

static void pl_cfg(struct smbdx_conn_config *cfg, bool push)
{
	smbdx_conn_config_init(cfg);
	cfg->cm_caps = true;
	cfg->push_mode = push;
	cfg->io_timeout_ms = 10000;
}

static struct smbdx_push_region *pl_register(struct kunit *test,
					     struct smbdx_conn *conn, u8 *buf,
					     u32 access,
					     struct smbdx_push_desc *desc)
{
	struct kvec kv = { .iov_base = buf, .iov_len = PL_LEN };
	struct smbdx_push_region *r;
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_DEST, &kv, 1, PL_LEN);
	r = smbdx_push_register(conn, &it, access, desc);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(r), "smbdx_push_register: %ld",
			       PTR_ERR(r));
	KUNIT_EXPECT_EQ(test, iov_iter_count(&it), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(desc->length), PL_LEN);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(desc->access), access);
	KUNIT_EXPECT_NE(test, le32_to_cpu(desc->region), 0);
	return r;
}

static int pl_write(struct smbdx_push_target *t, u64 off, const void *src,
		    size_t len)
{
	struct kvec kv = { .iov_base = (void *)src, .iov_len = len };
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	return smbdx_push_write(t, off, &it);
}

/* The connection still carries messages both ways. */
static void pl_expect_alive(struct kunit *test, struct tl_pair *p)
{
	struct smbdx_msg *msg;
	struct kvec kv;
	struct iov_iter it;
	u8 b[16] = { 1, 2, 3 };

	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p->cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p->srvc), 0);
	kv.iov_base = b;
	kv.iov_len = sizeof(b);
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, sizeof(b));
	KUNIT_ASSERT_EQ(test, smbdx_send(p->cli, &it, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, smbdx_recv_msg(p->srvc,
					     msecs_to_jiffies(timeout_ms), &msg),
			0);
	KUNIT_EXPECT_EQ(test, smbdx_msg_len(msg), sizeof(b));
	smbdx_msg_free(msg);
}

/* ---- the responder's reader ---------------------------------------------- */

struct pl_reader {
	const u8 *buf;
	atomic64_t seen;	/* the last record checked */
	atomic_t bad;		/* records seen before their data */
	u64 bad_round;
	u32 bad_at;
	wait_queue_head_t wq;
};

static int pl_reader_fn(void *data)
{
	struct pl_reader *rd = data;
	u64 last = 0, v;
	u32 k;

	while (!kthread_should_stop()) {
		/* Pairs with the responder's smp_store_release() (push.c). */
		v = smp_load_acquire((const u64 *)(rd->buf + PL_REC));
		if (v == last) {
			cond_resched();
			continue;
		}
		for (k = 0; k < PL_DATA; k++) {
			if (READ_ONCE(rd->buf[k]) != pl_byte(v, k)) {
				if (!atomic_read(&rd->bad)) {
					rd->bad_round = v;
					rd->bad_at = k;
				}
				atomic_inc(&rd->bad);
				break;
			}
		}
		last = v;
		atomic64_set(&rd->seen, v);
		wake_up_all(&rd->wq);
	}
	return 0;
}

static void pl_reader_stop(void *task)
{
	kthread_stop(task);
}

/* ---- cases ------------------------------------------------------------- */

/* rxe only: the message path end to end, and the ordering under polling. */
static const struct tl_dev pl_rxe[] = {
	{ "rxe", &rxe_dev, &rxe_addr, &rxe_netdev, false },
};

KUNIT_ARRAY_PARAM(pl_rxe, pl_rxe, tl_dev_desc);

static void push_live_commit_order(struct kunit *test)
{
	struct smbdx_conn_config cfg;
	struct smbdx_push_info ci, si;
	struct smbdx_push_desc desc;
	struct smbdx_push_region *r;
	struct smbdx_push_target *t;
	struct smbdx_push_commit c = {
		.offset = 0, .length = PL_DATA, .atomic_offset = PL_REC,
		.flags = SMBDX_PUSH_GLOBAL | SMBDX_PUSH_ATOMIC,
	};
	struct task_struct *task;
	struct pl_reader *rd;
	struct tl_pair p;
	u8 *buf, *src;
	u64 round;
	u32 k;

	pl_cfg(&cfg, true);
	tl_pair_up(test, &p, &cfg, &cfg);
	KUNIT_ASSERT_EQ(test, smbdx_push_query(p.cli, &ci), 0);
	KUNIT_ASSERT_EQ(test, smbdx_push_query(p.srvc, &si), 0);
	KUNIT_EXPECT_EQ(test, ci.path, SMBDX_PUSH_PATH_MESSAGE);
	KUNIT_EXPECT_EQ(test, si.path, SMBDX_PUSH_PATH_MESSAGE);
	KUNIT_EXPECT_TRUE(test, ci.ops & SMBDX_PUSH_GLOBAL);
	KUNIT_EXPECT_TRUE(test, ci.ops & SMBDX_PUSH_ATOMIC);
	KUNIT_EXPECT_EQ(test, ci.ops, si.served);
	KUNIT_EXPECT_EQ(test, ci.max_commits, 16);
	KUNIT_EXPECT_GE(test, si.max_region_len, (u32)PL_LEN);

	buf = pl_buf(test);
	r = pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL | SMBDX_PUSH_ATOMIC,
			&desc);
	t = smbdx_push_attach(p.cli, &desc);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(t), "smbdx_push_attach: %ld",
			       PTR_ERR(t));

	rd = kunit_kzalloc(test, sizeof(*rd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rd);
	rd->buf = buf;
	init_waitqueue_head(&rd->wq);
	task = kthread_run(pl_reader_fn, rd, "push-reader");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pl_reader_stop,
							task), 0);

	src = kunit_kmalloc(test, PL_DATA, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	for (round = 1; round <= PL_ROUNDS; round++) {
		for (k = 0; k < PL_DATA; k++)
			src[k] = pl_byte(round, k);
		KUNIT_ASSERT_EQ(test, pl_write(t, 0, src, PL_DATA), 0);
		c.value = round;
		KUNIT_ASSERT_EQ_MSG(test, smbdx_push_commit(t, &c), 0,
				    "round %llu", round);
		/* The reader must see this record before the next data lands. */
		KUNIT_ASSERT_GT_MSG(test,
				    wait_event_timeout(rd->wq,
						       atomic64_read(&rd->seen) == round,
						       msecs_to_jiffies(timeout_ms)),
				    0, "reader never saw round %llu", round);
	}
	/* Stop the reader now: the next records guard nothing. */
	kunit_release_action(test, pl_reader_stop, task);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&rd->bad), 0,
			    "record %llu seen before its data (byte %u)",
			    rd->bad_round, rd->bad_at);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_PUSH_COMMITS),
			(u64)PL_ROUNDS);
	KUNIT_EXPECT_EQ(test,
			smbdx_test_stat(p.srvc, SMBDX_STAT_PUSH_COMMITS_SERVED),
			(u64)PL_ROUNDS);
	/* Flush alone, whole region; atomic alone. */
	KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, 0, 0, SMBDX_PUSH_GLOBAL |
					       SMBDX_PUSH_REGION), 0);
	KUNIT_EXPECT_EQ(test, smbdx_push_atomic_write(t, PL_REC, PL_ROUNDS + 1,
						      0), 0);
	pl_expect_alive(test, &p);
	smbdx_push_detach(t);
	KUNIT_EXPECT_EQ(test, smbdx_push_revoke(r), 0);
}

/* Errors the requester sees locally keep the connection up. */
static void push_live_local_errors(struct kunit *test)
{
	struct smbdx_conn_config cfg;
	struct smbdx_push_desc desc, bad;
	struct smbdx_push_region *r;
	struct smbdx_push_target *t;
	struct kvec kv;
	struct iov_iter it;
	struct tl_pair p;
	u8 src[16] = {};
	u8 *buf;

	pl_cfg(&cfg, true);
	tl_pair_up(test, &p, &cfg, &cfg);
	buf = pl_buf(test);

	/* Ordinary pages cannot be persistent. */
	kv.iov_base = buf;
	kv.iov_len = PL_LEN;
	iov_iter_kvec(&it, ITER_DEST, &kv, 1, PL_LEN);
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_register(p.srvc, &it,
							  SMBDX_PUSH_PERSISTENT,
							  &desc)), -EINVAL);
	/* An atomic region must start 8-byte aligned. */
	kv.iov_base = buf + 4;
	kv.iov_len = PL_LEN - 4;
	iov_iter_kvec(&it, ITER_DEST, &kv, 1, PL_LEN - 4);
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_register(p.srvc, &it,
							  SMBDX_PUSH_ATOMIC,
							  &desc)), -EINVAL);

	r = pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL | SMBDX_PUSH_ATOMIC,
			&desc);
	/* Hostile descriptors. */
	bad = desc;
	bad.region = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_attach(p.cli, &bad)), -EINVAL);
	bad = desc;
	bad.offset = cpu_to_le64(U64_MAX - 16);
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_attach(p.cli, &bad)), -EINVAL);
	t = smbdx_push_attach(p.cli, &desc);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_attach(p.cli, &desc)), -EEXIST);

	KUNIT_EXPECT_EQ(test, pl_write(t, PL_LEN - 8, src, 16), -ERANGE);
	KUNIT_EXPECT_EQ(test, pl_write(t, U64_MAX - 4, src, 16), -ERANGE);
	KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, PL_LEN, 1, SMBDX_PUSH_GLOBAL),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, 0, 0, SMBDX_PUSH_GLOBAL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, 0, 1, SMBDX_PUSH_PERSISTENT),
			-EACCES);
	KUNIT_EXPECT_EQ(test, smbdx_push_atomic_write(t, 4, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_push_atomic_write(t, PL_LEN, 1, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, smbdx_push_atomic_write(t, 0, 1,
						      SMBDX_PUSH_PERSISTENT),
			-EACCES);
	pl_expect_alive(test, &p);
	smbdx_push_detach(t);
	KUNIT_EXPECT_EQ(test, smbdx_push_revoke(r), 0);
}

/* Revoke: acknowledged, the target refuses, the connection stays. */
static void push_live_revoke(struct kunit *test)
{
	struct smbdx_conn_config cfg;
	struct smbdx_push_desc desc;
	struct smbdx_push_region *r;
	struct smbdx_push_target *t;
	struct tl_pair p;
	u8 src[64] = { 7 };
	u8 *buf;

	pl_cfg(&cfg, true);
	tl_pair_up(test, &p, &cfg, &cfg);
	buf = pl_buf(test);
	r = pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL, &desc);
	t = smbdx_push_attach(p.cli, &desc);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_ASSERT_EQ(test, pl_write(t, 0, src, sizeof(src)), 0);
	KUNIT_ASSERT_EQ(test, smbdx_push_flush(t, 0, sizeof(src),
					       SMBDX_PUSH_GLOBAL), 0);
	KUNIT_EXPECT_EQ(test, buf[0], 7);

	KUNIT_EXPECT_EQ(test, smbdx_push_revoke(r), 0);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.srvc, SMBDX_STAT_PUSH_REVOKES), 1);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_PUSH_REVOKE_ACKS),
			1);
	KUNIT_EXPECT_EQ(test, pl_write(t, 0, src, sizeof(src)), -EKEYREVOKED);
	KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, 0, 1, SMBDX_PUSH_GLOBAL),
			-EKEYREVOKED);
	pl_expect_alive(test, &p);
	smbdx_push_detach(t);

	/* A region the client never attached is given back at once. */
	r = pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL, &desc);
	KUNIT_EXPECT_EQ(test, smbdx_push_revoke(r), 0);
	pl_expect_alive(test, &p);
}

/* Not offered when one end did not advertise it: every call says so. */
static void push_live_not_offered(struct kunit *test)
{
	struct smbdx_conn_config on, off;
	struct smbdx_push_desc desc = {
		.region = cpu_to_le32(1), .length = cpu_to_le32(PL_LEN),
		.access = cpu_to_le32(SMBDX_PUSH_GLOBAL),
	};
	struct smbdx_push_info info;
	struct kvec kv;
	struct iov_iter it;
	struct tl_pair p;
	u8 *buf;

	pl_cfg(&on, true);
	pl_cfg(&off, false);
	tl_pair_up(test, &p, &on, &off);
	KUNIT_EXPECT_EQ(test, smbdx_push_query(p.cli, &info), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, info.path, SMBDX_PUSH_PATH_NONE);
	KUNIT_EXPECT_EQ(test, smbdx_push_query(p.srvc, &info), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_attach(p.cli, &desc)),
			-EOPNOTSUPP);
	buf = pl_buf(test);
	kv.iov_base = buf;
	kv.iov_len = PL_LEN;
	iov_iter_kvec(&it, ITER_DEST, &kv, 1, PL_LEN);
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_register(p.srvc, &it,
							  SMBDX_PUSH_GLOBAL,
							  &desc)), -EOPNOTSUPP);
	pl_expect_alive(test, &p);
}

/*
 * Both ends on: offered on IB/RoCE, not on iWARP (the blob is never sent
 * there, design.rst "Push mode"); never the native path on Linux 6.12.
 */
static void push_live_where(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct smbdx_conn_config on;
	struct smbdx_push_info info;
	struct tl_pair p;
	int want = d->iwarp ? -EOPNOTSUPP : 0;

	pl_cfg(&on, true);
	tl_pair_up(test, &p, &on, &on);
	KUNIT_EXPECT_EQ(test, smbdx_push_query(p.cli, &info), want);
	KUNIT_EXPECT_EQ(test, info.path, d->iwarp ? SMBDX_PUSH_PATH_NONE :
			SMBDX_PUSH_PATH_MESSAGE);
	KUNIT_EXPECT_EQ(test, smbdx_push_query(p.srvc, &info), want);
	KUNIT_EXPECT_NE(test, info.path, SMBDX_PUSH_PATH_NATIVE);
	pl_expect_alive(test, &p);
}

static struct kunit_case push_live_cases[] = {
	KUNIT_CASE_PARAM(push_live_commit_order, pl_rxe_gen_params),
	KUNIT_CASE_PARAM(push_live_local_errors, pl_rxe_gen_params),
	KUNIT_CASE_PARAM(push_live_revoke, pl_rxe_gen_params),
	KUNIT_CASE_PARAM(push_live_not_offered, tl_dev_gen_params),
	KUNIT_CASE_PARAM(push_live_where, tl_dev_gen_params),
	{}
};

static struct kunit_suite push_live_suite = {
	.name = "smbdirect_push_live",
	.test_cases = push_live_cases,
};

kunit_test_suite(push_live_suite);

MODULE_DESCRIPTION("smbdirect live KUnit tests: push mode");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SMBDX_NS);
MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));
