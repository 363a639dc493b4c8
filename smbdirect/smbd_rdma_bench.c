// SPDX-License-Identifier: GPL-2.0
/*
 * smbd_rdma_bench.ko: RDMA read/write throughput of smbdirect, for
 * scripts/bench-rdma.sh (a benchmark, not a test).
 *
 *   /sys/kernel/debug/smbd_rdma_bench/control  write one command
 *   /sys/kernel/debug/smbd_rdma_bench/result   its output
 *
 * Command:
 *
 *   run ADDR PORT op=read|write size=N count=N reg=each|once
 *
 * It listens on ADDR:PORT, connects to itself, and has the client register
 * a buffer of size bytes (for the peer to write, or to read) and the
 * accepted server connection move it count times with smbd_rdma_write()
 * or smbd_rdma_read(), as an SMB server serves SMB2 READ and WRITE. With
 * reg=each every transfer registers and deregisters the buffer (the cost
 * an SMB client pays per I/O); with reg=once the buffer is registered
 * once. The descriptors are handed over in memory, so only the RDMA data
 * movement and the registration are measured.
 *
 * Locking: bench_mutex serialises commands; the accept callback only
 * records the connection under bench_lock and wakes the command.
 */

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>

#include <smbdirect/smbdirect.h>

#define BENCH_RESULT_MAX	1024

static DEFINE_MUTEX(bench_mutex);
static DEFINE_SPINLOCK(bench_lock);
static DECLARE_WAIT_QUEUE_HEAD(bench_wq);
static struct smbd_conn *bench_accepted;	/* under bench_lock */
static char bench_result[BENCH_RESULT_MAX];	/* under bench_mutex */
static struct dentry *bench_dir;

static int bench_accept(struct smbd_listener *lis, struct smbd_conn *conn)
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

static const struct smbd_listener_ops bench_lis_ops = {
	.accept = bench_accept,
};

static struct smbd_conn *bench_take(void)
{
	struct smbd_conn *c;

	spin_lock_bh(&bench_lock);
	c = bench_accepted;
	bench_accepted = NULL;
	spin_unlock_bh(&bench_lock);
	return c;
}

static int bench_one(struct smbd_conn *cli, struct smbd_conn *srv,
		     struct smbd_reg *reg, void *cbuf, void *sbuf, u32 size,
		     bool read)
{
	const struct smbd_buffer_desc_v1 *d;
	struct kvec kv = { .iov_base = sbuf, .iov_len = size };
	struct iov_iter it;
	bool own = !reg;
	int rc;
	u32 n;

	if (own) {
		struct kvec ckv = { .iov_base = cbuf, .iov_len = size };

		iov_iter_kvec(&it, read ? ITER_SOURCE : ITER_DEST, &ckv, 1,
			      size);
		reg = smbd_register(cli, &it, read ? SMBD_REG_REMOTE_READ :
				    SMBD_REG_REMOTE_WRITE);
		if (IS_ERR(reg))
			return PTR_ERR(reg);
	}
	d = smbd_reg_descs(reg, &n);
	iov_iter_kvec(&it, read ? ITER_DEST : ITER_SOURCE, &kv, 1, size);
	if (read)
		rc = smbd_rdma_read(srv, &it, d, n, 0);
	else
		rc = smbd_rdma_write(srv, &it, d, n, 0);
	if (own) {
		int rc2 = smbd_deregister(reg);

		if (!rc)
			rc = rc2;
	}
	return rc;
}

static int bench_run(const char *addr, u16 port, bool read, u32 size,
		     u32 count, bool each)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct smbd_listener *lis;
	struct smbd_conn *cli, *srv = NULL;
	struct smbd_reg *reg = NULL;
	void *cbuf, *sbuf;
	ktime_t start;
	s64 us;
	u32 i;
	int rc;

	if (!in4_pton(addr, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	sin.sin_port = htons(port);
	cbuf = vzalloc(size);
	sbuf = vzalloc(size);
	if (!cbuf || !sbuf) {
		rc = -ENOMEM;
		goto out_buf;
	}
	lis = smbd_listen(&init_net, (struct sockaddr *)&sin, NULL,
			  &bench_lis_ops, NULL);
	if (IS_ERR(lis)) {
		rc = PTR_ERR(lis);
		goto out_buf;
	}
	cli = smbd_connect(&init_net, (struct sockaddr *)&sin, NULL, NULL,
			   NULL, NULL);
	if (IS_ERR(cli)) {
		rc = PTR_ERR(cli);
		goto out_lis;
	}
	if (!wait_event_timeout(bench_wq, READ_ONCE(bench_accepted),
				30 * HZ)) {
		rc = -ETIMEDOUT;
		goto out_cli;
	}
	srv = bench_take();

	if (!each) {
		struct kvec ckv = { .iov_base = cbuf, .iov_len = size };
		struct iov_iter it;

		iov_iter_kvec(&it, read ? ITER_SOURCE : ITER_DEST, &ckv, 1,
			      size);
		reg = smbd_register(cli, &it, read ? SMBD_REG_REMOTE_READ :
				    SMBD_REG_REMOTE_WRITE);
		if (IS_ERR(reg)) {
			rc = PTR_ERR(reg);
			reg = NULL;
			goto out_srv;
		}
	}
	rc = 0;
	start = ktime_get();
	for (i = 0; i < count && !rc; i++)
		rc = bench_one(cli, srv, reg, cbuf, sbuf, size, read);
	us = max_t(s64, ktime_us_delta(ktime_get(), start), 1);
	snprintf(bench_result, sizeof(bench_result),
		 "op=%s size=%u count=%u reg=%s rc=%d us=%lld MB/s=%llu ops/s=%llu\n",
		 read ? "read" : "write", size, i, each ? "each" : "once", rc,
		 us, div64_u64((u64)i * size, us),
		 div64_u64((u64)i * 1000000, us));
	if (reg)
		smbd_deregister(reg);
out_srv:
	smbd_destroy(srv);
out_cli:
	smbd_destroy(cli);
out_lis:
	smbd_listener_destroy(lis);
	srv = bench_take();
	if (srv)
		smbd_destroy(srv);
out_buf:
	vfree(cbuf);
	vfree(sbuf);
	return rc;
}

static ssize_t bench_control_write(struct file *f, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	char *buf, *p, *tok, *addr = NULL;
	u32 size = 1048576, count = 100, port = 7445, argn = 0;
	bool read = false, each = true;
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
			read = true;
		else if (!strcmp(tok, "op=write"))
			read = false;
		else if (!strcmp(tok, "reg=each"))
			each = true;
		else if (!strcmp(tok, "reg=once"))
			each = false;
		else if (!strncmp(tok, "size=", 5))
			rc = kstrtou32(tok + 5, 0, &size);
		else if (!strncmp(tok, "count=", 6))
			rc = kstrtou32(tok + 6, 0, &count);
		else if (argn > 2)
			rc = -EINVAL;
		argn++;
	}
	if (!rc && (!addr || !size || !count || port > 65535))
		rc = -EINVAL;
	mutex_lock(&bench_mutex);
	if (!rc)
		rc = bench_run(addr, port, read, size, count, each);
	if (rc)
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
