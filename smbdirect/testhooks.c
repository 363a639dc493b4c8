// SPDX-License-Identifier: GPL-2.0
/*
 * Test hooks of smbdirect.ko: what the KUnit suites (kunit/) read or do to
 * a connection that the exported API does not offer (its counters, its
 * first error's cause, a mute send loop, a device removal for one
 * connection, Receive completions held back), and smbdx_connect_step(),
 * the static stub between the steps of smbdx_connect(). Built only by the
 * test build, `make SMBDX_TESTS=1` (the top Kbuild then defines
 * SMBDX_TESTS for every object); the product (make, DKMS, make deb) has
 * none of it, and smbd.h gives the product constant stand-ins for the two
 * hooks the transport calls. scripts/check-install.sh and
 * scripts/check-deb.sh fail if `nm smbdirect.ko` shows an smbdx_test_*
 * symbol or any function exported here (Documentation/testing.rst, "The
 * test build and the product"). Exported with EXPORT_SYMBOL_IF_KUNIT().
 *
 * Concurrency: each hook takes the lock that guards what it reads or
 * changes (conn->lock for the send loop's mute and held_bytes, res_mutex
 * for released); counters are atomics read without a lock. The caller
 * holds a reference on @conn. Held Receive completions sit on a list
 * under smbdx_test_held_lock (taken in softirq and process context).
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>

#include "smbd.h"

/**
 * smbdx_test_set_mute() - test hook: stop (or resume) sending anything
 * @conn: connection
 * @mute: true to stop the send loop (no data, credits or keepalive
 *	answers leave), false to resume
 *
 * Lets a test make a peer that never answers, to exercise the other
 * side's keepalive timeout and credit stalls. __smbdx_send_pump() (send.c)
 * tests the flag through smbdx_test_muted() (smbd.h), which is false at
 * compile time in the product build.
 */
void smbdx_test_set_mute(struct smbdx_conn *conn, bool mute)
{
	spin_lock_bh(&conn->lock);
	conn->send.test_mute = mute;
	if (!mute)
		__smbdx_send_pump(conn, NULL);
	spin_unlock_bh(&conn->lock);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_set_mute);

/**
 * smbdx_test_stat() - test hook: a counter of a connection
 * @conn: connection
 * @s: counter
 *
 * Return: its value.
 */
u64 smbdx_test_stat(struct smbdx_conn *conn, enum smbdx_stat s)
{
	return atomic64_read(&conn->stats.v[s]);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_stat);

/**
 * smbdx_test_error_count() - test hook: an error counter of a connection
 * @conn: connection
 * @cause: cause
 *
 * Return: its value.
 */
u64 smbdx_test_error_count(struct smbdx_conn *conn, int cause)
{
	return atomic64_read(&conn->stats.errors[cause]);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_error_count);

/**
 * smbdx_test_global_stat() - test hook: a counter summed over every
 *	connection ever made
 * @s: counter
 *
 * Return: its value.
 */
u64 smbdx_test_global_stat(enum smbdx_stat s)
{
	return atomic64_read(&smbdx_global_stats.v[s]);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_global_stat);

/**
 * smbdx_test_conns_alive() - test hook: connection objects not yet freed
 *
 * Return: their number, on every listener and owner.
 */
int smbdx_test_conns_alive(void)
{
	return atomic_read(&smbdx_conns_alive);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_conns_alive);

/**
 * smbdx_test_global_error_count() - test hook: a global error counter
 * @cause: cause
 *
 * Return: its value.
 */
u64 smbdx_test_global_error_count(int cause)
{
	return atomic64_read(&smbdx_global_stats.errors[cause]);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_global_error_count);

/**
 * smbdx_test_cause() - test hook: why the connection failed
 * @conn: connection
 *
 * Return: its first error's cause, SMBDX_CAUSE_NONE if none.
 */
int smbdx_test_cause(struct smbdx_conn *conn)
{
	return READ_ONCE(conn->cause);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_cause);

