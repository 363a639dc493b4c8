/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smbdirect internal declarations shared between the files of smbdirect.ko:
 * the connection and listener objects, their work items and the functions
 * each file offers the others.
 *
 * Locking, in the order they nest:
 *  - smbd_listeners_lock (mutex): the list of listeners; no CM handler
 *    takes it.
 *  - smbd_conns_lock (mutex): the list of all connections; never held
 *    while calling into the RDMA core (CM handlers take it).
 *  - smbd_listener.mutex: the listener's cm_id (listen/destroy/device
 *    removal).
 *  - smbd_conn.res_mutex: the connection's verbs resources (set-up and
 *    teardown). Taken only in process context outside the CM event
 *    handler, so rdma_destroy_id() under it cannot deadlock with a handler
 *    waiting for it.
 *  - smbd_listener.lock (spinlock): the listener's connection list.
 *  - smbd_conn.lock (spinlock, taken with BH disabled since completions run
 *    in softirq): state, error, credit engine, reassembly, send queue,
 *    receive buffer free list, ready queue. Work requests are posted with it
 *    held, after checking the state, so teardown (which changes the state
 *    under it first) knows that nothing is posted after it let go.
 */
#ifndef _SMBD_H
#define _SMBD_H

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

struct dentry;
struct sg_table;

/**
 * struct smbd_device - an RDMA device smbdirect is attached to
 * @list: entry in the device list (protected by the device list mutex)
 * @ibdev: the device; valid until the ib_client remove callback returns
 * @limits: what smbdirect may use of it, computed when it was added
 */
struct smbd_device {
	struct list_head list;
	struct ib_device *ibdev;
	struct smbd_dev_limits limits;
};

/* ---- module parameters (main.c) ---- */
extern unsigned int smbd_mr_pool_max;
extern unsigned int smbd_rw_ctxs;
extern unsigned int smbd_rw_max_descs;
extern unsigned int smbd_destroy_drain_ms;
extern unsigned int smbd_ib_port;
extern unsigned int smbd_iwarp_port;
extern unsigned int smbd_neg_timeout_active_ms;
extern unsigned int smbd_neg_timeout_passive_ms;
extern struct workqueue_struct *smbd_wq;
extern struct dentry *smbd_debugfs_root;

/* ---- errors by cause ---- */

/*
 * Causes of a connection's termination: the protocol verdicts of the
 * engine (1 .. SMBD_VERDICT_COUNT - 1, an invalid message) followed by the
 * transport's own causes.
 */
enum smbd_cause {
	SMBD_CAUSE_NONE = 0,
	SMBD_CAUSE_NEG_TIMEOUT = SMBD_VERDICT_COUNT,
	SMBD_CAUSE_KEEPALIVE_TIMEOUT,
	SMBD_CAUSE_PEER_DISCONNECT,
	SMBD_CAUSE_CM_ERROR,
	SMBD_CAUSE_REJECTED,
	SMBD_CAUSE_DEVICE_REMOVAL,
	SMBD_CAUSE_RECV_ERROR,
	SMBD_CAUSE_SEND_ERROR,
	SMBD_CAUSE_POST_ERROR,
	SMBD_CAUSE_NOMEM,
	SMBD_CAUSE_NEG_REFUSED,
	SMBD_CAUSE_ACCEPT_REFUSED,
	SMBD_CAUSE_DEVICE_UNUSABLE,
	SMBD_CAUSE_MR_ERROR,
	SMBD_CAUSE_RW_ERROR,
	SMBD_CAUSE_COUNT
};

const char *smbd_cause_str(int cause);
const char *smbd_cause_name(int cause);

