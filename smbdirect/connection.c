// SPDX-License-Identifier: GPL-2.0
/*
 * SMB Direct connection object: life cycle, state machine, first-error
 * handling, teardown, device removal, and the parts of the API that act on
 * a whole connection (disconnect, destroy, query). CM events are
 * dispatched in cm.c.
 *
 * Ownership: smbdx_conn_alloc() sets up the common part of struct
 * smbdx_conn and lets each part set up its own lists and work items
 * (smbdx_send_init(), smbdx_deliver_init(), smbdx_timers_init(),
 * smbdx_push_init()); the timers are stopped through timer.c too. What
 * this file still calls above it: the send queue's flush at failure
 * (send.c), the part inits, the verbs resources' release at teardown
 * (qp.c), and at publication and release the debugfs directory
 * (debugfs.c), the messages never taken (deliver.c) and push mode's inbox
 * (push.c).
 *
 * Normal operation: a connection is created by smbdx_connect() (connect.c)
 * or by a listener's CONNECT_REQUEST (listen.c). Its state only moves
 * forward: CREATED -> RESOLVE_ADDR -> RESOLVE_ROUTE -> CONNECTING ->
 * NEGOTIATING -> ESTABLISHED -> DISCONNECTING -> DISCONNECTED -> DESTROYED
 * (a passive connection starts at NEGOTIATING). The verbs resources (qp.c)
 * are created once the device is known and live until teardown. Send and
 * receive completions (send.c, recv.c) run in softirq and take only
 * conn->lock; a failed one ends the connection through
 * __smbdx_conn_wc_failed().
 *
 * References: the owner (the smbdx_connect() caller, or the listener until
 * its accept callback takes the connection), every queued work item that
 * is not a timer, and every received message handed to the upper layer
 * hold one. The last put queues release_work, which removes the debugfs
 * directory and frees the memory in process context.
 *
 * Transport recovery: the first error is sticky. __smbdx_conn_fail()
 * records it with its cause (counted, traced, logged once, rate-limited),
 * moves the state to DISCONNECTING, discards the send queue (waking the
 * senders), cancels the timers, wakes every waiter and queues the
 * disconnect work (rdma_disconnect in process context) and the upcall
 * work (loss notification, or clean-up of a connection no upper layer
 * owns yet). It never sleeps and may run in any context.
 *
 * smbdx_conn_teardown() releases the verbs resources: disconnect, drain
 * the QP (every posted work request completes, flushed, and its handler
 * frees what it owned), destroy the QP, free the CQ (no handler runs
 * after that), unmap and free the receive buffers, free the PD, destroy
 * the cm_id. It runs in process context, never from a CM event handler
 * (rdma_destroy_id() waits for handlers), under res_mutex, and is
 * idempotent: the owner's smbdx_destroy(), device removal (ib_client or
 * CM event) and the listener may all call it, in any order. A disconnect
 * may sleep under res_mutex waiting for a CM event (the CM's ESTABLISHED,
 * smbdx_conn_notify_est()), so no CM event handler may take res_mutex.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/ratelimit.h>
#include <kunit/visibility.h>

#include "smbd.h"
#include "trace.h"

/* Protects smbdx_conns, the list of every connection not yet freed. */
DEFINE_MUTEX(smbdx_conns_lock);
LIST_HEAD(smbdx_conns);

/* A disconnect's wait for the CM's ESTABLISHED after rdma_notify(). */
#define SMBDX_EST_WAIT_MS	2000
/*
 * After the peer's disconnect, the wait for the flushed Receives that end
 * the connection behind the ones that completed first (smbdx_conn_cm_event()).
 */
#define SMBDX_FLUSH_WAIT_MS	2000

static atomic_t smbdx_conn_nums = ATOMIC_INIT(0);
/* Connection objects allocated and not yet freed (debugfs stats). */
atomic_t smbdx_conns_alive = ATOMIC_INIT(0);

static const char * const smbdx_state_names[SMBDX_CS_COUNT] = {
	"CREATED", "RESOLVE_ADDR", "RESOLVE_ROUTE", "CONNECTING", "NEGOTIATING",
	"ESTABLISHED", "DISCONNECTING", "DISCONNECTED", "DESTROYED",
};

/* trace.h's smbdx_show_state() lists the same nine. */
static_assert(SMBDX_CS_COUNT == 9);

/**
 * smbdx_state_str() - name of a connection state
 * @s: state
 *
 * Return: a static string.
 */
const char *smbdx_state_str(enum smbdx_conn_state s)
{
	if ((unsigned int)s >= ARRAY_SIZE(smbdx_state_names))
		return "UNKNOWN";
	return smbdx_state_names[s];
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_state_str);

