/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smbdirect internal declarations shared between the files of smbdirect.ko:
 * the connection and listener objects, their work items and the functions
 * each file offers the others.
 *
 * Locking, in the order they nest:
 *  - smbdx_listeners_lock (mutex): the list of listeners; no CM handler
 *    takes it.
 *  - smbdx_conns_lock (mutex): the list of all connections; never held
 *    while calling into the RDMA core (CM handlers take it).
 *  - smbdx_listener.mutex: the listener's cm_id (listen/destroy/device
 *    removal).
 *  - smbdx_conn.res_mutex: the connection's verbs resources (set-up and
 *    teardown). Taken only in process context outside the CM event
 *    handler, so rdma_destroy_id() under it cannot deadlock with a handler
 *    waiting for it.
 *  - smbdx_listener.lock (spinlock): the listener's connection list.
 *  - smbdx_conn.lock (spinlock, taken with BH disabled since completions run
 *    in softirq): state, error, credit engine, and the lists and counters
 *    of the connection's parts (send, recv, mr, rw: struct smbdx_conn's
 *    comment says which fields each lock covers). Work requests are posted
 *    with it held, after checking the state, so teardown (which changes the
 *    state under it first) knows that nothing is posted after it let go.
 */
#ifndef _SMBDX_H
#define _SMBDX_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/bvec.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <smbdirect/pdu.h>
#include <smbdirect/smbdirect.h>
#include "credits.h"
#include "frag.h"
#include "devlimits.h"
#include "fault.h"
#include "privdata.h"
#include "pushmsg.h"

struct dentry;
struct sg_table;
struct shash_desc;

/**
 * struct smbdx_device - an RDMA device smbdirect is attached to
 * @list: entry in the device list (protected by the device list mutex)
 * @ibdev: the device; valid until the ib_client remove callback returns
 * @limits: what smbdirect may use of it, computed when it was added
 */
struct smbdx_device {
	struct list_head list;
	struct ib_device *ibdev;
	struct smbdx_dev_limits limits;
};

/* ---- module parameters and connection configuration (config.c) ---- */
extern unsigned int smbdx_mr_pool_max;
extern unsigned int smbdx_mr_max_total;
extern unsigned int smbdx_max_negotiating;
extern unsigned int smbdx_rw_ctxs;
extern unsigned int smbdx_rw_max_descs;
extern unsigned int smbdx_destroy_drain_ms;
extern unsigned int smbdx_ib_port;
extern unsigned int smbdx_iwarp_port;
void smbdx_conn_config_resolve(struct smbdx_conn_config *cfg, bool passive);

/* ---- the module's lifetime (main.c) ---- */
extern struct workqueue_struct *smbdx_wq;
extern struct dentry *smbdx_debugfs_root;

/* ---- errors by cause (causes.c) ---- */

/*
 * Causes of a connection's termination: SMBDX_CAUSE_NONE (a local
 * disconnect), the protocol verdicts (1 .. SMBDX_VERDICT_COUNT - 1, an
 * invalid message), then the transport's own causes of causes.h.
 */
enum smbdx_cause {
	SMBDX_CAUSE_NONE = 0,
	SMBDX_CAUSE_LAST_VERDICT = SMBDX_VERDICT_COUNT - 1,
#define SMBDX_CAUSE(id, ...) SMBDX_CAUSE_##id,
#include "causes.h"
#undef SMBDX_CAUSE
	SMBDX_CAUSE_COUNT
};

const char *smbdx_cause_str(int cause);
const char *smbdx_cause_name(int cause);

/* ---- counters (stats.c) ---- */

enum smbdx_stat {
#define SMBDX_STAT(id, ...) SMBDX_STAT_##id,
#include "stats.h"
#undef SMBDX_STAT
	SMBDX_STAT_COUNT
};

const char *smbdx_stat_name(enum smbdx_stat s);

/**
 * struct smbdx_stats - counters of a connection, or of all of them
 * @v: one counter per enum smbdx_stat
 * @errors: one counter per enum smbdx_cause (and protocol verdict)
 */
struct smbdx_stats {
	atomic64_t v[SMBDX_STAT_COUNT];
	atomic64_t errors[SMBDX_CAUSE_COUNT];
};

extern struct smbdx_stats smbdx_global_stats;

/* ---- objects ---- */

enum smbdx_obj_kind {
	SMBDX_OBJ_CONN = 0x5c0,
	SMBDX_OBJ_LISTENER,
};

enum smbdx_role {
	SMBDX_ROLE_ACTIVE,
	SMBDX_ROLE_PASSIVE,
};

/*
 * Connection states (Documentation/design.rst, "Life cycle"). The MS-SMBD
 * Connection.Role of 3.1.1.1 is ACTIVE or PASSIVE until NEGOTIATING ends
 * and ESTABLISHED after.
 */
enum smbdx_conn_state {
	SMBDX_CS_CREATED,
	SMBDX_CS_RESOLVE_ADDR,
	SMBDX_CS_RESOLVE_ROUTE,
	SMBDX_CS_CONNECTING,
	SMBDX_CS_NEGOTIATING,
	SMBDX_CS_ESTABLISHED,
	SMBDX_CS_DISCONNECTING,
	SMBDX_CS_DISCONNECTED,
	SMBDX_CS_DESTROYED,
	SMBDX_CS_COUNT
};

const char *smbdx_state_str(enum smbdx_conn_state s);

