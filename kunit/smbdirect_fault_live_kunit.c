// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit, live (rxe and siw): every fault point of smbdirect (fault.h) armed
 * in turn, once, while two connections of one listener are up. The one the
 * fault hits must end with the right cause, or the API call must fail with
 * the connection still up; the fault must have fired; the other connection
 * must keep moving data both ways; and clean-up (destroy, then the module's
 * unload by the runner, kmemleak on the debug kernel) must find nothing
 * left: no Send reclaimed at teardown.
 *
 * Device removal between the steps of smbdx_connect() (a static stub on
 * smbdx_connect_step() removes the device at exactly that point): the
 * connect must return -ENODEV having touched nothing of the torn-down
 * connection (KASAN on the debug kernel), and the next connect works.
 *
 * A signal at the connect step (the same stub sends the test's thread a
 * signal just before the QP is set up and the connect made), on siw: the
 * connect must fail with -EINTR without the provider ever opening a TCP
 * connection to the peer. siw makes its TCP connection in the thread that
 * calls rdma_connect(), and with a signal pending there it used to open
 * the connection and close it at once, which a siw listener does not
 * survive (Documentation/design.rst "Connecting and a fatal signal"). The
 * peer here is a plain TCP listener on the siw interface's address, so
 * the test sees whether a connection was made without triggering that bug.
 *
 * Needs CONFIG_FAULT_INJECTION (the test kernels have it).
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/net.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/sock.h>

#include <smbdirect/smbdirect.h>
#include "smbd.h"
#include "smbd_live_util.h"

#define FL_SIZE		4096

/* What the operation under the fault should end with. */
enum fl_outcome {
	FL_CALL_FAILS,		/* the call returns -ENOMEM, the connection lives */
	FL_CONN_FAILS,		/* one connection of the pair ends with @cause */
	FL_CONNECT_FAILS,	/* a new connection times out negotiating */
};

enum fl_op {
	FL_OP_SEND,		/* the client sends a message to the server */
	FL_OP_REGISTER,		/* the client registers a buffer */
	FL_OP_REGISTER_POSTED,	/* ... with SMBDX_REG_POSTED */
	FL_OP_RDMA_WRITE,	/* the server RDMA-writes into it */
	FL_OP_CONNECT,		/* a third client connects */
};

/* The device first: the live helpers read test->param_value as a tl_dev. */
struct fl_case {
	struct tl_dev dev;
	enum smbdx_fault fault;
	enum fl_op op;
	enum fl_outcome outcome;
	int cause;
};

static const struct {
	enum smbdx_fault fault;
	enum fl_op op;
	enum fl_outcome outcome;
	int cause;
} fl_points[] = {
	{ SMBDX_FAULT_SEND_ALLOC, FL_OP_SEND, FL_CALL_FAILS, 0 },
	{ SMBDX_FAULT_POST_SEND, FL_OP_SEND, FL_CONN_FAILS, SMBDX_CAUSE_POST_ERROR },
	{ SMBDX_FAULT_POST_RECV, FL_OP_SEND, FL_CONN_FAILS, SMBDX_CAUSE_POST_ERROR },
	{ SMBDX_FAULT_MSG_ALLOC, FL_OP_SEND, FL_CONN_FAILS, SMBDX_CAUSE_NOMEM },
	{ SMBDX_FAULT_REG_ALLOC, FL_OP_REGISTER, FL_CALL_FAILS, 0 },
	{ SMBDX_FAULT_MR_POST, FL_OP_REGISTER, FL_CONN_FAILS, SMBDX_CAUSE_POST_ERROR },
	{ SMBDX_FAULT_MR_WC, FL_OP_REGISTER, FL_CONN_FAILS, SMBDX_CAUSE_MR_ERROR },
	{ SMBDX_FAULT_MR_POST, FL_OP_REGISTER_POSTED, FL_CONN_FAILS, SMBDX_CAUSE_POST_ERROR },
	{ SMBDX_FAULT_MR_WC, FL_OP_REGISTER_POSTED, FL_CONN_FAILS, SMBDX_CAUSE_MR_ERROR },
	{ SMBDX_FAULT_RW_ALLOC, FL_OP_RDMA_WRITE, FL_CALL_FAILS, 0 },
	{ SMBDX_FAULT_RW_POST, FL_OP_RDMA_WRITE, FL_CONN_FAILS, SMBDX_CAUSE_POST_ERROR },
	{ SMBDX_FAULT_CM_EVENT, FL_OP_CONNECT, FL_CONNECT_FAILS, SMBDX_CAUSE_NEG_TIMEOUT },
};

