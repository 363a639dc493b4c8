/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sqos_internal.h - state shared by the files of sqos.ko and its KUnit
 * suites; not an API for other modules.
 *
 * Locking (details in flow.c):
 *  - sqos_server.lock (spinlock, taken with irqsave) protects the flow
 *    table, the policy store, every sqos_open.flow pointer, the flow fields
 *    marked "srv->lock" below and the live-object counters.
 *  - sqos_flow.lock (spinlock, irqsave) protects the limiter, the meter and
 *    the per-flow I/O counters. It nests inside sqos_server.lock.
 *  - A flow's refcount counts the opens associated with it plus in-flight
 *    struct sqos_io. It only reaches zero with sqos_server.lock held, so a
 *    lookup under that lock never sees a dying flow. The I/O path finds the
 *    flow of an open under RCU and takes a reference with
 *    refcount_inc_not_zero(); flows are freed with kfree_rcu().
 */
#ifndef _SQOS_INTERNAL_H
#define _SQOS_INTERNAL_H

#include <linux/atomic.h>
#include <linux/hashtable.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <smbdirect/sqos.h>

#define SQOS_FLOW_HASH_BITS	8
#define SQOS_POLICY_HASH_BITS	6

/*
 * Bounds on held I/O (Documentation/sqos.rst, "Bounds"): the longest
 * delay, and how many delayed I/Os one flow and the whole server hold at
 * once. Module parameters and configfs attributes of the same names.
 */
#define SQOS_DEFAULT_MAX_DELAY_MS	10000
#define SQOS_DEFAULT_MAX_HELD_FLOW	256
#define SQOS_DEFAULT_MAX_HELD		1024
/* Largest value the three settings accept */
#define SQOS_MAX_DELAY_MS_LIMIT		3600000
#define SQOS_MAX_HELD_LIMIT		1000000

/**
 * struct sqos_meter - completion accounting for MinimumIoRate
 * @win_ns: window length
 * @win_start: start of the current window
 * @arrivals: units admitted in the current window
 * @completions: units completed in the current window
 * @backlog_at_start: units in flight when the current window started
 * @inflight: units admitted and not yet completed
 * @have_last: a full window has been measured
 * @last_demand: demand (backlog at start + arrivals) of the last full window
 * @last_completions: units completed in the last full window
 *
 * Pure arithmetic; the caller passes the time and serialises calls.
 */
struct sqos_meter {
	u64 win_ns;
	u64 win_start;
	u64 arrivals;
	u64 completions;
	u64 backlog_at_start;
	u64 inflight;
	bool have_last;
	u64 last_demand;
	u64 last_completions;
};

/* Saturating u64 addition, for counters fed from the wire */
static inline u64 sqos_sat_add(u64 a, u64 b)
{
	u64 r;

	return check_add_overflow(a, b, &r) ? U64_MAX : r;
}

u64 sqos_mul_div(u64 a, u64 b, u64 c);
void sqos_meter_init(struct sqos_meter *m, u64 win_ns, u64 now_ns);
void sqos_meter_roll(struct sqos_meter *m, u64 now_ns);
void sqos_meter_arrive(struct sqos_meter *m, u64 units, u64 now_ns);
void sqos_meter_complete(struct sqos_meter *m, u64 units, u64 now_ns);
bool sqos_meter_insufficient(const struct sqos_meter *m, u64 min_rate);
u64 sqos_meter_last_rate(const struct sqos_meter *m);

/**
 * struct sqos_policy - one entry of the policy store
 * @node: link in sqos_server.policies
 * @id: PolicyID
 * @max_iops: MaximumIoRate assigned to flows with this policy
 * @min_iops: MinimumIoRate assigned to flows with this policy
 */
struct sqos_policy {
	struct hlist_node node;
	guid_t id;
	u64 max_iops;
	u64 min_iops;
};

