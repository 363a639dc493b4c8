// SPDX-License-Identifier: GPL-2.0
/*
 * smbdirect.ko: SMB Direct (MS-SMBD) transport over RDMA for cifs and ksmbd.
 *
 * Module init and exit, module parameters (the defaults of every new
 * connection, DESIGN.md section 3), the workqueue all of smbdirect's
 * deferred work runs on, and the counter and cause names.
 *
 * Normal operation: init creates the workqueue and the debugfs root,
 * registers the ib_client (which starts tracking devices) and creates the
 * global debugfs files. Parameters are read when a connection or listener
 * is created (smbd_conn_config_init()); changing them affects only later
 * ones.
 *
 * Transport recovery / unload: the module cannot be unloaded while an
 * upper layer that links against it is loaded, and upper layers destroy
 * their connections and listeners before they go. What may remain are
 * release work items of connections whose last reference was just dropped,
 * so exit first drains the workqueue, then removes debugfs (waiting for
 * readers), then unregisters the ib_client and destroys the workqueue.
 */

#include <linux/module.h>
#include <linux/debugfs.h>
#include <kunit/visibility.h>

#include "smbd.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

struct dentry *smbd_debugfs_root;
struct workqueue_struct *smbd_wq;
struct smbd_stats smbd_global_stats;

static unsigned int recv_credit_max = SMBD_DEF_RECV_CREDIT_MAX;
module_param(recv_credit_max, uint, 0644);
MODULE_PARM_DESC(recv_credit_max,
		 "ReceiveCreditMax: receive buffers per connection (2-65535, default 255)");

static unsigned int send_credit_target = SMBD_DEF_SEND_CREDIT_TARGET;
module_param(send_credit_target, uint, 0644);
MODULE_PARM_DESC(send_credit_target,
		 "SendCreditTarget: credits requested of the peer (1-65535, default 255)");

static unsigned int max_send_size = SMBD_DEF_MAX_SEND_SIZE;
module_param(max_send_size, uint, 0644);
MODULE_PARM_DESC(max_send_size, "MaxSendSize in bytes (default 1364)");

static unsigned int max_receive_size = SMBD_DEF_MAX_RECV_SIZE;
module_param(max_receive_size, uint, 0644);
MODULE_PARM_DESC(max_receive_size,
		 "MaxReceiveSize in bytes, the size of each receive buffer (default 1364)");

static unsigned int max_fragmented_recv_size;
module_param(max_fragmented_recv_size, uint, 0644);
MODULE_PARM_DESC(max_fragmented_recv_size,
		 "MaxFragmentedRecvSize in bytes; 0: half the receive buffers, at least 131072");

static unsigned int max_read_write_size = SMBD_DEF_MAX_RW_SIZE;
module_param(max_read_write_size, uint, 0644);
MODULE_PARM_DESC(max_read_write_size, "MaxReadWriteSize in bytes (default 8 MiB)");

static unsigned int keepalive_interval = SMBD_DEF_KEEPALIVE_SEC;
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

static unsigned int recv_queue_max = 4 * 1024 * 1024;
module_param(recv_queue_max, uint, 0644);
MODULE_PARM_DESC(recv_queue_max,
		 "bytes of received messages the upper layer may hold before credits stop (default 4 MiB)");

unsigned int smbd_mr_pool_max = 256;
module_param_named(mr_pool_max, smbd_mr_pool_max, uint, 0644);
MODULE_PARM_DESC(mr_pool_max,
		 "most fast-registration MRs per connection (default 256)");

unsigned int smbd_rw_ctxs = 16;
module_param_named(rw_contexts, smbd_rw_ctxs, uint, 0644);
MODULE_PARM_DESC(rw_contexts,
		 "RDMA read/write contexts in flight per connection (default 16)");

unsigned int smbd_rw_max_descs = 64;
module_param_named(rw_max_descriptors, smbd_rw_max_descs, uint, 0644);
MODULE_PARM_DESC(rw_max_descriptors,
		 "most buffer descriptors one RDMA read/write accepts (default 64)");

