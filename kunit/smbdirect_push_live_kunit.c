// SPDX-License-Identifier: GPL-2.0
/*
 * Live KUnit suite for push mode (smbdirect/push.c; design.rst, "Push
 * mode") on the soft RDMA devices of the test VM, the message path (the
 * native one is not built). Two smbdirect ends with cm_caps and push_mode
 * on; the server registers regions, the client attaches their
 * descriptors, writes and commits. On siw (iWARP) the blob is sent only
 * when the connecting side opts in (cm_caps_iwarp): the cases that run
 * the message path on siw set it on the client, so push mode is
 * negotiated there through the CM exactly as on rxe.
 *
 *  - Ordering under load (rxe, siw): the client writes a slot of data and
 *    commits with an atomic write of the round's number (the commit
 *    record), many rounds, while a kthread on the server polls the record
 *    and checks, each time it sees a new one, that the slot it guards
 *    already holds that round's data; meanwhile a second client thread
 *    writes and flushes another region, ordinary messages flow from client
 *    to server, and the peers advertise one outstanding commit only, so
 *    the two committers queue for it. A record seen before its data fails.
 *    Rounds: module parameter rounds (0: 300 on rxe, 150 on siw, 16 and 8
 *    with KASAN; make stress runs 1000).
 *  - Local errors keep the connection; a persistent region of ordinary
 *    pages is refused.
 *  - Graceful revoke (R14; rxe, siw): acknowledged at once when idle;
 *    acknowledged only after a commit that was in flight when the request
 *    arrived (the server held back with the mute hook so the request
 *    overtakes the answer), which is still served; (rxe) under a writer
 *    that loops until the revoke stops it with -EKEYREVOKED. The
 *    connection stays up.
 *  - Refusals by the responder (a lying descriptor: a range past the
 *    region for a flush and for an atomic write, a revoked region, a
 *    region never registered, a wrong token, an access the region lacks;
 *    on siw the first and the fourth): the call returns the matching
 *    error, both ends of that connection end with the named cause, a
 *    second connection of the same listener keeps moving data, and the
 *    refused connection's objects are all freed.
 *  - No answer within io_timeout (the peer muted), for a commit and for a
 *    revoke: -ETIMEDOUT, push_timeout, the region freed.
 *  - -EOPNOTSUPP when either end did not advertise push mode, or cm_caps
 *    is off, on rxe and siw; with both on: offered on rxe, on iWARP only
 *    when the client also opted in with cm_caps_iwarp; never the native
 *    path.
 *  - The fault points the new paths reach (send_alloc, post_send,
 *    reg_alloc, mr_post, rw_alloc, rw_post), once each.
 *  - What the native path will stand on (rxe): the test kernels' patch
 *    lets a kernel QP post Flush and Atomic Write (two raw peers, no
 *    smbdirect connection).
 *
 * Concurrency: the test thread uses the API; helper kthreads (struct
 * pl_thr) run one function each and report through their own fields,
 * atomics and wait queues; every kthread is stopped by a deferred action,
 * so an assertion that ends a case early leaves none behind. Regions and
 * targets are likewise revoked and detached by deferred actions unless
 * the case did it itself.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include <smbdirect/smbdirect.h>
#include "smbd.h"
#include "smbd_live_util.h"
#include "smbd_raw_peer.h"

#define PL_LEN		(2 * PAGE_SIZE)	/* a region */
#define PL_SLOTS	8		/* data slots, in the first page */
#define PL_SLOT		512
#define PL_REC		PAGE_SIZE	/* the commit record's offset */

static_assert(PL_SLOTS * PL_SLOT <= PL_REC);
static_assert(PL_REC + 8 <= PL_LEN);

static unsigned int rounds;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds,
		 "commit rounds of the ordering case (0: 300 on rxe and 150 on siw, 16 and 8 with KASAN)");

/* What the ordering case costs in make check (testing.rst). */
static u32 pl_rounds(const struct tl_dev *d)
{
	if (rounds)
		return rounds;
	if (IS_ENABLED(CONFIG_KASAN))
		return d->iwarp ? 8 : 16;
	return d->iwarp ? 150 : 300;
}

static u8 pl_byte(u64 round, u32 k)
{
	return round * 31 + k * 7 + (round >> 8);
}

/* ---- resources, released by deferred actions ------------------------------ */

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

static void pl_revoke_action(void *r)
{
	smbdx_push_revoke(r);
}

static void pl_detach_action(void *t)
{
	smbdx_push_detach(t);
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
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pl_revoke_action,
							r), 0);
	KUNIT_EXPECT_EQ(test, iov_iter_count(&it), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(desc->length), PL_LEN);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(desc->access), access);
	KUNIT_EXPECT_NE(test, le32_to_cpu(desc->region), 0);
	return r;
}

/* The case revokes @r itself: the result, and no deferred revoke. */
static int pl_revoke(struct kunit *test, struct smbdx_push_region *r)
{
	kunit_remove_action(test, pl_revoke_action, r);
	return smbdx_push_revoke(r);
}

static struct smbdx_push_target *pl_attach(struct kunit *test,
					   struct smbdx_conn *conn,
					   const struct smbdx_push_desc *desc)
{
	struct smbdx_push_target *t = smbdx_push_attach(conn, desc);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(t), "smbdx_push_attach: %ld",
			       PTR_ERR(t));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pl_detach_action,
							t), 0);
	return t;
}

static void pl_detach(struct kunit *test, struct smbdx_push_target *t)
{
	kunit_remove_action(test, pl_detach_action, t);
	smbdx_push_detach(t);
}

static int pl_write(struct smbdx_push_target *t, u64 off, const void *src,
		    size_t len)
{
	struct kvec kv = { .iov_base = (void *)src, .iov_len = len };
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	return smbdx_push_write(t, off, &it);
}

static int pl_send(struct smbdx_conn *conn, const void *buf, size_t len)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	return smbdx_send(conn, &it, 0, 0);
}

/* @cli and @srvc are up and carry a message each way. */
static void pl_expect_alive2(struct kunit *test, struct smbdx_conn *cli,
			     struct smbdx_conn *srvc)
{
	struct smbdx_conn *ends[2] = { cli, srvc };
	struct smbdx_msg *msg;
	u8 b[16] = { 1, 2, 3 };
	int i;

	KUNIT_EXPECT_EQ(test, smbdx_conn_error(cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(srvc), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, pl_send(ends[i], b, sizeof(b)), 0);
		KUNIT_ASSERT_EQ(test, smbdx_recv_msg(ends[!i],
						     msecs_to_jiffies(timeout_ms),
						     &msg), 0);
		KUNIT_EXPECT_EQ(test, smbdx_msg_len(msg), sizeof(b));
		smbdx_msg_free(msg);
	}
}

static void pl_expect_alive(struct kunit *test, struct tl_pair *p)
{
	pl_expect_alive2(test, p->cli, p->srvc);
}

/* Wait until @conn failed; its cause. */
static int pl_wait_failed(struct kunit *test, struct smbdx_conn *conn)
{
	int i;

	for (i = 0; i < timeout_ms / 20 && !smbdx_conn_error(conn); i++)
		msleep(20);
	KUNIT_EXPECT_NE_MSG(test, smbdx_conn_error(conn), 0,
			    "the connection did not end");
	return smbdx_test_cause(conn);
}

static void pl_expect_cause(struct kunit *test, struct smbdx_conn *conn,
			    int want)
{
	int c = pl_wait_failed(test, conn);

	KUNIT_EXPECT_EQ_MSG(test, c, want, "cause %s, not %s",
			    smbdx_cause_name(c), smbdx_cause_name(want));
}

/* Destroy both ends now; every connection object of theirs is freed. */
static void pl_destroy_pair(struct kunit *test, struct tl_pair *p, int base)
{
	int i;

	kunit_release_action(test, tl_conn_destroy, p->cli);
	kunit_release_action(test, tl_conn_destroy, p->srvc);
	for (i = 0; i < timeout_ms / 20 && smbdx_test_conns_alive() > base; i++)
		msleep(20);
	KUNIT_EXPECT_LE_MSG(test, smbdx_test_conns_alive(), base,
			    "connection objects left: %d, %d before",
			    smbdx_test_conns_alive(), base);
}

static void pl_restore_caps(void *unused)
{
	smbdx_test_set_own_caps(0, 0);
}

