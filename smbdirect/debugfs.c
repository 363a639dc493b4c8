// SPDX-License-Identifier: GPL-2.0
/*
 * smbdirect debugfs (Documentation/admin-guide.rst, "debugfs"), under
 * /sys/kernel/debug/smbdirect:
 *
 *   devices       one line per RDMA device (device.c)
 *   stats         connection and listener counts, every counter summed
 *                 over all connections ever made, errors by cause
 *   connections   one line per connection
 *   listeners     one line per listener
 *   netdevs       one line per network interface: the RDMA port it reaches
 *                 (netdev.c)
 *   conn/<n>/     one directory per connection: state, params, credits,
 *                 counters, errors
 *
 * Every file is "key value" or "key=value" text meant for grep and awk;
 * Documentation/admin-guide.rst lists the keys.
 *
 * Locking: readers take smbdx_conns_lock or smbdx_listeners_lock to walk the
 * lists and conn->lock briefly for a consistent snapshot of the credit
 * state; counters are atomics read without locks, so reading never stalls
 * the data path for long. A connection's directory is removed before the
 * connection is freed, and debugfs waits for readers in progress.
 */

#include <linux/debugfs.h>
#include <linux/module.h>

#include "smbd.h"

static struct dentry *smbdx_debugfs_conn_dir;

DEFINE_SHOW_ATTRIBUTE(smbdx_devices);

static void smbdx_show_stats(struct seq_file *m, const struct smbdx_stats *st)
{
	int i;

	for (i = 0; i < SMBDX_STAT_COUNT; i++)
		seq_printf(m, "%s %lld\n", smbdx_stat_name(i),
			   (long long)atomic64_read(&st->v[i]));
}

static void smbdx_show_errors(struct seq_file *m, const struct smbdx_stats *st)
{
	int i;

	for (i = 1; i < SMBDX_CAUSE_COUNT; i++)
		seq_printf(m, "%s %lld\n", smbdx_cause_name(i),
			   (long long)atomic64_read(&st->errors[i]));
}

static int smbdx_stats_show(struct seq_file *m, void *unused)
{
	struct smbdx_listener *lis;
	struct smbdx_conn *conn;
	int nconn = 0, nlis = 0;

	mutex_lock(&smbdx_conns_lock);
	list_for_each_entry(conn, &smbdx_conns, node)
		nconn++;
	mutex_unlock(&smbdx_conns_lock);
	mutex_lock(&smbdx_listeners_lock);
	list_for_each_entry(lis, &smbdx_listeners, node)
		nlis++;
	mutex_unlock(&smbdx_listeners_lock);

	seq_printf(m, "connections %d\n", nconn);
	seq_printf(m, "connections_allocated %d\n", atomic_read(&smbdx_conns_alive));
	seq_printf(m, "listeners %d\n", nlis);
	smbdx_show_stats(m, &smbdx_global_stats);
	seq_puts(m, "# errors by cause\n");
	smbdx_show_errors(m, &smbdx_global_stats);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smbdx_stats);

static void smbdx_conn_line(struct seq_file *m, struct smbdx_conn *conn)
{
	enum smbdx_conn_state state;
	int err, cause;

	spin_lock_bh(&conn->lock);
	state = conn->state;
	err = conn->error;
	cause = conn->cause;
	spin_unlock_bh(&conn->lock);

	seq_printf(m, "%u role=%s state=%s dev=%s local=%pISpc peer=%pISpc error=%d cause=%s\n",
		   conn->num,
		   conn->role == SMBDX_ROLE_ACTIVE ? "active" : "passive",
		   smbdx_state_str(state), conn->devname,
		   &conn->local, &conn->peer, err, smbdx_cause_name(cause));
}

