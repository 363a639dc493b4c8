// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit, live (rxe and siw): connection churn against an echo listener.
 * A raw peer (smbd_raw_peer.h) opens churn_n connections one after the
 * other; each negotiates, then half of them send one message the listener
 * echoes and go away, the other half send a malformed message and are
 * disconnected by the listener (a hostile peer). The listener's side is
 * an upper layer that destroys a connection from its disconnected
 * callback.
 *
 * When the peer is done and the listener has drained, no connection object
 * of the churn may be left (teardown keeps pace), the listener holds
 * nothing negotiating, and the unreclaimable slab is back to what it was
 * before, within CL_SLAB_MARGIN. The load is churn_n connections (200 in
 * make check; `make stress` loads the module with churn_n=1000, the
 * issue's figure, and Documentation/testing.rst has the measurements).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/vmstat.h>

#include <smbdirect/smbdirect.h>
#include "smbd.h"
#include "smbd_live_util.h"
#include "smbd_raw_peer.h"

static unsigned int churn_n = 200;
module_param(churn_n, uint, 0444);
MODULE_PARM_DESC(churn_n, "connections per device in the churn case (default 200)");

/* The longest a lost CM message may hold one teardown (see cl_churn). */
#define CL_DRAIN_S	180

/* Slab pages partly freed stay with their caches: allow a few MiB. */
#define CL_SLAB_MARGIN	(8UL << 20)

struct cl_server {
	atomic_t accepted;
	atomic_t destroyed;
	atomic_t echoed;
};

static void cl_recv(struct smbdx_conn *conn, struct smbdx_msg *msg)
{
	struct cl_server *srv = smbdx_conn_context(conn);
	struct iov_iter it;

	smbdx_msg_iter(msg, &it);
	if (!smbdx_send(conn, &it, 0, 0))
		atomic_inc(&srv->echoed);
	smbdx_msg_free(msg);
}

static void cl_disconnected(struct smbdx_conn *conn, int error)
{
	struct cl_server *srv = smbdx_conn_context(conn);

	smbdx_destroy(conn);
	atomic_inc(&srv->destroyed);
}

static const struct smbdx_conn_ops cl_conn_ops = {
	.recv = cl_recv,
	.disconnected = cl_disconnected,
};

static int cl_accept(struct smbdx_listener *lis, struct smbdx_conn *conn)
{
	struct cl_server *srv = smbdx_listener_context(lis);

	smbdx_conn_set_context(conn, srv);
	atomic_inc(&srv->accepted);
	return 0;
}

static const struct smbdx_listener_ops cl_lis_ops = {
	.accept = cl_accept,
	.conn_ops = &cl_conn_ops,
};

static unsigned long cl_slab(void)
{
	return global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B) * PAGE_SIZE;
}

/* One peer: negotiate, then echo or misbehave, then go. */
static void cl_one(struct kunit *test, struct sockaddr_in *sin, bool hostile)
{
	struct smbdx_data_transfer dt = {};
	struct tl_raw *raw;
	u8 msg[64] = {};

	raw = tl_raw_connect(test, sin);
	tl_raw_negotiate(test, raw);
	tl_raw_post_recv(test, raw);

	dt.credits_requested = cpu_to_le16(1);
	dt.credits_granted = cpu_to_le16(1);
	if (hostile) {
		/* DataOffset not 8-byte aligned (3.1.5.8). */
		dt.data_offset = cpu_to_le32(28);
		dt.data_length = cpu_to_le32(8);
		memcpy(msg, &dt, sizeof(dt));
		tl_raw_send_last(test, raw, msg, 36);
		tl_raw_expect_disconnect(test, raw);
	} else {
		dt.data_offset = cpu_to_le32(SMBDX_DATA_PAYLOAD_OFFSET);
		dt.data_length = cpu_to_le32(8);
		memcpy(msg, &dt, sizeof(dt));
		memcpy(msg + SMBDX_DATA_PAYLOAD_OFFSET, "churn!!!", 8);
		tl_raw_send(test, raw, msg, SMBDX_DATA_PAYLOAD_OFFSET + 8);
		/* The echo: a Data Transfer message of 8 bytes of payload. */
		KUNIT_ASSERT_GE(test, tl_raw_recv(test, raw),
				(u32)SMBDX_DATA_PAYLOAD_OFFSET + 8);
	}
	kunit_release_action(test, tl_raw_release, raw);
}