/* CM events the connecting thread waits for (smbdx_conn.cm_flags bits) */
enum {
	SMBDX_CMF_ADDR_RESOLVED,
	SMBDX_CMF_ROUTE_RESOLVED,
	SMBDX_CMF_ESTABLISHED,
	SMBDX_CMF_DISCONNECTED,
	SMBDX_CMF_REMOVED,	/* device removal has claimed it */
	SMBDX_CMF_COMM_EST,	/* passive: data arrived before ESTABLISHED */
};

struct smbdx_conn;

/**
 * enum smbdx_mr_state - where a pool MR is in its life
 * @SMBDX_MR_FREE: on the free list, no valid registration
 * @SMBDX_MR_REGISTERING: taken by a registration, REG_MR not yet completed
 * @SMBDX_MR_REGISTERED: remotely accessible with @rkey
 * @SMBDX_MR_REMOTE_INV: the peer invalidated @rkey with Send with Invalidate
 * @SMBDX_MR_BROKEN: a REG_MR or LOCAL_INV on it failed: recycled (deregistered
 *	and allocated afresh) before reuse
 * @SMBDX_MR_LOST: a work request on it may still be queued (a chain was
 *	posted only in part): untouchable until the QP is drained at teardown
 */
enum smbdx_mr_state {
	SMBDX_MR_FREE,
	SMBDX_MR_REGISTERING,
	SMBDX_MR_REGISTERED,
	SMBDX_MR_REMOTE_INV,
	SMBDX_MR_BROKEN,
	SMBDX_MR_LOST,
};

/**
 * struct smbdx_mr - one fast-registration MR of a connection's pool
 * @list: entry in conn->mr.free or conn->mr.busy (under conn->lock)
 * @conn: owning connection
 * @mr: the verbs MR, NULL if recycling it failed (the pool shrank)
 * @cqe: completion entry of the LOCAL_INV posted on it
 * @reg_cqe: completion entry of the REG_MR posted on it
 * @reg: registration using it
 * @state: see enum smbdx_mr_state (under conn->lock)
 * @rkey: key of the current registration
 * @last: its work request is the signaled end of a chain
 */
struct smbdx_mr {
	struct list_head list;
	struct smbdx_conn *conn;
	struct ib_mr *mr;
	struct ib_cqe cqe;
	struct ib_cqe reg_cqe;
	struct smbdx_reg *reg;
	enum smbdx_mr_state state;
	u32 rkey;
	bool last;
};

/**
 * struct smbdx_send_io - one Send work request and its buffer
 * @cqe: completion entry (container_of recovers the io)
 * @conn: owning connection
 * @list: entry in the send queue while queued
 * @owner: the smbdx_send() call waiting for this fragment to be posted
 * @di: header fields; the data fields are set when the fragment is built
 * @dma: DMA address of @buf while posted
 * @len: bytes to send
 * @cid: completion id (tracepoints)
 * @msg: number of the upper-layer message it is a fragment of, set only
 *	while tracing (tracepoint smbdx_post_send); 0 otherwise
 * @inv_token: rkey to invalidate at the peer, if @inv
 * @inv: send with invalidate
 * @fail_verdict: terminate the connection with this cause when the send
 *	completes (a failed Negotiate Response, 3.1.5.3; a refused push-mode
 *	commit)
 * @push_type: a push-mode control message of this type
 *	(enum smbdx_pushmsg_type; push.c), 0 for any other message
 * @size: size of @buf
 * @buf: header and payload
 */
struct smbdx_send_io {
	struct ib_cqe cqe;
	struct smbdx_conn *conn;
	struct list_head list;
	struct smbdx_send_owner *owner;
	struct smbdx_data_info di;
	u64 dma;
	u32 len;
	u32 cid;
	u32 msg;
	u32 inv_token;
	bool inv;
	int fail_verdict;
	u8 push_type;
	u32 size;
	u8 buf[];
};

/**
 * struct smbdx_send_owner - an smbdx_send() call waiting for its fragments
 * @pending: fragments not yet posted (or discarded)
 * @failed: at least one fragment was discarded
 *
 * Lives on the sender's stack; protected by conn->lock.
 */
struct smbdx_send_owner {
	u32 pending;
	bool failed;
};

/**
 * struct smbdx_recv_io - one receive buffer
 * @cqe: completion entry
 * @conn: owning connection
 * @list: entry in the free list when not posted
 * @buf: the buffer
 * @dma: its DMA address (mapped for the connection's lifetime)
 * @cid: completion id of the current post
 */
struct smbdx_recv_io {
	struct ib_cqe cqe;
	struct smbdx_conn *conn;
	struct list_head list;
	void *buf;
	u64 dma;
	u32 cid;
};

/**
 * struct smbdx_msg - a received, reassembled upper-layer message
 * @list: entry in the connection's ready queue
 * @conn: connection; a reference is held once the message is handed out
 * @len: message length
 * @nvec: pages in @bv so far: they are allocated as the fragments that
 *	fill them arrive, so a complete message has DIV_ROUND_UP(@len,
 *	PAGE_SIZE)
 * @cost: bytes of memory the message holds (this structure and its
 *	pages), what it counts for in the connection's held_bytes
 * @inv: the peer invalidated @inv_token while sending it (3.1.5.8)
 * @inv_token: the invalidated token
 * @seq: its number among the connection's received messages, from 1
 *	(set when it is complete; tracepoints)
 * @bv: the pages holding the message
 */
struct smbdx_msg {
	struct list_head list;
	struct smbdx_conn *conn;
	u32 len;
	u32 seq;
	u32 nvec;
	u32 cost;
	bool inv;
	u32 inv_token;
	struct bio_vec bv[];
};

