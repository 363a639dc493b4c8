// SPDX-License-Identifier: GPL-2.0
/*
 * smbd_rdma_bench.ko: RDMA read/write throughput of smbdirect, for
 * scripts/bench-rdma.sh, and, with verify=1, RDMA read/write with every
 * byte checked, for the tests.
 *
 *   /sys/kernel/debug/smbd_rdma_bench/control  write one command
 *   /sys/kernel/debug/smbd_rdma_bench/result   its output
 *
 * Command:
 *
 *   run ADDR PORT op=read|write size=N count=N depth=N reg=each|once
 *       buf=vmalloc|folio verify=0|1
 *
 * It listens on ADDR:PORT, connects to itself, and has the client register
 * a buffer of size bytes (for the peer to write, or to read) and the
 * accepted server connection move it count times with smbdx_rdma_write()
 * or smbdx_rdma_read(), as an SMB server serves SMB2 READ and WRITE. With
 * reg=each every transfer registers and deregisters the buffer (the cost
 * an SMB client pays per I/O); with reg=once the buffer is registered
 * once. With depth=N (1 to 32, default 1) N workers on an unbound
 * workqueue share the count, each with its own buffers and registration,
 * so that N transfers are in flight on the connection, as when a server
 * serves N requests at once. buf=vmalloc (the default) gives buffers of
 * scattered pages, as ksmbd's kvmalloc'd read buffers; buf=folio gives
 * large folios (up to MAX_PAGE_ORDER), as cifs's page cache can. The
 * descriptors are handed over in memory, so only the RDMA data movement
 * and the registration are measured. The result line gives the time in
 * us, the bytes moved and MiB/s (2^20 bytes per second, the unit perftest
 * prints as MB/sec).
 *
 * With verify=1 (a test, not a benchmark: tests/vm/smbd_checked_data.sh
 * and smbd_removal_rw.sh) every transfer's source is filled with a pattern
 * of its own (from the transfer's number and the byte's offset), the
 * destination with its complement, and after the transfer every byte of
 * the destination is compared: the result line adds verified=BYTES and
 * corrupt=BYTES (bytes that differ), and a corrupt transfer fails the run
 * with -EILSEQ. A transfer that reported success but whose data was not
 * there when the connection died (an iWARP RDMA Write completes once
 * sent, before placement) counts as unconfirmed=BYTES, not corrupt. A
 * run that fails (a lost connection, a removed device) still prints its
 * result line: what it moved before the failure.
 *
 * Locking: bench_mutex serialises commands (and guards bench_result); the
 * accept callback only records the connection under bench_lock and wakes
 * the command. The workers of a run share only atomics; each owns its
 * buffers and registration.
 */

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/unaligned.h>
#include <linux/highmem.h>
#include <net/net_namespace.h>

#include <smbdirect/smbdirect.h>

#define BENCH_RESULT_MAX	1024
#define BENCH_DEPTH_MAX		32

static DEFINE_MUTEX(bench_mutex);
static DEFINE_SPINLOCK(bench_lock);
static DECLARE_WAIT_QUEUE_HEAD(bench_wq);
static struct smbdx_conn *bench_accepted;	/* under bench_lock */
static char bench_result[BENCH_RESULT_MAX];	/* under bench_mutex */
static struct dentry *bench_dir;

static int bench_accept(struct smbdx_listener *lis, struct smbdx_conn *conn)
{
	int rc = 0;

	spin_lock_bh(&bench_lock);
	if (bench_accepted)
		rc = -EBUSY;
	else
		bench_accepted = conn;
	spin_unlock_bh(&bench_lock);
	wake_up_all(&bench_wq);
	return rc;
}

static const struct smbdx_listener_ops bench_lis_ops = {
	.accept = bench_accept,
};

static struct smbdx_conn *bench_take(void)
{
	struct smbdx_conn *c;

	spin_lock_bh(&bench_lock);
	c = bench_accepted;
	bench_accepted = NULL;
	spin_unlock_bh(&bench_lock);
	return c;
}

/* One worker of a run: its own buffers and, with reg=once, registration. */
/*
 * A buffer: vmalloc memory (every page its own scatterlist entry, like the
 * kvmalloc buffers ksmbd reads into) or large folios (a few long entries,
 * like page-cache folios that cifs passes in a folio queue).
 */