static void smbdx_conn_release_work(struct work_struct *w);
static void smbdx_conn_disc_work(struct work_struct *w);
static void smbdx_conn_teardown_work(struct work_struct *w);

/**
 * smbdx_conn_alloc() - a new connection object
 * @role: active or passive
 * @cfg: resolved configuration (smbdx_conn_config_resolve())
 *
 * Context: process. The caller holds the only reference.
 *
 * Return: the connection, or NULL without memory.
 */
struct smbdx_conn *smbdx_conn_alloc(enum smbdx_role role,
				    const struct smbdx_conn_config *cfg)
{
	struct smbdx_conn *conn;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return NULL;

	atomic_inc(&smbdx_conns_alive);
	conn->kind = SMBDX_OBJ_CONN;
	conn->num = atomic_inc_return(&smbdx_conn_nums);
	kref_init(&conn->ref);
	INIT_LIST_HEAD(&conn->node);
	INIT_LIST_HEAD(&conn->lnode);
	conn->role = role;
	strscpy(conn->devname, "-", sizeof(conn->devname));
	conn->cfg = *cfg;
	conn->keepalive_j = max(msecs_to_jiffies(cfg->keepalive_ms), 1UL);
	conn->keepalive_wait_j = max(msecs_to_jiffies(cfg->keepalive_wait_ms), 1UL);
	conn->neg_timeout_j = max(msecs_to_jiffies(cfg->negotiate_timeout_ms), 1UL);
	conn->io_timeout_j = max(msecs_to_jiffies(cfg->io_timeout_ms), 1UL);

	spin_lock_init(&conn->lock);
	init_waitqueue_head(&conn->wq);
	conn->state = SMBDX_CS_CREATED;
	/* recv.c fills it when the receive buffers are allocated. */
	INIT_LIST_HEAD(&conn->recv.free);
	mutex_init(&conn->res_mutex);

	INIT_WORK(&conn->disc_work, smbdx_conn_disc_work);
	INIT_WORK(&conn->teardown_work, smbdx_conn_teardown_work);
	INIT_WORK(&conn->release_work, smbdx_conn_release_work);
	/* Each part sets up its own lists and work items. */
	smbdx_send_init(conn);
	smbdx_deliver_init(conn);
	smbdx_timers_init(conn);
	smbdx_push_init(conn);
	return conn;
}

/**
 * smbdx_conn_get() - take a reference
 * @conn: connection with at least one reference already held
 */
void smbdx_conn_get(struct smbdx_conn *conn)
{
	kref_get(&conn->ref);
}

static void smbdx_conn_release(struct kref *ref)
{
	struct smbdx_conn *conn = container_of(ref, struct smbdx_conn, ref);

	/* Possibly softirq: free in process context. */
	queue_work(smbdx_wq, &conn->release_work);
}

/**
 * smbdx_conn_put() - drop a reference
 * @conn: connection
 *
 * Context: any. The last reference frees the connection from the
 * workqueue.
 */
void smbdx_conn_put(struct smbdx_conn *conn)
{
	kref_put(&conn->ref, smbdx_conn_release);
}

static void smbdx_conn_release_work(struct work_struct *w)
{
	struct smbdx_conn *conn = container_of(w, struct smbdx_conn, release_work);

	/* Every owner tears down before dropping its reference. */
	WARN_ON_ONCE(!conn->released);

	mutex_lock(&smbdx_conns_lock);
	list_del_init(&conn->node);
	mutex_unlock(&smbdx_conns_lock);

	smbdx_debugfs_conn_remove(conn);
	smbdx_ready_flush(conn);
	kfree(conn->mr.pool);
	smbdx_push_free(conn);
	kfree(conn);
	atomic_dec(&smbdx_conns_alive);
}

/**
 * smbdx_conn_publish() - make a connection visible to device removal and
 *	debugfs
 * @conn: connection whose cm_id exists
 *
 * Context: process, not holding smbdx_conns_lock.
 */
void smbdx_conn_publish(struct smbdx_conn *conn)
{
	mutex_lock(&smbdx_conns_lock);
	list_add_tail(&conn->node, &smbdx_conns);
	mutex_unlock(&smbdx_conns_lock);
	smbdx_debugfs_conn_add(conn);
}

/**
 * smbdx_conn_set_state() - move the state forward
 * @conn: connection, lock held
 * @s: new state; a state not after the current one is ignored
 */