/*
 * @cfg for a client: on iWARP with cm_caps_iwarp, so that the CM blob is
 * sent there and the listener answers with its own (design.rst "Push
 * mode"); on IB/RoCE the setting changes nothing.
 */
static struct smbdx_conn_config pl_cli_cfg(const struct smbdx_conn_config *cfg)
{
	struct smbdx_conn_config c = *cfg;

	c.cm_caps_iwarp = true;
	return c;
}

/* A pair with push mode on both ends, negotiated on rxe and siw alike. */
static void pl_pair_up(struct kunit *test, struct tl_pair *p,
		       const struct smbdx_conn_config *cfg)
{
	struct smbdx_conn_config ccfg = pl_cli_cfg(cfg);

	tl_pair_up(test, p, &ccfg, cfg);
}

/* ---- helper threads ------------------------------------------------------- */

/**
 * struct pl_thr - a kthread running one function
 * @task: the thread (a reference is held until it is stopped)
 * @fn: what it runs; loops may end on kthread_should_stop()
 * @arg: for @fn
 * @rc: @fn's result, once @done
 * @count: operations @fn counted
 * @done: @fn returned
 */
struct pl_thr {
	struct task_struct *task;
	int (*fn)(struct pl_thr *th);
	void *arg;
	int rc;
	atomic_long_t count;
	struct completion done;
};

static int pl_thr_main(void *data)
{
	struct pl_thr *th = data;

	th->rc = th->fn(th);
	complete(&th->done);
	/* Never exit before kthread_stop(): it holds the task. */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void pl_thr_stop(void *data)
{
	struct pl_thr *th = data;

	kthread_stop(th->task);
	put_task_struct(th->task);
}

static void pl_thr_start(struct kunit *test, struct pl_thr *th,
			 int (*fn)(struct pl_thr *th), void *arg,
			 const char *name)
{
	th->fn = fn;
	th->arg = arg;
	th->rc = 0;
	atomic_long_set(&th->count, 0);
	init_completion(&th->done);
	th->task = kthread_run(pl_thr_main, th, "%s", name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(th->task));
	get_task_struct(th->task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pl_thr_stop, th),
			0);
}

/* Stop @th now (its function has ended, or ends on kthread_should_stop()). */
static void pl_thr_end(struct kunit *test, struct pl_thr *th)
{
	kunit_release_action(test, pl_thr_stop, th);
}

/* ---- the responder's reader ---------------------------------------------- */

struct pl_reader {
	const u8 *buf;
	atomic64_t seen;	/* the last record checked */
	atomic64_t round;	/* the writer's round (for the sender) */
	atomic_t bad;		/* records seen before their data */
	atomic_t checked;	/* records checked */
	u64 bad_round;
	u32 bad_at;
	wait_queue_head_t wq;
};

static int pl_reader_fn(struct pl_thr *th)
{
	struct pl_reader *rd = th->arg;
	u64 last = 0, v;
	u32 k, idle = 0;
	const u8 *slot;

	while (!kthread_should_stop()) {
		/* Pairs with the responder's smp_store_release() (push.c). */
		v = smp_load_acquire((const u64 *)(rd->buf + PL_REC));
		if (v == last) {
			/* Spin a while, then let the emulated CPU go. */
			if (++idle < 64)
				cpu_relax();
			else
				usleep_range(20, 50);
			continue;
		}
		idle = 0;
		slot = rd->buf + (v % PL_SLOTS) * PL_SLOT;
		for (k = 0; k < PL_SLOT; k++) {
			if (READ_ONCE(slot[k]) != pl_byte(v, k)) {
				if (!atomic_read(&rd->bad)) {
					rd->bad_round = v;
					rd->bad_at = k;
				}
				atomic_inc(&rd->bad);
				break;
			}
		}
		last = v;
		atomic_inc(&rd->checked);
		atomic64_set(&rd->seen, v);
		wake_up_all(&rd->wq);
	}
	return 0;
}

/* ---- load: another committer, ordinary messages -------------------------- */

struct pl_flusher {
	struct smbdx_push_target *t;
	atomic64_t *round;	/* if set: two flushes per round of the writer */
	u8 src[256];
};

/* Write and flush another region until stopped: 0, or the first error. */
static int pl_flusher_fn(struct pl_thr *th)
{
	struct pl_flusher *f = th->arg;
	u64 off;
	int rc;

	while (!kthread_should_stop()) {
		if (f->round && atomic_long_read(&th->count) >=
		    atomic64_read(f->round) * 2) {
			usleep_range(200, 500);
			continue;
		}
		off = (atomic_long_read(&th->count) * sizeof(f->src)) %
		      (PL_LEN - sizeof(f->src));
		memset(f->src, atomic_long_read(&th->count), sizeof(f->src));
		rc = pl_write(f->t, off, f->src, sizeof(f->src));
		if (!rc)
			rc = smbdx_push_flush(f->t, off, sizeof(f->src),
					      SMBDX_PUSH_GLOBAL);
		if (rc)
			return rc;
		atomic_long_inc(&th->count);
	}
	return 0;
}

/* Messages beside the commits: PL_MSGS_PER_ROUND per round started. */
#define PL_MSGS_PER_ROUND	4

struct pl_sender {
	struct smbdx_conn *conn;
	atomic64_t *round;	/* the writer's round */
};

static int pl_sender_fn(struct pl_thr *th)
{
	struct pl_sender *sd = th->arg;
	u8 b[1024];
	int rc;

	memset(b, 0x5a, sizeof(b));
	while (!kthread_should_stop()) {
		if (atomic_long_read(&th->count) >=
		    atomic64_read(sd->round) * PL_MSGS_PER_ROUND) {
			usleep_range(200, 500);
			continue;
		}
		rc = pl_send(sd->conn, b, sizeof(b));
		if (rc)
			return rc;
		atomic_long_inc(&th->count);
	}
	return 0;
}

struct pl_drain {
	struct smbdx_conn *conn;
	atomic_long_t *sent;	/* the sender's count */
	bool stop;		/* the sender stopped: drain up to its count */
};

static int pl_drainer_fn(struct pl_thr *th)
{
	struct pl_drain *d = th->arg;
	struct smbdx_msg *msg;
	int rc;

	while (!kthread_should_stop()) {
		if (READ_ONCE(d->stop) &&
		    atomic_long_read(&th->count) >= atomic_long_read(d->sent))
			return 0;
		rc = smbdx_recv_msg(d->conn, HZ / 10, &msg);
		if (rc == -EAGAIN)
			continue;
		if (rc)
			return rc;
		smbdx_msg_free(msg);
		atomic_long_inc(&th->count);
	}
	return 0;
}

/* ---- cases ------------------------------------------------------------- */

static const struct tl_dev pl_rxe[] = {
	{ "rxe", &rxe_dev, &rxe_addr, &rxe_netdev, false },
};

KUNIT_ARRAY_PARAM(pl_rxe, pl_rxe, tl_dev_desc);

/*
 * Ordering under load: no commit record is ever seen on the responder
 * before the data it guards (R9), while another committer and ordinary
 * messages share the connection and the one commit slot.
 */