unsigned int smbd_destroy_drain_ms = 2000;
module_param_named(destroy_drain_ms, smbd_destroy_drain_ms, uint, 0644);
MODULE_PARM_DESC(destroy_drain_ms,
		 "how long smbd_destroy() lets posted Sends complete (default 2000 ms)");

unsigned int smbd_ib_port = SMBD_PORT_IB;
module_param_named(ib_port, smbd_ib_port, uint, 0644);
MODULE_PARM_DESC(ib_port, "default port on InfiniBand and RoCE (default 445)");

unsigned int smbd_iwarp_port = SMBD_PORT_IWARP;
module_param_named(iwarp_port, smbd_iwarp_port, uint, 0644);
MODULE_PARM_DESC(iwarp_port, "default port on iWARP (default 5445)");

/**
 * smbd_conn_config_init() - the defaults for a new connection or listener
 * @cfg: filled with the current module parameters
 *
 * Context: any.
 */
void smbd_conn_config_init(struct smbd_conn_config *cfg)
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
	cfg->recv_queue_max = recv_queue_max;
}
EXPORT_SYMBOL_GPL(smbd_conn_config_init);

/**
 * smbd_conn_config_resolve() - fill in what a caller left at 0
 * @cfg: configuration given to smbd_connect() or smbd_listen()
 * @passive: the connection will be accepted (5 s negotiation default)
 *
 * MaxFragmentedRecvSize 0 becomes the largest size reassembly can take
 * without holding half of the receive buffers (engine), and never less
 * than the protocol minimum: smbdirect copies fragments out of the
 * receive buffers as they arrive, so it never holds buffers anyway.
 */
void smbd_conn_config_resolve(struct smbd_conn_config *cfg, bool passive)
{
	struct smbd_conn_config def;
	struct smbd_proto_config *p = &cfg->proto;
	u32 frag;

	smbd_conn_config_init(&def);
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
		smbd_frag_safe_max_recv_size(p->recv_credit_max,
					     p->max_receive_size, &frag);
		p->max_fragmented_recv_size = max_t(u32, frag,
						    SMBD_PROTO_MIN_FRAG_SIZE);
	}
	if (!cfg->keepalive_ms)
		cfg->keepalive_ms = def.keepalive_ms;
	if (!cfg->keepalive_wait_ms)
		cfg->keepalive_wait_ms = def.keepalive_wait_ms;
	if (!cfg->negotiate_timeout_ms)
		cfg->negotiate_timeout_ms = (passive ? negotiate_timeout_passive :
					     negotiate_timeout_active) * MSEC_PER_SEC;
	if (!cfg->recv_queue_max)
		cfg->recv_queue_max = def.recv_queue_max;
	p->keepalive_interval = DIV_ROUND_UP(cfg->keepalive_ms, MSEC_PER_SEC);
}