void smbdx_conn_set_state(struct smbdx_conn *conn, enum smbdx_conn_state s)
{
	lockdep_assert_held(&conn->lock);
	if (s <= conn->state)
		return;
	trace_smbdx_state(conn, conn->state, s);
	conn->state = s;
	wake_up_all(&conn->wq);
}

/**
 * smbdx_conn_queue_work() - queue one of the connection's work items
 * @conn: connection
 * @w: its work item; holds a reference while queued
 *
 * Context: any.
 */
void smbdx_conn_queue_work(struct smbdx_conn *conn, struct work_struct *w)
{
	smbdx_conn_get(conn);
	if (!queue_work(smbdx_wq, w))
		smbdx_conn_put(conn);
}

/**
 * smbdx_conn_log_error() - the one log line of a termination
 * @conn: connection
 * @cause: why
 *
 * Invalid messages are warnings naming the rule broken; a peer's orderly
 * disconnect is only a debug message. Rate-limited.
 */
void smbdx_conn_log_error(struct smbdx_conn *conn, int cause)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);
	/* Known once the address resolved or the request arrived. */
	struct ib_device *ibdev = READ_ONCE(conn->ibdev);
	bool invalid = cause > 0 && cause < SMBDX_VERDICT_COUNT;
	const char *level = invalid ? KERN_WARNING : KERN_INFO;
	const char *what = smbdx_cause_str(cause);

	if (cause == SMBDX_CAUSE_PEER_DISCONNECT) {
		if (ibdev)
			ibdev_dbg(ibdev, KBUILD_MODNAME ": connection %u to %pISpc: %s\n",
				  conn->num, &conn->peer, what);
		else
			pr_debug("connection %u to %pISpc: %s\n", conn->num,
				 &conn->peer, what);
		return;
	}
	if (!__ratelimit(&rs))
		return;
	if (ibdev)
		ibdev_printk(level, ibdev,
			     KBUILD_MODNAME ": connection %u to %pISpc: %s%s; disconnecting\n",
			     conn->num, &conn->peer,
			     invalid ? "invalid message: " : "", what);
	else if (invalid)
		pr_warn("connection %u to %pISpc: invalid message: %s; disconnecting\n",
			conn->num, &conn->peer, what);
	else
		pr_info("connection %u to %pISpc: %s; disconnecting\n",
			conn->num, &conn->peer, what);
}

/**
 * __smbdx_conn_fail() - terminate the connection with its first error
 * @conn: connection, lock held
 * @err: negative errno reported to the upper layer
 * @cause: SMBDX_CAUSE_* or protocol verdict, counted in the error
 *	counters; SMBDX_CAUSE_NONE for a local disconnect
 *
 * Only the first call has an effect (the error is sticky). Never sleeps.
 */
void __smbdx_conn_fail(struct smbdx_conn *conn, int err, int cause)
{
	lockdep_assert_held(&conn->lock);
	if (conn->error)
		return;

	conn->error = err;
	conn->cause = cause;
	/* A concrete failure found later is the better cause. */
	conn->cause_provisional = cause == SMBDX_CAUSE_PEER_DISCONNECT;
	trace_smbdx_error(conn, err, cause);
	if (cause > 0 && cause < SMBDX_CAUSE_COUNT) {
		atomic64_inc(&conn->stats.errors[cause]);
		atomic64_inc(&smbdx_global_stats.errors[cause]);
		smbdx_conn_log_error(conn, cause);
	}
	smbdx_conn_set_state(conn,
			     test_bit(SMBDX_CMF_DISCONNECTED, &conn->cm_flags) ?
			     SMBDX_CS_DISCONNECTED : SMBDX_CS_DISCONNECTING);
	smbdx_send_queue_flush(conn);
	smbdx_timers_cancel(conn);
	wake_up_all(&conn->wq);
	wake_up_all(&conn->recv.wq);
	smbdx_conn_queue_work(conn, &conn->disc_work);
	smbdx_conn_queue_work(conn, &conn->recv.upcall_work);
}

/**
 * __smbdx_conn_fail_concrete() - fail the connection with a definite cause
 * @conn: connection, lock held
 * @err: negative errno
 * @cause: a cause that says what went wrong (a work request's error, the
 *	peer's rejection...), never a peer disconnect
 *
 * Like __smbdx_conn_fail(); but if the connection has already failed with
 * a peer disconnect, which may only be a symptom (a flush polled before the
 * send queue's error on the same CQ, the QP flushed by the CM's reject
 * before the REJECTED event, the peer disconnecting because of what our
 * work request did), @cause is what started it and replaces it. The errno
 * is replaced too while no upper layer has seen the connection (a failing
 * smbdx_connect() returns it); after that the first one stays.
 */
