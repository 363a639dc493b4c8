// SPDX-License-Identifier: GPL-2.0
/*
 * smbdirect.ko: SMB Direct (MS-SMBD) transport over RDMA for cifs and ksmbd.
 *
 * Module init and exit, module parameters (the defaults of every new
 * connection, Documentation/admin-guide.rst "Module parameters"), the
 * workqueue all of smbdirect's deferred work runs on, and the counter and
 * cause names.
 *
 * Normal operation: init creates the workqueue and the debugfs root,
 * registers the ib_client (which starts tracking devices), creates the
 * global debugfs files and registers the generic netlink family (ctl.c).
 * Parameters are read when a connection or listener is created
 * (smbdx_conn_config_init()); changing them affects only later ones.
 *
 * Transport recovery / unload: the module cannot be unloaded while an
 * upper layer that links against it is loaded, and upper layers destroy
 * their connections and listeners before they go. What may remain are
 * release work items of connections whose last reference was just dropped,
 * so exit first unregisters the netlink family (waiting for a check in
 * progress), then drains the workqueue, then removes debugfs (waiting for
 * readers), then unregisters the ib_client and destroys the workqueue.
 *
 * An upper layer that leaves a listener or connection behind when its
 * module goes would have its callbacks called in freed memory (a
 * connection's upcall work, a listener's accept). A module notifier
 * destroys, when a module has gone (MODULE_STATE_GOING, after its exit
 * function returned), the groups, listeners and handed-over connections
 * whose callbacks are in that module's memory, and logs an error that
 * names the module: the leak is the upper layer's bug, the crash need not
 * be. Connections in pull mode have no callbacks and are not attributed.
 */

#include <linux/module.h>
#include <linux/debugfs.h>
#include <kunit/visibility.h>

#include "smbd.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

struct dentry *smbdx_debugfs_root;
struct workqueue_struct *smbdx_wq;
struct smbdx_stats smbdx_global_stats;

static unsigned int recv_credit_max = SMBDX_DEF_RECV_CREDIT_MAX;
module_param(recv_credit_max, uint, 0644);
MODULE_PARM_DESC(recv_credit_max,
		 "ReceiveCreditMax: receive buffers per connection (2-65535, default 255)");

static unsigned int send_credit_target = SMBDX_DEF_SEND_CREDIT_TARGET;
module_param(send_credit_target, uint, 0644);
MODULE_PARM_DESC(send_credit_target,
		 "SendCreditTarget: credits requested of the peer (1-65535, default 255)");

static unsigned int max_send_size = SMBDX_DEF_MAX_SEND_SIZE;
module_param(max_send_size, uint, 0644);
MODULE_PARM_DESC(max_send_size, "MaxSendSize in bytes (default 1364)");

static unsigned int max_receive_size = SMBDX_DEF_MAX_RECV_SIZE;
module_param(max_receive_size, uint, 0644);
MODULE_PARM_DESC(max_receive_size,
		 "MaxReceiveSize in bytes, the size of each receive buffer (default 1364)");

static unsigned int max_fragmented_recv_size;
module_param(max_fragmented_recv_size, uint, 0644);
MODULE_PARM_DESC(max_fragmented_recv_size,
		 "MaxFragmentedRecvSize in bytes; 0: half the receive buffers, at least 131072");

static unsigned int max_read_write_size = SMBDX_DEF_MAX_RW_SIZE;
module_param(max_read_write_size, uint, 0644);
MODULE_PARM_DESC(max_read_write_size, "MaxReadWriteSize in bytes (default 8 MiB)");

static unsigned int keepalive_interval = SMBDX_DEF_KEEPALIVE_SEC;
module_param(keepalive_interval, uint, 0644);
MODULE_PARM_DESC(keepalive_interval,
		 "Idle Connection Timer (KeepaliveInterval) in seconds (default 120)");

static unsigned int keepalive_wait = 5;
module_param(keepalive_wait, uint, 0644);
MODULE_PARM_DESC(keepalive_wait,
		 "seconds to wait for the peer after a keepalive request (default 5)");

static unsigned int negotiate_timeout_active = 120;
module_param(negotiate_timeout_active, uint, 0644);
MODULE_PARM_DESC(negotiate_timeout_active,
		 "active-side Negotiation Timer in seconds, connect included (default 120)");