/**
 * struct smbdx_conn_send - a connection's send side (send.c)
 * @queue: fragments queued, not yet posted (struct smbdx_send_io.list)
 * @queue_len: entries on @queue
 * @posted: Sends posted and not yet retired (the send queue's depth)
 * @unsignaled: unsignaled Sends posted since the last signaled one
 * @inflight: the posted Sends in posting order, until retired
 * @blocked: the send loop stopped with fragments queued and no credit
 *	(counts send_blocked once per stall)
 * @draining: smbdx_destroy() waits for @posted and @queue to empty
 * @depth: most Sends posted at once (the QP's Sends, without the drain's
 *	slot); set with the QP, read-only after
 * @pump_work: runs the send loop in process context after an atomic
 *	allocation failed
 * @test_mute: the send loop posts nothing (smbdx_test_set_mute(), test
 *	build only)
 *
 * Locking: conn->lock, except @depth (set with the QP under res_mutex,
 * read-only after) and @pump_work. Only send.c changes the fields, but
 * @draining, which smbdx_destroy() sets; smbdx_destroy() also reads
 * @posted and @queue, debugfs and the tracepoints read the counts.
 */
struct smbdx_conn_send {
	struct list_head queue;
	u32 queue_len;
	u32 posted;
	u32 unsignaled;
	struct list_head inflight;
	bool blocked;
	bool draining;
	u32 depth;
	struct work_struct pump_work;
#ifdef SMBDX_TESTS
	bool test_mute;
#endif
};

/**
 * struct smbdx_conn_recv - a connection's receive side (recv.c) and its
 *	delivery to the upper layer (deliver.c)
 * @ra: the reassembler's state (frag.c)
 * @reasm_msg: the message being reassembled, NULL between messages
 * @inv_pending: a fragment of the message being reassembled came with
 *	Send with Invalidate (3.1.5.8)
 * @inv_token: the token it invalidated
 * @posted: Receives posted
 * @free: receive buffers not posted (struct smbdx_recv_io.list)
 * @gated: Receives are held back, the upper layer holds more than
 *	recv_queue_max (counts recv_gated once per stall)
 * @ready: complete messages not yet taken by the upper layer
 * @ready_msgs: entries on @ready
 * @held_bytes: memory of received messages not yet freed and of the one
 *	being reassembled (flow control, design.rst "Receiving")
 * @last_rx: jiffies of the last receive (the Idle Connection Timer)
 * @rios: the receive buffers; set with the QP, read-only after
 * @nrios: how many of @rios are allocated and mapped
 * @rio_size: bytes of each buffer
 * @depth: Receives the QP holds (ReceiveCreditMax)
 * @wq: pullers in smbdx_recv_msg() sleep here, woken when a message is
 *	ready or the connection fails (a Send's completion does not wake
 *	them, it wakes conn->wq)
 * @upcall_work: the hand-over, the recv callbacks and the loss notification,
 *	one at a time (deliver.c)
 * @upcall_task: the thread running @upcall_work, so smbdx_destroy() called
 *	from a callback does not wait for itself
 * @loss_notified: the disconnected callback was called (once)
 * @upcalls_off: smbdx_destroy() began: no callback any more
 *
 * Locking: conn->lock, except @rios, @nrios, @rio_size and @depth (set
 * with the QP under res_mutex before any Receive is posted, released
 * after the CQ is freed) and @upcall_task (READ_ONCE/WRITE_ONCE). recv.c
 * changes the receive fields, deliver.c @ready, @held_bytes' decrease and
 * the upcall fields; smbdx_destroy() sets @upcalls_off.
 */
struct smbdx_conn_recv {
	struct smbdx_reasm ra;
	struct smbdx_msg *reasm_msg;
	bool inv_pending;
	u32 inv_token;
	u32 posted;
	struct list_head free;
	bool gated;
	struct list_head ready;
	u32 ready_msgs;
	u64 held_bytes;
	unsigned long last_rx;
	struct smbdx_recv_io *rios;
	u32 nrios;
	u32 rio_size;
	u32 depth;
	wait_queue_head_t wq;
	struct work_struct upcall_work;
	struct task_struct *upcall_task;
	bool loss_notified;
	bool upcalls_off;
};

/**
 * struct smbdx_conn_mr - a connection's memory registration (mr.c)
 * @pool: the MR pool; set with the QP, freed with the connection
 * @pool_size: entries of @pool
 * @depth: pages one MR maps
 * @free: idle MRs (struct smbdx_mr.list)
 * @busy: MRs taken by a registration
 * @free_count: entries on @free
 * @usable: MRs of @pool still usable (a failed recycle shrinks the pool)
 * @regs: registrations made on the connection (struct smbdx_reg.node)
 * @users: API calls (registration and RDMA read/write) inside the
 *	connection, between smbdx_conn_enter() and smbdx_conn_leave()
 * @dead: smbdx_mr_release() began: no call enters any more. Not the
 *	state: release begins at teardown, after the drain, while the state
 *	stays DISCONNECTING, and on a set-up that failed in any state
 * @released: smbdx_mr_release() finished: a deregistration may free its
 *	handle. Not @dead: between the two, release still unmaps
 *	registrations
 *
 * Locking: conn->lock for the lists, counts and flags; @pool,
 * @pool_size and @depth are set with the QP under res_mutex and read-only
 * after. Teardown sets @dead, waits for @users to drop to zero (after the
 * drain) and only then releases the MRs; rw.c uses the same gate.
 */