/* ---- counters ---- */
enum smbd_stat {
	SMBD_STAT_TX_NEG_REQ,
	SMBD_STAT_TX_NEG_RESP,
	SMBD_STAT_TX_MSGS,
	SMBD_STAT_TX_FRAGS,
	SMBD_STAT_TX_EMPTY,
	SMBD_STAT_TX_KEEPALIVE_REQ,
	SMBD_STAT_TX_KEEPALIVE_RESP,
	SMBD_STAT_TX_CREDITS_GRANTED,
	SMBD_STAT_TX_BYTES,
	SMBD_STAT_TX_INVALIDATE,
	SMBD_STAT_RX_NEG_REQ,
	SMBD_STAT_RX_NEG_RESP,
	SMBD_STAT_RX_MSGS,
	SMBD_STAT_RX_FRAGS,
	SMBD_STAT_RX_EMPTY,
	SMBD_STAT_RX_KEEPALIVE_REQ,
	SMBD_STAT_RX_CREDITS_GRANTED,
	SMBD_STAT_RX_BYTES,
	SMBD_STAT_RX_INVALIDATED,
	SMBD_STAT_SEND_BLOCKED,
	SMBD_STAT_SEND_SQ_FULL,
	SMBD_STAT_RECV_GATED,
	SMBD_STAT_LOCAL_TOO_BIG,
	SMBD_STAT_KEEPALIVE_TIMER,
	SMBD_STAT_MR_REGISTRATIONS,
	SMBD_STAT_MR_REGISTERED_BYTES,
	SMBD_STAT_MR_REG_WAITS,
	SMBD_STAT_MR_REG_FAILED,
	SMBD_STAT_MR_LOCAL_INV,
	SMBD_STAT_MR_REMOTE_INV,
	SMBD_STAT_MR_REMOTE_INV_UNKNOWN,
	SMBD_STAT_MR_RECYCLED,
	SMBD_STAT_RDMA_READS,
	SMBD_STAT_RDMA_READ_BYTES,
	SMBD_STAT_RDMA_WRITES,
	SMBD_STAT_RDMA_WRITE_BYTES,
	SMBD_STAT_RDMA_WRS,
	SMBD_STAT_RDMA_LOCAL_MRS,
	SMBD_STAT_RW_FAILED,
	SMBD_STAT_RW_BAD_DESC,
	SMBD_STAT_RW_TOO_BIG,
	SMBD_STAT_DESTROY_DRAIN_TIMEOUTS,
	SMBD_STAT_CM_COMM_EST,
	SMBD_STAT_COUNT
};

const char *smbd_stat_name(enum smbd_stat s);

/**
 * struct smbd_stats - counters of a connection, or of all of them
 * @v: one counter per enum smbd_stat
 * @errors: one counter per enum smbd_cause (and protocol verdict)
 */
struct smbd_stats {
	atomic64_t v[SMBD_STAT_COUNT];
	atomic64_t errors[SMBD_CAUSE_COUNT];
};

extern struct smbd_stats smbd_global_stats;

/* ---- objects ---- */

enum smbd_obj_kind {
	SMBD_OBJ_CONN = 0x5c0,
	SMBD_OBJ_LISTENER,
};

enum smbd_role {
	SMBD_ROLE_ACTIVE,
	SMBD_ROLE_PASSIVE,
};

/*
 * Connection states (DESIGN.md section 2). The MS-SMBD Connection.Role of
 * 3.1.1.1 is ACTIVE or PASSIVE until NEGOTIATING ends and ESTABLISHED after.
 */
enum smbd_conn_state {
	SMBD_CS_CREATED,
	SMBD_CS_RESOLVE_ADDR,
	SMBD_CS_RESOLVE_ROUTE,
	SMBD_CS_CONNECTING,
	SMBD_CS_NEGOTIATING,
	SMBD_CS_ESTABLISHED,
	SMBD_CS_DISCONNECTING,
	SMBD_CS_DISCONNECTED,
	SMBD_CS_DESTROYED,
};

const char *smbd_state_str(enum smbd_conn_state s);

/* CM events the connecting thread waits for (smbd_conn.cm_flags bits) */
enum {
	SMBD_CMF_ADDR_RESOLVED,
	SMBD_CMF_ROUTE_RESOLVED,
	SMBD_CMF_ESTABLISHED,
	SMBD_CMF_DISCONNECTED,
	SMBD_CMF_REMOVED,	/* device removal has claimed it */
	SMBD_CMF_COMM_EST,	/* passive: the CM was told data arrived */
};

struct smbd_conn;

/**
 * enum smbd_mr_state - where a pool MR is in its life
 * @SMBD_MR_FREE: on the free list, no valid registration
 * @SMBD_MR_REGISTERING: taken by a registration, REG_MR not yet completed
 * @SMBD_MR_REGISTERED: remotely accessible with @rkey
 * @SMBD_MR_REMOTE_INV: the peer invalidated @rkey with Send with Invalidate
 * @SMBD_MR_BROKEN: a REG_MR or LOCAL_INV on it failed: recycled (deregistered
 *	and allocated afresh) before reuse
 * @SMBD_MR_LOST: a work request on it may still be queued (a chain was
 *	posted only in part): untouchable until the QP is drained at teardown
 */