static const char * const smbd_stat_names[SMBD_STAT_COUNT] = {
	[SMBD_STAT_TX_NEG_REQ] = "tx_negotiate_req",
	[SMBD_STAT_TX_NEG_RESP] = "tx_negotiate_resp",
	[SMBD_STAT_TX_MSGS] = "tx_messages",
	[SMBD_STAT_TX_FRAGS] = "tx_fragments",
	[SMBD_STAT_TX_EMPTY] = "tx_empty",
	[SMBD_STAT_TX_KEEPALIVE_REQ] = "tx_keepalive_requests",
	[SMBD_STAT_TX_KEEPALIVE_RESP] = "tx_keepalive_responses",
	[SMBD_STAT_TX_CREDITS_GRANTED] = "tx_credits_granted",
	[SMBD_STAT_TX_BYTES] = "tx_bytes",
	[SMBD_STAT_TX_INVALIDATE] = "tx_send_with_invalidate",
	[SMBD_STAT_RX_NEG_REQ] = "rx_negotiate_req",
	[SMBD_STAT_RX_NEG_RESP] = "rx_negotiate_resp",
	[SMBD_STAT_RX_MSGS] = "rx_messages",
	[SMBD_STAT_RX_FRAGS] = "rx_fragments",
	[SMBD_STAT_RX_EMPTY] = "rx_empty",
	[SMBD_STAT_RX_KEEPALIVE_REQ] = "rx_keepalive_requests",
	[SMBD_STAT_RX_CREDITS_GRANTED] = "rx_credits_granted",
	[SMBD_STAT_RX_BYTES] = "rx_bytes",
	[SMBD_STAT_RX_INVALIDATED] = "rx_invalidated",
	[SMBD_STAT_SEND_BLOCKED] = "send_blocked_on_credits",
	[SMBD_STAT_SEND_SQ_FULL] = "send_queue_full",
	[SMBD_STAT_RECV_GATED] = "recv_repost_deferred",
	[SMBD_STAT_LOCAL_TOO_BIG] = "local_message_too_big",
	[SMBD_STAT_KEEPALIVE_TIMER] = "idle_timer_expired",
	[SMBD_STAT_MR_REGISTRATIONS] = "mr_registrations",
	[SMBD_STAT_MR_REGISTERED_BYTES] = "mr_registered_bytes",
	[SMBD_STAT_MR_REG_WAITS] = "mr_registration_waits",
	[SMBD_STAT_MR_REG_FAILED] = "mr_registration_failures",
	[SMBD_STAT_MR_LOCAL_INV] = "mr_local_invalidations",
	[SMBD_STAT_MR_REMOTE_INV] = "mr_remote_invalidations",
	[SMBD_STAT_MR_REMOTE_INV_UNKNOWN] = "mr_remote_invalidations_unknown",
	[SMBD_STAT_MR_RECYCLED] = "mr_recycled",
	[SMBD_STAT_RDMA_READS] = "rdma_reads",
	[SMBD_STAT_RDMA_READ_BYTES] = "rdma_read_bytes",
	[SMBD_STAT_RDMA_WRITES] = "rdma_writes",
	[SMBD_STAT_RDMA_WRITE_BYTES] = "rdma_write_bytes",
	[SMBD_STAT_RDMA_WRS] = "rdma_rw_work_requests",
	[SMBD_STAT_RDMA_LOCAL_MRS] = "rdma_rw_local_mrs",
	[SMBD_STAT_RW_FAILED] = "rdma_rw_failures",
	[SMBD_STAT_RW_BAD_DESC] = "rdma_rw_bad_descriptors",
	[SMBD_STAT_RW_TOO_BIG] = "rdma_rw_too_big",
	[SMBD_STAT_DESTROY_DRAIN_TIMEOUTS] = "destroy_drain_timeouts",
	[SMBD_STAT_CM_COMM_EST] = "cm_established_by_data",
};

/**
 * smbd_stat_name() - debugfs name of a counter
 * @s: counter
 *
 * Return: a static string.
 */
const char *smbd_stat_name(enum smbd_stat s)
{
	if ((unsigned int)s >= SMBD_STAT_COUNT || !smbd_stat_names[s])
		return "unknown";
	return smbd_stat_names[s];
}

/**
 * smbd_stat_inc() - count one event on a connection and globally
 * @conn: connection
 * @s: counter
 */
void smbd_stat_inc(struct smbd_conn *conn, enum smbd_stat s)
{
	atomic64_inc(&conn->stats.v[s]);
	atomic64_inc(&smbd_global_stats.v[s]);
}

/**
 * smbd_stat_add() - add to a counter of a connection and globally
 * @conn: connection
 * @s: counter
 * @n: amount
 */
void smbd_stat_add(struct smbd_conn *conn, enum smbd_stat s, u64 n)
{
	atomic64_add(n, &conn->stats.v[s]);
	atomic64_add(n, &smbd_global_stats.v[s]);
}