struct smbdx_conn_mr {
	struct smbdx_mr *pool;
	u32 pool_size;
	u32 depth;
	struct list_head free;
	struct list_head busy;
	u32 free_count;
	u32 usable;
	struct list_head regs;
	u32 users;
	bool dead;
	bool released;
};

/**
 * struct smbdx_conn_rw - a connection's RDMA read/write (rw.c)
 * @orphans: chunks whose caller gave up, freed at teardown
 * @ctxs: rdma_rw contexts the QP was sized for
 * @ctx_avail: contexts free
 * @rd_used: contexts in use for RDMA Reads (bounded by the ORD)
 * @wr_budget: send queue slots for RDMA read/write work requests
 * @wr_avail: slots of @wr_budget free
 * @chunk: bytes one context moves at most
 *
 * Locking: conn->lock for @orphans and the counters of what is free or
 * used; @ctxs, @wr_budget and @chunk are planned with the QP under
 * res_mutex (smbdx_rw_plan(), smbdx_qp_setup()) and read-only after.
 */
struct smbdx_conn_rw {
	struct list_head orphans;
	u32 ctxs;
	u32 ctx_avail;
	u32 rd_used;
	u32 wr_budget;
	u32 wr_avail;
	u32 chunk;
};

/**
 * struct smbdx_conn_caps - capabilities in the CM private data (cm.c)
 * @sent: our blob went out (connect request or accept, IB/RoCE only)
 * @own: what it advertised (zero when not sent)
 * @peer_blob: what the scan of the peer's private data found
 * @peer: what the peer advertised (zero unless @peer_blob is
 *	SMBDX_PD_FOUND)
 *
 * Evaluated afresh on every connection; nothing is kept from an earlier
 * one. Written once, before the connection is visible (passive) or by the
 * CM handler before ESTABLISHED is signalled (active), under the
 * connection's lock; read under it.
 */
struct smbdx_conn_caps {
	bool sent;
	struct smbdx_caps own;
	enum smbdx_pd_result peer_blob;
	struct smbdx_caps peer;
};

/**
 * struct smbdx_conn_push - a connection's push mode (push.c)
 * @ready: @mode and the numbering were set up (at first use, once the
 *	connection is established and @caps is final)
 * @refused: we refused a commit: the connection ends once the answer is
 *	sent; no further commit is served
 * @mode: what the CM blobs gave (smbdx_push_negotiate())
 * @commit_tx: our commit requests (requester)
 * @commit_rx: the peer's commit requests (responder)
 * @revoke_tx: our revoke requests (region owner)
 * @revoke_rx: the peer's revoke requests (requester)
 * @regions: our regions (struct smbdx_push_region)
 * @nregions: entries on @regions, and registrations in progress
 * @next_region: the last region id handed out (ids are never reused)
 * @targets: the peer's regions we attached (struct smbdx_push_target)
 * @ntargets: entries on @targets
 * @waits: our commits waiting for their answer, in sequence order
 * @inbox: the peer's commits waiting for the work, a ring of
 *	SMBDX_PUSH_MAX_COMMITS entries (allocated with our first region)
 * @in_head: oldest entry of @inbox
 * @in_count: entries in @inbox
 * @work: serves the commits of @inbox in order, in process context
 *
 * Locking: conn->lock for everything but @work; @inbox is set once under
 * it and freed with the connection.
 */
struct smbdx_conn_push {
	bool ready;
	bool refused;
	struct smbdx_push_mode mode;
	struct smbdx_push_tx commit_tx;
	struct smbdx_push_rx commit_rx;
	struct smbdx_push_tx revoke_tx;
	struct smbdx_push_rx revoke_rx;
	struct list_head regions;
	u32 nregions;
	u32 next_region;
	struct list_head targets;
	u32 ntargets;
	struct list_head waits;
	struct smbdx_pushmsg *inbox;
	u32 in_head;
	u32 in_count;
	struct work_struct work;
};