void __smbdx_conn_fail_concrete(struct smbdx_conn *conn, int err, int cause)
{
	lockdep_assert_held(&conn->lock);
	if (!conn->error || !conn->cause_provisional) {
		__smbdx_conn_fail(conn, err, cause);
		return;
	}
	conn->cause_provisional = false;
	atomic64_dec(&conn->stats.errors[conn->cause]);
	atomic64_dec(&smbdx_global_stats.errors[conn->cause]);
	conn->cause = cause;
	if (!conn->handed_over)
		conn->error = err;
	atomic64_inc(&conn->stats.errors[cause]);
	atomic64_inc(&smbdx_global_stats.errors[cause]);
	trace_smbdx_error(conn, conn->error, cause);
	smbdx_conn_log_error(conn, cause);
}

/**
 * smbdx_conn_fail() - __smbdx_conn_fail() taking the lock
 * @conn: connection
 * @err: negative errno
 * @cause: cause
 *
 * Context: any.
 */
void smbdx_conn_fail(struct smbdx_conn *conn, int err, int cause)
{
	spin_lock_bh(&conn->lock);
	__smbdx_conn_fail(conn, err, cause);
	spin_unlock_bh(&conn->lock);
}

/**
 * smbdx_conn_wait_begin() - an API call that may sleep on the connection
 * @conn: connection
 *
 * smbdx_send*() and smbdx_recv*() count themselves in conn->waiters and
 * hold a reference until smbdx_conn_wait_end(): smbdx_destroy() fails the
 * connection (which wakes them) and waits for them to leave before it
 * tears the connection down, so a thread still sleeping on the connection
 * (a sender waiting for credits while another thread reconnects, say)
 * never wakes up on freed memory.
 *
 * Context: process.
 */
void smbdx_conn_wait_begin(struct smbdx_conn *conn)
{
	smbdx_conn_get(conn);
	spin_lock_bh(&conn->lock);
	conn->waiters++;
	spin_unlock_bh(&conn->lock);
}

/**
 * smbdx_conn_wait_end() - the call of smbdx_conn_wait_begin() is done
 * @conn: connection
 *
 * Context: process.
 */
void smbdx_conn_wait_end(struct smbdx_conn *conn)
{
	spin_lock_bh(&conn->lock);
	if (!--conn->waiters)
		wake_up_all(&conn->wq);
	spin_unlock_bh(&conn->lock);
	smbdx_conn_put(conn);
}

/**
 * smbdx_conn_wait_wr() - wait for work requests of an API call, bounded
 * @conn: connection
 * @done: completed once the last of the call's work requests completed
 *
 * A peer can keep the connection alive and still keep a posted work
 * request from ever completing (an RDMA Read it never answers, an iWARP
 * peer whose TCP window stays shut, which also holds up every work
 * request queued behind on the send queue). After the connection's
 * io_timeout this ends the connection (cause wr_timeout, -ETIMEDOUT):
 * the QP goes to the error state (disc_work), everything still posted is
 * flushed, and the flushed completions end the second, unbounded wait.
 * Their buffers must not be touched before that, so the caller may not
 * return earlier.
 *
 * Context: process.
 */
void smbdx_conn_wait_wr(struct smbdx_conn *conn, struct completion *done)
{
	if (wait_for_completion_timeout(done, conn->io_timeout_j))
		return;
	smbdx_conn_fail(conn, -ETIMEDOUT, SMBDX_CAUSE_WR_TIMEOUT);
	wait_for_completion(done);
}

static bool smbdx_conn_no_waiters(struct smbdx_conn *conn)
{
	bool none;

	spin_lock_bh(&conn->lock);
	none = !conn->waiters;
	spin_unlock_bh(&conn->lock);
	return none;
}

/**
 * __smbdx_conn_wc_failed() - end the connection if a work request failed
 * @conn: connection, lock held
 * @wc: the work completion of a Send, Receive, REG_MR, LOCAL_INV or RDMA
 *	read/write
 * @cause: the cause to record when the work request itself failed
 *
 * A flushed work request means someone moved the QP to the error state:
 * as the connection's first error, that is the peer (iWARP flushes the
 * queues on the peer's disconnect before the CM reports it), so the cause
 * is a peer disconnect (-ECONNRESET); after a local failure the flush only
 * finishes teardown and changes nothing (the first error sticks). Any
 * other status is an error of @cause (-EIO); if it comes after a flush or
 * a peer disconnect that was the first error, it is what started them,
 * and it becomes the cause (the errno the upper layer sees does not
 * change).
 *
 * Context: completion handler (softirq), conn->lock held.
 *
 * Return: true if @wc did not succeed.
 */