static unsigned int negotiate_timeout_passive = 5;
module_param(negotiate_timeout_passive, uint, 0644);
MODULE_PARM_DESC(negotiate_timeout_passive,
		 "passive-side Negotiation Timer in seconds (default 5)");

static unsigned int io_timeout = 15;
module_param(io_timeout, uint, 0644);
MODULE_PARM_DESC(io_timeout,
		 "seconds a send may wait for credits, or an RDMA read/write or registration for its completion, before the connection ends (default 15)");

static unsigned int recv_queue_max = 4 * 1024 * 1024;
module_param(recv_queue_max, uint, 0644);
MODULE_PARM_DESC(recv_queue_max,
		 "bytes of received messages the upper layer may hold before credits stop (default 4 MiB)");

unsigned int smbdx_max_negotiating = 64;
module_param_named(max_negotiating, smbdx_max_negotiating, uint, 0644);
MODULE_PARM_DESC(max_negotiating,
		 "connections a listener holds before they negotiated, or while torn down, at most (default 64)");

unsigned int smbdx_mr_max_total = 16384;
module_param_named(mr_max_total, smbdx_mr_max_total, uint, 0644);
MODULE_PARM_DESC(mr_max_total,
		 "most fast-registration MRs of all connections together (default 16384)");

unsigned int smbdx_mr_pool_max = 256;
module_param_named(mr_pool_max, smbdx_mr_pool_max, uint, 0644);
MODULE_PARM_DESC(mr_pool_max,
		 "most fast-registration MRs per connection (default 256)");

unsigned int smbdx_rw_ctxs = 16;
module_param_named(rw_contexts, smbdx_rw_ctxs, uint, 0644);
MODULE_PARM_DESC(rw_contexts,
		 "RDMA read/write contexts in flight per connection (default 16)");

unsigned int smbdx_rw_max_descs = 64;
module_param_named(rw_max_descriptors, smbdx_rw_max_descs, uint, 0644);
MODULE_PARM_DESC(rw_max_descriptors,
		 "most buffer descriptors one RDMA read/write accepts (default 64)");

unsigned int smbdx_destroy_drain_ms = 2000;
module_param_named(destroy_drain_ms, smbdx_destroy_drain_ms, uint, 0644);
MODULE_PARM_DESC(destroy_drain_ms,
		 "how long smbdx_destroy() lets posted Sends complete (default 2000 ms)");

unsigned int smbdx_ib_port = SMBDX_PORT_IB;
module_param_named(ib_port, smbdx_ib_port, uint, 0644);
MODULE_PARM_DESC(ib_port, "default port on InfiniBand and RoCE (default 445)");

unsigned int smbdx_iwarp_port = SMBDX_PORT_IWARP;
module_param_named(iwarp_port, smbdx_iwarp_port, uint, 0644);
MODULE_PARM_DESC(iwarp_port, "default port on iWARP (default 5445)");

/**
 * smbdx_conn_config_init() - the defaults for a new connection or listener
 * @cfg: filled with the current module parameters
 *
 * Context: any.
 */
void smbdx_conn_config_init(struct smbdx_conn_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->proto.recv_credit_max = clamp_val(recv_credit_max, 2, U16_MAX);
	cfg->proto.send_credit_target = clamp_val(send_credit_target, 1, U16_MAX);
	cfg->proto.max_send_size = max_send_size;
	cfg->proto.max_receive_size = max_receive_size;
	cfg->proto.max_fragmented_recv_size = max_fragmented_recv_size;
	cfg->proto.max_read_write_size = max_read_write_size;
	cfg->proto.keepalive_interval = keepalive_interval;
	cfg->keepalive_ms = keepalive_interval * MSEC_PER_SEC;
	cfg->keepalive_wait_ms = keepalive_wait * MSEC_PER_SEC;
	cfg->io_timeout_ms = max(io_timeout, 1U) * MSEC_PER_SEC;
	cfg->recv_queue_max = recv_queue_max;
}
EXPORT_SYMBOL_NS_GPL(smbdx_conn_config_init, SMBDX_NS);

