// SPDX-License-Identifier: GPL-2.0
/*
 * flow.c - the server side of MS-SQOS: the LogicalFlowTable, per-open
 * association, FSCTL_STORAGE_QOS_CONTROL processing (MS-SQOS 3.2.4.1 and
 * 3.2.5.1.1-3.2.5.1.4) and the I/O hooks that enforce a flow's rates.
 *
 * Normal operation
 *   An SMB server allocates a struct sqos_open per open file and calls
 *   sqos_control() for each FSCTL_STORAGE_QOS_CONTROL on it. A control
 *   request is checked completely before anything changes (validate, then
 *   commit; Documentation/sqos.rst explains why): the whole decision and
 *   commit run under sqos_server.lock, with the allocations it may need (a
 *   new flow, copies of the names) made before the lock is taken and freed
 *   afterwards if unused. For every READ/WRITE the server calls
 *   sqos_io_admit() (or the sleeping sqos_io_start()) before issuing it and
 *   sqos_io_done() when it completes.
 *
 * Bounds on held I/O
 *   A delay is at most max_delay_ms (debt beyond it is forgiven,
 *   sqos_limiter_admit_max()). An I/O given a delay is "held" until its
 *   sqos_io_done(); a flow holds at most max_held_flow of them and the
 *   server max_held in all. An I/O that would be delayed beyond either
 *   count is charged but given no delay: QoS never fails an I/O, and a
 *   caller must be able to rely on a bounded number of delayed I/Os
 *   (an SMB server parks each one; Documentation/sqos.rst).
 *
 * Locking
 *   sqos_server.lock (spinlock, irqsave): flow table, policy store,
 *   sqos_open.flow, the srv->lock fields of struct sqos_flow. It is taken
 *   with interrupts off because the last reference to a flow may be dropped
 *   by sqos_io_done() from a completion handler.
 *   sqos_flow.lock (spinlock, irqsave): limiter, meter, I/O counters of one
 *   flow (including its count of held I/Os). Nests inside sqos_server.lock;
 *   the I/O path takes only this one. sqos_server.held is an atomic counter,
 *   changed only with the flow's lock held.
 *
 * Lifetime
 *   A flow is referenced by each open associated with it and by each
 *   in-flight struct sqos_io. The reference count reaches zero only with
 *   sqos_server.lock held (a put that may be the last one takes the lock
 *   first), and the flow is unhashed in the same critical section, so
 *   lookups under the lock never return a dying flow. The I/O
 *   path reads sqos_open.flow under RCU and takes its reference with
 *   refcount_inc_not_zero(); sqos_control() publishes the new association
 *   before it drops the old one, so a reader that loses the race re-reads
 *   the pointer and finds the new flow. Flows are freed with kfree_rcu().
 *   A flow whose last open goes away is destroyed with its counters (no
 *   idle retention).
 *
 *   The caller of the open API guarantees that sqos_open_release() is not
 *   concurrent with, nor followed by, other calls on the same open.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/hrtimer.h>
#include <linux/jhash.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <kunit/visibility.h>
#include "sqos_internal.h"

static u32 sqos_flow_hash(const guid_t *id)
{
	return jhash(id, sizeof(*id), 0);
}

static u64 sqos_real_clock(void *priv)
{
	return ktime_get_ns();
}

static u64 sqos_now(struct sqos_server *srv)
{
	return srv->clock(srv->clock_priv);
}

/**
 * sqos_server_create() - allocate a server instance with default settings
 *
 * Defaults: enabled, TimeToLive 4000 ms, 1 s accounting window, 250 ms of
 * burst, unknown capacity, delays of at most 10 s, at most 256 delayed
 * I/Os per flow and 1024 in all, real clock. The module's instance is
 * adjusted from module parameters; KUnit suites make their own with a fake
 * clock.
 *
 * Return: the server or NULL.
 */
struct sqos_server *sqos_server_create(void)
{
	struct sqos_server *srv;
	int i;