bool __smbdx_conn_wc_failed(struct smbdx_conn *conn, const struct ib_wc *wc,
			    int cause)
{
	lockdep_assert_held(&conn->lock);
	if (likely(wc->status == IB_WC_SUCCESS))
		return false;
	if (wc->status == IB_WC_WR_FLUSH_ERR)
		__smbdx_conn_fail(conn, -ECONNRESET, SMBDX_CAUSE_PEER_DISCONNECT);
	else
		__smbdx_conn_fail_concrete(conn, -EIO, cause);
	return true;
}

/**
 * __smbdx_conn_post_failed() - a work request could not be posted
 * @conn: connection, lock held
 * @rc: what ib_post_send() or ib_post_recv() returned
 *
 * siw refuses posts with -ENOTCONN once its QP left RTS, which only the
 * peer's close (or a local failure, with its own error) does before our
 * teardown: like a flush, that is a provisional peer disconnect, which a
 * work request's error or a CM event may still explain better. Any other
 * refusal is a posting error of ours or the provider's.
 *
 * Context: any, conn->lock held.
 *
 * Return: the connection's error, for the caller to return.
 */
int __smbdx_conn_post_failed(struct smbdx_conn *conn, int rc)
{
	lockdep_assert_held(&conn->lock);
	if (rc == -ENOTCONN)
		__smbdx_conn_fail(conn, -ECONNRESET,
				  SMBDX_CAUSE_PEER_DISCONNECT);
	else
		__smbdx_conn_fail_concrete(conn, rc, SMBDX_CAUSE_POST_ERROR);
	return conn->error;
}

/**
 * smbdx_conn_wc_errno() - what an API call returns for a failed work request
 * @conn: connection
 *
 * A failed completion has failed the connection (__smbdx_conn_wc_failed())
 * before its waiter is woken, so the call reports the connection's error:
 * -EIO when a work request's failure came first (the peer refused an
 * access, say), else why the connection ended (-ECONNRESET after the
 * peer's disconnect, -ENODEV after a device removal). Requests that fail
 * because the transport under them broke (siw completes them with
 * GENERAL_ERR or LOC_QP_OP_ERR when its TCP stream goes) thus report the
 * same error as every other call on the connection.
 *
 * Context: any; the completion was seen first.
 *
 * Return: a negative errno.
 */
int smbdx_conn_wc_errno(struct smbdx_conn *conn)
{
	int err = READ_ONCE(conn->error);

	return err ? err : -EIO;
}

/*
 * Before a disconnect of ours, tell the CM that a passive connection
 * carries data (smbdx_conn_comm_est()) if its RTU has not been processed:
 * a disconnect in REP_SENT would reach the peer as a reject.
 *
 * The IB CM acts on rdma_notify(COMM_EST) in two steps: the cm_id enters
 * ESTABLISHED at once, but the REP it still retransmits is cancelled only
 * later, from the CM's work queue, which then reports ESTABLISHED. A DREQ
 * sent in between takes the REP's place as the cm_id's pending message, so
 * the CM never cancels the REP: it is resent to the peer for about a minute
 * (15 retries on rxe) and holds a reference that makes rdma_destroy_id()
 * wait as long ("cm_destroy_id_wait_timeout"). So the disconnect waits for
 * that ESTABLISHED event first, bounded: a peer's DREQ also ends the wait,
 * and a lost event costs SMBDX_EST_WAIT_MS, counted.
 *
 * Context: process, under res_mutex (the CM handler never takes it); once
 * per connection, from smbdx_conn_disconnect_qp().
 */
static void smbdx_conn_notify_est(struct smbdx_conn *conn)
{
	lockdep_assert_held(&conn->res_mutex);
	if (!test_bit(SMBDX_CMF_COMM_EST, &conn->cm_flags) ||
	    test_bit(SMBDX_CMF_ESTABLISHED, &conn->cm_flags))
		return;
	/* -EISCONN and the like: the RTU won the race after all. */
	if (rdma_notify(conn->id, IB_EVENT_COMM_EST))
		return;
	smbdx_stat_inc(conn, SMBDX_STAT_CM_COMM_EST);
	if (!wait_event_timeout(conn->wq,
				test_bit(SMBDX_CMF_ESTABLISHED, &conn->cm_flags) ||
				test_bit(SMBDX_CMF_DISCONNECTED, &conn->cm_flags),
				msecs_to_jiffies(SMBDX_EST_WAIT_MS)))
		smbdx_stat_inc(conn, SMBDX_STAT_CM_EST_WAIT_TIMEOUTS);
}