/**
 * struct smbdx_conn - one SMB Direct connection (MS-SMBD 3.1.1.1)
 * @kind: SMBDX_OBJ_CONN (the CM handler tells contexts apart by it)
 * @num: its number, unique while the module is loaded (debugfs, logs)
 * @ref: references (top of connection.c)
 * @node: entry in smbdx_conns, under smbdx_conns_lock
 * @role: active or passive
 * @cfg: its configuration
 * @ops: the upper layer's callbacks
 * @listener: passive: the listener until the hand-over
 * @keepalive_j: @cfg's keepalive interval in jiffies
 * @keepalive_wait_j: @cfg's keepalive response wait in jiffies
 * @neg_timeout_j: @cfg's Negotiation Timer in jiffies
 * @io_timeout_j: @cfg's bound of an API call's wait in jiffies
 * @lock: the BH spinlock of the state and of the parts (below)
 * @wq: everything but the pullers waits here: senders, registrations,
 *	RDMA transfers, state changes, CM events, teardown
 * @state: see enum smbdx_conn_state; only moves forward
 * @error: the first error (negative errno), 0 while usable; sticky
 * @cause: its cause (SMBDX_CAUSE_* or protocol verdict)
 * @cause_provisional: @cause is a peer disconnect that may be the symptom
 *	of a work request's failure found later
 *	(__smbdx_conn_fail_concrete())
 * @cm_flags: CM events seen (SMBDX_CMF_*, atomic bit operations)
 * @negotiated: negotiation succeeded. Not the state: it stays true after
 *	a failure moves the state on, and smbdx_conn_query() and debugfs
 *	report the negotiated parameters of a connection that has since
 *	failed; a connection that failed while NEGOTIATING has the same
 *	state and none
 * @handed_over: the upper layer owns the connection (smbdx_connect()
 *	returned it, or accept returned 0): callbacks may run. Not the
 *	state: the hand-over comes after ESTABLISHED (in the connecting
 *	thread, or in the upcall work), may never come (accept refused) and
 *	stays true after a failure
 * @waiters: API calls sleeping on the connection (smbdx_conn_wait_begin())
 * @ctx: the upper layer's context (READ_ONCE/WRITE_ONCE)
 * @xform: the MS-SMB2 RDMA transforms the upper layer negotiated on the
 *	connection (SMBDX_XF_ENCRYPTION, SMBDX_XF_SIGNING), for debugfs and
 *	smbdctl only (smbdx_conn_set_xform(); READ_ONCE/WRITE_ONCE)
 * @params: the negotiated parameters (3.1.5.6, 3.1.5.7)
 * @cr: the credit engine (credits.c), shared by both directions
 * @next_cid: the next completion id (tracepoints)
 * @ird: RDMA Reads the peer may have outstanding against us
 * @ord: RDMA Reads we may have outstanding against the peer
 * @caps: capabilities exchanged in the CM private data
 * @push: push mode (push.c)
 * @send: the send side
 * @recv: the receive side and delivery
 * @mr: memory registration
 * @rw: RDMA read/write
 * @res_mutex: serialises set-up and teardown of the verbs resources
 * @released: teardown released everything (or a never published
 *	connection was given up). Not the state: it is read under
 *	@res_mutex by the connecting thread without @lock, and the two
 *	paths that give up an unpublished connection set it without a
 *	state change
 * @disconnect_sent: rdma_disconnect() was called (once)
 * @id: the cm_id, NULL once destroyed
 * @ibdev: its device, known once the address resolved (READ_ONCE outside
 *	@res_mutex)
 * @limits: what the device allows (devlimits.c)
 * @pd: protection domain
 * @cq: the one CQ (IB_POLL_SOFTIRQ)
 * @qp_live: rdma_connect() or rdma_accept() succeeded: the QP may carry
 *	work requests and must be disconnected and drained. Not the state:
 *	CONNECTING is entered before rdma_connect(), which may fail, and a
 *	connection may fail in any state before or after the call
 * @devname: @ibdev's name, "-" before
 * @cq_id: the CQ's restrack id (tracepoints)
 * @qpn: the QP's number (tracepoints)
 * @neg_work: the Negotiation Timer (timer.c)
 * @idle_work: the Idle Connection Timer (timer.c)
 * @disc_work: disconnects in process context after a failure
 * @teardown_work: teardown from a work item (DEVICE_REMOVAL, a killed
 *	connect)
 * @release_work: frees the connection after the last reference
 * @connect_work: active: rdma_connect() from a work item (connect.c)
 * @connect_param: its parameters
 * @connect_pd: its private data (iWARP IRD/ORD, Appendix A; our
 *	capabilities on IB/RoCE)
 * @local: local address, once the route resolved
 * @peer: peer's address
 * @lnode: entry in the listener's list, under its lock
 * @dir: debugfs directory
 * @stats: its counters
 *
 * Locking, part by part (each part's own comment says more; the lock
 * order is at the top of this file):
 *
 * - Set before the connection is visible, then read-only: @kind, @num,
 *   @role, @cfg, @ops, the ``*_j`` values; @listener too, until the
 *   upcall work clears it at the hand-over (smbdx_listener_detach()).
 * - @lock: the state (@state, @error, @cause, the flags beside them,
 *   @waiters, @params, @cr, @next_cid, @ird, @ord, @caps) and every part's
 *   lists and counters. Work requests are posted with it held, after
 *   checking @state; teardown changes @state under it first.
 * - @res_mutex (process context, never in a CM handler): the verbs
 *   resources from @released to @qpn, stable while @state is below
 *   DISCONNECTING.
 * - The work items belong to the files that run them; @neg_work and
 *   @idle_work are armed only under @lock while @error is 0.
 */
struct smbdx_conn {
	/* identity and configuration: read-only once visible */
	enum smbdx_obj_kind kind;
	u32 num;
	struct kref ref;
	struct list_head node;
	enum smbdx_role role;
	struct smbdx_conn_config cfg;
	const struct smbdx_conn_ops *ops;
	struct smbdx_listener *listener;
	unsigned long keepalive_j;
	unsigned long keepalive_wait_j;
	unsigned long neg_timeout_j;
	unsigned long io_timeout_j;

	/* state: under lock */
	spinlock_t lock;
	wait_queue_head_t wq;
	enum smbdx_conn_state state;
	int error;
	int cause;
	bool cause_provisional;
	unsigned long cm_flags;
	bool negotiated;
	bool handed_over;
	u32 waiters;
	void *ctx;
	u8 xform;
	struct smbdx_proto_params params;
	struct smbdx_credits cr;
	u32 next_cid;
	u32 ird;
	u32 ord;
	struct smbdx_conn_caps caps;
	struct smbdx_conn_push push;

	/* the parts, each with its own lock rule */
	struct smbdx_conn_send send;
	struct smbdx_conn_recv recv;
	struct smbdx_conn_mr mr;
	struct smbdx_conn_rw rw;

	/* verbs resources: under res_mutex */
	struct mutex res_mutex;
	bool released;
	bool disconnect_sent;
	struct rdma_cm_id *id;
	struct ib_device *ibdev;
	struct smbdx_dev_limits limits;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool qp_live;
	char devname[IB_DEVICE_NAME_MAX];
	u32 cq_id;
	u32 qpn;