/**
 * struct sqos_flow - a logical flow on the server (MS-SQOS 3.2.1.3)
 * @node: link in sqos_server.flows (srv->lock)
 * @rcu: for kfree_rcu()
 * @ref: opens associated plus in-flight I/Os
 * @srv: owning server
 * @id: LogicalFlowID (constant)
 * @policy_id: PolicyID (srv->lock)
 * @initiator_id: InitiatorID (srv->lock)
 * @limit: Limit (srv->lock)
 * @reservation: Reservation (srv->lock)
 * @name: InitiatorName, UTF-16LE, kmalloc'd (srv->lock)
 * @name_len: its byte length
 * @node_name: InitiatorNodeName, UTF-16LE, kmalloc'd (srv->lock)
 * @node_name_len: its byte length
 * @base_io_size: BaseIoSize (constant, 8192)
 * @opens: opens associated (srv->lock)
 * @policy_known: PolicyID is NULL or found in the store (srv->lock)
 * @rep_updates: UPDATE_COUNTERS requests (srv->lock)
 * @rep_io_count: sum of IoCountIncrement (srv->lock)
 * @rep_norm_io_count: sum of NormalizedIoCountIncrement (srv->lock)
 * @rep_latency: sum of LatencyIncrement (srv->lock)
 * @rep_lower_latency: sum of LowerLatencyIncrement (srv->lock)
 * @lock: protects everything below
 * @max_rate: effective MaximumIoRate
 * @min_rate: effective MinimumIoRate
 * @lim: initiation limiter
 * @meter: completion accounting
 * @started: I/Os admitted
 * @started_units: units admitted
 * @bytes: bytes admitted
 * @completed: I/Os completed
 * @completed_units: units completed
 * @delayed: I/Os given a non-zero delay
 * @delay_ns: sum of delays handed out
 * @latency_ns: sum of admit-to-done times
 * @held: I/Os given a delay and not done yet (at most srv->max_held_flow)
 * @unheld: I/Os that would have been delayed but went at once because
 *	the flow or the server held its maximum
 * @capped: I/Os whose delay was cut to srv->max_delay_ms
 */
struct sqos_flow {
	struct hlist_node node;
	struct rcu_head rcu;
	refcount_t ref;
	struct sqos_server *srv;
	guid_t id;

	guid_t policy_id;
	guid_t initiator_id;
	u64 limit;
	u64 reservation;
	u8 *name;
	u16 name_len;
	u8 *node_name;
	u16 node_name_len;
	u32 base_io_size;
	u32 opens;
	bool policy_known;
	u64 rep_updates;
	u64 rep_io_count;
	u64 rep_norm_io_count;
	u64 rep_latency;
	u64 rep_lower_latency;

	spinlock_t lock;	/* the I/O side of the flow, see above */
	u64 max_rate;
	u64 min_rate;
	struct sqos_limiter lim;
	struct sqos_meter meter;
	u64 started;
	u64 started_units;
	u64 bytes;
	u64 completed;
	u64 completed_units;
	u64 delayed;
	u64 delay_ns;
	u64 latency_ns;
	u64 held;
	u64 unheld;
	u64 capped;
};

/**
 * struct sqos_open - per-open state (MS-SQOS 3.2.1.2)
 * @srv: owning server
 * @flow: associated flow or NULL; written under srv->lock, read under RCU
 */
struct sqos_open {
	struct sqos_server *srv;
	struct sqos_flow __rcu *flow;
};

/* Index of sqos_server.nt_count */
enum sqos_nt_index {
	SQOS_NT_IDX_SUCCESS,
	SQOS_NT_IDX_INVALID_PARAMETER,
	SQOS_NT_IDX_INVALID_DEVICE_REQUEST,
	SQOS_NT_IDX_REVISION_MISMATCH,
	SQOS_NT_IDX_NOT_FOUND,
	SQOS_NT_IDX_NO_MEMORY,
	SQOS_NT_IDX_MAX,
};

/**
 * struct sqos_server - one Storage QoS server instance
 * @lock: see the top of this file
 * @flows: LogicalFlowTable, keyed by LogicalFlowID
 * @policies: policy store, keyed by PolicyID
 * @nr_flows: flows in @flows
 * @nr_opens: opens allocated and not released
 * @nr_policies: entries in @policies
 * @enabled: Storage QoS supported; when false every control request fails
 *	with STATUS_INVALID_DEVICE_REQUEST and I/O is neither delayed nor
 *	accounted (READ_ONCE, no lock)
 * @enforce: delay I/O to hold flows to their MaximumIoRate; when false
 *	I/O is still accounted (status, counters) but never delayed
 *	(READ_ONCE, no lock)
 * @ttl_ms: TimeToLive returned by GET_STATUS (READ_ONCE)
 * @capacity_iops: rate the storage can guarantee; a flow whose minimum is
 *	above it is reported as ConfigurationMismatch. 0 = unknown (READ_ONCE)
 * @window_ms: completion-accounting window (set before use)
 * @burst_ms: limiter burst allowance in milliseconds of rate (set before use)
 * @max_delay_ms: longest delay handed to an I/O (READ_ONCE)
 * @max_held_flow: delayed I/Os one flow may have at once; more go at once
 *	(READ_ONCE)
 * @max_held: delayed I/Os all flows together may have at once (READ_ONCE)
 * @held: delayed I/Os of all flows not done yet, at most @max_held
 * @clock: time source in ns; replaced by a fake clock in KUnit
 * @clock_priv: argument for @clock
 * @nt_count: control requests per returned NTSTATUS
 */