/**
 * smbdx_conn_config_resolve() - fill in what a caller left at 0
 * @cfg: configuration given to smbdx_connect() or smbdx_listen()
 * @passive: the connection will be accepted (5 s negotiation default)
 *
 * MaxFragmentedRecvSize 0 becomes the largest size reassembly can take
 * without holding half of the receive buffers (engine), and never less
 * than the protocol minimum: smbdirect copies fragments out of the
 * receive buffers as they arrive, so it never holds buffers anyway.
 */
void smbdx_conn_config_resolve(struct smbdx_conn_config *cfg, bool passive)
{
	struct smbdx_conn_config def;
	struct smbdx_proto_config *p = &cfg->proto;
	u32 frag;

	smbdx_conn_config_init(&def);
	if (!p->recv_credit_max)
		p->recv_credit_max = def.proto.recv_credit_max;
	if (!p->send_credit_target)
		p->send_credit_target = def.proto.send_credit_target;
	if (!p->max_send_size)
		p->max_send_size = def.proto.max_send_size;
	if (!p->max_receive_size)
		p->max_receive_size = def.proto.max_receive_size;
	if (!p->max_read_write_size)
		p->max_read_write_size = def.proto.max_read_write_size;
	if (!p->max_fragmented_recv_size)
		p->max_fragmented_recv_size = def.proto.max_fragmented_recv_size;
	if (!p->max_fragmented_recv_size) {
		smbdx_frag_safe_max_recv_size(p->recv_credit_max,
					      p->max_receive_size, &frag);
		p->max_fragmented_recv_size = max_t(u32, frag,
						    SMBDX_PROTO_MIN_FRAG_SIZE);
	}
	if (!cfg->keepalive_ms)
		cfg->keepalive_ms = def.keepalive_ms;
	if (!cfg->keepalive_wait_ms)
		cfg->keepalive_wait_ms = def.keepalive_wait_ms;
	if (!cfg->negotiate_timeout_ms)
		cfg->negotiate_timeout_ms = (passive ? negotiate_timeout_passive :
					     negotiate_timeout_active) * MSEC_PER_SEC;
	if (!cfg->io_timeout_ms)
		cfg->io_timeout_ms = def.io_timeout_ms;
	if (!cfg->recv_queue_max)
		cfg->recv_queue_max = def.recv_queue_max;
	p->keepalive_interval = DIV_ROUND_UP(cfg->keepalive_ms, MSEC_PER_SEC);
}

/* SMBDX_STAT_<ID> is entry <ID>: the list in the enum's order. */
static const struct smbdx_stat_info {
	enum smbdx_stat s;
	const char *name;
} smbdx_stats[] = {
#define SMBDX_STAT(id, ...) { SMBDX_STAT_##id, __VA_ARGS__ },
#include "stats.h"
#undef SMBDX_STAT
};

static_assert(ARRAY_SIZE(smbdx_stats) == SMBDX_STAT_COUNT);

/**
 * smbdx_stat_name() - debugfs name of a counter
 * @s: counter
 *
 * Return: a static string.
 */
const char *smbdx_stat_name(enum smbdx_stat s)
{
	if ((unsigned int)s >= SMBDX_STAT_COUNT)
		return "unknown";
	return smbdx_stats[s].name;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_stat_name);

/**
 * smbdx_stat_inc() - count one event on a connection and globally
 * @conn: connection
 * @s: counter
 */
void smbdx_stat_inc(struct smbdx_conn *conn, enum smbdx_stat s)
{
	atomic64_inc(&conn->stats.v[s]);
	atomic64_inc(&smbdx_global_stats.v[s]);
}

/**
 * smbdx_stat_add() - add to a counter of a connection and globally
 * @conn: connection
 * @s: counter
 * @n: amount
 */
void smbdx_stat_add(struct smbdx_conn *conn, enum smbdx_stat s, u64 n)
{
	atomic64_add(n, &conn->stats.v[s]);
	atomic64_add(n, &smbdx_global_stats.v[s]);
}

/* SMBDX_CAUSE_<ID> is entry <ID> - SMBDX_VERDICT_COUNT. */
static const struct smbdx_cause_info {
	enum smbdx_cause c;
	const char *name;
	const char *text;
} smbdx_causes[] = {
#define SMBDX_CAUSE(id, ...) { SMBDX_CAUSE_##id, __VA_ARGS__ },
#include "causes.h"
#undef SMBDX_CAUSE
};