static bool cl_all_destroyed(struct cl_server *srv)
{
	return atomic_read(&srv->destroyed) == atomic_read(&srv->accepted);
}

static bool cl_drained(struct cl_server *srv, int base)
{
	return cl_all_destroyed(srv) && smbdx_test_conns_alive() <= base;
}

/*
 * Runs last when the case ends, passed or failed: the listener is gone and
 * the raw peers have hung up, so every accepted connection is on its way
 * to cl_disconnected(). Wait for them: they call into this module, which
 * KUnit's runner unloads right after the case (an early ASSERT once left
 * a connection whose callback then ran in the next test module's text).
 */
static void cl_wait_drained(void *data)
{
	struct cl_server *srv = data;
	int i;

	for (i = 0; i < CL_DRAIN_S * 50 && !cl_all_destroyed(srv); i++)
		msleep(20);
	WARN(!cl_all_destroyed(srv),
	     "smbdirect_churn_live: %d of %d connections not destroyed\n",
	     atomic_read(&srv->accepted) - atomic_read(&srv->destroyed),
	     atomic_read(&srv->accepted));
}

static void cl_churn(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct cl_server *srv;
	struct smbdx_listener *lis;
	struct sockaddr_in sin;
	unsigned long slab0, slab1;
	int base, i;

	srv = kunit_kzalloc(test, sizeof(*srv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, srv);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cl_wait_drained,
							srv), 0);
	tl_addr(test, d, &sin);
	lis = smbdx_listen(&init_net, (struct sockaddr *)&sin, NULL, &cl_lis_ops,
			   srv);
	KUNIT_ASSERT_FALSE(test, IS_ERR(lis));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_listener_destroy,
							lis), 0);
	sin.sin_port = htons(smbdx_listener_port(lis));

	/* One of each first, so that caches exist before the baseline. */
	cl_one(test, &sin, false);
	cl_one(test, &sin, true);
	base = smbdx_test_conns_alive();
	for (i = 0; i < timeout_ms / 20 && !cl_drained(srv, base); i++)
		msleep(20);
	base = smbdx_test_conns_alive();
	slab0 = cl_slab();

	for (i = 0; i < churn_n; i++) {
		cl_one(test, &sin, i & 1);
		if (test->status == KUNIT_FAILURE)
			return;
	}
	/*
	 * On rxe a Disconnect Request or Reply is now and then lost: the IB
	 * CM then resends it for the connection's CM timeouts before the
	 * cm_id can go (the kernel's "cm_destroy_id_wait_timeout" lines),
	 * which holds that teardown for a minute or more. Allow for that.
	 */
	for (i = 0; i < CL_DRAIN_S * 50 && !cl_drained(srv, base); i++)
		msleep(20);
	KUNIT_EXPECT_TRUE_MSG(test, cl_drained(srv, base),
			      "accepted %d destroyed %d, connections alive %d (base %d)",
			      atomic_read(&srv->accepted),
			      atomic_read(&srv->destroyed),
			      smbdx_test_conns_alive(), base);
	KUNIT_EXPECT_EQ(test, atomic_read(&srv->echoed), (int)(churn_n + 1) / 2 + 1);
	slab1 = cl_slab();
	kunit_info(test, "%u connections: slab %lu -> %lu KiB", churn_n,
		   slab0 >> 10, slab1 >> 10);
	KUNIT_EXPECT_LE_MSG(test, slab1, slab0 + CL_SLAB_MARGIN,
			    "unreclaimable slab grew by %lu KiB",
			    (slab1 - slab0) >> 10);
}

static struct kunit_case cl_cases[] = {
	KUNIT_CASE_PARAM_ATTR(cl_churn, tl_dev_gen_params, { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite cl_suite = {
	.name = "smbdirect_churn_live",
	.test_cases = cl_cases,
};

kunit_test_suite(cl_suite);

MODULE_DESCRIPTION("smbdirect live KUnit: connection churn, hostile peers, memory");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SMBDX_NS);
MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));