/**
 * smbdx_test_device_removal() - test hook: remove @conn's device, for @conn
 * @conn: connection
 *
 * Ends and tears down @conn as a device removal does (-ENODEV, cause
 * DEVICE_REMOVAL): through our ib_client's path, which ends every
 * connection on the device, once the connection knows its device; before
 * that only the CM's DEVICE_REMOVAL event can reach it, and this does what
 * that event's handling does. Returns once @conn is torn down.
 *
 * Context: process; not from the connection's CM event handler.
 */
void smbdx_test_device_removal(struct smbdx_conn *conn)
{
	struct ib_device *ibdev = READ_ONCE(conn->ibdev);

	if (ibdev) {
		smbdx_conns_device_removed(ibdev);
		return;
	}
	smbdx_conn_fail(conn, -ENODEV, SMBDX_CAUSE_DEVICE_REMOVAL);
	smbdx_conn_teardown(conn);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_device_removal);

/**
 * smbdx_test_released() - test hook: has @conn been torn down?
 * @conn: connection
 *
 * Return: true once its verbs resources and cm_id are gone.
 */
bool smbdx_test_released(struct smbdx_conn *conn)
{
	bool released;

	mutex_lock(&conn->res_mutex);
	released = conn->released;
	mutex_unlock(&conn->res_mutex);
	return released;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_released);

/**
 * smbdx_test_held_bytes() - test hook: received bytes the upper layer holds
 * @conn: connection
 *
 * Return: held_bytes.
 */
u64 smbdx_test_held_bytes(struct smbdx_conn *conn)
{
	u64 held;

	spin_lock_bh(&conn->lock);
	held = conn->recv.held_bytes;
	spin_unlock_bh(&conn->lock);
	return held;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_held_bytes);

/**
 * smbdx_test_peer_disconnected() - test hook: has the CM reported the
 *	peer's disconnect?
 * @conn: connection
 *
 * Return: true once its DISCONNECTED event was handled.
 */
bool smbdx_test_peer_disconnected(struct smbdx_conn *conn)
{
	return test_bit(SMBDX_CMF_DISCONNECTED, &conn->cm_flags);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_peer_disconnected);

/*
 * Held Receive completions, in the order the CQ gave them, of the one
 * connection smbdx_test_hold_recvs() redirected (one at a time).
 */
struct smbdx_test_held_wc {
	struct list_head list;
	struct ib_cq *cq;
	struct ib_wc wc;
};

static DEFINE_SPINLOCK(smbdx_test_held_lock);
static LIST_HEAD(smbdx_test_held);
static bool smbdx_test_holding;

static void smbdx_test_recv_held(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smbdx_test_held_wc *h;
	unsigned long flags;

	spin_lock_irqsave(&smbdx_test_held_lock, flags);
	if (!smbdx_test_holding && list_empty(&smbdx_test_held)) {
		spin_unlock_irqrestore(&smbdx_test_held_lock, flags);
		smbdx_recv_done(cq, wc);
		return;
	}
	h = kmalloc(sizeof(*h), GFP_ATOMIC);
	if (WARN_ON_ONCE(!h)) {
		spin_unlock_irqrestore(&smbdx_test_held_lock, flags);
		return;
	}
	h->cq = cq;
	h->wc = *wc;
	list_add_tail(&h->list, &smbdx_test_held);
	spin_unlock_irqrestore(&smbdx_test_held_lock, flags);
}

/**
 * smbdx_test_hold_recvs() - test hook: hold back @conn's Receive completions
 * @conn: an established connection
 *
 * From now on @conn's Receive completions are kept, in order, instead of
 * being processed, until smbdx_test_release_recvs(): a test can then make
 * the CQ lag behind a CM event, as a busy CPU sometimes does. One
 * connection at a time; its completions go through the hold's handler
 * until it is destroyed (processed at once after the release).
 *
 * Return: 0, or -EBUSY while another hold is on.
 */