struct sqos_server {
	spinlock_t lock;	/* tables and associations, see top of file */
	DECLARE_HASHTABLE(flows, SQOS_FLOW_HASH_BITS);
	DECLARE_HASHTABLE(policies, SQOS_POLICY_HASH_BITS);
	unsigned int nr_flows;
	unsigned int nr_opens;
	unsigned int nr_policies;
	bool enabled;
	bool enforce;
	u32 ttl_ms;
	u64 capacity_iops;
	u32 window_ms;
	u32 burst_ms;
	u32 max_delay_ms;
	u32 max_held_flow;
	u32 max_held;
	atomic_t held;
	u64 (*clock)(void *priv);
	void *clock_priv;
	atomic64_t nt_count[SQOS_NT_IDX_MAX];
};

/*
 * The module's entry points. Another module reaches the ones it needs
 * through struct sqos_ops (sqos_get_ops(), include/smbdirect/sqos.h); only
 * sqos.ko's own files and its KUnit suites call these by name, so they are
 * exported with EXPORT_SYMBOL_IF_KUNIT() and not at all in a kernel without
 * KUnit (Documentation/api.rst, "sqos.ko: one table").
 */

/* codec.c: pure functions */
int sqos_request_decode(const void *buf, size_t len, struct sqos_request *req);
int sqos_request_encode(const struct sqos_request *req, void *buf, size_t len);
int sqos_response_decode(const void *buf, size_t len, struct sqos_response *rsp);
int sqos_response_encode(const struct sqos_response *rsp, void *buf, size_t len);
int sqos_check_name(u16 off, u16 len, u32 req_size);
int sqos_check_policy_fields(const struct sqos_request *req);
bool sqos_flow_status_valid(u32 status);
u64 sqos_normalize(u64 bytes, u32 base_io_size);

/* limiter.c: struct sqos_limiter (include/smbdirect/sqos.h) */
void sqos_limiter_init(struct sqos_limiter *lim, u64 rate, u64 burst,
		       u64 now_ns);
void sqos_limiter_set_rate(struct sqos_limiter *lim, u64 rate, u64 burst,
			   u64 now_ns);
u64 sqos_limiter_admit(struct sqos_limiter *lim, u64 units, u64 now_ns);
u64 sqos_limiter_admit_max(struct sqos_limiter *lim, u64 units, u64 now_ns,
			   u64 max_delay_ns, bool *capped);
u64 sqos_burst_units(u64 rate, u32 burst_ms);

/**
 * struct sqos_flow_stats - snapshot of one flow, for the KUnit suites
 * @flow_id: LogicalFlowID
 * @policy_id: PolicyID
 * @max_rate: effective MaximumIoRate
 * @min_rate: effective MinimumIoRate
 * @status: current flow status (SQOS_FLOW_STATUS_*)
 * @opens: number of opens associated
 * @rep_updates: UPDATE_COUNTERS requests received
 * @rep_io_count: sum of IoCountIncrement
 * @rep_norm_io_count: sum of NormalizedIoCountIncrement
 * @rep_latency: sum of LatencyIncrement
 * @rep_lower_latency: sum of LowerLatencyIncrement
 * @started: I/Os admitted by the server
 * @started_units: normalized units admitted
 * @completed: I/Os completed
 * @completed_units: normalized units completed
 * @delayed: I/Os that had to wait
 * @delay_ns: total time I/Os were told to wait
 * @held: I/Os given a delay and not done yet
 * @unheld: I/Os that went at once, undelayed, because the flow or the
 *	server already held as many I/Os as it may (max_held_flow, max_held)
 * @capped: I/Os whose delay was cut to max_delay_ms
 */