struct bench_buf {
	void *vaddr;		/* vmalloc kind */
	struct bio_vec *bv;	/* folio kind: one entry per folio */
	unsigned int nr_bv;
	u32 size;
};

struct bench_worker {
	struct work_struct work;
	struct bench_run *run;
	struct bench_buf cbuf;
	struct bench_buf sbuf;
	struct smbdx_reg *reg;
	int rc;
};

/* A run: depth workers share the transfer count. */
struct bench_run {
	struct smbdx_conn *cli;
	struct smbdx_conn *srv;
	u32 size;
	u32 count;
	bool read;
	bool each;
	bool folios;
	bool verify;
	atomic_t next;		/* transfers handed out so far */
	atomic_t done;		/* transfers completed successfully */
	atomic_t failed;	/* set once a worker failed: the others stop */
	atomic64_t verified;	/* bytes compared after a transfer */
	atomic64_t corrupt;	/* of those, bytes that differed */
	atomic64_t unconfirmed;	/* not placed before the connection died */
};

static void bench_buf_free(struct bench_buf *b)
{
	unsigned int i;

	vfree(b->vaddr);
	for (i = 0; i < b->nr_bv; i++)
		folio_put(page_folio(b->bv[i].bv_page));
	kfree(b->bv);
	memset(b, 0, sizeof(*b));
}

/* Folios as large as the size needs, smaller ones when memory is short. */
static int bench_buf_alloc_folios(struct bench_buf *b, u32 size)
{
	unsigned int order = min_t(unsigned int, get_order(size),
				   MAX_PAGE_ORDER);
	u32 left = size;

	b->bv = kcalloc(DIV_ROUND_UP(size, PAGE_SIZE), sizeof(*b->bv),
			GFP_KERNEL);
	if (!b->bv)
		return -ENOMEM;
	while (left) {
		struct folio *f;
		u32 len;

		f = folio_alloc(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
				__GFP_NORETRY, order);
		if (!f) {
			if (!order)
				return -ENOMEM;
			order--;
			continue;
		}
		len = min_t(u32, left, folio_size(f));
		bvec_set_page(&b->bv[b->nr_bv++], &f->page, len, 0);
		left -= len;
	}
	return 0;
}

static int bench_buf_alloc(struct bench_buf *b, u32 size, bool folios)
{
	int rc = 0;

	b->size = size;
	if (folios) {
		rc = bench_buf_alloc_folios(b, size);
	} else {
		b->vaddr = vzalloc(size);
		if (!b->vaddr)
			rc = -ENOMEM;
	}
	if (rc)
		bench_buf_free(b);
	return rc;
}

/* An iterator over the whole buffer; @kv is its storage for a kvec. */
static void bench_buf_iter(struct bench_buf *b, struct iov_iter *it,
			   struct kvec *kv, unsigned int dir)
{
	if (b->bv) {
		iov_iter_bvec(it, dir, b->bv, b->nr_bv, b->size);
	} else {
		kv->iov_base = b->vaddr;
		kv->iov_len = b->size;
		iov_iter_kvec(it, dir, kv, 1, b->size);
	}
}

/* Byte @off of transfer @seq's pattern: a word per 8 bytes, mixed. */
static u64 bench_word(u32 seq, u64 word)
{
	u64 x = ((u64)seq + 1) * 0x9e3779b97f4a7c15ULL ^ word;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	return x ^ (x >> 29);
}

static u8 bench_byte(u32 seq, u64 off)
{
	return bench_word(seq, off >> 3) >> ((off & 7) * 8);
}

/*
 * Fill (@fill) or compare @len bytes at @p, offset @off in the buffer, with
 * transfer @seq's pattern (@invert: its complement); the number of bytes
 * that differ.
 */