	srv = kzalloc(sizeof(*srv), GFP_KERNEL);
	if (!srv)
		return NULL;
	spin_lock_init(&srv->lock);
	hash_init(srv->flows);
	hash_init(srv->policies);
	srv->enabled = true;
	srv->enforce = true;
	srv->ttl_ms = 4000;
	srv->window_ms = 1000;
	srv->burst_ms = 250;
	srv->max_delay_ms = SQOS_DEFAULT_MAX_DELAY_MS;
	srv->max_held_flow = SQOS_DEFAULT_MAX_HELD_FLOW;
	srv->max_held = SQOS_DEFAULT_MAX_HELD;
	atomic_set(&srv->held, 0);
	srv->clock = sqos_real_clock;
	for (i = 0; i < SQOS_NT_IDX_MAX; i++)
		atomic64_set(&srv->nt_count[i], 0);
	return srv;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_server_create);

/**
 * sqos_server_destroy() - free a server instance
 * @srv: server; every open must have been released
 *
 * If opens (and so flows) are left, they are reported and the server is
 * leaked rather than freed under them.
 */
void sqos_server_destroy(struct sqos_server *srv)
{
	if (!srv)
		return;
	sqos_server_policy_clear(srv);
	if (WARN(srv->nr_opens || srv->nr_flows,
		 "sqos: %u opens and %u flows left at destroy\n",
		 srv->nr_opens, srv->nr_flows))
		return;
	kfree(srv);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_server_destroy);

static struct sqos_flow *sqos_flow_find(struct sqos_server *srv,
					const guid_t *id)
{
	struct sqos_flow *f;

	lockdep_assert_held(&srv->lock);
	hash_for_each_possible(srv->flows, f, node, sqos_flow_hash(id))
		if (guid_equal(&f->id, id))
			return f;
	return NULL;
}

static struct sqos_flow *sqos_flow_alloc(struct sqos_server *srv,
					 const guid_t *id)
{
	struct sqos_flow *f;
	u64 now = sqos_now(srv);

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return NULL;
	f->srv = srv;
	f->id = *id;
	f->base_io_size = SQOS_DEFAULT_BASE_IO_SIZE;
	f->policy_known = true;
	spin_lock_init(&f->lock);
	sqos_limiter_init(&f->lim, 0, 1, now);
	sqos_meter_init(&f->meter, (u64)srv->window_ms * NSEC_PER_MSEC, now);
	return f;
}

/* Last reference gone: srv->lock held. */
static void sqos_flow_unlink(struct sqos_flow *f)
{
	struct sqos_server *srv = f->srv;

	lockdep_assert_held(&srv->lock);
	hash_del(&f->node);
	srv->nr_flows--;
	/* RCU readers only touch ->ref, so the names can go now. */
	kfree(f->name);
	kfree(f->node_name);
	kfree_rcu(f, rcu);
}

static void sqos_flow_put_locked(struct sqos_flow *f)
{
	if (refcount_dec_and_test(&f->ref))
		sqos_flow_unlink(f);
}

static void sqos_flow_put(struct sqos_flow *f)
{
	struct sqos_server *srv = f->srv;
	unsigned long flags;

	/* refcount_dec_and_lock_irqsave(), spelled out for sparse */
	if (refcount_dec_not_one(&f->ref))
		return;
	spin_lock_irqsave(&srv->lock, flags);
	if (refcount_dec_and_test(&f->ref))
		sqos_flow_unlink(f);
	spin_unlock_irqrestore(&srv->lock, flags);
}

/**
 * sqos_flow_resolve() - recompute a flow's effective rates
 * @f: flow, with srv->lock held
 *
 * An ID-based policy takes its rates from the store (an unknown PolicyID
 * gives no limit); an explicit policy (NULL PolicyID) uses Limit and
 * Reservation. The limiter keeps its state across the change.
 */
void sqos_flow_resolve(struct sqos_flow *f)
{
	struct sqos_server *srv = f->srv;
	struct sqos_policy *p;
	u64 max = f->limit, min = f->reservation;
	bool known = true;
	u64 now;

	lockdep_assert_held(&srv->lock);
	if (!guid_is_null(&f->policy_id)) {
		p = sqos_policy_find(srv, &f->policy_id);
		known = p;
		max = p ? p->max_iops : 0;
		min = p ? p->min_iops : 0;
	}
	f->policy_known = known;

	now = sqos_now(srv);
	spin_lock(&f->lock);
	if (max != f->max_rate)
		sqos_limiter_set_rate(&f->lim, max,
				      sqos_burst_units(max, srv->burst_ms), now);
	f->max_rate = max;
	f->min_rate = min;
	spin_unlock(&f->lock);
}