struct sqos_flow_stats {
	guid_t flow_id;
	guid_t policy_id;
	u64 max_rate;
	u64 min_rate;
	u32 status;
	u32 opens;
	u64 rep_updates;
	u64 rep_io_count;
	u64 rep_norm_io_count;
	u64 rep_latency;
	u64 rep_lower_latency;
	u64 started;
	u64 started_units;
	u64 completed;
	u64 completed_units;
	u64 delayed;
	u64 delay_ns;
	u64 held;
	u64 unheld;
	u64 capped;
};

/* flow.c and main.c: the server on the module's own sqos_global */
bool sqos_enabled(void);
struct sqos_open *sqos_open_alloc(gfp_t gfp);
void sqos_open_release(struct sqos_open *open);
u32 sqos_control(struct sqos_open *open, const void *in, u32 in_len,
		 void *out, u32 max_out, u32 *out_len);
u64 sqos_io_admit(struct sqos_open *open, u64 bytes, struct sqos_io *io);
int sqos_io_start(struct sqos_open *open, u64 bytes, struct sqos_io *io);
void sqos_io_done(struct sqos_io *io);
int sqos_open_flow_stats(struct sqos_open *open, struct sqos_flow_stats *st);

/* client.c: the initiator's helpers, pure functions */
void sqos_client_flow_init(struct sqos_client_flow *cf, const guid_t *flow_id,
			   u64 now_ns);
u32 sqos_client_request_size(const struct sqos_client_args *args);
int sqos_client_build_request(struct sqos_client_flow *cf,
			      const struct sqos_client_args *args,
			      void *buf, u32 len, u32 *max_out, u64 now_ns);
int sqos_client_handle_response(struct sqos_client_flow *cf, u32 ntstatus,
				const void *out, u32 out_len, u64 now_ns,
				struct sqos_response *rsp);
u32 sqos_client_timer_options(struct sqos_client_flow *cf, u64 now_ns);
u64 sqos_client_io_start(struct sqos_client_flow *cf, u64 bytes, u64 now_ns);
void sqos_client_io_done(struct sqos_client_flow *cf, u64 latency_100ns,
			 u64 lower_latency_100ns);

/* flow.c */
struct sqos_server *sqos_server_create(void);
void sqos_server_destroy(struct sqos_server *srv);
struct sqos_open *sqos_server_open_alloc(struct sqos_server *srv, gfp_t gfp);
u32 sqos_flow_status(bool policy_known, u64 min_rate, u64 capacity,
		     const struct sqos_meter *m);
/* a walk's callback: see sqos_server_walk_flows() */
typedef void (*sqos_flow_visit_fn)(void *arg, const struct sqos_flow *f,
				   u32 status, u64 max, u64 min);
void sqos_server_walk_flows(struct sqos_server *srv, sqos_flow_visit_fn fn,
			    void *arg);
void sqos_server_counts(struct sqos_server *srv, unsigned int *flows,
			unsigned int *opens, unsigned int *policies);

/* policy.c */
int sqos_policy_check(const guid_t *id, u64 max_iops, u64 min_iops);
struct sqos_policy *sqos_policy_find(struct sqos_server *srv,
				     const guid_t *id);
int sqos_server_policy_set(struct sqos_server *srv, const guid_t *id,
			   u64 max_iops, u64 min_iops);
int sqos_server_policy_delete(struct sqos_server *srv, const guid_t *id);
void sqos_server_policy_clear(struct sqos_server *srv);
int sqos_server_policy_get(struct sqos_server *srv, const guid_t *id,
			   u64 *max_iops, u64 *min_iops);
/* a walk's callback: see sqos_server_walk_policies() */
typedef void (*sqos_policy_visit_fn)(void *arg, const struct sqos_policy *p);
void sqos_server_walk_policies(struct sqos_server *srv,
			       sqos_policy_visit_fn fn, void *arg);
/* called by policy.c with srv->lock held */
void sqos_server_policy_changed(struct sqos_server *srv, const guid_t *id);
void sqos_flow_resolve(struct sqos_flow *flow);

/* configfs.c: only when built with configfs (see qos/Kbuild) */
#ifdef SQOS_CONFIGFS
int sqos_configfs_init(struct sqos_server *srv);
void sqos_configfs_exit(void);
#else
static inline int sqos_configfs_init(struct sqos_server *srv)
{
	return 0;
}

static inline void sqos_configfs_exit(void)
{
}
#endif

/* debugfs.c */
int sqos_debugfs_init(struct sqos_server *srv);
void sqos_debugfs_exit(void);

/* main.c */
extern struct sqos_server *sqos_global;

#endif /* _SQOS_INTERNAL_H */