	/* work items of the whole connection */
	struct delayed_work neg_work;
	struct delayed_work idle_work;
	struct work_struct disc_work;
	struct work_struct teardown_work;
	struct work_struct release_work;
	struct work_struct connect_work;
	struct rdma_conn_param connect_param;
	u8 connect_pd[SMBDX_PD_IB_REQ_MAX];

	struct sockaddr_storage local;
	struct sockaddr_storage peer;
	struct list_head lnode;
	struct dentry *dir;
	struct smbdx_stats stats;
};

/**
 * struct smbdx_listener - a passive endpoint (MS-SMBD 3.1.7.2)
 * @kind: SMBDX_OBJ_LISTENER (the CM handler tells contexts apart by it)
 * @num: id shown in debugfs
 * @node: entry in smbdx_listeners, under smbdx_conns_lock
 * @mutex: protects @id against destroy and device removal
 * @id: listening cm_id, NULL once destroyed
 * @ibdev: device the listening address belongs to, NULL for a wildcard
 * @devname: its name, "-" for a wildcard
 * @lock: protects @conns, @dying, @error
 * @wq: woken when @conns empties
 * @conns: connections negotiating, not yet accepted
 * @dying: being destroyed: refuse new connections
 * @error: set when the device went away
 * @cfg: configuration of its connections
 * @ops: callbacks
 * @ctx: caller's context
 * @addr: the address listened on
 * @port: the port listened on
 * @accepted: connections handed to the upper layer
 * @refused: connections refused or failed before the hand-over
 * @over_limit: connect requests refused because @nconns had reached
 *	max_negotiating
 * @nconns: connections on @conns
 * @remove_work: destroys @id after a DEVICE_REMOVAL CM event
 * @group: for a wildcard address with port 0, the per-device listeners
 *	this handle stands for (listen_dev.c); it then has no @id and @port
 *	is 0
 */
struct smbdx_listener {
	enum smbdx_obj_kind kind;
	u32 num;
	struct list_head node;
	struct mutex mutex;		/* protects id */
	struct rdma_cm_id *id;
	struct ib_device *ibdev;
	char devname[IB_DEVICE_NAME_MAX];
	spinlock_t lock;		/* protects conns, dying, error */
	wait_queue_head_t wq;
	struct list_head conns;
	bool dying;
	int error;
	struct smbdx_conn_config cfg;
	const struct smbdx_listener_ops *ops;
	void *ctx;
	struct sockaddr_storage addr;
	int port;
	atomic64_t accepted;
	atomic64_t refused;
	atomic64_t over_limit;
	u32 nconns;
	struct work_struct remove_work;
	struct smbdx_lgroup *group;
};

/* ---- stats.c ---- */
void smbdx_stat_inc(struct smbdx_conn *conn, enum smbdx_stat s);
void smbdx_stat_add(struct smbdx_conn *conn, enum smbdx_stat s, u64 n);

/* ---- device.c ---- */
/**
 * struct smbdx_dev_netdev - the net device of a port of a usable device
 * @ndev: the net device; the entry holds a reference on it
 * @ibdev: the RDMA device (identity only once the entry is returned)
 * @port: the device's default SMB Direct port (MS-SMBD 1.9)
 */
struct smbdx_dev_netdev {
	struct net_device *ndev;
	struct ib_device *ibdev;
	u16 port;
};

int smbdx_device_init(void);
void smbdx_device_exit(void);
int smbdx_devices_show(struct seq_file *m, void *unused);
bool smbdx_device_limits(struct ib_device *ibdev, struct smbdx_dev_limits *out);
int smbdx_devices_netdevs(struct net *net, struct smbdx_dev_netdev **out);

/* ---- connection.c ---- */
extern struct mutex smbdx_conns_lock;
extern atomic_t smbdx_conns_alive;
extern struct list_head smbdx_conns;

struct smbdx_conn *smbdx_conn_alloc(enum smbdx_role role,
				    const struct smbdx_conn_config *cfg);
void smbdx_conn_get(struct smbdx_conn *conn);
void smbdx_conn_put(struct smbdx_conn *conn);
void smbdx_conn_publish(struct smbdx_conn *conn);
void smbdx_conn_set_state(struct smbdx_conn *conn, enum smbdx_conn_state s);
void __smbdx_conn_fail(struct smbdx_conn *conn, int err, int cause);
void smbdx_conn_fail(struct smbdx_conn *conn, int err, int cause);
void __smbdx_conn_fail_concrete(struct smbdx_conn *conn, int err, int cause);
bool __smbdx_conn_wc_failed(struct smbdx_conn *conn, const struct ib_wc *wc,
			    int cause);
int __smbdx_conn_post_failed(struct smbdx_conn *conn, int rc);
int smbdx_conn_wc_errno(struct smbdx_conn *conn);
void smbdx_conn_wait_begin(struct smbdx_conn *conn);
void smbdx_conn_wait_end(struct smbdx_conn *conn);
void smbdx_conn_wait_wr(struct smbdx_conn *conn, struct completion *done);
void smbdx_conn_queue_work(struct smbdx_conn *conn, struct work_struct *w);
void smbdx_conn_teardown(struct smbdx_conn *conn);
void smbdx_conns_device_removed(struct ib_device *ibdev);
struct smbdx_conn *smbdx_conn_owned_by(struct module *mod);
struct smbdx_listener *smbdx_listener_owned_by(struct module *mod);
void smbdx_conn_log_error(struct smbdx_conn *conn, int cause);