static struct fl_case fl_cases[ARRAY_SIZE(tl_devs) * ARRAY_SIZE(fl_points)];

static const void *fl_gen_params(const void *prev, char *desc)
{
	const struct fl_case *c = prev ? (const struct fl_case *)prev + 1 :
					 fl_cases;
	size_t i;

	if (!prev) {
		for (i = 0; i < ARRAY_SIZE(fl_cases); i++) {
			fl_cases[i].dev = tl_devs[i / ARRAY_SIZE(fl_points)];
			fl_cases[i].fault = fl_points[i % ARRAY_SIZE(fl_points)].fault;
			fl_cases[i].op = fl_points[i % ARRAY_SIZE(fl_points)].op;
			fl_cases[i].outcome = fl_points[i % ARRAY_SIZE(fl_points)].outcome;
			fl_cases[i].cause = fl_points[i % ARRAY_SIZE(fl_points)].cause;
		}
	}
	if (c >= fl_cases + ARRAY_SIZE(fl_cases))
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s%s", c->dev.kind,
		 smbdx_fault_name(c->fault),
		 c->op == FL_OP_REGISTER_POSTED ? " posted" : "");
	return c;
}

static int fl_send(struct smbdx_conn *conn, void *buf, size_t len)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	return smbdx_send(conn, &it, 0, 0);
}

/* One message each way between @a and @b, checked. */
static void fl_both_ways(struct kunit *test, struct smbdx_conn *a,
			 struct smbdx_conn *b, u8 *buf, u8 seed)
{
	struct smbdx_conn *pair[2] = { a, b };
	struct smbdx_msg *msg;
	struct kvec kv = { .iov_base = buf, .iov_len = FL_SIZE };
	struct iov_iter it;
	int i;

	for (i = 0; i < 2; i++) {
		memset(buf, seed + i, FL_SIZE);
		KUNIT_ASSERT_EQ(test, fl_send(pair[i], buf, FL_SIZE), 0);
		KUNIT_ASSERT_EQ(test, smbdx_recv_msg(pair[!i],
						     msecs_to_jiffies(timeout_ms),
						     &msg), 0);
		memset(buf, 0, FL_SIZE);
		iov_iter_kvec(&it, ITER_DEST, &kv, 1, FL_SIZE);
		KUNIT_EXPECT_EQ(test, smbdx_msg_copy(msg, 0, &it), (size_t)FL_SIZE);
		KUNIT_EXPECT_EQ(test, smbdx_msg_len(msg), (u32)FL_SIZE);
		KUNIT_EXPECT_EQ(test, buf[0], (u8)(seed + i));
		KUNIT_EXPECT_EQ(test, buf[FL_SIZE - 1], (u8)(seed + i));
		smbdx_msg_free(msg);
	}
}

static bool fl_either_failed(struct smbdx_conn *a, struct smbdx_conn *b)
{
	return smbdx_conn_error(a) || smbdx_conn_error(b);
}

static void fl_disarm(void *data)
{
	smbdx_fault_arm((enum smbdx_fault)(unsigned long)data, 0);
}

