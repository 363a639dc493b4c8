// SPDX-License-Identifier: GPL-2.0
/*
 * SMB Direct timers: the Negotiation Timer (MS-SMBD 3.1.2.1, 3.1.6.1) and
 * the Idle Connection Timer with keepalives (3.1.2.2, 3.1.6.2).
 *
 * Both are delayed work items on smbdirect's workqueue, conn->neg_work and
 * conn->idle_work, which only this file sets up, arms and cancels
 * (smbdx_timers_init(), smbdx_timers_cancel*(), smbdx_neg_timer_stop()).
 * They hold no connection reference: teardown cancels them synchronously
 * before the connection can be freed, and they are only (re)armed under
 * conn->lock while the connection has not failed, so none is pending
 * afterwards.
 *
 * Negotiation Timer: started when connecting (120 s by default, covering
 * address and route resolution, the RDMA connection and the negotiate
 * exchange) or when a connect request is accepted (5 s by default). If the
 * connection has not negotiated when it fires, the connection fails with
 * -ETIMEDOUT (cause negotiation_timeout).
 *
 * Idle Connection Timer: armed when negotiation completes. Receiving any
 * message only records the time (cheaper than re-arming the timer for
 * every message); when the timer fires it re-arms itself for the rest of
 * the interval if a message arrived meanwhile. Otherwise the credit engine
 * makes a keepalive PENDING (3.1.6.2), the send loop puts
 * SMB_DIRECT_RESPONSE_REQUESTED on the next message (an empty one if
 * nothing is queued) and re-arms the timer with the response wait. If the
 * timer fires again with the keepalive still outstanding (no message
 * arrived), the connection fails with -ETIMEDOUT (keepalive_timeout).
 */

#include <linux/module.h>

#include "smbd.h"

/**
 * smbdx_neg_timer_start() - start the Negotiation Timer
 * @conn: connection, lock held
 *
 * Not on a connection that already failed: its teardown may have cancelled
 * the timers already, and a timer armed after that would outlive it.
 */
void smbdx_neg_timer_start(struct smbdx_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	if (!conn->error)
		queue_delayed_work(smbdx_wq, &conn->neg_work, conn->neg_timeout_j);
}

/**
 * smbdx_neg_timer_stop() - negotiation completed: stop its timer
 * @conn: connection, lock held
 *
 * A timer already running finds the connection negotiated and does
 * nothing.
 */
void smbdx_neg_timer_stop(struct smbdx_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	cancel_delayed_work(&conn->neg_work);
}

/* The Negotiation Timer expired (3.1.6.1). */
static void smbdx_neg_work(struct work_struct *w)
{
	struct smbdx_conn *conn = container_of(to_delayed_work(w),
					      struct smbdx_conn, neg_work);

	spin_lock_bh(&conn->lock);
	if (!conn->negotiated)
		__smbdx_conn_fail(conn, -ETIMEDOUT, SMBDX_CAUSE_NEG_TIMEOUT);
	spin_unlock_bh(&conn->lock);
}

/**
 * smbdx_idle_timer_arm() - (re)arm the Idle Connection Timer
 * @conn: connection, lock held
 * @delay: jiffies from now
 */
void smbdx_idle_timer_arm(struct smbdx_conn *conn, unsigned long delay)
{
	lockdep_assert_held(&conn->lock);
	if (conn->state == SMBDX_CS_ESTABLISHED && !conn->error)
		mod_delayed_work(smbdx_wq, &conn->idle_work, delay);
}

/* The Idle Connection Timer expired (3.1.6.2). */
static void smbdx_idle_work(struct work_struct *w)
{
	struct smbdx_conn *conn = container_of(to_delayed_work(w),
					      struct smbdx_conn, idle_work);
	unsigned long idle;

	spin_lock_bh(&conn->lock);
	if (conn->state != SMBDX_CS_ESTABLISHED)
		goto out;
	if (conn->cr.keepalive == SMBDX_KEEPALIVE_NONE) {
		idle = jiffies - conn->recv.last_rx;
		if (idle < conn->keepalive_j) {
			smbdx_idle_timer_arm(conn, conn->keepalive_j - idle);
			goto out;
		}
	}
	smbdx_stat_inc(conn, SMBDX_STAT_KEEPALIVE_TIMER);
	if (!smbdx_credits_on_idle_timeout(&conn->cr)) {
		__smbdx_conn_fail(conn, -ETIMEDOUT, SMBDX_CAUSE_KEEPALIVE_TIMEOUT);
		goto out;
	}
	/* If the request cannot even be sent, give up after the wait too. */
	smbdx_idle_timer_arm(conn, conn->keepalive_wait_j);
	__smbdx_send_pump(conn, NULL);
out:
	spin_unlock_bh(&conn->lock);
}

/**
 * smbdx_timers_init() - set up a new connection's two timers
 * @conn: connection being allocated, not yet visible
 *
 * Context: process (smbdx_conn_alloc()).
 */
void smbdx_timers_init(struct smbdx_conn *conn)
{
	INIT_DELAYED_WORK(&conn->neg_work, smbdx_neg_work);
	INIT_DELAYED_WORK(&conn->idle_work, smbdx_idle_work);
}

/**
 * smbdx_timers_cancel() - stop both timers of a failed connection
 * @conn: connection, lock held, its error set (so neither is armed again)
 *
 * A timer already running finishes (it finds the error and does nothing).
 *
 * Context: any; never sleeps.
 */
void smbdx_timers_cancel(struct smbdx_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	cancel_delayed_work(&conn->neg_work);
	cancel_delayed_work(&conn->idle_work);
}

/**
 * smbdx_timers_cancel_sync() - stop both timers and wait for a running one
 * @conn: failed connection
 *
 * Context: process, not under conn->lock (a running timer takes it).
 */
void smbdx_timers_cancel_sync(struct smbdx_conn *conn)
{
	cancel_delayed_work_sync(&conn->neg_work);
	cancel_delayed_work_sync(&conn->idle_work);
}
