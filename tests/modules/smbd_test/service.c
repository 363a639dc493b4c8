// SPDX-License-Identifier: GPL-2.0
/*
 * smbd_test.ko, the service: echo and sink listeners and named clients.
 *
 * An echo listener sends every message back on the connection it came
 * from; a sink listener counts and drops them. Server connections that are
 * lost are destroyed by the reaper, a work item. Client connections receive
 * through a callback that checks each echo against the pattern the sender
 * used (svc_byte(): byte i of message k is (k * 131 + i * 7 + (i >> 8) +
 * (i >> 16)) & 0xff) and drops it. The commands listen, unlisten, open,
 * send, close and run are here; main.c parses them.
 *
 * Locking: the commands, the reaper and svc_stop_all() run with svc_mutex
 * held, which guards svc_listeners, svc_clients and everything reachable
 * from them but a listener's list of server connections: the accept
 * callback extends that list from smbdirect's workqueue, so every reader
 * and writer of it takes svc_lock (_bh). The callbacks
 * (accept, recv, disconnected) never take svc_mutex, because
 * smbdx_listener_destroy() and smbdx_destroy(), called with it held, wait
 * for them; they only count (atomics), queue the reaper and wake waiters.
 * A client's recv callback runs one message at a time, so its counters
 * only ever grow.
 */

#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>

#include "smbd_test.h"

DEFINE_SPINLOCK(svc_lock);
LIST_HEAD(svc_listeners);
LIST_HEAD(svc_clients);

static void svc_reaper_fn(struct work_struct *w);
static DECLARE_WORK(svc_reaper, svc_reaper_fn);

/* ---- server side ---- */

static void svc_echo_recv(struct smbdx_conn *conn, struct smbdx_msg *msg)
{
	struct smbdx_test_sconn *sc = smbdx_conn_context(conn);
	struct iov_iter it;

	atomic64_inc(&sc->msgs);
	atomic64_add(smbdx_msg_len(msg), &sc->bytes);
	if (sc->tl->mode == SMBDX_TEST_ECHO) {
		smbdx_msg_iter(msg, &it);
		if (smbdx_send(conn, &it, 0, 0))
			atomic64_inc(&sc->echo_errors);
	}
	svc_interop_recv(sc, msg);
}

static void svc_server_lost(struct smbdx_conn *conn, int error)
{
	queue_work(system_wq, &svc_reaper);
}

static const struct smbdx_conn_ops svc_server_ops = {
	.recv = svc_echo_recv,
	.disconnected = svc_server_lost,
};

static int svc_accept(struct smbdx_listener *lis, struct smbdx_conn *conn)
{
	struct smbdx_test_listener *tl = smbdx_listener_context(lis);
	struct smbdx_test_sconn *sc;

	sc = kzalloc(sizeof(*sc), GFP_KERNEL);
	if (!sc)
		return -ENOMEM;
	sc->tl = tl;
	sc->conn = conn;
	smbdx_conn_set_context(conn, sc);
	spin_lock_bh(&svc_lock);
	list_add_tail(&sc->list, &tl->conns);
	spin_unlock_bh(&svc_lock);
	atomic64_inc(&tl->accepted);
	return 0;
}

static const struct smbdx_listener_ops svc_listener_ops = {
	.accept = svc_accept,
	.conn_ops = &svc_server_ops,
};

/* Destroy the server connections of @tl that failed (all if @all). */
static void svc_reap(struct smbdx_test_listener *tl, bool all)
{
	struct smbdx_test_sconn *sc;

	lockdep_assert_held(&svc_mutex);
	for (;;) {
		spin_lock_bh(&svc_lock);
		list_for_each_entry(sc, &tl->conns, list)
			if (all || smbdx_conn_error(sc->conn))
				break;
		if (list_entry_is_head(sc, &tl->conns, list)) {
			spin_unlock_bh(&svc_lock);
			return;
		}
		list_del(&sc->list);
		spin_unlock_bh(&svc_lock);
		smbdx_destroy(sc->conn);
		kfree(sc);
	}
}