static u64 bench_span(u8 *p, u64 off, size_t len, u32 seq, bool fill,
		      bool invert)
{
	u64 mask = invert ? ~0ULL : 0, bad = 0;
	size_t i = 0;

	while (i < len && ((off + i) & 7)) {
		u8 v = bench_byte(seq, off + i) ^ (u8)mask;

		if (fill)
			p[i] = v;
		else
			bad += p[i] != v;
		i++;
	}
	for (; i + 8 <= len; i += 8) {
		__le64 v = cpu_to_le64(bench_word(seq, (off + i) >> 3) ^ mask);

		if (fill) {
			put_unaligned(v, (__le64 *)(p + i));
		} else if (get_unaligned((__le64 *)(p + i)) != v) {
			unsigned int b;

			for (b = 0; b < 8; b++)
				bad += p[i + b] != (u8)(bench_byte(seq,
						off + i + b) ^ (u8)mask);
		}
	}
	for (; i < len; i++) {
		u8 v = bench_byte(seq, off + i) ^ (u8)mask;

		if (fill)
			p[i] = v;
		else
			bad += p[i] != v;
	}
	return bad;
}

/* bench_span() over a whole buffer, a page at a time for folios. */
static u64 bench_pattern(struct bench_buf *b, u32 seq, bool fill, bool invert)
{
	u64 off = 0, bad = 0;
	unsigned int i;

	if (!b->bv)
		return bench_span(b->vaddr, 0, b->size, seq, fill, invert);
	for (i = 0; i < b->nr_bv; i++) {
		u32 done = 0;

		while (done < b->bv[i].bv_len) {
			u32 pg = (b->bv[i].bv_offset + done) >> PAGE_SHIFT;
			u32 in = (b->bv[i].bv_offset + done) & ~PAGE_MASK;
			u32 n = min_t(u32, PAGE_SIZE - in,
				      b->bv[i].bv_len - done);
			u8 *va = kmap_local_page(nth_page(b->bv[i].bv_page, pg));

			bad += bench_span(va + in, off, n, seq, fill, invert);
			kunmap_local(va);
			done += n;
			off += n;
		}
		cond_resched();
	}
	return bad;
}

static struct smbdx_reg *bench_register(struct bench_run *run,
					struct bench_buf *cbuf)
{
	struct iov_iter it;
	struct kvec kv;

	bench_buf_iter(cbuf, &it, &kv, run->read ? ITER_SOURCE : ITER_DEST);
	return smbdx_register(run->cli, &it, run->read ? SMBDX_REG_REMOTE_READ :
			     SMBDX_REG_REMOTE_WRITE);
}

static int bench_one(struct bench_run *run, struct bench_worker *w, u32 seq)
{
	struct bench_buf *src = run->read ? &w->cbuf : &w->sbuf;
	struct bench_buf *dst = run->read ? &w->sbuf : &w->cbuf;
	const struct smbdx_buffer_desc_v1 *d;
	struct smbdx_reg *reg = w->reg;
	struct iov_iter it;
	struct kvec kv;
	int rc;
	u32 n;

	if (run->verify) {
		bench_pattern(src, seq, true, false);
		bench_pattern(dst, seq, true, true);
	}
	if (run->each) {
		reg = bench_register(run, &w->cbuf);
		if (IS_ERR(reg))
			return PTR_ERR(reg);
	}
	d = smbdx_reg_descs(reg, &n);
	bench_buf_iter(&w->sbuf, &it, &kv, run->read ? ITER_DEST : ITER_SOURCE);
	if (run->read)
		rc = smbdx_rdma_read(run->srv, &it, d, n, 0);
	else
		rc = smbdx_rdma_write(run->srv, &it, d, n, 0);
	if (run->each) {
		int rc2 = smbdx_deregister(reg);

		if (!rc)
			rc = rc2;
	}
	if (!rc && run->verify) {
		u64 bad = bench_pattern(dst, seq, false, false);

		/*
		 * An RDMA Write's completion says the data left the writer,
		 * not that it was placed: on iWARP it can still be in the
		 * TCP stream (only a later message on the connection, as
		 * SMB2's response, proves placement). Give data in flight a
		 * moment; if the connection died meanwhile, what did not
		 * arrive was never confirmed and is not corruption.
		 */
		if (bad) {
			msleep(100);
			bad = bench_pattern(dst, seq, false, false);
		}
		if (bad && (smbdx_conn_error(run->srv) || smbdx_conn_error(run->cli))) {
			atomic64_add(dst->size, &run->unconfirmed);
			return smbdx_conn_error(run->srv) ?: smbdx_conn_error(run->cli);
		}
		atomic64_add(dst->size, &run->verified);
		atomic64_add(bad, &run->corrupt);
		if (bad)
			rc = -EILSEQ;
	}
	return rc;
}