/* Short names of the causes, in enum order (debugfs "errors"). */
static const char * const smbd_cause_names[SMBD_CAUSE_COUNT] = {
	[SMBD_CAUSE_NONE] = "none",
	[SMBD_ERR_NEG_REQ_SHORT] = "neg_req_short",
	[SMBD_ERR_NEG_REQ_VERSION] = "neg_req_version",
	[SMBD_ERR_NEG_REQ_CREDITS] = "neg_req_credits",
	[SMBD_ERR_NEG_REQ_MAX_RECV] = "neg_req_max_recv",
	[SMBD_ERR_NEG_REQ_MAX_FRAG] = "neg_req_max_frag",
	[SMBD_ERR_NEG_RESP_SHORT] = "neg_resp_short",
	[SMBD_ERR_NEG_RESP_STATUS] = "neg_resp_status",
	[SMBD_ERR_NEG_RESP_VERSION] = "neg_resp_version",
	[SMBD_ERR_NEG_RESP_CREDITS_GRANTED] = "neg_resp_credits_granted",
	[SMBD_ERR_NEG_RESP_CREDITS_REQUESTED] = "neg_resp_credits_requested",
	[SMBD_ERR_NEG_RESP_MAX_RECV] = "neg_resp_max_recv",
	[SMBD_ERR_NEG_RESP_MAX_FRAG] = "neg_resp_max_frag",
	[SMBD_ERR_NEG_RESP_PREF_SEND] = "neg_resp_pref_send",
	[SMBD_ERR_NEG_NO_RECV_CREDITS] = "neg_no_recv_credits",
	[SMBD_ERR_DATA_SHORT] = "data_short",
	[SMBD_ERR_DATA_CREDITS_REQUESTED] = "data_credits_requested",
	[SMBD_ERR_DATA_OFFSET_ALIGN] = "data_offset_align",
	[SMBD_ERR_DATA_OFFSET_OVERLAP] = "data_offset_overlap",
	[SMBD_ERR_DATA_OVERFLOW] = "data_overflow",
	[SMBD_ERR_DATA_PAST_END] = "data_past_end",
	[SMBD_ERR_DATA_TOO_BIG] = "data_too_big",
	[SMBD_ERR_REASM_MISMATCH] = "reassembly_mismatch",
	[SMBD_ERR_RECV_NO_CREDIT] = "recv_without_credit",
	[SMBD_ERR_SEND_CREDIT_OVERFLOW] = "send_credit_overflow",
	[SMBD_ERR_MSG_TOO_BIG] = "msg_too_big",
	[SMBD_ERR_BUF_TOO_SMALL] = "buf_too_small",
	[SMBD_ERR_INVALID] = "invalid",
	[SMBD_ERR_FRAG_CONFIG] = "frag_config",
	[SMBD_ERR_BD_LENGTH] = "bd_length",
	[SMBD_ERR_BD_OVERFLOW] = "bd_overflow",
	[SMBD_ERR_IRD_ORD_ZERO] = "ird_ord_zero",
	[SMBD_CAUSE_NEG_TIMEOUT] = "negotiation_timeout",
	[SMBD_CAUSE_KEEPALIVE_TIMEOUT] = "keepalive_timeout",
	[SMBD_CAUSE_PEER_DISCONNECT] = "peer_disconnect",
	[SMBD_CAUSE_CM_ERROR] = "cm_error",
	[SMBD_CAUSE_REJECTED] = "rejected",
	[SMBD_CAUSE_DEVICE_REMOVAL] = "device_removal",
	[SMBD_CAUSE_RECV_ERROR] = "recv_completion_error",
	[SMBD_CAUSE_SEND_ERROR] = "send_completion_error",
	[SMBD_CAUSE_POST_ERROR] = "post_error",
	[SMBD_CAUSE_NOMEM] = "no_memory",
	[SMBD_CAUSE_NEG_REFUSED] = "negotiation_refused",
	[SMBD_CAUSE_ACCEPT_REFUSED] = "accept_refused",
	[SMBD_CAUSE_DEVICE_UNUSABLE] = "device_unusable",
	[SMBD_CAUSE_MR_ERROR] = "mr_completion_error",
	[SMBD_CAUSE_RW_ERROR] = "rdma_rw_completion_error",
};