static void svc_reaper_fn(struct work_struct *w)
{
	struct smbdx_test_listener *tl;

	mutex_lock(&svc_mutex);
	list_for_each_entry(tl, &svc_listeners, list)
		svc_reap(tl, false);
	mutex_unlock(&svc_mutex);
}

static void svc_listener_free(struct smbdx_test_listener *tl)
{
	list_del(&tl->list);
	smbdx_listener_destroy(tl->lis);
	svc_reap(tl, true);
	kfree(tl);
}

/* ---- client side ---- */

static void svc_client_recv(struct smbdx_conn *conn, struct smbdx_msg *msg)
{
	struct smbdx_test_client *cl = smbdx_conn_context(conn);
	u64 k = atomic64_read(&cl->received);
	u32 len = smbdx_msg_len(msg), i, off = 0;
	struct iov_iter it;
	bool ok = true;
	u8 buf[256];
	size_t n;

	if (READ_ONCE(cl->verify)) {
		ok = len == READ_ONCE(cl->expect_size);
		smbdx_msg_iter(msg, &it);
		while (ok && off < len) {
			n = copy_from_iter(buf, min_t(u32, sizeof(buf), len - off), &it);
			if (!n)
				ok = false;
			for (i = 0; ok && i < n; i++)
				ok = buf[i] == svc_byte(k, off + i);
			off += n;
		}
		atomic64_inc(ok ? &cl->verified : &cl->mismatched);
	}
	atomic64_inc(&cl->received);
	smbdx_msg_free(msg);
	wake_up_all(&cl->wq);
}

static void svc_client_lost(struct smbdx_conn *conn, int error)
{
	struct smbdx_test_client *cl = smbdx_conn_context(conn);

	wake_up_all(&cl->wq);
}

/* Also ping's and stream's in callback mode (bench.c). */
const struct smbdx_conn_ops svc_client_ops = {
	.recv = svc_client_recv,
	.disconnected = svc_client_lost,
};

static struct smbdx_test_client *svc_client_find(const char *name)
{
	struct smbdx_test_client *cl;

	list_for_each_entry(cl, &svc_clients, list)
		if (!strcmp(cl->name, name))
			return cl;
	return NULL;
}

static void svc_client_free(struct smbdx_test_client *cl)
{
	list_del(&cl->list);
	smbdx_destroy(cl->conn);
	kfree(cl);
}

/* ---- commands ---- */

/**
 * svc_print_info() - add a connection's addresses and parameters to the result
 * @conn: the connection
 *
 * Prints its number, device, addresses and negotiated parameters (the rest
 * of a "connected: " line and a "negotiated:" line).
 *
 * Context: process context, with svc_mutex held.
 */
void svc_print_info(struct smbdx_conn *conn)
{
	struct smbdx_conn_info info;

	if (smbdx_conn_query(conn, &info))
		return;
	svc_printf("conn=%u dev=%s local=%pISpc peer=%pISpc iwarp=%d\n",
		   smbdx_conn_id(conn), info.device, &info.local, &info.peer,
		   info.iwarp);
	svc_printf("negotiated: max_send_size=%u max_receive_size=%u ",
		   info.params.max_send_size, info.params.max_receive_size);
	svc_printf("max_fragmented_send_size=%u max_fragmented_recv_size=%u ",
		   info.params.max_fragmented_send_size,
		   info.params.max_fragmented_recv_size);
	svc_printf("max_read_write_size=%u keepalive_interval=%u ",
		   info.params.max_read_write_size,
		   info.params.keepalive_interval);
	svc_printf("credits=%u/%u ird=%u ord=%u\n", info.params.recv_credit_max,
		   info.params.send_credit_target, info.ird, info.ord);
}

/**
 * svc_listen() - the listen command: listen echo|sink ADDR [PORT] [OPTIONS],
 * or listen raw ADDR PORT [grant=N] [status=X] [close=1] [hold=1] (raw.c)
 * @argc: number of arguments
 * @argv: the arguments after "listen"
 *
 * Context: process context, with svc_mutex held.
 * Return: 0, or a negative errno.
 */