static void push_live_commit_order(struct kunit *test)
{
	struct smbdx_conn_config cfg;
	struct smbdx_push_info ci;
	struct smbdx_push_desc desc, desc2;
	struct smbdx_push_target *t, *t2;
	struct smbdx_push_commit c = {
		.length = PL_SLOT, .atomic_offset = PL_REC,
		.flags = SMBDX_PUSH_GLOBAL | SMBDX_PUSH_ATOMIC,
	};
	struct pl_thr *reader, *flusher, *sender, *drainer;
	struct pl_flusher *fl;
	struct pl_sender *sd;
	struct pl_drain *dr;
	struct pl_reader *rd;
	struct tl_pair p;
	u32 n = pl_rounds(test->param_value);
	u64 round, served;
	u8 *buf, *buf2, *src;
	u32 k;

	/* Both ends serve one outstanding commit: committers queue. */
	smbdx_test_set_own_caps(SMBDX_CAP_FLUSH_GLOBAL | SMBDX_CAP_ATOMIC_WRITE, 1);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pl_restore_caps,
							NULL), 0);
	pl_cfg(&cfg, true);
	pl_pair_up(test, &p, &cfg);
	KUNIT_ASSERT_EQ(test, smbdx_push_query(p.cli, &ci), 0);
	KUNIT_EXPECT_EQ(test, ci.path, SMBDX_PUSH_PATH_MESSAGE);
	KUNIT_EXPECT_EQ(test, ci.max_commits, 1);
	KUNIT_EXPECT_EQ(test, ci.ops, SMBDX_PUSH_GLOBAL | SMBDX_PUSH_ATOMIC);

	buf = pl_buf(test);
	buf2 = pl_buf(test);
	pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL | SMBDX_PUSH_ATOMIC,
		    &desc);
	pl_register(test, p.srvc, buf2, SMBDX_PUSH_GLOBAL, &desc2);
	t = pl_attach(test, p.cli, &desc);
	t2 = pl_attach(test, p.cli, &desc2);

	rd = kunit_kzalloc(test, sizeof(*rd), GFP_KERNEL);
	reader = kunit_kzalloc(test, sizeof(*reader), GFP_KERNEL);
	flusher = kunit_kzalloc(test, sizeof(*flusher), GFP_KERNEL);
	sender = kunit_kzalloc(test, sizeof(*sender), GFP_KERNEL);
	drainer = kunit_kzalloc(test, sizeof(*drainer), GFP_KERNEL);
	fl = kunit_kzalloc(test, sizeof(*fl), GFP_KERNEL);
	dr = kunit_kzalloc(test, sizeof(*dr), GFP_KERNEL);
	sd = kunit_kzalloc(test, sizeof(*sd), GFP_KERNEL);
	src = kunit_kzalloc(test, PL_SLOT, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, rd && reader && flusher && sender && drainer &&
			  fl && dr && sd && src);
	rd->buf = buf;
	init_waitqueue_head(&rd->wq);
	fl->t = t2;
	fl->round = &rd->round;
	dr->conn = p.srvc;
	dr->sent = &sender->count;
	sd->conn = p.cli;
	sd->round = &rd->round;

	pl_thr_start(test, reader, pl_reader_fn, rd, "push-reader");
	pl_thr_start(test, drainer, pl_drainer_fn, dr, "push-drainer");
	pl_thr_start(test, sender, pl_sender_fn, sd, "push-sender");
	pl_thr_start(test, flusher, pl_flusher_fn, fl, "push-flusher");

	for (round = 1; round <= n; round++) {
		atomic64_set(&rd->round, round);
		/* The slot's last round must be behind the reader. */
		if (round >= PL_SLOTS)
			KUNIT_ASSERT_GT_MSG(test,
					    wait_event_timeout(rd->wq,
							       atomic64_read(&rd->seen) >=
							       round - PL_SLOTS + 1,
							       msecs_to_jiffies(timeout_ms)),
					    0, "the reader stopped at %lld (round %llu)",
					    atomic64_read(&rd->seen), round);
		for (k = 0; k < PL_SLOT; k++)
			src[k] = pl_byte(round, k);
		c.offset = (round % PL_SLOTS) * PL_SLOT;
		KUNIT_ASSERT_EQ_MSG(test, pl_write(t, c.offset, src, PL_SLOT), 0,
				    "round %llu", round);
		c.value = round;
		KUNIT_ASSERT_EQ_MSG(test, smbdx_push_commit(t, &c), 0,
				    "round %llu", round);
	}
	KUNIT_EXPECT_GT_MSG(test,
			    wait_event_timeout(rd->wq,
					       atomic64_read(&rd->seen) == n,
					       msecs_to_jiffies(timeout_ms)),
			    0, "the reader never saw round %u", n);
	/*
	 * The writer may have kept the commit slot, and the CPU: let the
	 * flusher and the sender have their turn before they are stopped.
	 */
	for (k = 0; k < timeout_ms / 20 &&
	     ((!atomic_long_read(&flusher->count) &&
	       !completion_done(&flusher->done)) ||
	      (!atomic_long_read(&sender->count) &&
	       !completion_done(&sender->done))); k++)
		msleep(20);
	pl_thr_end(test, reader);
	pl_thr_end(test, flusher);
	pl_thr_end(test, sender);
	WRITE_ONCE(dr->stop, true);
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&drainer->done,
							  msecs_to_jiffies(timeout_ms)),
			0);
	pl_thr_end(test, drainer);

	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&rd->bad), 0,
			    "record %llu seen before its data (byte %u)",
			    rd->bad_round, rd->bad_at);
	KUNIT_EXPECT_EQ(test, flusher->rc, 0);
	KUNIT_EXPECT_EQ(test, sender->rc, 0);
	KUNIT_EXPECT_EQ(test, drainer->rc, 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&flusher->count), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&sender->count), 0);
	kunit_info(test, "%u rounds, %d records checked, %ld flushes, %ld messages beside",
		   n, atomic_read(&rd->checked), atomic_long_read(&flusher->count),
		   atomic_long_read(&sender->count));
	served = n + atomic_long_read(&flusher->count);
	KUNIT_EXPECT_GE(test, smbdx_test_stat(p.cli, SMBDX_STAT_PUSH_COMMITS),
			served);
	KUNIT_EXPECT_GE(test,
			smbdx_test_stat(p.srvc, SMBDX_STAT_PUSH_COMMITS_SERVED),
			served);
	/* Flush alone, whole region; atomic alone. */
	KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, 0, 0, SMBDX_PUSH_GLOBAL |
					       SMBDX_PUSH_REGION), 0);
	KUNIT_EXPECT_EQ(test, smbdx_push_atomic_write(t, PL_REC, n + 1, 0), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*(u64 *)(buf + PL_REC)), n + 1);
	pl_expect_alive(test, &p);
	pl_detach(test, t);
	pl_detach(test, t2);
}

/* Errors the requester sees locally keep the connection up. */
static void push_live_local_errors(struct kunit *test)
{
	struct smbdx_conn_config cfg;
	struct smbdx_push_desc desc, bad;
	struct smbdx_push_commit c = {};
	struct smbdx_push_target *t;
	struct kvec kv;
	struct iov_iter it;
	struct tl_pair p;
	u8 src[16] = {};
	u8 *buf;

	pl_cfg(&cfg, true);
	pl_pair_up(test, &p, &cfg);
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
	/* No access, unknown access. */
	iov_iter_kvec(&it, ITER_DEST, &kv, 1, PL_LEN - 4);
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_register(p.srvc, &it, 0,
							  &desc)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_register(p.srvc, &it, 0x80,
							  &desc)), -EINVAL);

	pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL | SMBDX_PUSH_ATOMIC,
		    &desc);
	/* Hostile descriptors. */
	bad = desc;
	bad.region = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_attach(p.cli, &bad)), -EINVAL);
	bad = desc;
	bad.length = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_attach(p.cli, &bad)), -EINVAL);
	bad = desc;
	bad.access = cpu_to_le32(0x100);
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_attach(p.cli, &bad)), -EINVAL);
	bad = desc;
	bad.offset = cpu_to_le64(U64_MAX - 16);
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_attach(p.cli, &bad)), -EINVAL);
	t = pl_attach(test, p.cli, &desc);
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_attach(p.cli, &desc)), -EEXIST);

	KUNIT_EXPECT_EQ(test, pl_write(t, PL_LEN - 8, src, 16), -ERANGE);
	KUNIT_EXPECT_EQ(test, pl_write(t, U64_MAX - 4, src, 16), -ERANGE);
	KUNIT_EXPECT_EQ(test, pl_write(t, 0, src, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, PL_LEN, 1, SMBDX_PUSH_GLOBAL),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, U64_MAX, 2, SMBDX_PUSH_GLOBAL),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, 0, 0, SMBDX_PUSH_GLOBAL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, 0, 1, SMBDX_PUSH_ATOMIC),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, 0, 1, SMBDX_PUSH_PERSISTENT),
			-EACCES);
	KUNIT_EXPECT_EQ(test, smbdx_push_atomic_write(t, 4, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_push_atomic_write(t, PL_LEN, 1, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, smbdx_push_atomic_write(t, PL_LEN - 4, 1, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_push_atomic_write(t, 0, 1,
						      SMBDX_PUSH_PERSISTENT),
			-EACCES);
	KUNIT_EXPECT_EQ(test, smbdx_push_atomic_write(t, 0, 1, SMBDX_PUSH_GLOBAL),
			-EINVAL);
	/* A commit that asks for nothing; unknown flags. */
	KUNIT_EXPECT_EQ(test, smbdx_push_commit(t, &c), -EINVAL);
	c.flags = 0x100 | SMBDX_PUSH_GLOBAL;
	c.length = 1;
	KUNIT_EXPECT_EQ(test, smbdx_push_commit(t, &c), -EINVAL);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_TX_PUSH_MSGS), 0);
	/* After all that, the target works. */
	KUNIT_EXPECT_EQ(test, pl_write(t, 0, src, 16), 0);
	KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, 0, 16, SMBDX_PUSH_GLOBAL), 0);
	pl_expect_alive(test, &p);
}