/**
 * sqos_server_policy_changed() - re-resolve the flows using a PolicyID
 * @srv: server, with srv->lock held
 * @id: the PolicyID that changed, or NULL for "any"
 */
void sqos_server_policy_changed(struct sqos_server *srv, const guid_t *id)
{
	struct sqos_flow *f;
	int bkt;

	lockdep_assert_held(&srv->lock);
	hash_for_each(srv->flows, bkt, f, node) {
		if (guid_is_null(&f->policy_id))
			continue;
		if (!id || guid_equal(&f->policy_id, id))
			sqos_flow_resolve(f);
	}
}

/**
 * sqos_flow_status() - Status of a flow (MS-SQOS 2.2.2.1), pure
 * @policy_known: the PolicyID is NULL or present in the store
 * @min_rate: effective MinimumIoRate
 * @capacity: what the storage can guarantee, 0 = unknown
 * @m: completion meter, rolled to the current time
 *
 * In order: an unknown PolicyID gives UnknownPolicyId; a minimum above a
 * known capacity gives ConfigurationMismatch; a flow without a minimum is
 * Ok; a flow with a minimum and no full measurement window yet is
 * NotAvailable; a flow whose last window completed less than it was owed
 * is InsufficientThroughput; otherwise Ok.
 *
 * Return: one of SQOS_FLOW_STATUS_*.
 */
u32 sqos_flow_status(bool policy_known, u64 min_rate, u64 capacity,
		     const struct sqos_meter *m)
{
	if (!policy_known)
		return SQOS_FLOW_STATUS_UNKNOWN_POLICY_ID;
	if (capacity && min_rate > capacity)
		return SQOS_FLOW_STATUS_CONFIGURATION_MISMATCH;
	if (!min_rate)
		return SQOS_FLOW_STATUS_OK;
	if (!m->have_last)
		return SQOS_FLOW_STATUS_NOT_AVAILABLE;
	if (sqos_meter_insufficient(m, min_rate))
		return SQOS_FLOW_STATUS_INSUFFICIENT_THROUGHPUT;
	return SQOS_FLOW_STATUS_OK;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_flow_status);

/* Status of a flow now: srv->lock held, takes f->lock. */
static u32 sqos_flow_status_now(struct sqos_flow *f, u64 now, u64 *max,
				u64 *min)
{
	u64 capacity = READ_ONCE(f->srv->capacity_iops);
	u32 status;

	spin_lock(&f->lock);
	sqos_meter_roll(&f->meter, now);
	status = sqos_flow_status(f->policy_known, f->min_rate, capacity,
				  &f->meter);
	*max = f->max_rate;
	*min = f->min_rate;
	spin_unlock(&f->lock);
	return status;
}

/**
 * sqos_server_open_alloc() - allocate an open of a given server
 * @srv: server
 * @gfp: allocation flags
 *
 * Return: a new open, associated with no flow, or NULL.
 */
struct sqos_open *sqos_server_open_alloc(struct sqos_server *srv, gfp_t gfp)
{
	struct sqos_open *open;
	unsigned long flags;

	open = kzalloc(sizeof(*open), gfp);
	if (!open)
		return NULL;
	open->srv = srv;
	spin_lock_irqsave(&srv->lock, flags);
	srv->nr_opens++;
	spin_unlock_irqrestore(&srv->lock, flags);
	return open;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_server_open_alloc);

/**
 * sqos_open_release() - forget an open (SMB2 CLOSE, session or durable
 * handle teardown)
 * @open: open from sqos_open_alloc(); NULL is ignored
 *
 * Drops the open's association; the flow goes away with its last open and
 * its last in-flight I/O.
 *
 * Context: any context but NMI.
 */
void sqos_open_release(struct sqos_open *open)
{
	struct sqos_server *srv;
	struct sqos_flow *cur;
	unsigned long flags;

	if (!open)
		return;
	srv = open->srv;
	spin_lock_irqsave(&srv->lock, flags);
	cur = rcu_dereference_protected(open->flow,
					lockdep_is_held(&srv->lock));
	if (cur) {
		RCU_INIT_POINTER(open->flow, NULL);
		cur->opens--;
		sqos_flow_put_locked(cur);
	}
	srv->nr_opens--;
	spin_unlock_irqrestore(&srv->lock, flags);
	kfree(open);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_open_release);