static_assert(ARRAY_SIZE(smbdx_causes) == SMBDX_CAUSE_COUNT - SMBDX_VERDICT_COUNT);

/**
 * smbdx_cause_name() - short name of a termination cause (debugfs)
 * @cause: SMBDX_CAUSE_* or protocol verdict
 *
 * Return: a static string.
 */
const char *smbdx_cause_name(int cause)
{
	if (cause == SMBDX_CAUSE_NONE)
		return "none";
	if (cause > 0 && cause < SMBDX_VERDICT_COUNT)
		return smbdx_verdict_name(cause);
	if (cause < 0 || cause >= SMBDX_CAUSE_COUNT)
		return "unknown";
	return smbdx_causes[cause - SMBDX_VERDICT_COUNT].name;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_cause_name);

/**
 * smbdx_cause_str() - one-line description of a termination cause
 * @cause: SMBDX_CAUSE_* or protocol verdict
 *
 * Return: the rule the peer broke (with its MS-SMBD section) for a
 * protocol verdict, else what happened.
 */
const char *smbdx_cause_str(int cause)
{
	if (cause > 0 && cause < SMBDX_VERDICT_COUNT)
		return smbdx_verdict_str(cause);
	if (cause < SMBDX_VERDICT_COUNT || cause >= SMBDX_CAUSE_COUNT)
		return "none";
	return smbdx_causes[cause - SMBDX_VERDICT_COUNT].text;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_cause_str);

/* Destroy what a module that has gone left behind (top of the file). */
static int smbdx_module_going(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	struct module *mod = data;
	struct smbdx_listener *lis;
	struct smbdx_conn *conn;
	u32 nlis = 0, nconns = 0;

	if (action != MODULE_STATE_GOING || mod == THIS_MODULE)
		return NOTIFY_DONE;
	/* Groups first: their children carry the same callbacks. */
	while ((lis = smbdx_lgroup_owned_by(mod)) ||
	       (lis = smbdx_listener_owned_by(mod))) {
		smbdx_listener_destroy(lis);
		nlis++;
	}
	/* Then the connections, those the listeners accepted included. */
	while ((conn = smbdx_conn_owned_by(mod))) {
		smbdx_destroy(conn);
		smbdx_conn_put(conn);
		nconns++;
	}
	if (nlis || nconns)
		pr_err("smbdirect: module %s went with %u listener(s) and %u connection(s) of its own; destroyed them\n",
		       mod->name, nlis, nconns);
	return NOTIFY_DONE;
}

static struct notifier_block smbdx_module_nb = {
	.notifier_call = smbdx_module_going,
};

static int __init smbdx_init(void)
{
	int rc;

	smbdx_wq = alloc_workqueue("smbdirect", WQ_MEM_RECLAIM, 0);
	if (!smbdx_wq)
		return -ENOMEM;

	smbdx_debugfs_root = debugfs_create_dir("smbdirect", NULL);

	rc = smbdx_device_init();
	if (rc) {
		debugfs_remove_recursive(smbdx_debugfs_root);
		destroy_workqueue(smbdx_wq);
		return rc;
	}

	smbdx_debugfs_init();
	smbdx_fault_init(smbdx_debugfs_root);

	rc = smbdx_ctl_init();
	if (rc) {
		debugfs_remove_recursive(smbdx_debugfs_root);
		smbdx_device_exit();
		destroy_workqueue(smbdx_wq);
		return rc;
	}
	register_module_notifier(&smbdx_module_nb);
	return 0;
}

static void __exit smbdx_exit(void)
{
	unregister_module_notifier(&smbdx_module_nb);
	smbdx_ctl_exit();
	drain_workqueue(smbdx_wq);
	debugfs_remove_recursive(smbdx_debugfs_root);
	smbdx_device_exit();
	destroy_workqueue(smbdx_wq);
}

module_init(smbdx_init);
module_exit(smbdx_exit);

MODULE_DESCRIPTION("SMB Direct (MS-SMBD) transport over RDMA");
MODULE_LICENSE("GPL");