int svc_listen(int argc, char **argv)
{
	struct smbdx_test_listener *tl;
	enum smbdx_test_mode mode;
	struct smbdx_listener *lis;
	struct svc_args a;
	int rc;

	if (argc < 2)
		return -EINVAL;
	if (!strcmp(argv[0], "raw"))
		return svc_raw_listen(argc - 1, argv + 1);
	if (!strcmp(argv[0], "echo"))
		mode = SMBDX_TEST_ECHO;
	else if (!strcmp(argv[0], "sink"))
		mode = SMBDX_TEST_SINK;
	else
		return -EINVAL;
	rc = svc_parse(argc - 1, argv + 1, &a);
	if (rc)
		return rc;

	tl = kzalloc(sizeof(*tl), GFP_KERNEL);
	if (!tl)
		return -ENOMEM;
	tl->mode = mode;
	tl->addr = a.addr;
	tl->hangup = a.interop.hangup;
	tl->refuse = a.interop.refuse;
	INIT_LIST_HEAD(&tl->conns);
	lis = smbdx_listen(&init_net, (struct sockaddr *)&a.addr, &a.cfg,
			   &svc_listener_ops, tl);
	if (IS_ERR(lis)) {
		kfree(tl);
		svc_printf("error: listen on %pISc: %ld\n", &a.addr, PTR_ERR(lis));
		return PTR_ERR(lis);
	}
	tl->lis = lis;
	tl->port = smbdx_listener_port(lis);
	list_add_tail(&tl->list, &svc_listeners);
	svc_printf("listening (%s) on %pISc port %d\n", argv[0], &a.addr,
		   tl->port);
	return 0;
}

/**
 * svc_addr_eq() - do two socket addresses name the same endpoint?
 * @a: an IPv4 or IPv6 address
 * @b: another
 * @port: compare the ports too
 *
 * Return: true if the families and addresses (and ports) are equal.
 */
bool svc_addr_eq(const struct sockaddr_storage *a,
		 const struct sockaddr_storage *b, bool port)
{
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr &&
		       (!port || a4->sin_port == b4->sin_port);
	return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr) &&
	       (!port || a6->sin6_port == b6->sin6_port);
}

/**
 * svc_unlisten() - the unlisten command: unlisten ADDR [PORT] | unlisten all
 * @argc: number of arguments
 * @argv: the arguments after "unlisten"
 *
 * Stops the matching listeners and destroys their connections.
 *
 * Context: process context, with svc_mutex held.
 * Return: 0, -ENOENT if no listener matched, or -EINVAL.
 */
int svc_unlisten(int argc, char **argv)
{
	struct smbdx_test_listener *tl, *tmp;
	struct sockaddr_storage ss;
	int n = 0, rc;
	u16 port = 0;

	if (argc < 1)
		return -EINVAL;
	if (strcmp(argv[0], "all")) {
		rc = svc_parse_addr(argv[0], argc > 1 ? argv[1] : NULL, &ss);
		if (rc)
			return rc;
		if (argc > 1 && kstrtou16(argv[1], 0, &port))
			return -EINVAL;
	}
	list_for_each_entry_safe(tl, tmp, &svc_listeners, list) {
		if (strcmp(argv[0], "all") &&
		    (!svc_addr_eq(&tl->addr, &ss, false) ||
		     (port && port != tl->port)))
			continue;
		svc_listener_free(tl);
		n++;
	}
	n += svc_raw_unlisten(strcmp(argv[0], "all") ? &ss : NULL, port);
	svc_printf("stopped %d listener(s)\n", n);
	return n ? 0 : -ENOENT;
}

/**
 * svc_open() - connect a named client and keep it (the open command)
 * @name: its name, unique and shorter than 32 bytes
 * @a: address, port and connection options
 * @clp: set to the new client
 *
 * Context: process context, with svc_mutex held.
 * Return: 0, -EEXIST for a name in use or too long, or a negative errno.
 */