static void sqos_count_nt(struct sqos_server *srv, u32 st)
{
	enum sqos_nt_index i;

	switch (st) {
	case SQOS_NT_SUCCESS:
		i = SQOS_NT_IDX_SUCCESS;
		break;
	case SQOS_NT_INVALID_PARAMETER:
		i = SQOS_NT_IDX_INVALID_PARAMETER;
		break;
	case SQOS_NT_INVALID_DEVICE_REQUEST:
		i = SQOS_NT_IDX_INVALID_DEVICE_REQUEST;
		break;
	case SQOS_NT_REVISION_MISMATCH:
		i = SQOS_NT_IDX_REVISION_MISMATCH;
		break;
	case SQOS_NT_NOT_FOUND:
		i = SQOS_NT_IDX_NOT_FOUND;
		break;
	default:
		i = SQOS_NT_IDX_NO_MEMORY;
		break;
	}
	atomic64_inc(&srv->nt_count[i]);
}

/* Everything sqos_control() prepares before it takes the lock */
struct sqos_ctl {
	struct sqos_request req;
	bool names_ok;
	bool fields_ok;
	bool names_nomem;
	struct sqos_flow *newflow;
	u8 *name;
	u8 *node_name;
};

static void sqos_ctl_prepare(struct sqos_server *srv, struct sqos_ctl *c,
			     const u8 *in, u32 in_len)
{
	struct sqos_request *r = &c->req;
	u32 opt = r->options;

	c->names_ok = !sqos_check_name(r->name_off, r->name_len, in_len) &&
		      !sqos_check_name(r->node_name_off, r->node_name_len,
				       in_len);
	c->fields_ok = !sqos_check_policy_fields(r);

	/* A flow may have to be created (3.2.5.1.1); NULL is checked later. */
	if ((opt & (STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID |
		    STORAGE_QOS_CONTROL_FLAG_PROBE_POLICY)) &&
	    !guid_is_null(&r->flow_id))
		c->newflow = sqos_flow_alloc(srv, &r->flow_id);

	/* Names may have to be stored (3.2.5.1.2). */
	if ((opt & (STORAGE_QOS_CONTROL_FLAG_SET_POLICY |
		    STORAGE_QOS_CONTROL_FLAG_PROBE_POLICY)) && c->names_ok) {
		if (r->name_len) {
			c->name = kmemdup(in + r->name_off, r->name_len,
					  GFP_KERNEL);
			if (!c->name)
				c->names_nomem = true;
		}
		if (r->node_name_len) {
			c->node_name = kmemdup(in + r->node_name_off,
					       r->node_name_len, GFP_KERNEL);
			if (!c->node_name)
				c->names_nomem = true;
		}
	}
}

/*
 * Decide and commit, srv->lock held. Checks happen in the order of
 * 3.2.5.1.1 -> .2 -> .3 -> .4; the first failing one decides the status and
 * nothing has been changed yet when it fails.
 */