static void fl_fault_point(struct kunit *test)
{
	const struct fl_case *c = test->param_value;
	u64 reclaimed = smbdx_test_global_stat(SMBDX_STAT_SENDS_RECLAIMED);
	struct smbdx_conn *cli2, *srvc2, *hit = NULL;
	struct smbdx_conn_config cfg;
	const struct smbdx_buffer_desc_v1 *d;
	struct smbdx_reg *reg = NULL;
	struct kvec kv;
	struct iov_iter it;
	struct tl_pair p;
	struct smbdx_conn *conn;
	u8 *buf, *data;
	void *fault;
	int rc = 0, i;
	u32 n;

	buf = tl_kvmalloc(test, FL_SIZE);
	data = tl_kvmalloc(test, FL_SIZE);
	smbdx_conn_config_init(&cfg);
	cfg.negotiate_timeout_ms = 3000;
	tl_pair_up(test, &p, &cfg, NULL);
	cli2 = tl_connect(test, &p.sin, &cfg, NULL, NULL);
	srvc2 = tl_accepted(test, p.srv, 1);
	if (c->op == FL_OP_RDMA_WRITE) {
		kv.iov_base = buf;
		kv.iov_len = FL_SIZE;
		iov_iter_kvec(&it, ITER_DEST, &kv, 1, FL_SIZE);
		reg = smbdx_register(p.cli, &it, SMBDX_REG_REMOTE_WRITE);
		KUNIT_ASSERT_FALSE(test, IS_ERR(reg));
	}

	fault = (void *)(unsigned long)c->fault;
	/*
	 * Both pairs idle before the point is armed: one round trip each,
	 * then time for the credit messages it causes to settle, so that
	 * only the operation below can reach the point.
	 */
	fl_both_ways(test, p.cli, p.srvc, data, 1);
	fl_both_ways(test, cli2, srvc2, data, 3);
	msleep(200);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fl_disarm, fault),
			0);
	smbdx_fault_arm(c->fault, 1);
	switch (c->op) {
	case FL_OP_SEND:
		/* Until it fires: a repost may come a few receives later. */
		for (i = 0; i < 50 && smbdx_fault_left(c->fault); i++) {
			memset(data, i, FL_SIZE);
			rc = fl_send(p.cli, data, FL_SIZE);
			if (rc)
				break;
		}
		break;
	case FL_OP_REGISTER:
	case FL_OP_REGISTER_POSTED:
		kv.iov_base = buf;
		kv.iov_len = FL_SIZE;
		iov_iter_kvec(&it, ITER_DEST, &kv, 1, FL_SIZE);
		reg = smbdx_register(p.cli, &it, SMBDX_REG_REMOTE_WRITE |
				     (c->op == FL_OP_REGISTER_POSTED ?
				      SMBDX_REG_POSTED : 0));
		rc = PTR_ERR_OR_ZERO(reg);
		if (rc)
			reg = NULL;
		/*
		 * A failed completion: only a caller that waits for it learns
		 * of it here; a posted one learns from the connection and from
		 * smbdx_deregister(). A failed post fails either call.
		 */
		if (c->fault == SMBDX_FAULT_MR_WC)
			KUNIT_EXPECT_EQ(test, rc == 0, c->op == FL_OP_REGISTER_POSTED);
		else if (c->fault == SMBDX_FAULT_MR_POST)
			KUNIT_EXPECT_NE(test, rc, 0);
		break;
	case FL_OP_RDMA_WRITE:
		d = smbdx_reg_descs(reg, &n);
		kv.iov_base = data;
		kv.iov_len = FL_SIZE;
		iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, FL_SIZE);
		rc = smbdx_rdma_write(p.srvc, &it, d, n, 0);
		break;
	case FL_OP_CONNECT:
		conn = smbdx_connect(&init_net, (struct sockaddr *)&p.sin, NULL,
				     &cfg, NULL, NULL);
		rc = PTR_ERR_OR_ZERO(conn);
		if (!rc)
			smbdx_destroy(conn);
		break;
	}
	/* A receive-side point fires when the peer gets to it. */
	for (i = 0; i < timeout_ms / 20 && smbdx_fault_left(c->fault); i++)
		msleep(20);
	KUNIT_EXPECT_EQ_MSG(test, smbdx_fault_left(c->fault), 0,
			    "fault point %s never fired", smbdx_fault_name(c->fault));
	smbdx_fault_arm(c->fault, 0);

	switch (c->outcome) {
	case FL_CALL_FAILS:
		KUNIT_EXPECT_EQ(test, rc, -ENOMEM);
		KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
		KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);
		/* The pair itself goes on. */
		fl_both_ways(test, p.cli, p.srvc, data, 10);
		break;
	case FL_CONN_FAILS:
		for (i = 0; i < timeout_ms / 20 && !fl_either_failed(p.cli, p.srvc); i++)
			msleep(20);
		KUNIT_ASSERT_TRUE_MSG(test, fl_either_failed(p.cli, p.srvc),
				      "no connection failed");
		hit = smbdx_conn_error(p.cli) ? p.cli : p.srvc;
		/* The other end may follow as a peer disconnect. */
		if (smbdx_test_cause(hit) != c->cause && smbdx_conn_error(p.srvc))
			hit = p.srvc;
		KUNIT_EXPECT_EQ_MSG(test, smbdx_test_cause(hit), c->cause,
				    "cause %s", smbdx_cause_name(smbdx_test_cause(hit)));
		break;
	case FL_CONNECT_FAILS:
		KUNIT_EXPECT_EQ(test, rc, -ETIMEDOUT);
		KUNIT_EXPECT_EQ(test, smbdx_test_global_error_count(c->cause) > 0,
				true);
		break;
	}

	/* The other connection of the listener keeps moving data. */
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(cli2), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(srvc2), 0);
	fl_both_ways(test, cli2, srvc2, data, 20);

	if (reg)
		KUNIT_EXPECT_TRUE(test, smbdx_deregister(reg) == 0 ||
				  c->outcome == FL_CONN_FAILS);
	kunit_release_action(test, tl_conn_destroy, p.cli);
	kunit_release_action(test, tl_conn_destroy, p.srvc);
	KUNIT_EXPECT_EQ(test, smbdx_test_global_stat(SMBDX_STAT_SENDS_RECLAIMED),
			reclaimed);
}