static void bench_work(struct work_struct *work)
{
	struct bench_worker *w = container_of(work, struct bench_worker, work);
	struct bench_run *run = w->run;
	int seq;

	while (!atomic_read(&run->failed) &&
	       (seq = atomic_inc_return(&run->next)) <= run->count) {
		w->rc = bench_one(run, w, seq);
		if (w->rc) {
			atomic_set(&run->failed, 1);
			break;
		}
		atomic_inc(&run->done);
	}
}

static void bench_workers_free(struct bench_worker *ws, u32 depth)
{
	u32 i;

	for (i = 0; i < depth; i++) {
		if (ws[i].reg)
			smbdx_deregister(ws[i].reg);
		bench_buf_free(&ws[i].cbuf);
		bench_buf_free(&ws[i].sbuf);
	}
	kfree(ws);
}

/* Buffers for every worker, and with reg=once their registrations. */
static struct bench_worker *bench_workers_alloc(struct bench_run *run,
						u32 depth)
{
	struct bench_worker *ws;
	u32 i;

	ws = kcalloc(depth, sizeof(*ws), GFP_KERNEL);
	if (!ws)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < depth; i++) {
		struct bench_worker *w = &ws[i];

		INIT_WORK(&w->work, bench_work);
		w->run = run;
		if (bench_buf_alloc(&w->cbuf, run->size, run->folios) ||
		    bench_buf_alloc(&w->sbuf, run->size, run->folios)) {
			bench_workers_free(ws, depth);
			return ERR_PTR(-ENOMEM);
		}
		if (!run->each) {
			w->reg = bench_register(run, &w->cbuf);
			if (IS_ERR(w->reg)) {
				int rc = PTR_ERR(w->reg);

				w->reg = NULL;
				bench_workers_free(ws, depth);
				return ERR_PTR(rc);
			}
		}
	}
	return ws;
}

/* Move the buffers with depth transfers in flight; the result line. */
static int bench_transfer(struct bench_run *run, u32 depth)
{
	struct workqueue_struct *wq;
	struct bench_worker *ws;
	u64 bytes, mib100;
	ktime_t start;
	s64 us;
	u32 i;
	int rc = 0;

	ws = bench_workers_alloc(run, depth);
	if (IS_ERR(ws))
		return PTR_ERR(ws);
	wq = alloc_workqueue("smbd_rdma_bench", WQ_UNBOUND, depth);
	if (!wq) {
		bench_workers_free(ws, depth);
		return -ENOMEM;
	}
	start = ktime_get();
	for (i = 0; i < depth; i++)
		queue_work(wq, &ws[i].work);
	flush_workqueue(wq);
	us = max_t(s64, ktime_us_delta(ktime_get(), start), 1);
	destroy_workqueue(wq);
	for (i = 0; i < depth && !rc; i++)
		rc = ws[i].rc;
	bench_workers_free(ws, depth);

	bytes = (u64)atomic_read(&run->done) * run->size;
	/* MiB/s (2^20 bytes per second) with two decimals */
	mib100 = div64_u64(bytes * 100 * 1000000, (u64)us << 20);
	snprintf(bench_result, sizeof(bench_result),
		 "op=%s size=%u count=%u depth=%u reg=%s buf=%s rc=%d us=%lld bytes=%llu MiB/s=%llu.%02llu verified=%lld corrupt=%lld unconfirmed=%lld\n",
		 run->read ? "read" : "write", run->size,
		 atomic_read(&run->done), depth, run->each ? "each" : "once",
		 run->folios ? "folio" : "vmalloc",
		 rc, us, bytes, div64_u64(mib100, 100), mib100 % 100,
		 atomic64_read(&run->verified), atomic64_read(&run->corrupt),
		 atomic64_read(&run->unconfirmed));
	return rc;
}