static u32 sqos_ctl_commit(struct sqos_server *srv, struct sqos_open *open,
			   struct sqos_ctl *c, void *out, u32 max_out,
			   u32 *out_len)
{
	struct sqos_request *r = &c->req;
	u32 opt = r->options;
	struct sqos_flow *cur, *target;
	struct sqos_response rsp;
	bool probe, policy;
	u8 *tmp;

	cur = rcu_dereference_protected(open->flow,
					lockdep_is_held(&srv->lock));

	/* 3.2.5.1: PROBE_POLICY on an associated open is ignored. */
	probe = (opt & STORAGE_QOS_CONTROL_FLAG_PROBE_POLICY) && !cur;

	/* 3.2.5.1.1: association */
	target = cur;
	if ((opt & STORAGE_QOS_CONTROL_FLAG_SET_LOGICAL_FLOW_ID) || probe) {
		if (guid_is_null(&r->flow_id)) {
			/* PROBE needs a GUID; SET with an empty one detaches */
			if (probe)
				return SQOS_NT_INVALID_PARAMETER;
			target = NULL;
		} else {
			target = sqos_flow_find(srv, &r->flow_id);
			if (!target)
				target = c->newflow;
			if (!target)
				return SQOS_NT_INSUFFICIENT_RESOURCES;
		}
	}

	/* 3.2.5.1.2: set or probe policy */
	policy = (opt & STORAGE_QOS_CONTROL_FLAG_SET_POLICY) || probe;
	if ((opt & STORAGE_QOS_CONTROL_FLAG_SET_POLICY) && !target)
		return SQOS_NT_NOT_FOUND;
	if (policy) {
		if (!c->names_ok || !c->fields_ok)
			return SQOS_NT_INVALID_PARAMETER;
		if (c->names_nomem)
			return SQOS_NT_INSUFFICIENT_RESOURCES;
	}

	/* 3.2.5.1.3: update counters */
	if ((opt & STORAGE_QOS_CONTROL_FLAG_UPDATE_COUNTERS) && !target)
		return SQOS_NT_NOT_FOUND;

	/* 3.2.5.1.4: get status; 80..87 is refused too (see sqos.rst) */
	if (opt & STORAGE_QOS_CONTROL_FLAG_GET_STATUS) {
		if (max_out < SQOS_RESPONSE_SPEC_MIN_SIZE)
			return SQOS_NT_INVALID_PARAMETER;
		if (max_out < SQOS_RESPONSE_SIZE || !out)
			return SQOS_NT_INVALID_PARAMETER;
		if (!target)
			return SQOS_NT_NOT_FOUND;
	}

	/* Commit. Nothing below can fail. */
	if (target != cur) {
		if (target && target == c->newflow) {
			refcount_set(&target->ref, 1);
			hash_add(srv->flows, &target->node,
				 sqos_flow_hash(&target->id));
			srv->nr_flows++;
			c->newflow = NULL;
		} else if (target) {
			refcount_inc(&target->ref);
		}
		if (target)
			target->opens++;
		rcu_assign_pointer(open->flow, target);
		if (cur) {
			cur->opens--;
			sqos_flow_put_locked(cur);
		}
	}

	if (policy) {
		if (r->name_len) {
			tmp = target->name;
			target->name = c->name;
			target->name_len = r->name_len;
			c->name = tmp;
		}
		if (r->node_name_len) {
			tmp = target->node_name;
			target->node_name = c->node_name;
			target->node_name_len = r->node_name_len;
			c->node_name = tmp;
		}
		target->policy_id = r->policy_id;
		target->initiator_id = r->initiator_id;
		target->limit = r->limit;
		target->reservation = r->reservation;
		sqos_flow_resolve(target);
	}

	if (opt & STORAGE_QOS_CONTROL_FLAG_UPDATE_COUNTERS) {
		target->rep_updates++;
		target->rep_io_count = sqos_sat_add(target->rep_io_count,
						    r->io_count);
		target->rep_norm_io_count =
			sqos_sat_add(target->rep_norm_io_count,
				     r->norm_io_count);
		target->rep_latency = sqos_sat_add(target->rep_latency,
						   r->latency);
		target->rep_lower_latency =
			sqos_sat_add(target->rep_lower_latency,
				     r->lower_latency);
	}

	if (opt & STORAGE_QOS_CONTROL_FLAG_GET_STATUS) {
		memset(&rsp, 0, sizeof(rsp));
		rsp.version = SQOS_PROTOCOL_VERSION_1_0;
		rsp.flow_id = target->id;
		rsp.policy_id = target->policy_id;
		rsp.initiator_id = target->initiator_id;
		rsp.ttl_ms = max_t(u32, READ_ONCE(srv->ttl_ms), 1);
		rsp.status = sqos_flow_status_now(target, sqos_now(srv),
						  &rsp.max_rate, &rsp.min_rate);
		rsp.base_io_size = target->base_io_size;
		*out_len = sqos_response_encode(&rsp, out, max_out);
	}
	return SQOS_NT_SUCCESS;
}