static int smbdx_connections_show(struct seq_file *m, void *unused)
{
	struct smbdx_conn *conn;

	mutex_lock(&smbdx_conns_lock);
	list_for_each_entry(conn, &smbdx_conns, node)
		smbdx_conn_line(m, conn);
	mutex_unlock(&smbdx_conns_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smbdx_connections);

static int smbdx_listeners_show(struct seq_file *m, void *unused)
{
	struct smbdx_listener *lis;
	u32 pending;
	int err;

	mutex_lock(&smbdx_listeners_lock);
	list_for_each_entry(lis, &smbdx_listeners, node) {
		spin_lock_bh(&lis->lock);
		pending = lis->nconns;
		err = lis->error;
		spin_unlock_bh(&lis->lock);
		seq_printf(m, "%u addr=%pISpc dev=%s negotiating=%u accepted=%lld refused=%lld error=%d over_limit=%lld\n",
			   lis->num, &lis->addr, lis->devname,
			   pending, (long long)atomic64_read(&lis->accepted),
			   (long long)atomic64_read(&lis->refused), err,
			   (long long)atomic64_read(&lis->over_limit));
	}
	mutex_unlock(&smbdx_listeners_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smbdx_listeners);

static int smbdx_conn_state_show(struct seq_file *m, void *unused)
{
	struct smbdx_conn *conn = m->private;

	smbdx_conn_line(m, conn);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smbdx_conn_state);

/* SMBDX_CAP_* bits as a comma-separated list, "none" if there are none. */
static void smbdx_caps_flags_show(struct seq_file *m, const char *key, u8 flags)
{
	static const char * const names[] = {
		"flush_global", "flush_persistent", "atomic_write",
	};
	const char *sep = "";
	unsigned int i;

	seq_printf(m, "%s ", key);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (flags & BIT(i)) {
			seq_printf(m, "%s%s", sep, names[i]);
			sep = ",";
		}
	}
	seq_printf(m, "%s\n", *sep ? "" : "none");
}

static const char *smbdx_pd_result_str(enum smbdx_pd_result r)
{
	switch (r) {
	case SMBDX_PD_ABSENT:
		return "absent";
	case SMBDX_PD_FOUND:
		return "found";
	case SMBDX_PD_BAD_VERSION:
		return "bad_version";
	case SMBDX_PD_TRUNCATED:
		return "truncated";
	}
	return "?";
}

static void smbdx_conn_caps_print(struct seq_file *m,
				  const struct smbdx_conn_caps *c)
{
	seq_printf(m, "caps_sent %d\n", c->sent);
	smbdx_caps_flags_show(m, "caps_own", c->own.flags);
	seq_printf(m, "caps_own_push_ird %u\n", c->own.push_ird);
	seq_printf(m, "caps_peer_blob %s\n", smbdx_pd_result_str(c->peer_blob));
	smbdx_caps_flags_show(m, "caps_peer", c->peer.flags);
	seq_printf(m, "caps_peer_push_ird %u\n", c->peer.push_ird);
}

/* The RDMA transforms the upper layer negotiated (smbdx_conn_set_xform()). */
static void smbdx_conn_xform_print(struct seq_file *m, u8 xf)
{
	const char *s;

	switch (xf & SMBDX_XF_KNOWN) {
	case SMBDX_XF_ENCRYPTION:
		s = "encryption";
		break;
	case SMBDX_XF_SIGNING:
		s = "signing";
		break;
	case SMBDX_XF_KNOWN:
		s = "encryption,signing";
		break;
	default:
		s = "none";
	}
	seq_printf(m, "rdma_transform %s\n", s);
}

static void smbdx_conn_params_print(struct seq_file *m, struct smbdx_conn *conn)
{
	struct smbdx_conn_caps caps;
	struct smbdx_proto_params p;
	bool negotiated;
	u32 ird, ord;

	spin_lock_bh(&conn->lock);
	p = conn->params;
	negotiated = conn->negotiated;
	ird = conn->ird;
	ord = conn->ord;
	caps = conn->caps;
	spin_unlock_bh(&conn->lock);

	seq_printf(m, "negotiated %d\n", negotiated);
	seq_printf(m, "protocol 0x%04x\n", p.protocol);
	seq_printf(m, "max_send_size %u\n", p.max_send_size);
	seq_printf(m, "max_receive_size %u\n", p.max_receive_size);
	seq_printf(m, "max_fragmented_send_size %u\n", p.max_fragmented_send_size);
	seq_printf(m, "max_fragmented_recv_size %u\n", p.max_fragmented_recv_size);
	seq_printf(m, "max_read_write_size %u\n", p.max_read_write_size);
	seq_printf(m, "keepalive_interval %u\n", p.keepalive_interval);
	seq_printf(m, "keepalive_ms %u\n", conn->cfg.keepalive_ms);
	seq_printf(m, "keepalive_wait_ms %u\n", conn->cfg.keepalive_wait_ms);
	seq_printf(m, "negotiate_timeout_ms %u\n", conn->cfg.negotiate_timeout_ms);
	seq_printf(m, "io_timeout_ms %u\n", conn->cfg.io_timeout_ms);
	seq_printf(m, "recv_credit_max %u\n", p.recv_credit_max);
	seq_printf(m, "send_credit_target %u\n", p.send_credit_target);
	seq_printf(m, "initial_send_credits %u\n", p.send_credits);
	seq_printf(m, "ird %u\n", ird);
	seq_printf(m, "ord %u\n", ord);
	seq_printf(m, "iwarp %d\n", conn->limits.iwarp);
	seq_printf(m, "recv_queue_max %u\n", conn->cfg.recv_queue_max);
	smbdx_conn_caps_print(m, &caps);
	smbdx_conn_xform_print(m, READ_ONCE(conn->xform));
}

static int smbdx_conn_params_show(struct seq_file *m, void *unused)
{
	smbdx_conn_params_print(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smbdx_conn_params);

static const char *smbdx_keepalive_str(enum smbdx_keepalive k)
{
	switch (k) {
	case SMBDX_KEEPALIVE_NONE:
		return "NONE";
	case SMBDX_KEEPALIVE_PENDING:
		return "PENDING";
	case SMBDX_KEEPALIVE_SENT:
		return "SENT";
	}
	return "?";
}

static void smbdx_conn_credits_print(struct seq_file *m, struct smbdx_conn *conn)
{
	struct smbdx_credits cr;
	struct smbdx_reasm ra;
	u32 sq, rq, qlen, ready, nfree = 0;
	struct smbdx_recv_io *rio;
	u64 held;

	spin_lock_bh(&conn->lock);
	cr = conn->cr;
	ra = conn->recv.ra;
	sq = conn->send.posted;
	rq = conn->recv.posted;
	qlen = conn->send.queue_len;
	ready = conn->recv.ready_msgs;
	held = conn->recv.held_bytes;
	list_for_each_entry(rio, &conn->recv.free, list)
		nfree++;
	spin_unlock_bh(&conn->lock);

	seq_printf(m, "send_credits %u\n", cr.send_credits);
	seq_printf(m, "send_credit_target %u\n", cr.send_credit_target);
	seq_printf(m, "recv_credits_granted %u\n", cr.recv_granted);
	seq_printf(m, "recv_posted %u\n", cr.recv_posted);
	seq_printf(m, "recv_credit_target %u\n", cr.recv_credit_target);
	seq_printf(m, "recv_credit_max %u\n", cr.recv_credit_max);
	seq_printf(m, "send_queued %u\n", cr.send_queued);
	seq_printf(m, "send_immediate %d\n", cr.send_immediate);
	seq_printf(m, "keepalive %s\n", smbdx_keepalive_str(cr.keepalive));
	seq_printf(m, "sends_posted %u\n", sq);
	seq_printf(m, "send_queue_depth %u\n", conn->send.depth);
	seq_printf(m, "recvs_posted %u\n", rq);
	seq_printf(m, "recv_buffers %u\n", conn->recv.nrios);
	seq_printf(m, "recv_buffers_free %u\n", nfree);
	seq_printf(m, "send_queue_len %u\n", qlen);
	seq_printf(m, "reassembly_active %d\n", ra.active);
	seq_printf(m, "reassembly_bytes %u\n", ra.received);
	seq_printf(m, "reassembly_total %u\n", ra.total);
	seq_printf(m, "ready_messages %u\n", ready);
	seq_printf(m, "held_bytes %llu\n", held);
}

static int smbdx_conn_credits_show(struct seq_file *m, void *unused)
{
	smbdx_conn_credits_print(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smbdx_conn_credits);

static void smbdx_conn_mr_print(struct seq_file *m, struct smbdx_conn *conn)
{
	u32 freec, usable, busy = 0, regs = 0, users, ctx_avail, rd_used;
	u32 wr_avail;
	struct smbdx_mr *mr;
	struct list_head *pos;
	bool dead;

	spin_lock_bh(&conn->lock);
	freec = conn->mr.free_count;
	usable = conn->mr.usable;
	dead = conn->mr.dead;
	users = conn->mr.users;
	ctx_avail = conn->rw.ctx_avail;
	rd_used = conn->rw.rd_used;
	wr_avail = conn->rw.wr_avail;
	if (conn->mr.pool) {
		list_for_each_entry(mr, &conn->mr.busy, list)
			busy++;
		list_for_each(pos, &conn->mr.regs)
			regs++;
	}
	spin_unlock_bh(&conn->lock);

	seq_printf(m, "mr_pool_size %u\n", conn->mr.pool_size);
	seq_printf(m, "mr_pool_usable %u\n", usable);
	seq_printf(m, "mr_ready %u\n", freec);
	seq_printf(m, "mr_in_use %u\n", busy);
	seq_printf(m, "mr_depth_pages %u\n", conn->mr.depth);
	seq_printf(m, "registrations %u\n", regs);
	seq_printf(m, "api_calls_in_progress %u\n", users);
	seq_printf(m, "released %d\n", dead);
	seq_printf(m, "rw_contexts %u\n", conn->rw.ctxs);
	seq_printf(m, "rw_contexts_free %u\n", ctx_avail);
	seq_printf(m, "rw_reads_in_flight %u\n", rd_used);
	seq_printf(m, "rw_chunk_bytes %u\n", conn->rw.chunk);
	seq_printf(m, "rw_sq_budget %u\n", conn->rw.wr_budget);
	seq_printf(m, "rw_sq_budget_free %u\n", wr_avail);
}

static int smbdx_conn_mr_show(struct seq_file *m, void *unused)
{
	smbdx_conn_mr_print(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smbdx_conn_mr);

static int smbdx_conn_counters_show(struct seq_file *m, void *unused)
{
	struct smbdx_conn *conn = m->private;

	smbdx_show_stats(m, &conn->stats);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smbdx_conn_counters);

static int smbdx_conn_errors_show(struct seq_file *m, void *unused)
{
	struct smbdx_conn *conn = m->private;

	smbdx_show_errors(m, &conn->stats);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smbdx_conn_errors);

/**
 * smbdx_conn_show() - print a connection's state, parameters and counters
 * @conn: connection
 * @m: seq_file to print to, e.g. cifs's /proc/fs/cifs/DebugData
 *
 * Prints what the connection's debugfs directory shows in its state,
 * params, credits, mr and counters files ("key value" lines, described in
 * Documentation/admin-guide.rst), followed by the non-zero error counts,
 * so an upper layer can show its own users the transport under a mount or
 * a session.
 *
 * Context: process, also with a spinlock held (cifs's DebugData holds
 * cifs_tcp_ses_lock); takes the connection's lock briefly and never sleeps.
 */
void smbdx_conn_show(struct smbdx_conn *conn, struct seq_file *m)
{
	int i;

	seq_puts(m, "conn ");
	smbdx_conn_line(m, conn);
	smbdx_conn_params_print(m, conn);
	smbdx_conn_credits_print(m, conn);
	smbdx_conn_mr_print(m, conn);
	smbdx_show_stats(m, &conn->stats);
	for (i = 1; i < SMBDX_CAUSE_COUNT; i++)
		if (atomic64_read(&conn->stats.errors[i]))
			seq_printf(m, "error_%s %lld\n", smbdx_cause_name(i),
				   (long long)atomic64_read(&conn->stats.errors[i]));
}
EXPORT_SYMBOL_NS_GPL(smbdx_conn_show, SMBDX_NS);

/**
 * smbdx_debugfs_conn_add() - create a connection's directory
 * @conn: connection
 *
 * Context: process.
 */
void smbdx_debugfs_conn_add(struct smbdx_conn *conn)
{
	char name[16];

	snprintf(name, sizeof(name), "%u", conn->num);
	conn->dir = debugfs_create_dir(name, smbdx_debugfs_conn_dir);
	debugfs_create_file("state", 0444, conn->dir, conn,
			    &smbdx_conn_state_fops);
	debugfs_create_file("params", 0444, conn->dir, conn,
			    &smbdx_conn_params_fops);
	debugfs_create_file("credits", 0444, conn->dir, conn,
			    &smbdx_conn_credits_fops);
	debugfs_create_file("counters", 0444, conn->dir, conn,
			    &smbdx_conn_counters_fops);
	debugfs_create_file("errors", 0444, conn->dir, conn,
			    &smbdx_conn_errors_fops);
	debugfs_create_file("mr", 0444, conn->dir, conn, &smbdx_conn_mr_fops);
}

/**
 * smbdx_debugfs_conn_remove() - remove a connection's directory
 * @conn: connection about to be freed
 *
 * Context: process; waits for readers in progress.
 */
void smbdx_debugfs_conn_remove(struct smbdx_conn *conn)
{
	debugfs_remove_recursive(conn->dir);
	conn->dir = NULL;
}

/**
 * smbdx_debugfs_init() - create the global files
 */
void smbdx_debugfs_init(void)
{
	debugfs_create_file("devices", 0444, smbdx_debugfs_root, NULL,
			    &smbdx_devices_fops);
	debugfs_create_file("stats", 0444, smbdx_debugfs_root, NULL,
			    &smbdx_stats_fops);
	debugfs_create_file("connections", 0444, smbdx_debugfs_root, NULL,
			    &smbdx_connections_fops);
	debugfs_create_file("listeners", 0444, smbdx_debugfs_root, NULL,
			    &smbdx_listeners_fops);
	smbdx_debugfs_conn_dir = debugfs_create_dir("conn", smbdx_debugfs_root);
	smbdx_netdev_debugfs_init(smbdx_debugfs_root);
}