/* ---- cm.c ---- */
void smbdx_conn_comm_est(struct smbdx_conn *conn);
int smbdx_conn_privdata(struct smbdx_conn *conn,
			const struct smbdx_ird_ord *ird_ord, void *buf, u32 size);
void smbdx_conn_peer_caps(struct smbdx_conn *conn, const void *pd, u8 len);
int smbdx_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *event);

/* ---- addr.c ---- */
size_t smbdx_sockaddr_len(const struct sockaddr *sa);
int smbdx_sockaddr_port(const struct sockaddr *sa);
void smbdx_sockaddr_set_port(struct sockaddr *sa, int port);
bool smbdx_sockaddr_any(const struct sockaddr *sa);
int smbdx_port_of(const struct smbdx_dev_limits *l);
int smbdx_device_port(struct ib_device *ibdev);
int smbdx_addr_port(struct net *net, const struct sockaddr *addr);

/* ---- qp.c ---- */
int smbdx_qp_setup(struct smbdx_conn *conn);
void smbdx_qp_free(struct smbdx_conn *conn);

/* ---- listen.c ---- */
extern struct mutex smbdx_listeners_lock;
extern struct list_head smbdx_listeners;

int smbdx_listener_cm_event(struct smbdx_listener *lis, struct rdma_cm_id *id,
			    struct rdma_cm_event *event);
void smbdx_listeners_device_removed(struct ib_device *ibdev);
void smbdx_listener_detach(struct smbdx_conn *conn);

/* ---- listen_dev.c ---- */
int smbdx_lgroup_start(struct net *net, struct smbdx_listener *lis);
void smbdx_lgroup_stop(struct smbdx_listener *lis);
struct smbdx_listener *smbdx_lgroup_owned_by(struct module *mod);
void smbdx_lgroups_kick(void);

/* ---- send.c ---- */
void __smbdx_send_queue_io(struct smbdx_conn *conn, struct smbdx_send_io *io);
void __smbdx_send_pump(struct smbdx_conn *conn, struct smbdx_send_io **spare);
void smbdx_send_init(struct smbdx_conn *conn);
struct smbdx_send_io *smbdx_send_io_alloc(struct smbdx_conn *conn, u32 size,
					  gfp_t gfp);
void smbdx_send_io_free(struct smbdx_send_io *io);
int smbdx_post_send_io(struct smbdx_conn *conn, struct smbdx_send_io *io,
		       bool more);
void smbdx_send_queue_flush(struct smbdx_conn *conn);
void smbdx_send_reclaim(struct smbdx_conn *conn);
int smbdx_send_negotiate_req(struct smbdx_conn *conn);
int smbdx_send_negotiate_resp(struct smbdx_conn *conn,
			      const struct smbdx_negotiate_resp *resp,
			     int fail_verdict);

/* ---- deliver.c ---- */
struct smbdx_msg *smbdx_msg_alloc(u32 len, gfp_t gfp);
int smbdx_msg_fill(struct smbdx_msg *msg, u32 off, const u8 *src, u32 len,
		   gfp_t gfp);
void smbdx_msg_ready(struct smbdx_conn *conn, struct smbdx_msg *msg);
void smbdx_ready_flush(struct smbdx_conn *conn);
void smbdx_deliver_init(struct smbdx_conn *conn);

/* ---- recv.c ---- */
void smbdx_recv_done(struct ib_cq *cq, struct ib_wc *wc);
int smbdx_recv_bufs_alloc(struct smbdx_conn *conn);
void smbdx_recv_bufs_free(struct smbdx_conn *conn);
int smbdx_post_recv_one(struct smbdx_conn *conn);
void smbdx_post_recvs(struct smbdx_conn *conn);

/* ---- mr.c ---- */
/*
 * smbdx_register() flag for smbdirect's own use: the CPU writes into the
 * buffer while it is registered (push mode's atomic write), so it is
 * mapped bidirectionally.
 */
#define SMBDX_REG_CPU_WRITES	0x10000	/* above SMBDX_REG_DESCS_MASK */
struct smbdx_reg *__smbdx_register(struct smbdx_conn *conn,
				   struct iov_iter *iter, unsigned int flags);
void smbdx_reg_sync(struct smbdx_reg *reg, bool for_cpu);
u32 smbdx_mr_plan(struct smbdx_conn *conn);
int smbdx_mr_pool_init(struct smbdx_conn *conn);
void smbdx_mr_release(struct smbdx_conn *conn);
void smbdx_mr_remote_invalidated(struct smbdx_conn *conn, u32 rkey);
int smbdx_conn_enter(struct smbdx_conn *conn, bool any_state);
void smbdx_sg_end(struct sg_table *sgt);
int smbdx_sgt_alloc(struct sg_table *sgt, unsigned int n);
void smbdx_sgt_free(struct sg_table *sgt);
void smbdx_conn_leave(struct smbdx_conn *conn);

/* ---- xform_crypto.c ---- */
int smbdx_xf_copy_sign(struct shash_desc *desc, const struct iov_iter *src,
		       const struct bio_vec *bv, u32 nbv, size_t len, u8 *sig);

/* ---- rw.c ---- */
u32 smbdx_rw_plan(struct smbdx_conn *conn, u32 room);
void smbdx_rw_release_orphans(struct smbdx_conn *conn);

/* ---- push.c ---- */
void smbdx_push_init(struct smbdx_conn *conn);
void smbdx_push_free(struct smbdx_conn *conn);
u8 smbdx_push_local_flags(void);
void __smbdx_push_recv(struct smbdx_conn *conn, const void *body,
		       const struct smbdx_data_info *di, bool invalidated);