/* Disarmed (the default), no point fails: traffic flows, nothing fires. */
static void fl_disarmed_by_default(struct kunit *test)
{
	struct tl_pair p;
	u8 *buf = tl_kvmalloc(test, FL_SIZE);
	int f;

	tl_pair_up(test, &p, NULL, NULL);
	for (f = 0; f < SMBDX_FAULT_COUNT; f++)
		KUNIT_EXPECT_STRNEQ(test, smbdx_fault_name(f), "unknown");
	fl_both_ways(test, p.cli, p.srvc, buf, 30);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);
}

/* Device removal at one step of smbdx_connect(), on one device. */
struct fl_removal {
	struct tl_dev dev;	/* first: the live helpers read it */
	enum smbdx_conn_state step;
	bool hit;		/* set by the stub when it removed */
	bool released;		/* the connection was torn down by it */
};

static const enum smbdx_conn_state fl_removal_steps[] = {
	SMBDX_CS_RESOLVE_ROUTE, SMBDX_CS_CONNECTING, SMBDX_CS_NEGOTIATING,
};

static struct fl_removal fl_removals[ARRAY_SIZE(tl_devs) * ARRAY_SIZE(fl_removal_steps)];

static const void *fl_removal_params(const void *prev, char *desc)
{
	const struct fl_removal *c = prev ? (const struct fl_removal *)prev + 1 :
					    fl_removals;
	size_t i, n = ARRAY_SIZE(fl_removal_steps);

	if (!prev) {
		for (i = 0; i < ARRAY_SIZE(fl_removals); i++) {
			fl_removals[i].dev = tl_devs[i / n];
			fl_removals[i].step = fl_removal_steps[i % n];
		}
	}
	if (c >= fl_removals + ARRAY_SIZE(fl_removals))
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s before %s", c->dev.kind,
		 smbdx_state_str(c->step));
	return c;
}

/* Replaces smbdx_connect_step() in the test's thread. */
static void fl_remove_at_step(struct smbdx_conn *conn, enum smbdx_conn_state next)
{
	struct kunit *test = kunit_get_current_test();
	struct fl_removal *c = test ? (struct fl_removal *)test->param_value : NULL;

	if (!c || next != c->step)
		return;
	c->hit = true;
	smbdx_test_device_removal(conn);
	c->released = smbdx_test_released(conn);
}

static void fl_removal_mid_connect(struct kunit *test)
{
	struct fl_removal *c = (struct fl_removal *)test->param_value;
	u64 removals = smbdx_test_global_error_count(SMBDX_CAUSE_DEVICE_REMOVAL);
	int alive = smbdx_test_conns_alive();
	struct smbdx_conn_config cfg;
	struct smbdx_conn *conn, *cli, *srvc;
	struct sockaddr_in sin;
	struct tl_server *srv;
	u8 *data;
	int i;

	c->hit = false;
	c->released = false;
	data = tl_kvmalloc(test, FL_SIZE);
	smbdx_conn_config_init(&cfg);
	cfg.negotiate_timeout_ms = 10000;
	tl_addr(test, &c->dev, &sin);
	srv = tl_listen(test, &sin, NULL, &tl_pull_ops);

	kunit_activate_static_stub(test, smbdx_connect_step, fl_remove_at_step);
	conn = smbdx_connect(&init_net, (struct sockaddr *)&sin, NULL, &cfg,
			     NULL, NULL);
	kunit_deactivate_static_stub(test, smbdx_connect_step);
	if (!IS_ERR(conn))
		smbdx_destroy(conn);
	KUNIT_EXPECT_TRUE_MSG(test, c->hit, "connect never reached %s",
			      smbdx_state_str(c->step));
	KUNIT_EXPECT_TRUE(test, c->released);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(conn), -ENODEV);
	KUNIT_EXPECT_GT(test, smbdx_test_global_error_count(SMBDX_CAUSE_DEVICE_REMOVAL),
			removals);

	/* The listener lives on (its device did not go): connect again. */
	cli = tl_connect(test, &sin, &cfg, NULL, NULL);
	/* The removed one never negotiated, so never reached accept. */
	srvc = tl_accepted(test, srv, 0);
	fl_both_ways(test, cli, srvc, data, 5);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(cli), 0);
	KUNIT_EXPECT_EQ(test, tl_nconns(srv), 1);
	kunit_release_action(test, tl_conn_destroy, cli);
	kunit_release_action(test, tl_conn_destroy, srvc);
	/* Every connection, the removed one's passive side included, is freed. */
	for (i = 0; i < timeout_ms / 20 && smbdx_test_conns_alive() > alive; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, smbdx_test_conns_alive(), alive);
}