/* Revoke of an idle target: acknowledged, the target refuses, the connection stays. */
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
	pl_pair_up(test, &p, &cfg);
	buf = pl_buf(test);
	r = pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL, &desc);
	t = pl_attach(test, p.cli, &desc);
	KUNIT_ASSERT_EQ(test, pl_write(t, 0, src, sizeof(src)), 0);
	KUNIT_ASSERT_EQ(test, smbdx_push_flush(t, 0, sizeof(src),
					       SMBDX_PUSH_GLOBAL), 0);
	KUNIT_EXPECT_EQ(test, buf[0], 7);

	KUNIT_EXPECT_EQ(test, pl_revoke(test, r), 0);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.srvc, SMBDX_STAT_PUSH_REVOKES), 1);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_PUSH_REVOKE_ACKS),
			1);
	KUNIT_EXPECT_EQ(test, pl_write(t, 0, src, sizeof(src)), -EKEYREVOKED);
	KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, 0, 1, SMBDX_PUSH_GLOBAL),
			-EKEYREVOKED);
	pl_expect_alive(test, &p);
	pl_detach(test, t);

	/* A region the client never attached is given back at once. */
	r = pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL, &desc);
	KUNIT_EXPECT_EQ(test, pl_revoke(test, r), 0);
	/* So is one it attached and detached. */
	r = pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL, &desc);
	t = pl_attach(test, p.cli, &desc);
	pl_detach(test, t);
	KUNIT_EXPECT_EQ(test, pl_revoke(test, r), 0);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_PUSH_REVOKE_ACKS),
			3);
	KUNIT_EXPECT_EQ(test, smbdx_test_error_count(p.cli, SMBDX_CAUSE_PUSH_REVOKED),
			0);
	pl_expect_alive(test, &p);
}

struct pl_revoker {
	struct smbdx_push_region *r;
};

static int pl_revoker_fn(struct pl_thr *th)
{
	struct pl_revoker *rv = th->arg;

	return smbdx_push_revoke(rv->r);
}

struct pl_committer {
	struct smbdx_push_target *t;
	u8 src[64];
};

static int pl_committer_fn(struct pl_thr *th)
{
	struct pl_committer *cm = th->arg;

	return smbdx_push_flush(cm->t, 0, sizeof(cm->src), SMBDX_PUSH_GLOBAL);
}

/*
 * R14 with a commit in flight: the server's revoke request overtakes the
 * answer to a commit the client sent before it saw the request (the
 * server's sends are held back meanwhile). The commit is still served and
 * succeeds; the acknowledgment goes out only after it; then the target
 * refuses, and the connection stays up. Then the other way round: the
 * request arrives before the client's commit has left.
 */
static void push_live_revoke_inflight(struct kunit *test)
{
	struct smbdx_conn_config cfg;
	struct smbdx_push_desc desc;
	struct smbdx_push_region *r;
	struct smbdx_push_target *t;
	struct pl_thr *revoker, *committer;
	struct pl_committer *cm;
	struct pl_revoker *rv;
	struct tl_pair p;
	u64 reqs, acks, rx;
	u8 *buf;
	int i;

	pl_cfg(&cfg, true);
	pl_pair_up(test, &p, &cfg);
	buf = pl_buf(test);
	r = pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL, &desc);
	t = pl_attach(test, p.cli, &desc);
	revoker = kunit_kzalloc(test, sizeof(*revoker), GFP_KERNEL);
	committer = kunit_kzalloc(test, sizeof(*committer), GFP_KERNEL);
	cm = kunit_kzalloc(test, sizeof(*cm), GFP_KERNEL);
	rv = kunit_kzalloc(test, sizeof(*rv), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, revoker && committer && cm && rv);
	memset(cm->src, 9, sizeof(cm->src));
	cm->t = t;
	rv->r = r;
	KUNIT_ASSERT_EQ(test, pl_write(t, 0, cm->src, sizeof(cm->src)), 0);

	/* The server's revoke request waits in its send queue. */
	smbdx_test_set_mute(p.srvc, true);
	kunit_remove_action(test, pl_revoke_action, r);
	pl_thr_start(test, revoker, pl_revoker_fn, rv, "push-revoker");
	for (i = 0; i < timeout_ms / 20 &&
	     !smbdx_test_stat(p.srvc, SMBDX_STAT_PUSH_REVOKES); i++)
		msleep(20);
	KUNIT_ASSERT_EQ(test, smbdx_test_stat(p.srvc, SMBDX_STAT_PUSH_REVOKES), 1);
	/* A commit the client sends meanwhile is served, its answer queued. */
	pl_thr_start(test, committer, pl_committer_fn, cm, "push-committer");
	for (i = 0; i < timeout_ms / 20 &&
	     !smbdx_test_stat(p.srvc, SMBDX_STAT_PUSH_COMMITS_SERVED); i++)
		msleep(20);
	KUNIT_ASSERT_EQ(test,
			smbdx_test_stat(p.srvc, SMBDX_STAT_PUSH_COMMITS_SERVED), 1);
	reqs = smbdx_test_stat(p.srvc, SMBDX_STAT_TX_PUSH_MSGS);
	KUNIT_EXPECT_EQ(test, reqs, 2);	/* the request, then the answer */
	smbdx_test_set_mute(p.srvc, false);

	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&committer->done,
							  msecs_to_jiffies(timeout_ms)),
			0);
	KUNIT_EXPECT_EQ(test, committer->rc, 0);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&revoker->done,
							  msecs_to_jiffies(timeout_ms)),
			0);
	KUNIT_EXPECT_EQ(test, revoker->rc, 0);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_PUSH_REVOKE_ACKS),
			1);
	KUNIT_EXPECT_EQ(test, buf[0], 9);
	KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, 0, 1, SMBDX_PUSH_GLOBAL),
			-EKEYREVOKED);
	pl_expect_alive(test, &p);
	pl_detach(test, t);

	/*
	 * The request arrives while the client's commit has not even left
	 * (the client's sends held back): no acknowledgment until the commit
	 * is answered, though the target refuses new calls at once.
	 */
	r = pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL, &desc);
	t = pl_attach(test, p.cli, &desc);
	cm->t = t;
	rv->r = r;
	pl_thr_end(test, committer);
	pl_thr_end(test, revoker);
	acks = smbdx_test_stat(p.cli, SMBDX_STAT_PUSH_REVOKE_ACKS);
	rx = smbdx_test_stat(p.cli, SMBDX_STAT_RX_PUSH_MSGS);
	reqs = smbdx_test_stat(p.cli, SMBDX_STAT_TX_PUSH_MSGS);
	smbdx_test_set_mute(p.cli, true);
	pl_thr_start(test, committer, pl_committer_fn, cm, "push-committer");
	for (i = 0; i < timeout_ms / 20 &&
	     smbdx_test_stat(p.cli, SMBDX_STAT_TX_PUSH_MSGS) == reqs; i++)
		msleep(20);
	KUNIT_ASSERT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_TX_PUSH_MSGS),
			reqs + 1);
	kunit_remove_action(test, pl_revoke_action, r);
	pl_thr_start(test, revoker, pl_revoker_fn, rv, "push-revoker");
	for (i = 0; i < timeout_ms / 20 &&
	     smbdx_test_stat(p.cli, SMBDX_STAT_RX_PUSH_MSGS) == rx; i++)
		msleep(20);
	KUNIT_ASSERT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_RX_PUSH_MSGS),
			rx + 1);
	KUNIT_EXPECT_EQ_MSG(test, smbdx_test_stat(p.cli,
						  SMBDX_STAT_PUSH_REVOKE_ACKS),
			    acks, "acknowledged with a commit in flight");
	KUNIT_EXPECT_EQ(test, pl_write(t, 0, cm->src, 8), -EKEYREVOKED);
	KUNIT_EXPECT_FALSE(test, completion_done(&committer->done));
	smbdx_test_set_mute(p.cli, false);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&committer->done,
							  msecs_to_jiffies(timeout_ms)),
			0);
	KUNIT_EXPECT_EQ(test, committer->rc, 0);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&revoker->done,
							  msecs_to_jiffies(timeout_ms)),
			0);
	KUNIT_EXPECT_EQ(test, revoker->rc, 0);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_PUSH_REVOKE_ACKS),
			acks + 1);
	pl_expect_alive(test, &p);
	pl_detach(test, t);
}