void __smbdx_push_posted(struct smbdx_conn *conn, u8 type);

/* ---- timer.c ---- */
void smbdx_neg_timer_start(struct smbdx_conn *conn);
void smbdx_neg_timer_stop(struct smbdx_conn *conn);
void smbdx_idle_timer_arm(struct smbdx_conn *conn, unsigned long delay);
void smbdx_timers_init(struct smbdx_conn *conn);
void smbdx_timers_cancel(struct smbdx_conn *conn);
void smbdx_timers_cancel_sync(struct smbdx_conn *conn);

/* ---- debugfs.c ---- */
void smbdx_debugfs_init(void);
void smbdx_debugfs_conn_add(struct smbdx_conn *conn);
void smbdx_debugfs_conn_remove(struct smbdx_conn *conn);

/* ---- netdev.c, device.c: interfaces that reach an RDMA port ---- */
/**
 * struct smbdx_lowers - an interface and those below it (smbdx_lowers_get())
 * @dev: the interfaces, each with a reference
 * @n: how many
 */
struct smbdx_lowers {
	struct net_device *dev[16];
	unsigned int n;
};

/**
 * struct smbdx_netdev_hit - the RDMA port an interface reaches
 * @device: the RDMA device
 * @port: its port
 * @through: the interface below (or equal to) the one asked about that is
 *	on the port: the port's net device, or an IPoIB interface
 * @verdict: the device's verdict (smbdx_dev_verdict_str())
 * @usable: smbdirect can use the device
 */
struct smbdx_netdev_hit {
	char device[IB_DEVICE_NAME_MAX];
	u32 port;
	char through[IFNAMSIZ];
	const char *verdict;
	bool usable;
};

void smbdx_lowers_get(struct net_device *ndev, struct smbdx_lowers *l);
void smbdx_lowers_put(struct smbdx_lowers *l);
struct net_device *smbdx_lowers_on_port(const struct smbdx_lowers *l,
					struct ib_device *ibdev, u32 port,
					struct net_device *pdev);
void smbdx_port_netdevs_show(struct seq_file *m, struct ib_device *ibdev,
			     u32 port, struct net_device *pdev);
void smbdx_netdev_debugfs_init(struct dentry *root);
bool smbdx_netdev_find(struct net_device *ndev, struct smbdx_netdev_hit *hit);

/* ---- connect.c, ctl.c: the administrator's check ---- */
/**
 * struct smbdx_connect_report - how far smbdx_connect_report() got
 * @step: the last state the connecting thread entered (RESOLVE_ADDR,
 *	RESOLVE_ROUTE, CONNECTING, NEGOTIATING), CREATED if none
 * @cause: on failure, the connection's cause (SMBDX_CAUSE_NONE if the
 *	error was not the transport's: a local errno, a signal)
 * @conn_id: on failure, the connection's number
 * @device: on failure, the RDMA device, "" if the address never resolved
 * @local: on failure, the local address, if the route was resolved
 * @peer: on failure, the peer's address and port
 */
struct smbdx_connect_report {
	enum smbdx_conn_state step;
	int cause;
	u32 conn_id;
	char device[IB_DEVICE_NAME_MAX];
	struct sockaddr_storage local;
	struct sockaddr_storage peer;
};

struct smbdx_conn *smbdx_connect_report(struct net *net, const struct sockaddr *dst,
					const struct sockaddr *src,
					const struct smbdx_conn_config *cfg,
					const struct smbdx_conn_ops *ops, void *ctx,
					struct smbdx_connect_report *rep);
int smbdx_ctl_init(void);
void smbdx_ctl_exit(void);

/*
 * ---- test hooks (testhooks.c, exported for KUnit) ----
 * Only in the test build (make SMBDX_TESTS=1, which defines SMBDX_TESTS);
 * the product build has neither the functions nor send.test_mute.
 */
#ifdef SMBDX_TESTS
static inline bool smbdx_test_muted(const struct smbdx_conn *conn)
{
	return conn->send.test_mute;
}

void smbdx_test_set_mute(struct smbdx_conn *conn, bool mute);
u64 smbdx_test_stat(struct smbdx_conn *conn, enum smbdx_stat s);
u64 smbdx_test_error_count(struct smbdx_conn *conn, int cause);
u64 smbdx_test_global_error_count(int cause);
u64 smbdx_test_global_stat(enum smbdx_stat s);
int smbdx_test_conns_alive(void);
int smbdx_test_cause(struct smbdx_conn *conn);
u64 smbdx_test_held_bytes(struct smbdx_conn *conn);
void smbdx_test_device_removal(struct smbdx_conn *conn);
bool smbdx_test_released(struct smbdx_conn *conn);
bool smbdx_test_peer_disconnected(struct smbdx_conn *conn);
int smbdx_test_hold_recvs(struct smbdx_conn *conn);
void smbdx_test_release_recvs(void);
void smbdx_connect_step(struct smbdx_conn *conn, enum smbdx_conn_state next);
void smbdx_test_own_caps(struct smbdx_caps *caps);
void smbdx_test_set_own_caps(u8 flags, u8 push_ird);
void smbdx_test_conn_caps(struct smbdx_conn *conn, struct smbdx_conn_caps *out);
#else
static inline bool smbdx_test_muted(const struct smbdx_conn *conn)
{
	return false;
}

static inline void smbdx_connect_step(struct smbdx_conn *conn,
				      enum smbdx_conn_state next)
{
}

static inline void smbdx_test_own_caps(struct smbdx_caps *caps)
{
}
#endif /* SMBDX_TESTS */

#endif /* _SMBDX_H */
