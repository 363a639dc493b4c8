// SPDX-License-Identifier: GPL-2.0
/*
 * smbdirect.ko's configuration: the module parameters
 * (/sys/module/smbdirect/parameters/, Documentation/admin-guide.rst
 * "Module parameters") and the configuration of a new connection or
 * listener built from them (smbdx_conn_config_init(),
 * smbdx_conn_config_resolve()). Parameters named smbdx_* are read
 * directly by the files they concern (smbd.h); the others only through a
 * connection's configuration.
 *
 * This file is part of the floor of smbdirect.ko (Documentation/design.rst
 * "Files"): any file may call it, and it calls nothing of smbdirect but
 * the pure protocol engine (smbdx_frag_safe_max_recv_size()).
 *
 * Concurrency: no lock. Every parameter is an unsigned int (cm_caps and
 * push_mode bools) that root may change through sysfs at any time, and is read
 * without a lock: a
 * connection created while a value changes may get the old or the new one
 * (smbdx_conn_config_resolve() derives the keepalive interval the peer is
 * told from keepalive_ms, so those two always agree). A connection or
 * listener copies the values it needs when it is created
 * (smbdx_conn_config_init()), so a change affects only later ones; the
 * smbdx_* parameters take effect at their next use. The functions touch
 * only the caller's configuration and may be called in any context.
 */

#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/module.h>

#include "smbd.h"

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
static bool cm_caps;
module_param(cm_caps, bool, 0644);
MODULE_PARM_DESC(cm_caps,
		 "advertise capabilities in RDMA CM private data, IB/RoCE only (default N)");
static bool cm_caps_iwarp;
module_param(cm_caps_iwarp, bool, 0644);
MODULE_PARM_DESC(cm_caps_iwarp,
		 "with cm_caps, also send them on iWARP when connecting, for smbdirect peers only (default N)");
static bool push_mode;
module_param(push_mode, bool, 0644);
MODULE_PARM_DESC(push_mode,
		 "experimental: offer push mode (remote flush and atomic write) in the CM capabilities; needs cm_caps (default N)");

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
	cfg->cm_caps = cm_caps;
	cfg->push_mode = push_mode;
	cfg->cm_caps_iwarp = cm_caps_iwarp;
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
	if (!cfg->cm_caps)
		cfg->cm_caps = def.cm_caps;
	if (!cfg->push_mode)
		cfg->push_mode = def.push_mode;
	if (!cfg->cm_caps_iwarp)
		cfg->cm_caps_iwarp = def.cm_caps_iwarp;
	p->keepalive_interval = DIV_ROUND_UP(cfg->keepalive_ms, MSEC_PER_SEC);
}