/* A writer that loops until the revoke stops it: -EKEYREVOKED, no refusal. */
static void push_live_revoke_under_load(struct kunit *test)
{
	struct smbdx_conn_config cfg;
	struct smbdx_push_desc desc;
	struct smbdx_push_region *r;
	struct smbdx_push_target *t;
	struct pl_flusher *fl;
	struct pl_thr *th;
	struct tl_pair p;
	u8 *buf;
	int i;

	pl_cfg(&cfg, true);
	pl_pair_up(test, &p, &cfg);
	buf = pl_buf(test);
	r = pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL, &desc);
	t = pl_attach(test, p.cli, &desc);
	fl = kunit_kzalloc(test, sizeof(*fl), GFP_KERNEL);
	th = kunit_kzalloc(test, sizeof(*th), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, fl && th);
	fl->t = t;
	pl_thr_start(test, th, pl_flusher_fn, fl, "push-flusher");
	for (i = 0; i < timeout_ms / 20 && atomic_long_read(&th->count) < 10 &&
	     !completion_done(&th->done); i++)
		msleep(20);
	KUNIT_ASSERT_GE(test, atomic_long_read(&th->count), 10);
	KUNIT_EXPECT_EQ(test, pl_revoke(test, r), 0);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&th->done,
							  msecs_to_jiffies(timeout_ms)),
			0);
	KUNIT_EXPECT_EQ(test, th->rc, -EKEYREVOKED);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_PUSH_REVOKE_ACKS),
			1);
	pl_expect_alive(test, &p);
	pl_detach(test, t);
}

/* ---- refusals by the responder -------------------------------------------- */

enum pl_lie {
	PL_LIE_RANGE_FLUSH,	/* the descriptor's length doubled; flush past the end */
	PL_LIE_RANGE_ATOMIC,	/* the same, an atomic write past the end */
	PL_LIE_REVOKED,		/* a region the server revoked, attached anew */
	PL_LIE_UNREGISTERED,	/* a region id the server never handed out */
	PL_LIE_TOKEN,		/* the right region, another token */
	PL_LIE_ACCESS,		/* an atomic write on a region without it */
};

struct pl_refusal {
	const char *name;
	enum pl_lie lie;
	int err;
	int cause;
	bool siw;		/* also on siw */
};

static const struct pl_refusal pl_refusals[] = {
	{ "range flush", PL_LIE_RANGE_FLUSH, -ERANGE, SMBDX_CAUSE_PUSH_RANGE,
	  true },
	{ "range atomic", PL_LIE_RANGE_ATOMIC, -ERANGE, SMBDX_CAUSE_PUSH_RANGE },
	{ "revoked", PL_LIE_REVOKED, -EKEYREVOKED, SMBDX_CAUSE_PUSH_REVOKED },
	{ "unregistered", PL_LIE_UNREGISTERED, -EKEYREVOKED,
	  SMBDX_CAUSE_PUSH_REVOKED, true },
	{ "token", PL_LIE_TOKEN, -EKEYREVOKED, SMBDX_CAUSE_PUSH_REVOKED },
	{ "access", PL_LIE_ACCESS, -EACCES, SMBDX_CAUSE_PUSH_ACCESS },
};

/* One lie on a new connection @idx of @bys's listener. */
static void pl_refuse_one(struct kunit *test, const struct pl_refusal *c,
			  struct tl_pair *bys, int idx,
			  const struct smbdx_conn_config *cfg)
{
	struct smbdx_conn_config ccfg = pl_cli_cfg(cfg);
	struct smbdx_push_desc desc = {
		.region = cpu_to_le32(7), .token = cpu_to_le32(0x1234),
		.length = cpu_to_le32(PL_LEN),
		.access = cpu_to_le32(SMBDX_PUSH_GLOBAL | SMBDX_PUSH_ATOMIC),
	};
	struct smbdx_push_region *r = NULL;
	struct smbdx_push_target *t;
	struct tl_pair p = *bys;
	u8 src[64] = { 3 };
	int base = smbdx_test_conns_alive();
	int rc;
	u8 *buf;

	kunit_info(test, "%s", c->name);
	p.cli = tl_connect(test, &p.sin, &ccfg, NULL, NULL);
	p.srvc = tl_accepted(test, p.srv, idx);
	buf = pl_buf(test);

	if (c->lie != PL_LIE_UNREGISTERED) {
		r = pl_register(test, p.srvc, buf, c->lie == PL_LIE_ACCESS ?
				SMBDX_PUSH_GLOBAL :
				SMBDX_PUSH_GLOBAL | SMBDX_PUSH_ATOMIC, &desc);
	}
	switch (c->lie) {
	case PL_LIE_RANGE_FLUSH:
	case PL_LIE_RANGE_ATOMIC:
		desc.length = cpu_to_le32(2 * PL_LEN);
		break;
	case PL_LIE_REVOKED:
		t = pl_attach(test, p.cli, &desc);
		KUNIT_ASSERT_EQ(test, pl_write(t, 0, src, sizeof(src)), 0);
		KUNIT_ASSERT_EQ(test, smbdx_push_flush(t, 0, sizeof(src),
						       SMBDX_PUSH_GLOBAL), 0);
		KUNIT_ASSERT_EQ(test, pl_revoke(test, r), 0);
		r = NULL;
		pl_detach(test, t);
		break;
	case PL_LIE_TOKEN:
		desc.token = cpu_to_le32(le32_to_cpu(desc.token) ^ 0x100);
		break;
	case PL_LIE_ACCESS:
		desc.access = cpu_to_le32(SMBDX_PUSH_GLOBAL | SMBDX_PUSH_ATOMIC);
		break;
	default:
		break;
	}
	t = pl_attach(test, p.cli, &desc);
	switch (c->lie) {
	case PL_LIE_RANGE_FLUSH:
		rc = smbdx_push_flush(t, PL_LEN, 16, SMBDX_PUSH_GLOBAL);
		break;
	case PL_LIE_RANGE_ATOMIC:
		rc = smbdx_push_atomic_write(t, PL_LEN + 8, 1, 0);
		break;
	case PL_LIE_ACCESS:
		rc = smbdx_push_atomic_write(t, PL_REC, 1, 0);
		break;
	default:
		rc = smbdx_push_flush(t, 0, 16, SMBDX_PUSH_GLOBAL);
		break;
	}
	KUNIT_EXPECT_EQ_MSG(test, rc, c->err, "%s", c->name);
	pl_expect_cause(test, p.cli, c->cause);
	pl_expect_cause(test, p.srvc, c->cause);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.srvc,
					      SMBDX_STAT_PUSH_COMMITS_SERVED),
			c->lie == PL_LIE_REVOKED ? 1 : 0);
	/* Nothing was placed. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(*(u64 *)(buf + PL_REC)), 0);
	/* Later calls say the connection ended. */
	KUNIT_EXPECT_NE(test, smbdx_push_flush(t, 0, 16, SMBDX_PUSH_GLOBAL), 0);

	/* The listener's first connection goes on. */
	pl_expect_alive(test, bys);

	/* A region on the ended connection is freed, with its error. */
	pl_detach(test, t);
	if (r)
		KUNIT_EXPECT_NE(test, pl_revoke(test, r), 0);
	pl_destroy_pair(test, &p, base);
}

/*
 * A lying descriptor reaches the responder, which refuses: that connection
 * ends on both sides with the named cause, the call returns the matching
 * error, the listener's first connection (push mode on too) is untouched,
 * and nothing of the refused one is left. Every lie on rxe; on siw
 * (push mode forced) two of them.
 */