/**
 * sqos_control() - handle FSCTL_STORAGE_QOS_CONTROL on an open
 * @open: the open the IOCTL names
 * @in: the IOCTL input buffer (STORAGE_QOS_CONTROL_REQUEST), untrusted
 * @in_len: its length, the spec's RequestSize
 * @out: output buffer for a STORAGE_QOS_CONTROL_RESPONSE
 * @max_out: MaxOutputResponse, the spec's MaxResponseSize
 * @out_len: set to the number of bytes written to @out (0 or 88)
 *
 * Implements MS-SQOS 3.2.5.1 and 3.2.5.1.1-3.2.5.1.4 with the decisions of
 * Documentation/sqos.rst: requests shorter than the 112-byte fixed part and
 * GET_STATUS with @max_out below 88 fail with STATUS_INVALID_PARAMETER,
 * and a failed request changes nothing.
 *
 * Context: process context; may sleep (allocates with GFP_KERNEL).
 * Return: an NTSTATUS in CPU byte order: SQOS_NT_SUCCESS,
 * SQOS_NT_INVALID_DEVICE_REQUEST (Storage QoS disabled),
 * SQOS_NT_REVISION_MISMATCH, SQOS_NT_INVALID_PARAMETER, SQOS_NT_NOT_FOUND,
 * or SQOS_NT_INSUFFICIENT_RESOURCES if memory ran out.
 */
u32 sqos_control(struct sqos_open *open, const void *in, u32 in_len,
		 void *out, u32 max_out, u32 *out_len)
{
	struct sqos_server *srv;
	struct sqos_ctl c = {};
	unsigned long flags;
	u32 st;

	if (!open || !out_len)
		return SQOS_NT_INVALID_PARAMETER;
	*out_len = 0;
	srv = open->srv;

	if (!READ_ONCE(srv->enabled)) {
		st = SQOS_NT_INVALID_DEVICE_REQUEST;
		goto out;
	}
	/* Not covered by the spec: refuse before reading any field. */
	if (!in || sqos_request_decode(in, in_len, &c.req)) {
		st = SQOS_NT_INVALID_PARAMETER;
		goto out;
	}
	if (c.req.version != SQOS_PROTOCOL_VERSION_1_0) {
		st = SQOS_NT_REVISION_MISMATCH;
		goto out;
	}
	if (!(c.req.options & STORAGE_QOS_CONTROL_FLAGS_ALL)) {
		st = SQOS_NT_INVALID_PARAMETER;
		goto out;
	}

	sqos_ctl_prepare(srv, &c, in, in_len);
	spin_lock_irqsave(&srv->lock, flags);
	st = sqos_ctl_commit(srv, open, &c, out, max_out, out_len);
	spin_unlock_irqrestore(&srv->lock, flags);

	kfree(c.newflow);
	kfree(c.name);
	kfree(c.node_name);
out:
	sqos_count_nt(srv, st);
	return st;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_control);

/* One more held I/O for the server, unless it holds its maximum */
static bool sqos_server_hold(struct sqos_server *srv)
{
	int max = min_t(u32, READ_ONCE(srv->max_held), INT_MAX);
	int old = atomic_read(&srv->held);

	do {
		if (old >= max)
			return false;
	} while (!atomic_try_cmpxchg(&srv->held, &old, old + 1));
	return true;
}

/* @io is done or forgotten: it no longer counts as held. f->lock held. */
static void sqos_io_unhold(struct sqos_flow *f, struct sqos_io *io)
{
	lockdep_assert_held(&f->lock);
	if (!io->held)
		return;
	io->held = false;
	f->held--;
	atomic_dec(&f->srv->held);
}

/**
 * sqos_io_admit() - account an I/O about to be issued; never sleeps
 * @open: the open the I/O is on
 * @bytes: size of the I/O (for SMB Direct, the RDMA length)
 * @io: filled in; pass to sqos_io_done() when the I/O completes
 *
 * Charges the I/O to the open's flow, if any. QoS never fails an I/O; it
 * only says how long to hold it back so that the flow's initiation rate
 * stays at or under its MaximumIoRate. With Storage QoS disabled the I/O
 * is not accounted at all; with enforcement off (configfs ``enforce``) it
 * is accounted but never delayed.
 *
 * The delay is bounded: at most ``max_delay_ms``, and an I/O is given one
 * only while its flow has fewer than ``max_held_flow`` and the server
 * fewer than ``max_held`` delayed I/Os not yet done; otherwise it is
 * charged and goes at once. A caller may therefore keep every delayed
 * I/O until its time without any bound of its own.
 *
 * Context: any context but NMI.
 * Return: the time in ns the caller must wait before issuing the I/O.
 */