int smbdx_test_hold_recvs(struct smbdx_conn *conn)
{
	u32 i;

	spin_lock_bh(&smbdx_test_held_lock);
	if (smbdx_test_holding || !list_empty(&smbdx_test_held)) {
		spin_unlock_bh(&smbdx_test_held_lock);
		return -EBUSY;
	}
	smbdx_test_holding = true;
	spin_unlock_bh(&smbdx_test_held_lock);
	mutex_lock(&conn->res_mutex);
	for (i = 0; i < conn->recv.nrios; i++)
		WRITE_ONCE(conn->recv.rios[i].cqe.done, smbdx_test_recv_held);
	mutex_unlock(&conn->res_mutex);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_hold_recvs);

/**
 * smbdx_test_release_recvs() - test hook: process the held completions
 *
 * Processes what smbdx_test_hold_recvs() held, oldest first, as the CQ's
 * handler would have (bottom halves off); completions that arrive
 * meanwhile queue behind them, later ones are processed at once.
 *
 * Context: process.
 */
void smbdx_test_release_recvs(void)
{
	struct smbdx_test_held_wc *h;

	for (;;) {
		spin_lock_bh(&smbdx_test_held_lock);
		h = list_first_entry_or_null(&smbdx_test_held,
					     struct smbdx_test_held_wc, list);
		if (!h) {
			smbdx_test_holding = false;
			spin_unlock_bh(&smbdx_test_held_lock);
			return;
		}
		list_del(&h->list);
		spin_unlock_bh(&smbdx_test_held_lock);
		local_bh_disable();
		smbdx_recv_done(h->cq, &h->wc);
		local_bh_enable();
		kfree(h);
	}
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_release_recvs);

/**
 * smbdx_connect_step() - smbdx_connect() is about to begin step @next
 * @conn: the connecting connection
 * @next: SMBDX_CS_RESOLVE_ROUTE, SMBDX_CS_CONNECTING or SMBDX_CS_NEGOTIATING
 *
 * Does nothing; called with nothing held, between two steps, where device
 * removal may tear the connection down. A KUnit test redirects it (static
 * stub) to remove the device at exactly that point. In the product build
 * it is an empty inline (smbd.h) and the calls compile to nothing.
 *
 * Context: process, the connecting thread.
 */
void smbdx_connect_step(struct smbdx_conn *conn, enum smbdx_conn_state next)
{
	KUNIT_STATIC_STUB_REDIRECT(smbdx_connect_step, conn, next);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_connect_step);

/* What smbdx_test_set_own_caps() asked to advertise: flags | push_ird << 8 */
static u16 smbdx_test_caps;

/**
 * smbdx_test_own_caps() - what a connection of the test build advertises
 * @caps: the product's capabilities, replaced by the test's if it set any
 *
 * Context: any.
 */
void smbdx_test_own_caps(struct smbdx_caps *caps)
{
	u16 v = READ_ONCE(smbdx_test_caps);

	if (!v)
		return;
	caps->flags = v & 0xff;
	caps->push_ird = v >> 8;
}

/**
 * smbdx_test_set_own_caps() - test hook: advertise these capabilities
 * @flags: SMBDX_CAP_* bits (reserved bits too: the encoder must drop them)
 * @push_ird: responder resources for push mode
 *
 * Applies to every connection whose private data is built afterwards,
 * until called again; 0, 0 restores the product's (none). A test that
 * sets it restores it in a deferred action.
 */
void smbdx_test_set_own_caps(u8 flags, u8 push_ird)
{
	WRITE_ONCE(smbdx_test_caps, flags | (u16)push_ird << 8);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_set_own_caps);

/**
 * smbdx_test_conn_caps() - test hook: the capabilities @conn exchanged
 * @conn: connection
 * @out: a copy of its record
 */
void smbdx_test_conn_caps(struct smbdx_conn *conn, struct smbdx_conn_caps *out)
{
	spin_lock_bh(&conn->lock);
	*out = conn->caps;
	spin_unlock_bh(&conn->lock);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_test_conn_caps);