int svc_open(const char *name, struct svc_args *a,
	     struct smbdx_test_client **clp)
{
	struct smbdx_test_client *cl;
	struct smbdx_conn *conn;

	if (strlen(name) >= sizeof(cl->name) || svc_client_find(name))
		return -EEXIST;
	cl = kzalloc(sizeof(*cl), GFP_KERNEL);
	if (!cl)
		return -ENOMEM;
	strscpy(cl->name, name, sizeof(cl->name));
	cl->addr = a->addr;
	init_waitqueue_head(&cl->wq);
	conn = smbdx_connect(&init_net, (struct sockaddr *)&a->addr, NULL,
			     &a->cfg, &svc_client_ops, cl);
	if (IS_ERR(conn)) {
		svc_printf("error: connect to %pISpc: %ld\n", &a->addr,
			   PTR_ERR(conn));
		kfree(cl);
		return PTR_ERR(conn);
	}
	cl->conn = conn;
	list_add_tail(&cl->list, &svc_clients);
	svc_printf("connected: ");
	svc_print_info(conn);
	*clp = cl;
	return 0;
}

/**
 * svc_echoes_done() - has a client received @want echoes, or failed?
 * @cl: the client
 * @want: the number of messages it must have received
 *
 * The condition the callback-mode waits on cl->wq use.
 *
 * Return: true if it has, or if its connection failed.
 */
bool svc_echoes_done(struct smbdx_test_client *cl, u64 want)
{
	return atomic64_read(&cl->received) >= want || smbdx_conn_error(cl->conn);
}

static int svc_send(struct smbdx_test_client *cl, u32 count, u32 size,
		    bool verify)
{
	u64 base = atomic64_read(&cl->sent), want, v0, m0;
	struct kvec kv;
	struct iov_iter it;
	ktime_t start;
	s64 us;
	u32 i, j;
	u8 *buf;
	int rc = 0;

	if (verify && atomic64_read(&cl->received) != base) {
		svc_printf("error: %s has echoes of earlier messages pending\n",
			   cl->name);
		return -EBUSY;
	}
	buf = kvmalloc(max_t(u32, size, 1), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	WRITE_ONCE(cl->expect_size, size);
	WRITE_ONCE(cl->verify, verify);
	v0 = atomic64_read(&cl->verified);
	m0 = atomic64_read(&cl->mismatched);
	start = ktime_get();
	for (i = 0; i < count; i++) {
		for (j = 0; j < size; j++)
			buf[j] = svc_byte(base + i, j);
		kv.iov_base = buf;
		kv.iov_len = size;
		iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, size);
		rc = smbdx_send(cl->conn, &it, 0, 0);
		if (rc)
			break;
		atomic64_inc(&cl->sent);
	}
	if (!rc && verify) {
		want = base + count;
		if (!wait_event_timeout(cl->wq, svc_echoes_done(cl, want),
					msecs_to_jiffies(SMBDX_TEST_WAIT_MS)))
			rc = -ETIMEDOUT;
		else if (atomic64_read(&cl->received) < want)
			rc = smbdx_conn_error(cl->conn);
	}
	us = ktime_us_delta(ktime_get(), start);
	kvfree(buf);

	svc_printf("sent %u messages of %u bytes (%llu bytes) in %lld us",
		   i, size, (u64)i * size, us);
	if (us > 0)
		svc_printf(", %llu KB/s", div64_u64((u64)i * size * 1000, us));
	svc_printf("\n");
	if (verify)
		svc_printf("verified %llu echoes, %llu mismatched\n",
			   atomic64_read(&cl->verified) - v0,
			   atomic64_read(&cl->mismatched) - m0);
	if (!rc && verify && atomic64_read(&cl->mismatched) != m0)
		rc = -EBADMSG;
	if (rc)
		svc_printf("error: %d\n", rc);
	return rc;
}

/**
 * svc_cmd_send() - the send command: send NAME count=N size=N [verify=1]
 * @argc: number of arguments
 * @argv: the arguments after "send"
 *
 * Context: process context, with svc_mutex held.
 * Return: 0, or a negative errno.
 */