/*
 * Tell the peer, once. The QP leaves RTS, so what is still posted is
 * flushed (first moved to the error state on devices that would not flush
 * it otherwise, devlimits.c).
 */
static void smbdx_conn_disconnect_qp(struct smbdx_conn *conn)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	lockdep_assert_held(&conn->res_mutex);
	if (conn->released || !conn->id || !conn->qp_live ||
	    conn->disconnect_sent)
		return;
	smbdx_conn_notify_est(conn);
	if (conn->limits.err_before_disconnect)
		ib_modify_qp(conn->id->qp, &attr, IB_QP_STATE);
	rdma_disconnect(conn->id);
	conn->disconnect_sent = true;
}

/**
 * smbdx_conn_teardown() - release every verbs resource, once
 * @conn: connection
 *
 * Terminates the connection if it is not already (-ESHUTDOWN), then under
 * res_mutex: disconnect, drain the QP, destroy it, free the CQ, the
 * receive buffers and the PD, destroy the cm_id. Idempotent.
 *
 * Context: process; never from the connection's CM event handler.
 */
void smbdx_conn_teardown(struct smbdx_conn *conn)
{
	might_sleep();
	smbdx_conn_fail(conn, -ESHUTDOWN, SMBDX_CAUSE_NONE);
	smbdx_timers_cancel_sync(conn);

	mutex_lock(&conn->res_mutex);
	if (conn->released)
		goto out;
	if (conn->id && conn->qp_live) {
		smbdx_conn_disconnect_qp(conn);
		ib_drain_qp(conn->id->qp);
	}
	smbdx_qp_free(conn);
	if (conn->id) {
		rdma_destroy_id(conn->id);
		conn->id = NULL;
	}
	conn->released = true;
	spin_lock_bh(&conn->lock);
	smbdx_conn_set_state(conn, SMBDX_CS_DESTROYED);
	spin_unlock_bh(&conn->lock);
out:
	mutex_unlock(&conn->res_mutex);
}

static void smbdx_conn_teardown_work(struct work_struct *w)
{
	struct smbdx_conn *conn = container_of(w, struct smbdx_conn, teardown_work);

	smbdx_conn_teardown(conn);
	smbdx_conn_put(conn);
}

/*
 * Disconnect in process context once the connection failed: tells the
 * peer (on IB/RoCE, also the DREP the peer's own DISCONNECTED waits for)
 * and moves the QP to the error state, flushing what is posted.
 */
static void smbdx_conn_disc_work(struct work_struct *w)
{
	struct smbdx_conn *conn = container_of(w, struct smbdx_conn, disc_work);

	mutex_lock(&conn->res_mutex);
	smbdx_conn_disconnect_qp(conn);
	mutex_unlock(&conn->res_mutex);
	/*
	 * After the peer's disconnect the flushed Receives end the connection
	 * (smbdx_conn_cm_event()); should none come, end it here, bounded.
	 */
	if (test_bit(SMBDX_CMF_DISCONNECTED, &conn->cm_flags) &&
	    !wait_event_timeout(conn->wq, READ_ONCE(conn->error),
				msecs_to_jiffies(SMBDX_FLUSH_WAIT_MS)))
		smbdx_conn_fail(conn, -ECONNRESET, SMBDX_CAUSE_PEER_DISCONNECT);
	smbdx_conn_put(conn);
}

/**
 * smbdx_conn_owned_by() - a connection an unloading module still owns
 * @mod: the module
 *
 * Return: a connection handed to its upper layer, not yet destroyed,
 * whose callbacks are in @mod's memory, with a reference the caller drops
 * after destroying it (smbdx_module_going()); or NULL.
 *
 * Context: process; takes smbdx_conns_lock and the connection's lock.
 */
struct smbdx_conn *smbdx_conn_owned_by(struct module *mod)
{
	struct smbdx_conn *conn, *found = NULL;

	mutex_lock(&smbdx_conns_lock);
	list_for_each_entry(conn, &smbdx_conns, node) {
		if (!conn->ops || !within_module((unsigned long)conn->ops, mod))
			continue;
		spin_lock_bh(&conn->lock);
		if (conn->handed_over && !conn->recv.upcalls_off) {
			smbdx_conn_get(conn);
			found = conn;
		}
		spin_unlock_bh(&conn->lock);
		if (found)
			break;
	}
	mutex_unlock(&smbdx_conns_lock);
	return found;
}

/**
 * smbdx_conns_device_removed() - end every connection on a device
 * @ibdev: device being removed
 *
 * Each connection is terminated (-ENODEV, reported to its owner once) and
 * torn down, so that its cm_id is gone before the RDMA CM waits for it.
 *
 * Context: process (the ib_client remove callback).
 */