static void push_live_refused(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct smbdx_conn_config cfg;
	struct tl_pair bys;
	int idx = 1;
	size_t i;

	pl_cfg(&cfg, true);
	pl_pair_up(test, &bys, &cfg);
	for (i = 0; i < ARRAY_SIZE(pl_refusals); i++) {
		if (d->iwarp && !pl_refusals[i].siw)
			continue;
		pl_refuse_one(test, &pl_refusals[i], &bys, idx++, &cfg);
	}
	/* The bystander never saw a push-mode message. */
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(bys.cli, SMBDX_STAT_TX_PUSH_MSGS),
			0);
	pl_expect_alive(test, &bys);
}

/* ---- no answer ------------------------------------------------------------ */

static const char * const pl_timeouts[] = { "commit", "revoke" };

struct pl_timeout {
	struct tl_dev dev;
	bool revoke;
};

static struct pl_timeout pl_timeout_cases[ARRAY_SIZE(pl_timeouts)];

static const void *pl_timeout_gen(const void *prev, char *desc)
{
	const struct pl_timeout *c = prev ? (const struct pl_timeout *)prev + 1 :
					    pl_timeout_cases;
	size_t i;

	if (!prev) {
		for (i = 0; i < ARRAY_SIZE(pl_timeout_cases); i++) {
			pl_timeout_cases[i].dev = pl_rxe[0];
			pl_timeout_cases[i].revoke = i;
		}
	}
	if (c >= pl_timeout_cases + ARRAY_SIZE(pl_timeout_cases))
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "rxe %s",
		 pl_timeouts[c - pl_timeout_cases]);
	return c;
}

/*
 * The peer never answers (its sends held back): the commit, or the revoke,
 * returns -ETIMEDOUT after io_timeout (1 s here) and that connection ends
 * with push_timeout; a revoked region is freed all the same.
 */
static void push_live_timeout(struct kunit *test)
{
	const struct pl_timeout *c = test->param_value;
	struct smbdx_conn_config cfg;
	struct smbdx_push_desc desc;
	struct smbdx_push_region *r;
	struct smbdx_push_target *t;
	struct tl_pair p;
	int base = smbdx_test_conns_alive();
	unsigned long t0;
	u8 *buf;

	pl_cfg(&cfg, true);
	cfg.io_timeout_ms = 1000;
	pl_pair_up(test, &p, &cfg);
	buf = pl_buf(test);
	r = pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL, &desc);
	t = pl_attach(test, p.cli, &desc);
	KUNIT_ASSERT_EQ(test, smbdx_push_flush(t, 0, 8, SMBDX_PUSH_GLOBAL), 0);

	t0 = jiffies;
	if (!c->revoke) {
		smbdx_test_set_mute(p.srvc, true);
		KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, 0, 8, SMBDX_PUSH_GLOBAL),
				-ETIMEDOUT);
		pl_expect_cause(test, p.cli, SMBDX_CAUSE_PUSH_TIMEOUT);
		KUNIT_EXPECT_NE(test, pl_revoke(test, r), 0);
	} else {
		smbdx_test_set_mute(p.cli, true);
		KUNIT_EXPECT_EQ(test, pl_revoke(test, r), -ETIMEDOUT);
		pl_expect_cause(test, p.srvc, SMBDX_CAUSE_PUSH_TIMEOUT);
	}
	KUNIT_EXPECT_GE(test, jiffies - t0, msecs_to_jiffies(900));
	pl_detach(test, t);
	pl_destroy_pair(test, &p, base);
}

/* ---- where push mode is offered ------------------------------------------ */

struct pl_offer {
	struct tl_dev dev;
	const char *name;
	bool cli_push, cli_caps, srv_push, srv_caps;
};

/* The first on siw too (where nothing is ever offered), all on rxe. */
static const struct pl_offer pl_offers[] = {
	{ .name = "server off", .cli_push = true, .cli_caps = true,
	  .srv_caps = true },
	{ .name = "client off", .cli_caps = true, .srv_push = true,
	  .srv_caps = true },
	{ .name = "no cm_caps", .cli_push = true, .srv_push = true },
};

static struct pl_offer pl_offer_cases[ARRAY_SIZE(pl_offers) + 1];

static const void *pl_offer_gen(const void *prev, char *desc)
{
	const struct pl_offer *c = prev ? (const struct pl_offer *)prev + 1 :
					  pl_offer_cases;
	size_t i;

	if (!prev) {
		for (i = 0; i < ARRAY_SIZE(pl_offers); i++) {
			pl_offer_cases[i] = pl_offers[i];
			pl_offer_cases[i].dev = tl_devs[0];
		}
		pl_offer_cases[i] = pl_offers[0];
		pl_offer_cases[i].dev = tl_devs[1];
	}
	if (c >= pl_offer_cases + ARRAY_SIZE(pl_offer_cases))
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s", c->dev.kind, c->name);
	return c;
}

/* Not offered when one end did not advertise it: every call says so. */
static void push_live_not_offered(struct kunit *test)
{
	const struct pl_offer *c = test->param_value;
	struct smbdx_conn_config ccfg, scfg;
	struct smbdx_push_desc desc = {
		.region = cpu_to_le32(1), .length = cpu_to_le32(PL_LEN),
		.access = cpu_to_le32(SMBDX_PUSH_GLOBAL),
	};
	struct smbdx_push_info info;
	struct kvec kv;
	struct iov_iter it;
	struct tl_pair p;
	u8 *buf;

	pl_cfg(&ccfg, c->cli_push);
	ccfg.cm_caps = c->cli_caps;
	pl_cfg(&scfg, c->srv_push);
	scfg.cm_caps = c->srv_caps;
	tl_pair_up(test, &p, &ccfg, &scfg);
	KUNIT_EXPECT_EQ(test, smbdx_push_query(p.cli, &info), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, info.path, SMBDX_PUSH_PATH_NONE);
	KUNIT_EXPECT_EQ(test, info.ops, 0);
	KUNIT_EXPECT_EQ(test, smbdx_push_query(p.srvc, &info), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_attach(p.cli, &desc)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_attach(p.srvc, &desc)),
			-EOPNOTSUPP);
	buf = pl_buf(test);
	kv.iov_base = buf;
	kv.iov_len = PL_LEN;
	iov_iter_kvec(&it, ITER_DEST, &kv, 1, PL_LEN);
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_register(p.srvc, &it,
							  SMBDX_PUSH_GLOBAL,
							  &desc)), -EOPNOTSUPP);
	iov_iter_kvec(&it, ITER_DEST, &kv, 1, PL_LEN);
	KUNIT_EXPECT_EQ(test, PTR_ERR(smbdx_push_register(p.cli, &it,
							  SMBDX_PUSH_GLOBAL,
							  &desc)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_TX_PUSH_MSGS), 0);
	pl_expect_alive(test, &p);
}

/*
 * Both ends on: offered on IB/RoCE with what each serves, not on iWARP
 * (no blob is sent there by default, design.rst "Push mode"); never the
 * native path on Linux 6.12. On iWARP a second client that opts in with
 * cm_caps_iwarp gets it from the same listener.
 */
static void push_live_where(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct smbdx_conn_config on;
	struct smbdx_push_info ci, si;
	struct tl_pair p;
	int want = d->iwarp ? -EOPNOTSUPP : 0;

	pl_cfg(&on, true);
	tl_pair_up(test, &p, &on, &on);
	KUNIT_EXPECT_EQ(test, smbdx_push_query(p.cli, &ci), want);
	KUNIT_EXPECT_EQ(test, smbdx_push_query(p.srvc, &si), want);
	KUNIT_EXPECT_NE(test, ci.path, SMBDX_PUSH_PATH_NATIVE);
	KUNIT_EXPECT_NE(test, si.path, SMBDX_PUSH_PATH_NATIVE);
	if (!d->iwarp) {
		KUNIT_EXPECT_EQ(test, ci.path, SMBDX_PUSH_PATH_MESSAGE);
		KUNIT_EXPECT_EQ(test, si.path, SMBDX_PUSH_PATH_MESSAGE);
		KUNIT_EXPECT_TRUE(test, ci.ops & SMBDX_PUSH_GLOBAL);
		KUNIT_EXPECT_EQ(test, ci.ops, si.served);
		KUNIT_EXPECT_EQ(test, si.ops, ci.served);
		KUNIT_EXPECT_EQ(test, ci.max_commits, 16);
		KUNIT_EXPECT_GE(test, si.max_region_len, (u32)PL_LEN);
		KUNIT_EXPECT_EQ(test, !!(ci.ops & SMBDX_PUSH_ATOMIC),
				IS_ENABLED(CONFIG_64BIT));
	} else {
		struct smbdx_conn_config opt = pl_cli_cfg(&on);
		struct smbdx_conn *cli2, *srvc2;

		KUNIT_EXPECT_EQ(test, ci.path, SMBDX_PUSH_PATH_NONE);
		cli2 = tl_connect(test, &p.sin, &opt, NULL, NULL);
		srvc2 = tl_accepted(test, p.srv, 1);
		KUNIT_EXPECT_EQ(test, smbdx_push_query(cli2, &ci), 0);
		KUNIT_EXPECT_EQ(test, smbdx_push_query(srvc2, &si), 0);
		KUNIT_EXPECT_EQ(test, ci.path, SMBDX_PUSH_PATH_MESSAGE);
		KUNIT_EXPECT_EQ(test, si.path, SMBDX_PUSH_PATH_MESSAGE);
		KUNIT_EXPECT_EQ(test, ci.ops, si.served);
	}
	pl_expect_alive(test, &p);
}