u64 sqos_io_admit(struct sqos_open *open, u64 bytes, struct sqos_io *io)
{
	struct sqos_server *srv = open->srv;
	struct sqos_flow *f;
	unsigned long flags;
	u64 now, units, delay, max_ns;
	bool capped = false;

	memset(io, 0, sizeof(*io));
	if (!READ_ONCE(open->srv->enabled))
		return 0;
	rcu_read_lock();
	for (;;) {
		f = rcu_dereference(open->flow);
		if (!f || refcount_inc_not_zero(&f->ref))
			break;
		/* Lost a race with re-association: the pointer is new now. */
		cpu_relax();
	}
	rcu_read_unlock();
	if (!f)
		return 0;

	now = sqos_now(srv);
	units = sqos_normalize(bytes, f->base_io_size);
	max_ns = (u64)READ_ONCE(srv->max_delay_ms) * NSEC_PER_MSEC;
	spin_lock_irqsave(&f->lock, flags);
	delay = 0;
	if (READ_ONCE(srv->enforce))
		delay = sqos_limiter_admit_max(&f->lim, units, now, max_ns,
					       &capped);
	if (delay && (f->held >= READ_ONCE(srv->max_held_flow) ||
		      !sqos_server_hold(srv))) {
		/* Charged all the same: the flow's next I/Os pay for it. */
		f->unheld++;
		delay = 0;
	}
	sqos_meter_arrive(&f->meter, units, now);
	f->started++;
	f->started_units = sqos_sat_add(f->started_units, units);
	f->bytes = sqos_sat_add(f->bytes, bytes);
	if (delay) {
		f->delayed++;
		f->delay_ns = sqos_sat_add(f->delay_ns, delay);
		f->held++;
		f->capped += capped;
		io->held = true;
	}
	spin_unlock_irqrestore(&f->lock, flags);

	io->flow = f;
	io->units = units;
	io->bytes = bytes;
	io->start_ns = now;
	return delay;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_io_admit);

static int sqos_sleep_ns(u64 ns)
{
	ktime_t expires = ktime_add_ns(ktime_get(), ns);

	for (;;) {
		set_current_state(TASK_KILLABLE);
		if (!schedule_hrtimeout_range(&expires, 50 * NSEC_PER_USEC,
					      HRTIMER_MODE_ABS))
			return 0;
		if (fatal_signal_pending(current))
			return -EINTR;
		/* A kernel thread being stopped must not wait out the delay. */
		if ((current->flags & PF_KTHREAD) && kthread_should_stop())
			return -EINTR;
	}
}

/**
 * sqos_io_start() - account an I/O and wait until it may be issued
 * @open: the open the I/O is on
 * @bytes: size of the I/O
 * @io: filled in; pass to sqos_io_done() when the I/O completes
 *
 * sqos_io_admit() followed by a killable sleep for the delay it returns.
 *
 * Context: process context; may sleep.
 * Return: 0 when the I/O may be issued; -EINTR if a fatal signal (or, in
 * a kernel thread, kthread_stop()) ended the wait, in which case the I/O
 * is forgotten and must not be issued (sqos_io_done() must not be
 * called).
 */
int sqos_io_start(struct sqos_open *open, u64 bytes, struct sqos_io *io)
{
	struct sqos_flow *f;
	unsigned long flags;
	u64 delay;

	might_sleep();
	delay = sqos_io_admit(open, bytes, io);
	if (!delay || !sqos_sleep_ns(delay))
		return 0;

	f = io->flow;
	spin_lock_irqsave(&f->lock, flags);
	f->meter.inflight -= min(io->units, f->meter.inflight);
	sqos_io_unhold(f, io);
	spin_unlock_irqrestore(&f->lock, flags);
	io->flow = NULL;
	sqos_flow_put(f);
	return -EINTR;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_io_start);