void smbdx_conns_device_removed(struct ib_device *ibdev)
{
	struct smbdx_conn *conn, *found;

	for (;;) {
		found = NULL;
		mutex_lock(&smbdx_conns_lock);
		list_for_each_entry(conn, &smbdx_conns, node) {
			if (READ_ONCE(conn->ibdev) != ibdev ||
			    test_bit(SMBDX_CMF_REMOVED, &conn->cm_flags))
				continue;
			if (!kref_get_unless_zero(&conn->ref))
				continue;
			set_bit(SMBDX_CMF_REMOVED, &conn->cm_flags);
			found = conn;
			break;
		}
		mutex_unlock(&smbdx_conns_lock);
		if (!found)
			break;
		smbdx_conn_fail(found, -ENODEV, SMBDX_CAUSE_DEVICE_REMOVAL);
		smbdx_conn_teardown(found);
		smbdx_conn_put(found);
	}
}

/**
 * smbdx_disconnect() - disconnect a connection
 * @conn: connection
 *
 * Starts an orderly disconnect (3.1.7.1: the upper layer's disconnected
 * callback follows with -ESHUTDOWN unless another error came first).
 * Idempotent; the connection stays allocated until smbdx_destroy().
 *
 * Context: any, including the callbacks and atomic context.
 */
void smbdx_disconnect(struct smbdx_conn *conn)
{
	smbdx_conn_fail(conn, -ESHUTDOWN, SMBDX_CAUSE_NONE);
}
EXPORT_SYMBOL_NS_GPL(smbdx_disconnect, SMBDX_NS);

static bool smbdx_sends_drained(struct smbdx_conn *conn)
{
	bool done;

	spin_lock_bh(&conn->lock);
	done = conn->state != SMBDX_CS_ESTABLISHED ||
	       (!conn->send.posted && list_empty(&conn->send.queue));
	spin_unlock_bh(&conn->lock);
	return done;
}

/**
 * smbdx_destroy() - disconnect, release and forget a connection
 * @conn: connection owned by the caller
 *
 * Disconnects if still connected, after giving the Sends already posted or
 * queued up to destroy_drain_ms (module parameter, 2 s) to complete, so
 * that a message smbdx_send() returned for is not cut off (smbdx_disconnect()
 * does not wait). Then waits for a running callback of this connection to
 * return (unless called from it), drains the QP and frees every resource,
 * then drops the owner's reference. No callback runs after it returns, and
 * no other thread is left inside smbdx_send(), smbdx_sendv() or
 * smbdx_recv_msg() on this connection: they return the
 * connection's error (-ESHUTDOWN) and destroy waits for them. Messages the
 * caller still holds stay valid until smbdx_msg_free(). Safe whatever
 * happened before (loss, device removal, smbdx_disconnect()); each owner
 * calls it exactly once.
 *
 * Context: process, may sleep; may be called from the connection's own
 * callbacks.
 */
void smbdx_destroy(struct smbdx_conn *conn)
{
	might_sleep();
	/*
	 * A message smbdx_send() returned for is posted, not yet delivered:
	 * give the Sends a bounded time to complete before disconnecting.
	 */
	spin_lock_bh(&conn->lock);
	conn->send.draining = true;
	spin_unlock_bh(&conn->lock);
	if (!wait_event_timeout(conn->wq, smbdx_sends_drained(conn),
				msecs_to_jiffies(READ_ONCE(smbdx_destroy_drain_ms))))
		smbdx_stat_inc(conn, SMBDX_STAT_DESTROY_DRAIN_TIMEOUTS);

	spin_lock_bh(&conn->lock);
	conn->recv.upcalls_off = true;
	__smbdx_conn_fail(conn, -ESHUTDOWN, SMBDX_CAUSE_NONE);
	spin_unlock_bh(&conn->lock);

	if (READ_ONCE(conn->recv.upcall_task) != current)
		flush_work(&conn->recv.upcall_work);
	/* Senders and receivers still inside the API were woken: let them go. */
	wait_event(conn->wq, smbdx_conn_no_waiters(conn));
	smbdx_conn_teardown(conn);
	smbdx_conn_put(conn);
}
EXPORT_SYMBOL_NS_GPL(smbdx_destroy, SMBDX_NS);

/**
 * smbdx_conn_query() - negotiated parameters of a connection (3.1.4.7)
 * @conn: connection
 * @info: filled in
 *
 * Context: any.
 *
 * Return: 0, or -ENOTCONN if the connection never finished negotiating.
 */