/* ---- the test kernels' native verbs (scripts/kernel-patches/0001) ------- */

/**
 * struct pl_nv_mr - a page registered on a raw peer for remote access
 * @dev: the device it is mapped on
 * @page: the page
 * @sg: its one entry, DMA-mapped
 * @mapped: @sg is mapped
 * @mr: the fast-registration MR
 */
struct pl_nv_mr {
	struct ib_device *dev;
	struct page *page;
	struct scatterlist sg;
	bool mapped;
	struct ib_mr *mr;
};

static void pl_nv_mr_release(void *data)
{
	struct pl_nv_mr *m = data;

	if (m->mr)
		ib_dereg_mr(m->mr);
	if (m->mapped)
		ib_dma_unmap_sg(m->dev, &m->sg, 1, DMA_BIDIRECTIONAL);
	if (m->page)
		__free_page(m->page);
}

/* Post the chain @wr on @raw's QP; wait for @x, its last, signalled WR. */
static enum ib_wc_status pl_nv_post(struct kunit *test, struct tl_raw *raw,
				    const struct ib_send_wr *wr,
				    struct tl_raw_xfer *x)
{
	long left;

	KUNIT_ASSERT_EQ(test, ib_post_send(raw->q.id->qp, wr, NULL), 0);
	left = wait_for_completion_timeout(&x->done,
					   msecs_to_jiffies(timeout_ms));
	KUNIT_ASSERT_GT_MSG(test, left, 0, "no completion");
	return x->status;
}

static void pl_nv_xfer(struct tl_raw_xfer *x, struct ib_send_wr *wr)
{
	x->cqe.done = tl_raw_done;
	init_completion(&x->done);
	x->status = IB_WC_GENERAL_ERR;
	wr->wr_cqe = &x->cqe;
}

/*
 * What push mode's native path needs from the kernel, shown with two raw
 * peers on rxe: the test kernels carry scripts/kernel-patches/0001, so a
 * kernel QP can post IB_WR_FLUSH (struct ib_flush_wr) and
 * IB_WR_ATOMIC_WRITE (struct ib_atomic_write_wr). A chain of RDMA Write,
 * Flush (global, the written range) and Atomic Write (fenced) places the
 * data and then the value in the responder's page; the same Flush asking
 * for persistence of ordinary pages, which neither the QP nor the MR
 * allows, fails with an error completion. Without the patch the Kbuild
 * check leaves SMBDX_HAVE_NATIVE_PUSH undefined and the case fails: the
 * test kernels must have it.
 */
static void push_live_native_verbs(struct kunit *test)
{
#ifdef SMBDX_HAVE_NATIVE_PUSH
	const u64 value = 0x0123456789abcdefULL;
	struct tl_raw_xfer *x;
	struct ib_qp_attr qa = {};
	struct ib_rdma_wr w = {};
	struct ib_flush_wr f = {};
	struct ib_atomic_write_wr a = {};
	struct ib_reg_wr reg = {};
	struct ib_device_attr *da;
	struct tl_raw *child, *cli;
	struct sockaddr_in sin;
	struct pl_nv_mr *m;
	struct ib_sge sge;
	u8 *src, *dst;

	/*
	 * Completions land in @x until the raw peers' release has drained
	 * their QPs: allocated first, it is freed after that.
	 */
	x = kunit_kcalloc(test, 4, sizeof(*x), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x);
	tl_addr(test, test->param_value, &sin);
	child = tl_raw_new(test);
	tl_raw_listen(test, &sin, child);
	cli = tl_raw_connect(test, &sin);
	tl_raw_wait(test, child, RDMA_CM_EVENT_ESTABLISHED);
	da = &child->q.id->device->attrs;
	KUNIT_ASSERT_TRUE_MSG(test, da->device_cap_flags & IB_DEVICE_FLUSH_GLOBAL,
			      "rxe reports no IB_DEVICE_FLUSH_GLOBAL");
	KUNIT_ASSERT_TRUE_MSG(test, da->device_cap_flags & IB_DEVICE_ATOMIC_WRITE,
			      "rxe reports no IB_DEVICE_ATOMIC_WRITE");

	/* The responder: its QP and one page take remote write and flush. */
	qa.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_FLUSH_GLOBAL;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(child->q.id->qp, &qa,
					   IB_QP_ACCESS_FLAGS), 0);
	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, pl_nv_mr_release, m), 0);
	m->dev = child->q.id->device;
	m->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, m->page);
	sg_init_table(&m->sg, 1);
	sg_set_page(&m->sg, m->page, PAGE_SIZE, 0);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(m->dev, &m->sg, 1,
					    DMA_BIDIRECTIONAL), 1);
	m->mapped = true;
	m->mr = ib_alloc_mr(child->q.pd, IB_MR_TYPE_MEM_REG, 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(m->mr));
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(m->mr, &m->sg, 1, NULL, PAGE_SIZE), 1);
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = m->mr;
	reg.key = m->mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		     IB_ACCESS_FLUSH_GLOBAL;
	pl_nv_xfer(&x[0], &reg.wr);
	KUNIT_ASSERT_EQ(test, pl_nv_post(test, child, &reg.wr, &x[0]),
			IB_WC_SUCCESS);

	/* The requester: Write, Flush, fenced Atomic Write in one chain. */
	src = smbd_rawqp_buf(&cli->q, 1);
	get_random_bytes(src, 256);
	ib_dma_sync_single_for_device(cli->q.dma_dev, cli->q.slots[1].dma, 256,
				      DMA_TO_DEVICE);
	sge.addr = cli->q.slots[1].dma;
	sge.length = 256;
	sge.lkey = cli->q.pd->local_dma_lkey;
	w.wr.opcode = IB_WR_RDMA_WRITE;
	w.wr.sg_list = &sge;
	w.wr.num_sge = 1;
	w.remote_addr = m->mr->iova;
	w.rkey = m->mr->rkey;
	w.wr.next = &f.wr;
	f.wr.opcode = IB_WR_FLUSH;
	f.remote_addr = m->mr->iova;
	f.length = 256;
	f.rkey = m->mr->rkey;
	f.type = IB_FLUSH_GLOBAL;
	f.level = IB_FLUSH_RANGE;
	f.wr.next = &a.wr;
	a.wr.opcode = IB_WR_ATOMIC_WRITE;
	a.wr.send_flags = IB_SEND_SIGNALED | IB_SEND_FENCE;
	a.remote_addr = m->mr->iova + 512;
	a.value = value;
	a.rkey = m->mr->rkey;
	pl_nv_xfer(&x[1], &w.wr);
	pl_nv_xfer(&x[2], &f.wr);
	pl_nv_xfer(&x[3], &a.wr);
	KUNIT_ASSERT_EQ(test, pl_nv_post(test, cli, &w.wr, &x[3]), IB_WC_SUCCESS);
	ib_dma_sync_single_for_cpu(m->dev, sg_dma_address(&m->sg), PAGE_SIZE,
				   DMA_BIDIRECTIONAL);
	dst = page_address(m->page);
	KUNIT_EXPECT_MEMEQ(test, dst, src, 256);
	KUNIT_EXPECT_MEMEQ(test, dst + 512, &value, sizeof(value));
	KUNIT_EXPECT_FALSE(test, memchr_inv(dst + 256, 0, 256));

	/* Persistence of ordinary pages: neither the QP nor the MR has it. */
	memset(&f, 0, sizeof(f));
	f.wr.opcode = IB_WR_FLUSH;
	f.wr.send_flags = IB_SEND_SIGNALED;
	f.remote_addr = m->mr->iova;
	f.length = 256;
	f.rkey = m->mr->rkey;
	f.type = IB_FLUSH_PERSISTENT;
	f.level = IB_FLUSH_RANGE;
	pl_nv_xfer(&x[2], &f.wr);
	KUNIT_EXPECT_NE(test, pl_nv_post(test, cli, &f.wr, &x[2]), IB_WC_SUCCESS);