enum smbd_mr_state {
	SMBD_MR_FREE,
	SMBD_MR_REGISTERING,
	SMBD_MR_REGISTERED,
	SMBD_MR_REMOTE_INV,
	SMBD_MR_BROKEN,
	SMBD_MR_LOST,
};

/**
 * struct smbd_mr - one fast-registration MR of a connection's pool
 * @list: entry in conn->mr_free or conn->mr_busy (under conn->lock)
 * @conn: owning connection
 * @mr: the verbs MR, NULL if recycling it failed (the pool shrank)
 * @cqe: completion entry of the REG_MR or LOCAL_INV posted on it
 * @reg: registration using it
 * @state: see enum smbd_mr_state (under conn->lock)
 * @rkey: key of the current registration
 * @last: its work request is the signaled end of a chain
 */
struct smbd_mr {
	struct list_head list;
	struct smbd_conn *conn;
	struct ib_mr *mr;
	struct ib_cqe cqe;
	struct smbd_reg *reg;
	enum smbd_mr_state state;
	u32 rkey;
	bool last;
};

/**
 * struct smbd_send_io - one Send work request and its buffer
 * @cqe: completion entry (container_of recovers the io)
 * @conn: owning connection
 * @list: entry in the send queue while queued
 * @owner: the smbd_send() call waiting for this fragment to be posted
 * @di: header fields; the data fields are set when the fragment is built
 * @dma: DMA address of @buf while posted
 * @len: bytes to send
 * @cid: completion id (tracepoints)
 * @inv_token: rkey to invalidate at the peer, if @inv
 * @inv: send with invalidate
 * @fail_verdict: terminate the connection with this cause when the send
 *	completes (a failed Negotiate Response, 3.1.5.3)
 * @size: size of @buf
 * @buf: header and payload
 */
struct smbd_send_io {
	struct ib_cqe cqe;
	struct smbd_conn *conn;
	struct list_head list;
	struct smbd_send_owner *owner;
	struct smbd_data_info di;
	u64 dma;
	u32 len;
	u32 cid;
	u32 inv_token;
	bool inv;
	int fail_verdict;
	u32 size;
	u8 buf[];
};

/**
 * struct smbd_send_owner - an smbd_send() call waiting for its fragments
 * @pending: fragments not yet posted (or discarded)
 * @failed: at least one fragment was discarded
 *
 * Lives on the sender's stack; protected by conn->lock.
 */
struct smbd_send_owner {
	u32 pending;
	bool failed;
};

/**
 * struct smbd_recv_io - one receive buffer
 * @cqe: completion entry
 * @conn: owning connection
 * @list: entry in the free list when not posted
 * @buf: the buffer
 * @dma: its DMA address (mapped for the connection's lifetime)
 * @cid: completion id of the current post
 */
struct smbd_recv_io {
	struct ib_cqe cqe;
	struct smbd_conn *conn;
	struct list_head list;
	void *buf;
	u64 dma;
	u32 cid;
};

/**
 * struct smbd_msg - a received, reassembled upper-layer message
 * @list: entry in the connection's ready queue
 * @conn: connection; a reference is held once the message is handed out
 * @len: message length
 * @nvec: pages in @bv
 * @inv: the peer invalidated @inv_token while sending it (3.1.5.8)
 * @inv_token: the invalidated token
 * @bv: the pages holding the message
 */
struct smbd_msg {
	struct list_head list;
	struct smbd_conn *conn;
	u32 len;
	u32 nvec;
	bool inv;
	u32 inv_token;
	struct bio_vec bv[];
};

/**
 * struct smbd_conn - one SMB Direct connection (MS-SMBD 3.1.1.1)
 *
 * See the top of connection.c for the life cycle and the locking rules;
 * fields are grouped by the lock that protects them.
 */
struct smbd_conn {
	enum smbd_obj_kind kind;
	u32 num;
	struct kref ref;
	struct list_head node;		/* smbd_conns, under smbd_conns_lock */
	enum smbd_role role;

	/* set before the connection is visible, then read-only */
	struct smbd_conn_config cfg;
	const struct smbd_conn_ops *ops;
	struct smbd_listener *listener;
	unsigned long keepalive_j;
	unsigned long keepalive_wait_j;
	unsigned long neg_timeout_j;