static void fl_sock_release(void *sock)
{
	sock_release(sock);
}

/* Replaces smbdx_connect_step(): a signal for the thread before connect. */
static void fl_signal_at_step(struct smbdx_conn *conn, enum smbdx_conn_state next)
{
	struct kunit *test = kunit_get_current_test();
	bool *hit = test ? test->priv : NULL;

	if (!hit || next != SMBDX_CS_CONNECTING)
		return;
	*hit = true;
	send_sig(SIGUSR1, current, 1);
}

static void fl_signal_at_connect(struct kunit *test)
{
	const struct tl_dev *d = NULL;
	int alive = smbdx_test_conns_alive();
	struct smbdx_conn_config cfg;
	struct socket *lsock, *nsock = NULL;
	struct smbdx_conn *conn;
	struct sockaddr_in sin;
	bool hit = false;
	int rc, i;

	for (i = 0; i < ARRAY_SIZE(tl_devs); i++)
		if (tl_devs[i].iwarp)
			d = &tl_devs[i];
	KUNIT_ASSERT_NOT_NULL(test, d);
	tl_addr(test, d, &sin);
	/* A TCP listener on the siw interface's address, on a free port. */
	rc = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			      &lsock);
	KUNIT_ASSERT_EQ(test, rc, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fl_sock_release,
							lsock), 0);
	KUNIT_ASSERT_EQ(test, kernel_bind(lsock, (struct sockaddr *)&sin,
					  sizeof(sin)), 0);
	KUNIT_ASSERT_EQ(test, kernel_listen(lsock, 4), 0);
	KUNIT_ASSERT_GT(test, kernel_getsockname(lsock, (struct sockaddr *)&sin), 0);

	smbdx_conn_config_init(&cfg);
	cfg.negotiate_timeout_ms = 10000;
	test->priv = &hit;
	allow_signal(SIGUSR1);
	kunit_activate_static_stub(test, smbdx_connect_step, fl_signal_at_step);
	conn = smbdx_connect(&init_net, (struct sockaddr *)&sin, NULL, &cfg,
			     NULL, NULL);
	kunit_deactivate_static_stub(test, smbdx_connect_step);
	flush_signals(current);
	disallow_signal(SIGUSR1);
	test->priv = NULL;
	if (!IS_ERR(conn))
		smbdx_destroy(conn);
	KUNIT_EXPECT_TRUE(test, hit);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(conn), -EINTR);

	/* No TCP connection was made, not even one closed at once. */
	rc = kernel_accept(lsock, &nsock, O_NONBLOCK);
	if (!rc)
		sock_release(nsock);
	KUNIT_EXPECT_EQ_MSG(test, rc, -EAGAIN,
			    "the killed connect opened a TCP connection to %pISpc",
			    &sin);
	for (i = 0; i < timeout_ms / 20 && smbdx_test_conns_alive() > alive; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, smbdx_test_conns_alive(), alive);
}

static struct kunit_case fl_cases_list[] = {
	KUNIT_CASE_PARAM(fl_disarmed_by_default, tl_dev_gen_params),
	KUNIT_CASE_PARAM_ATTR(fl_fault_point, fl_gen_params, { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM(fl_removal_mid_connect, fl_removal_params),
	KUNIT_CASE(fl_signal_at_connect),
	{}
};

static struct kunit_suite fl_suite = {
	.name = "smbdirect_fault_live",
	.test_cases = fl_cases_list,
};

kunit_test_suite(fl_suite);

MODULE_DESCRIPTION("smbdirect live KUnit: fault injection at every fault point");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SMBDX_NS);
MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));