int svc_cmd_send(int argc, char **argv)
{
	struct smbdx_test_client *cl;
	struct svc_args a = {};
	int i, rc;

	if (argc < 1)
		return -EINVAL;
	cl = svc_client_find(argv[0]);
	if (!cl) {
		svc_printf("error: no connection named %s\n", argv[0]);
		return -ENOENT;
	}
	for (i = 1; i < argc; i++) {
		rc = svc_parse_opt(argv[i], &a);
		if (rc)
			return rc;
	}
	return svc_send(cl, a.count, a.size, a.verify);
}

/**
 * svc_close() - the close command: close NAME | close all
 * @argc: number of arguments
 * @argv: the arguments after "close"
 *
 * Context: process context, with svc_mutex held.
 * Return: 0, or -ENOENT if no client matched.
 */
int svc_close(int argc, char **argv)
{
	struct smbdx_test_client *cl, *tmp;
	int n = 0;

	if (argc < 1)
		return -EINVAL;
	list_for_each_entry_safe(cl, tmp, &svc_clients, list) {
		if (strcmp(argv[0], "all") && strcmp(argv[0], cl->name))
			continue;
		svc_client_free(cl);
		n++;
	}
	svc_printf("closed %d connection(s)\n", n);
	return n ? 0 : -ENOENT;
}

/**
 * svc_run() - the run command: open, send and close in one
 * @argc: number of arguments
 * @argv: the arguments after "run": ADDR [PORT] count=N size=N [verify=1]
 *	[OPTIONS]
 *
 * Context: process context, with svc_mutex held.
 * Return: 0, or a negative errno.
 */
int svc_run(int argc, char **argv)
{
	struct smbdx_test_client *cl;
	struct svc_args a;
	int rc;

	rc = svc_parse(argc, argv, &a);
	if (rc)
		return rc;
	rc = svc_open(".run", &a, &cl);
	if (rc)
		return rc;
	rc = svc_send(cl, a.count, a.size, a.verify);
	svc_client_free(cl);
	return rc;
}

/**
 * svc_orphan_all() - forget every listener and client, destroying nothing
 *
 * A deliberately faulty upper layer: frees the service's own records and
 * leaves smbdirect's listeners and connections behind, as an upper layer
 * with a leak would: smbdirect must destroy them when the module has gone
 * (tests/vm/smbd_orphans.sh). Only for an idle service: a callback that
 * came after this would find its record freed.
 *
 * Context: module exit.
 */
void svc_orphan_all(void)
{
	struct smbdx_test_listener *tl, *tlt;
	struct smbdx_test_client *cl, *clt;
	struct smbdx_test_sconn *sc, *sct;

	mutex_lock(&svc_mutex);
	list_for_each_entry_safe(cl, clt, &svc_clients, list) {
		list_del(&cl->list);
		kfree(cl);
	}
	list_for_each_entry_safe(tl, tlt, &svc_listeners, list) {
		spin_lock_bh(&svc_lock);
		list_for_each_entry_safe(sc, sct, &tl->conns, list) {
			list_del(&sc->list);
			kfree(sc);
		}
		spin_unlock_bh(&svc_lock);
		list_del(&tl->list);
		kfree(tl);
	}
	mutex_unlock(&svc_mutex);
	cancel_work_sync(&svc_reaper);
}

/**
 * svc_stop_all() - destroy every client and listener, stop the reaper
 *
 * Called once the debugfs files are gone, when the module is unloaded.
 *
 * Context: process context; takes svc_mutex.
 */
void svc_stop_all(void)
{
	struct smbdx_test_listener *tl, *tlt;
	struct smbdx_test_client *cl, *clt;

	mutex_lock(&svc_mutex);
	list_for_each_entry_safe(cl, clt, &svc_clients, list)
		svc_client_free(cl);
	list_for_each_entry_safe(tl, tlt, &svc_listeners, list)
		svc_listener_free(tl);
	mutex_unlock(&svc_mutex);
	cancel_work_sync(&svc_reaper);
}