	/* under lock */
	spinlock_t lock;
	wait_queue_head_t wq;
	enum smbd_conn_state state;
	int error;
	int cause;
	unsigned long cm_flags;
	bool negotiated;
	bool handed_over;
	bool loss_notified;
	bool upcalls_off;
	bool test_mute;
	bool send_blocked;
	bool recv_gated;
	void *ctx;
	struct smbd_proto_params params;
	struct smbd_credits cr;
	struct smbd_reasm ra;
	struct smbd_msg *reasm_msg;
	bool inv_pending;
	u32 inv_token;
	struct list_head send_queue;
	u32 send_queue_len;
	u32 sends_posted;
	bool draining;
	u32 recvs_posted;
	struct list_head rio_free;
	struct list_head ready;
	u32 ready_msgs;
	u64 held_bytes;
	u32 next_cid;
	unsigned long last_rx;

	/* under res_mutex, stable while the state is below DISCONNECTING */
	struct mutex res_mutex;
	bool released;
	bool disconnect_sent;
	bool est_notified;	/* rdma_notify(COMM_EST) was called */
	struct rdma_cm_id *id;
	struct ib_device *ibdev;
	struct smbd_dev_limits limits;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool qp_created;
	bool qp_live;
	u32 sq_depth;
	u32 rq_depth;
	struct smbd_recv_io *rios;
	u32 nrios;
	u32 rio_size;
	u32 ird;
	u32 ord;
	char devname[IB_DEVICE_NAME_MAX];

	struct task_struct *upcall_task;
	struct delayed_work neg_work;
	struct delayed_work idle_work;
	struct work_struct upcall_work;
	struct work_struct disc_work;
	struct work_struct est_work;
	struct work_struct pump_work;
	struct work_struct teardown_work;
	struct work_struct release_work;

	/*
	 * Memory registration and RDMA read/write (mr.c, rw.c). The pool
	 * array, depth and counts are set with the QP and read-only after;
	 * the lists, states and counters are under lock. mr_users counts the
	 * API calls using the QP or the MRs; teardown waits for it to drop
	 * to zero (after the drain) before releasing them.
	 */
	struct smbd_mr *mrs;
	u32 nmrs;
	u32 mr_depth;
	struct list_head mr_free;
	struct list_head mr_busy;
	u32 mr_free_count;
	u32 mr_usable;
	struct list_head regs;
	struct list_head rw_orphans;
	u32 mr_users;
	bool mr_dead;
	bool mr_released;
	u32 rw_ctxs;
	u32 rw_ctx_avail;
	u32 rw_rd_used;
	u32 rw_wr_budget;
	u32 rw_wr_avail;
	u32 rw_chunk;

	struct sockaddr_storage local;
	struct sockaddr_storage peer;
	struct list_head lnode;		/* listener's list, under listener lock */
	struct dentry *dir;
	struct smbd_stats stats;
};

/**
 * struct smbd_listener - a passive endpoint (MS-SMBD 3.1.7.2)
 * @kind: SMBD_OBJ_LISTENER (the CM handler tells contexts apart by it)
 * @num: id shown in debugfs
 * @node: entry in smbd_listeners, under smbd_conns_lock
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
 * @remove_work: destroys @id after a DEVICE_REMOVAL CM event
 */
struct smbd_listener {
	enum smbd_obj_kind kind;
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
	struct smbd_conn_config cfg;
	const struct smbd_listener_ops *ops;
	void *ctx;
	struct sockaddr_storage addr;
	int port;
	atomic64_t accepted;
	atomic64_t refused;
	struct work_struct remove_work;
};

/* ---- main.c ---- */
void smbd_stat_inc(struct smbd_conn *conn, enum smbd_stat s);
void smbd_stat_add(struct smbd_conn *conn, enum smbd_stat s, u64 n);

/* ---- device.c ---- */
int smbd_device_init(void);
void smbd_device_exit(void);
int smbd_devices_show(struct seq_file *m, void *unused);
bool smbd_device_limits(struct ib_device *ibdev, struct smbd_dev_limits *out);

/* ---- connection.c ---- */
extern struct mutex smbd_conns_lock;
extern struct list_head smbd_conns;

struct smbd_conn *smbd_conn_alloc(enum smbd_role role,
				  const struct smbd_conn_config *cfg);