static const char * const smbd_cause_text[SMBD_CAUSE_COUNT] = {
	[SMBD_CAUSE_NEG_TIMEOUT] = "3.1.6.1: negotiation timer expired",
	[SMBD_CAUSE_KEEPALIVE_TIMEOUT] = "3.1.6.2: no message after a keepalive request",
	[SMBD_CAUSE_PEER_DISCONNECT] = "3.1.7.1: the peer disconnected (or flushed the QP)",
	[SMBD_CAUSE_CM_ERROR] = "connection manager error (address, route, connect)",
	[SMBD_CAUSE_REJECTED] = "the peer rejected the connection",
	[SMBD_CAUSE_DEVICE_REMOVAL] = "the RDMA device was removed",
	[SMBD_CAUSE_RECV_ERROR] = "receive completed with an error",
	[SMBD_CAUSE_SEND_ERROR] = "send completed with an error",
	[SMBD_CAUSE_POST_ERROR] = "posting a work request failed",
	[SMBD_CAUSE_NOMEM] = "out of memory",
	[SMBD_CAUSE_NEG_REFUSED] = "3.1.5.7: the peer refused our negotiate request",
	[SMBD_CAUSE_ACCEPT_REFUSED] = "the upper layer refused the connection",
	[SMBD_CAUSE_DEVICE_UNUSABLE] = "the RDMA device cannot carry SMB Direct",
	[SMBD_CAUSE_MR_ERROR] = "a memory registration or invalidation failed",
	[SMBD_CAUSE_RW_ERROR] = "an RDMA read or write failed (bad descriptor?)",
};

/**
 * smbd_cause_name() - short name of a termination cause (debugfs)
 * @cause: SMBD_CAUSE_* or protocol verdict
 *
 * Return: a static string.
 */
const char *smbd_cause_name(int cause)
{
	if (cause < 0 || cause >= SMBD_CAUSE_COUNT || !smbd_cause_names[cause])
		return "unknown";
	return smbd_cause_names[cause];
}
EXPORT_SYMBOL_IF_KUNIT(smbd_cause_name);

/**
 * smbd_cause_str() - one-line description of a termination cause
 * @cause: SMBD_CAUSE_* or protocol verdict
 *
 * Return: the rule the peer broke (with its MS-SMBD section) for a
 * protocol verdict, else what happened.
 */
const char *smbd_cause_str(int cause)
{
	if (cause > 0 && cause < SMBD_VERDICT_COUNT)
		return smbd_verdict_str(cause);
	if (cause < 0 || cause >= SMBD_CAUSE_COUNT || !smbd_cause_text[cause])
		return "none";
	return smbd_cause_text[cause];
}

static int __init smbd_init(void)
{
	int rc;

	smbd_wq = alloc_workqueue("smbdirect", WQ_MEM_RECLAIM, 0);
	if (!smbd_wq)
		return -ENOMEM;

	smbd_debugfs_root = debugfs_create_dir("smbdirect", NULL);

	rc = smbd_device_init();
	if (rc) {
		debugfs_remove_recursive(smbd_debugfs_root);
		destroy_workqueue(smbd_wq);
		return rc;
	}

	smbd_debugfs_init();
	return 0;
}

static void __exit smbd_exit(void)
{
	drain_workqueue(smbd_wq);
	debugfs_remove_recursive(smbd_debugfs_root);
	smbd_device_exit();
	destroy_workqueue(smbd_wq);
}

module_init(smbd_init);
module_exit(smbd_exit);

MODULE_DESCRIPTION("SMB Direct (MS-SMBD) transport over RDMA");
MODULE_LICENSE("GPL");