#else
	KUNIT_FAIL(test, "%s", "no SMBDX_HAVE_NATIVE_PUSH: the kernel lacks its patch");
#endif
}

/* ---- fault points of the new paths ------------------------------------------ */

#ifdef CONFIG_FAULT_INJECTION
enum pl_fop {
	PL_FOP_REGISTER,
	PL_FOP_WRITE,
	PL_FOP_COMMIT,
	PL_FOP_REVOKE,
};

struct pl_fault {
	struct tl_dev dev;
	enum smbdx_fault fault;
	enum pl_fop op;
	int cause;		/* 0: the call fails with -ENOMEM, all stays up */
};

static const char * const pl_fop_names[] = {
	"register", "write", "commit", "revoke",
};

static const struct pl_fault pl_faults[] = {
	{ .fault = SMBDX_FAULT_REG_ALLOC, .op = PL_FOP_REGISTER },
	{ .fault = SMBDX_FAULT_MR_POST, .op = PL_FOP_REGISTER,
	  .cause = SMBDX_CAUSE_POST_ERROR },
	{ .fault = SMBDX_FAULT_RW_ALLOC, .op = PL_FOP_WRITE },
	{ .fault = SMBDX_FAULT_RW_POST, .op = PL_FOP_WRITE,
	  .cause = SMBDX_CAUSE_POST_ERROR },
	{ .fault = SMBDX_FAULT_SEND_ALLOC, .op = PL_FOP_COMMIT },
	{ .fault = SMBDX_FAULT_POST_SEND, .op = PL_FOP_COMMIT,
	  .cause = SMBDX_CAUSE_POST_ERROR },
	{ .fault = SMBDX_FAULT_SEND_ALLOC, .op = PL_FOP_REVOKE,
	  .cause = SMBDX_CAUSE_NOMEM },
};

static struct pl_fault pl_fault_cases[ARRAY_SIZE(pl_faults)];

static const void *pl_fault_gen(const void *prev, char *desc)
{
	const struct pl_fault *c = prev ? (const struct pl_fault *)prev + 1 :
					  pl_fault_cases;
	size_t i;

	if (!prev) {
		for (i = 0; i < ARRAY_SIZE(pl_faults); i++) {
			pl_fault_cases[i] = pl_faults[i];
			pl_fault_cases[i].dev = pl_rxe[0];
		}
	}
	if (c >= pl_fault_cases + ARRAY_SIZE(pl_fault_cases))
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "rxe %s %s",
		 pl_fop_names[c->op], smbdx_fault_name(c->fault));
	return c;
}

static void pl_disarm(void *f)
{
	smbdx_fault_arm((enum smbdx_fault)(unsigned long)f, 0);
}

/*
 * A fault point on the push path fires once: the call fails with -ENOMEM
 * and the connection goes on, or the connection ends with the point's
 * cause (on the side that hit it); nothing is left behind either way.
 */
static void push_live_faults(struct kunit *test)
{
	const struct pl_fault *c = test->param_value;
	struct smbdx_conn_config cfg;
	struct smbdx_push_desc desc;
	struct smbdx_push_region *r = NULL;
	struct smbdx_push_target *t = NULL;
	struct smbdx_conn *hit;
	struct kvec kv;
	struct iov_iter it;
	struct tl_pair p;
	int base = smbdx_test_conns_alive();
	u8 src[64] = { 5 };
	u8 *buf;
	int rc;

	pl_cfg(&cfg, true);
	pl_pair_up(test, &p, &cfg);
	buf = pl_buf(test);
	if (c->op != PL_FOP_REGISTER) {
		r = pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL, &desc);
		t = pl_attach(test, p.cli, &desc);
		KUNIT_ASSERT_EQ(test, pl_write(t, 0, src, sizeof(src)), 0);
		KUNIT_ASSERT_EQ(test, smbdx_push_flush(t, 0, sizeof(src),
						       SMBDX_PUSH_GLOBAL), 0);
	}
	/* Idle before the point is armed (credit messages settled). */
	pl_expect_alive(test, &p);
	msleep(200);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pl_disarm,
							(void *)(unsigned long)c->fault),
			0);
	smbdx_fault_arm(c->fault, 1);
	switch (c->op) {
	case PL_FOP_REGISTER:
		kv.iov_base = buf;
		kv.iov_len = PL_LEN;
		iov_iter_kvec(&it, ITER_DEST, &kv, 1, PL_LEN);
		r = smbdx_push_register(p.srvc, &it, SMBDX_PUSH_GLOBAL, &desc);
		rc = PTR_ERR_OR_ZERO(r);
		if (rc)
			r = NULL;
		else
			KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
									pl_revoke_action,
									r), 0);
		hit = p.srvc;
		break;
	case PL_FOP_WRITE:
		rc = pl_write(t, 0, src, sizeof(src));
		hit = p.cli;
		break;
	case PL_FOP_COMMIT:
		rc = smbdx_push_flush(t, 0, sizeof(src), SMBDX_PUSH_GLOBAL);
		hit = p.cli;
		break;
	default:
		rc = pl_revoke(test, r);
		r = NULL;
		hit = p.srvc;
		break;
	}
	KUNIT_EXPECT_EQ_MSG(test, smbdx_fault_left(c->fault), 0,
			    "fault point %s never fired", smbdx_fault_name(c->fault));
	smbdx_fault_arm(c->fault, 0);
	if (!c->cause) {
		KUNIT_EXPECT_EQ(test, rc, -ENOMEM);
		/* The connection goes on, and so does push mode on it. */
		pl_expect_alive(test, &p);
		if (c->op == PL_FOP_REGISTER) {
			r = pl_register(test, p.srvc, buf, SMBDX_PUSH_GLOBAL,
					&desc);
			t = pl_attach(test, p.cli, &desc);
		}
		KUNIT_EXPECT_EQ(test, pl_write(t, 0, src, sizeof(src)), 0);
		KUNIT_EXPECT_EQ(test, smbdx_push_flush(t, 0, sizeof(src),
						       SMBDX_PUSH_GLOBAL), 0);
	} else {
		KUNIT_EXPECT_NE(test, rc, 0);
		pl_expect_cause(test, hit, c->cause);
	}
	if (t)
		pl_detach(test, t);
	if (r)
		KUNIT_EXPECT_EQ(test, pl_revoke(test, r) == 0, !c->cause);
	pl_destroy_pair(test, &p, base);
}
#endif

static struct kunit_case push_live_cases[] = {
	KUNIT_CASE_PARAM(push_live_where, tl_dev_gen_params),
	KUNIT_CASE_PARAM(push_live_not_offered, pl_offer_gen),
	KUNIT_CASE_PARAM(push_live_local_errors, pl_rxe_gen_params),
	KUNIT_CASE_PARAM(push_live_commit_order, tl_dev_gen_params),
	KUNIT_CASE_PARAM(push_live_revoke, tl_dev_gen_params),
	KUNIT_CASE_PARAM(push_live_revoke_inflight, tl_dev_gen_params),
	KUNIT_CASE_PARAM(push_live_revoke_under_load, pl_rxe_gen_params),
	KUNIT_CASE_PARAM(push_live_refused, tl_dev_gen_params),
	KUNIT_CASE_PARAM(push_live_timeout, pl_timeout_gen),
	KUNIT_CASE_PARAM(push_live_native_verbs, pl_rxe_gen_params),
#ifdef CONFIG_FAULT_INJECTION
	KUNIT_CASE_PARAM(push_live_faults, pl_fault_gen),
#endif
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