void smbd_conn_get(struct smbd_conn *conn);
void smbd_conn_put(struct smbd_conn *conn);
void smbd_conn_publish(struct smbd_conn *conn);
void smbd_conn_set_state(struct smbd_conn *conn, enum smbd_conn_state s);
void __smbd_conn_fail(struct smbd_conn *conn, int err, int cause);
void smbd_conn_fail(struct smbd_conn *conn, int err, int cause);
void smbd_conn_queue_work(struct smbd_conn *conn, struct work_struct *w);
void smbd_conn_teardown(struct smbd_conn *conn);
void smbd_conn_comm_est(struct smbd_conn *conn);
int smbd_conn_setup_qp(struct smbd_conn *conn);
void smbd_conn_free_qp(struct smbd_conn *conn);
int smbd_conn_cm_event(struct smbd_conn *conn, struct rdma_cm_id *id,
		       struct rdma_cm_event *event);
int smbd_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *event);
void smbd_conns_device_removed(struct ib_device *ibdev);
void smbd_conn_config_resolve(struct smbd_conn_config *cfg, bool passive);
void smbd_conn_log_error(struct smbd_conn *conn, int cause);

/* ---- listen.c ---- */
extern struct mutex smbd_listeners_lock;
extern struct list_head smbd_listeners;

int smbd_listener_cm_event(struct smbd_listener *lis, struct rdma_cm_id *id,
			   struct rdma_cm_event *event);
void smbd_listeners_device_removed(struct ib_device *ibdev);
void smbd_conn_upcall_work(struct work_struct *w);

/* ---- send.c ---- */
void __smbd_send_pump(struct smbd_conn *conn, struct smbd_send_io **spare);
void smbd_pump_work(struct work_struct *w);
struct smbd_send_io *smbd_send_io_alloc(struct smbd_conn *conn, u32 size,
					gfp_t gfp);
void smbd_send_io_free(struct smbd_send_io *io);
int smbd_post_send_io(struct smbd_conn *conn, struct smbd_send_io *io);
void smbd_send_queue_flush(struct smbd_conn *conn);
int smbd_send_negotiate_req(struct smbd_conn *conn);
int smbd_send_negotiate_resp(struct smbd_conn *conn,
			     const struct smbd_negotiate_resp *resp,
			     int fail_verdict);

/* ---- recv.c ---- */
int smbd_recv_bufs_alloc(struct smbd_conn *conn);
void smbd_recv_bufs_free(struct smbd_conn *conn);
int smbd_post_recv_one(struct smbd_conn *conn);
void smbd_post_recvs(struct smbd_conn *conn);
void smbd_ready_flush(struct smbd_conn *conn);

/* ---- mr.c ---- */
u32 smbd_mr_plan(struct smbd_conn *conn);
int smbd_mr_pool_init(struct smbd_conn *conn);
void smbd_mr_release(struct smbd_conn *conn);
void smbd_mr_remote_invalidated(struct smbd_conn *conn, u32 rkey);
int smbd_conn_enter(struct smbd_conn *conn, bool any_state);
void smbd_sg_end(struct sg_table *sgt);
int smbd_sgt_alloc(struct sg_table *sgt, unsigned int n);
void smbd_sgt_free(struct sg_table *sgt);
void smbd_conn_leave(struct smbd_conn *conn);

/* ---- rw.c ---- */
u32 smbd_rw_plan(struct smbd_conn *conn, u32 room);
void smbd_rw_release_orphans(struct smbd_conn *conn);

/* ---- timer.c ---- */
void smbd_neg_timer_start(struct smbd_conn *conn);
void smbd_idle_timer_arm(struct smbd_conn *conn, unsigned long delay);
void smbd_neg_work(struct work_struct *w);
void smbd_idle_work(struct work_struct *w);

/* ---- debugfs.c ---- */
void smbd_debugfs_init(void);
void smbd_debugfs_conn_add(struct smbd_conn *conn);
void smbd_debugfs_conn_remove(struct smbd_conn *conn);

/* ---- test hooks (exported for KUnit and the test service) ---- */
void smbd_test_set_mute(struct smbd_conn *conn, bool mute);
u64 smbd_test_stat(struct smbd_conn *conn, enum smbd_stat s);
u64 smbd_test_error_count(struct smbd_conn *conn, int cause);
u64 smbd_test_global_error_count(int cause);
int smbd_test_cause(struct smbd_conn *conn);
u64 smbd_test_held_bytes(struct smbd_conn *conn);

#endif /* _SMBD_H */