/**
 * sqos_io_done() - an I/O accounted by sqos_io_admit() completed
 * @io: as filled in by sqos_io_admit() or sqos_io_start(); cleared here
 *
 * Feeds the completion accounting behind InsufficientThroughput and drops
 * the reference the I/O held on its flow.
 *
 * Context: any context but NMI.
 */
void sqos_io_done(struct sqos_io *io)
{
	struct sqos_flow *f = io->flow;
	unsigned long flags;
	u64 now;

	if (!f)
		return;
	now = sqos_now(f->srv);
	spin_lock_irqsave(&f->lock, flags);
	sqos_meter_complete(&f->meter, io->units, now);
	f->completed++;
	f->completed_units = sqos_sat_add(f->completed_units, io->units);
	if (now > io->start_ns)
		f->latency_ns = sqos_sat_add(f->latency_ns, now - io->start_ns);
	sqos_io_unhold(f, io);
	spin_unlock_irqrestore(&f->lock, flags);
	io->flow = NULL;
	sqos_flow_put(f);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_io_done);

/**
 * sqos_open_flow_stats() - snapshot of the flow an open is associated with
 * @open: the open
 * @st: filled in
 *
 * Return: 0, or -ENOENT if the open is not associated with a flow.
 */
int sqos_open_flow_stats(struct sqos_open *open, struct sqos_flow_stats *st)
{
	struct sqos_server *srv = open->srv;
	struct sqos_flow *f;
	unsigned long flags;

	memset(st, 0, sizeof(*st));
	spin_lock_irqsave(&srv->lock, flags);
	f = rcu_dereference_protected(open->flow, lockdep_is_held(&srv->lock));
	if (!f) {
		spin_unlock_irqrestore(&srv->lock, flags);
		return -ENOENT;
	}
	st->flow_id = f->id;
	st->policy_id = f->policy_id;
	st->opens = f->opens;
	st->rep_updates = f->rep_updates;
	st->rep_io_count = f->rep_io_count;
	st->rep_norm_io_count = f->rep_norm_io_count;
	st->rep_latency = f->rep_latency;
	st->rep_lower_latency = f->rep_lower_latency;
	st->status = sqos_flow_status_now(f, sqos_now(srv), &st->max_rate,
					  &st->min_rate);
	spin_lock(&f->lock);
	st->started = f->started;
	st->started_units = f->started_units;
	st->completed = f->completed;
	st->completed_units = f->completed_units;
	st->delayed = f->delayed;
	st->delay_ns = f->delay_ns;
	st->held = f->held;
	st->unheld = f->unheld;
	st->capped = f->capped;
	spin_unlock(&f->lock);
	spin_unlock_irqrestore(&srv->lock, flags);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sqos_open_flow_stats);

/**
 * sqos_server_walk_flows() - call @fn on every flow of a server
 * @srv: server
 * @fn: called with srv->lock and the flow's lock held, interrupts off: it
 *	must not sleep nor call back into sqos; @status, @max and @min are the
 *	flow's Status and rates now
 * @arg: passed to @fn
 *
 * For debugfs.c, which prints what @fn gets.
 */
void sqos_server_walk_flows(struct sqos_server *srv, sqos_flow_visit_fn fn,
			    void *arg)
{
	struct sqos_flow *f;
	unsigned long flags;
	u64 now, max, min;
	u32 status;
	int bkt;

	spin_lock_irqsave(&srv->lock, flags);
	now = sqos_now(srv);
	hash_for_each(srv->flows, bkt, f, node) {
		status = sqos_flow_status_now(f, now, &max, &min);
		spin_lock(&f->lock);
		fn(arg, f, status, max, min);
		spin_unlock(&f->lock);
	}
	spin_unlock_irqrestore(&srv->lock, flags);
}

/**
 * sqos_server_counts() - how many flows, opens and policies a server has
 * @srv: server
 * @flows: filled in
 * @opens: filled in
 * @policies: filled in
 */
void sqos_server_counts(struct sqos_server *srv, unsigned int *flows,
			unsigned int *opens, unsigned int *policies)
{
	unsigned long flags;

	spin_lock_irqsave(&srv->lock, flags);
	*flows = srv->nr_flows;
	*opens = srv->nr_opens;
	*policies = srv->nr_policies;
	spin_unlock_irqrestore(&srv->lock, flags);
}