int smbdx_conn_query(struct smbdx_conn *conn, struct smbdx_conn_info *info)
{
	int rc = 0;

	memset(info, 0, sizeof(*info));
	spin_lock_bh(&conn->lock);
	if (!conn->negotiated)
		rc = -ENOTCONN;
	info->params = conn->params;
	info->ird = conn->ird;
	info->ord = conn->ord;
	spin_unlock_bh(&conn->lock);

	info->keepalive_ms = conn->cfg.keepalive_ms;
	info->iwarp = conn->limits.iwarp;
	info->max_sge = conn->limits.max_send_sge;
	if (conn->mr.depth > 1 && conn->mr.pool_size)
		info->max_reg_len = (conn->mr.depth - 1) * PAGE_SIZE;
	info->local = conn->local;
	info->peer = conn->peer;
	strscpy(info->device, conn->devname, sizeof(info->device));
	return rc;
}
EXPORT_SYMBOL_NS_GPL(smbdx_conn_query, SMBDX_NS);

/**
 * smbdx_conn_error() - the connection's first error
 * @conn: connection
 *
 * Context: any.
 *
 * Return: 0 while the connection is usable, else the negative errno it
 * failed with (-ESHUTDOWN after a local disconnect).
 */
int smbdx_conn_error(struct smbdx_conn *conn)
{
	return READ_ONCE(conn->error);
}
EXPORT_SYMBOL_NS_GPL(smbdx_conn_error, SMBDX_NS);

/**
 * smbdx_conn_context() - the upper layer's context of a connection
 * @conn: connection
 *
 * Return: what smbdx_connect() or smbdx_conn_set_context() stored.
 */
void *smbdx_conn_context(struct smbdx_conn *conn)
{
	return READ_ONCE(conn->ctx);
}
EXPORT_SYMBOL_NS_GPL(smbdx_conn_context, SMBDX_NS);

/**
 * smbdx_conn_set_context() - store the upper layer's context
 * @conn: connection
 * @ctx: anything
 *
 * Typically called from a listener's accept callback.
 */
void smbdx_conn_set_context(struct smbdx_conn *conn, void *ctx)
{
	WRITE_ONCE(conn->ctx, ctx);
}
EXPORT_SYMBOL_NS_GPL(smbdx_conn_set_context, SMBDX_NS);

/**
 * smbdx_conn_id() - the connection's number (its debugfs directory name)
 * @conn: connection
 *
 * Return: a number unique while the module is loaded.
 */
u32 smbdx_conn_id(struct smbdx_conn *conn)
{
	return conn->num;
}
EXPORT_SYMBOL_NS_GPL(smbdx_conn_id, SMBDX_NS);

/**
 * smbdx_conn_set_xform() - record the MS-SMB2 RDMA transforms negotiated
 *	on a connection
 * @conn: connection
 * @xforms: SMBDX_XF_ENCRYPTION and/or SMBDX_XF_SIGNING (the upper
 *	layer's Connection.RDMATransformIds), 0 for none
 *
 * For the administrator only: debugfs (the connection's params file,
 * rdma_transform) and ``smbdctl connections`` show it. smbdirect
 * transforms nothing by itself; the upper layer calls
 * smbdx_register_xform() and smbdx_rdma_write_xform() for the data it
 * transforms. May be called again (a later negotiation on the connection).
 *
 * Context: any.
 *
 * Return: 0, or -EINVAL for bits that name no transform (nothing
 * recorded).
 */
int smbdx_conn_set_xform(struct smbdx_conn *conn, u8 xforms)
{
	if (xforms & ~SMBDX_XF_KNOWN)
		return -EINVAL;
	WRITE_ONCE(conn->xform, xforms);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(smbdx_conn_set_xform, SMBDX_NS);

/**
 * smbdx_xform_count_rejected() - count a transformed payload the upper
 *	layer refused
 * @conn: connection it arrived on
 *
 * The upper layer calls this when smbdx_xf_open() or smbdx_xf_verify()
 * refused a payload that came by RDMA, or when the transform describing
 * it was invalid (a verdict other than SMBDX_XF_OK), once per refused
 * I/O: the xform_rejected counter of the connection and of the module
 * (debugfs, ``smbdctl connections``).
 *
 * Context: any; the caller holds the connection.
 */
void smbdx_xform_count_rejected(struct smbdx_conn *conn)
{
	smbdx_stat_inc(conn, SMBDX_STAT_XFORM_REJECTED);
}
EXPORT_SYMBOL_NS_GPL(smbdx_xform_count_rejected, SMBDX_NS);