static int bench_cmd_run(const char *addr, u16 port, struct bench_run *run,
			 u32 depth)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct smbdx_listener *lis;
	struct smbdx_conn *srv;
	int rc;

	if (!in4_pton(addr, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	sin.sin_port = htons(port);
	lis = smbdx_listen(&init_net, (struct sockaddr *)&sin, NULL,
			   &bench_lis_ops, NULL);
	if (IS_ERR(lis))
		return PTR_ERR(lis);
	run->cli = smbdx_connect(&init_net, (struct sockaddr *)&sin, NULL, NULL,
				 NULL, NULL);
	if (IS_ERR(run->cli)) {
		rc = PTR_ERR(run->cli);
		goto out_lis;
	}
	if (!wait_event_timeout(bench_wq, READ_ONCE(bench_accepted),
				30 * HZ)) {
		rc = -ETIMEDOUT;
		goto out_cli;
	}
	run->srv = bench_take();
	rc = bench_transfer(run, depth);
	smbdx_destroy(run->srv);
out_cli:
	smbdx_destroy(run->cli);
out_lis:
	smbdx_listener_destroy(lis);
	srv = bench_take();
	if (srv)
		smbdx_destroy(srv);
	return rc;
}

static ssize_t bench_control_write(struct file *f, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	char *buf, *p, *tok, *addr = NULL;
	struct bench_run run = { .size = 1048576, .count = 100, .each = true };
	u32 port = 7445, depth = 1, argn = 0;
	int rc = 0;

	if (len > 256)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	p = strim(buf);
	while ((tok = strsep(&p, " \t\n")) && !rc) {
		if (!*tok)
			continue;
		if (argn == 0 && strcmp(tok, "run"))
			rc = -EINVAL;
		else if (argn == 1)
			addr = tok;
		else if (argn == 2)
			rc = kstrtou32(tok, 0, &port);
		else if (!strcmp(tok, "op=read"))
			run.read = true;
		else if (!strcmp(tok, "op=write"))
			run.read = false;
		else if (!strcmp(tok, "reg=each"))
			run.each = true;
		else if (!strcmp(tok, "reg=once"))
			run.each = false;
		else if (!strcmp(tok, "buf=folio"))
			run.folios = true;
		else if (!strcmp(tok, "buf=vmalloc"))
			run.folios = false;
		else if (!strcmp(tok, "verify=1"))
			run.verify = true;
		else if (!strcmp(tok, "verify=0"))
			run.verify = false;
		else if (!strncmp(tok, "size=", 5))
			rc = kstrtou32(tok + 5, 0, &run.size);
		else if (!strncmp(tok, "count=", 6))
			rc = kstrtou32(tok + 6, 0, &run.count);
		else if (!strncmp(tok, "depth=", 6))
			rc = kstrtou32(tok + 6, 0, &depth);
		else if (argn > 2)
			rc = -EINVAL;
		argn++;
	}
	if (!rc && (!addr || !run.size || !run.count || port > 65535 || !depth ||
		    depth > BENCH_DEPTH_MAX))
		rc = -EINVAL;
	mutex_lock(&bench_mutex);
	bench_result[0] = '\0';
	if (!rc)
		rc = bench_cmd_run(addr, port, &run, depth);
	if (rc && !bench_result[0])
		snprintf(bench_result, sizeof(bench_result), "error: %d\n", rc);
	mutex_unlock(&bench_mutex);
	kfree(buf);
	return rc ? rc : len;
}

static const struct file_operations bench_control_fops = {
	.owner = THIS_MODULE,
	.write = bench_control_write,
};

static int bench_result_show(struct seq_file *m, void *unused)
{
	mutex_lock(&bench_mutex);
	seq_puts(m, bench_result);
	mutex_unlock(&bench_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bench_result);

static int __init bench_init(void)
{
	bench_dir = debugfs_create_dir("smbd_rdma_bench", NULL);
	debugfs_create_file("control", 0200, bench_dir, NULL,
			    &bench_control_fops);
	debugfs_create_file("result", 0444, bench_dir, NULL,
			    &bench_result_fops);
	return 0;
}

static void __exit bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_DESCRIPTION("smbdirect RDMA read/write benchmark driver");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SMBDX_NS);
