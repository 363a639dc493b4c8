// SPDX-License-Identifier: GPL-2.0
/*
 * smbd_test.ko, the benchmark's commands (scripts/guest/guest-bench.sh,
 * Documentation/benchmarks.rst): ping times round trips against an echo
 * listener, one message at a time (in pull mode unless callback=1); stream
 * sends messages back to back and, when the listener is this module's
 * (loopback on one device), stops the clock once the listener has received
 * the last one. Both use a connection of their own, which the status file
 * does not list, destroyed before the command ends.
 *
 * Locking: both commands run with svc_mutex held, from start to end. Their
 * client is not on svc_clients; in callback mode its recv callback counts
 * and frees echoes (atomics) and wakes cl->wq. stream looks for the
 * listener's connection under svc_lock and reads its counters after
 * dropping it: the connection cannot be freed while the command holds
 * svc_mutex (only the reaper and unlisten free them, both under it).
 */

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <net/net_namespace.h>

#include "smbd_test.h"

#define SVC_BENCH_MAX_ARGS	16
#define SVC_BENCH_MAX_COUNT	1000000

struct svc_bench_args {
	struct svc_args a;
	u32 warmup;
	bool callback;
};

/*
 * Take out the options only ping and stream know (warmup=N, callback=0|1)
 * and parse the rest (address, port, connection options) as run does.
 */
static int svc_bench_parse(int argc, char **argv, struct svc_bench_args *b)
{
	char *rest[SVC_BENCH_MAX_ARGS];
	u32 v, *dst;
	int i, n = 0, rc;

	if (argc > SVC_BENCH_MAX_ARGS)
		return -E2BIG;
	b->warmup = 0;
	b->callback = false;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "warmup=", 7)) {
			dst = &b->warmup;
		} else if (!strncmp(argv[i], "callback=", 9)) {
			dst = &v;
		} else {
			rest[n++] = argv[i];
			continue;
		}
		if (kstrtou32(strchr(argv[i], '=') + 1, 0, dst)) {
			svc_printf("error: cannot parse '%s'\n", argv[i]);
			return -EINVAL;
		}
		if (dst == &v)
			b->callback = v;
	}
	rc = svc_parse(n, rest, &b->a);
	if (rc)
		return rc;
	if (!b->a.count || b->a.count > SVC_BENCH_MAX_COUNT ||
	    b->warmup > SVC_BENCH_MAX_COUNT || !b->a.size) {
		svc_printf("error: need count=1..%d, size>0, warmup<=%d\n",
			   SVC_BENCH_MAX_COUNT, SVC_BENCH_MAX_COUNT);
		return -EINVAL;
	}
	return 0;
}

/*
 * Connect a client for a benchmark command: in callback mode through the
 * ordinary client callbacks (echoes are counted and dropped), otherwise in
 * pull mode (no callbacks; the command takes echoes with smbdx_recv_msg()).
 */
static int svc_bench_open(struct svc_bench_args *b, struct smbdx_test_client *cl)
{
	struct smbdx_conn *conn;

	strscpy(cl->name, ".bench", sizeof(cl->name));
	cl->addr = b->a.addr;
	init_waitqueue_head(&cl->wq);
	conn = smbdx_connect(&init_net, (struct sockaddr *)&b->a.addr, NULL,
			     &b->a.cfg, b->callback ? &svc_client_ops : NULL, cl);
	if (IS_ERR(conn)) {
		svc_printf("error: connect to %pISpc: %ld\n", &b->a.addr,
			   PTR_ERR(conn));
		return PTR_ERR(conn);
	}
	cl->conn = conn;
	svc_printf("connected: ");
	svc_print_info(conn);
	return 0;
}

/* Wait for the next echo; in pull mode take it, check it and free it. */
static int svc_ping_wait(struct smbdx_test_client *cl, bool callback,
			 u64 want, const u8 *buf, u8 *cmp, u32 size, bool verify)
{
	struct smbdx_msg *msg;
	struct kvec kv = { cmp, size };
	struct iov_iter it;
	int rc;

	if (callback) {
		if (!wait_event_timeout(cl->wq, svc_echoes_done(cl, want),
					msecs_to_jiffies(SMBDX_TEST_WAIT_MS)))
			return -ETIMEDOUT;
		if (atomic64_read(&cl->received) < want)
			return smbdx_conn_error(cl->conn) ?: -EIO;
		return 0;
	}
	rc = smbdx_recv_msg(cl->conn, msecs_to_jiffies(SMBDX_TEST_WAIT_MS), &msg);
	if (rc)
		return rc == -EAGAIN ? -ETIMEDOUT : rc;
	rc = smbdx_msg_len(msg) == size ? 0 : -EBADMSG;
	if (!rc && verify) {
		iov_iter_kvec(&it, ITER_DEST, &kv, 1, size);
		if (smbdx_msg_copy(msg, 0, &it) != size || memcmp(buf, cmp, size))
			rc = -EBADMSG;
	}
	smbdx_msg_free(msg);
	return rc;
}

static int svc_ping_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Print nanoseconds as microseconds with one decimal. */
static void svc_print_us(const char *name, u64 ns)
{
	u32 tenth;
	u64 us = div_u64_rem(DIV_ROUND_CLOSEST_ULL(ns, 100), 10, &tenth);

	svc_printf(" %s=%llu.%u", name, us, tenth);
}

static void svc_ping_report(struct svc_bench_args *b, u64 *ns, u32 n, u64 total)
{
	u64 sum = 0, med;
	u32 i;

	sort(ns, n, sizeof(*ns), svc_ping_cmp, NULL);
	for (i = 0; i < n; i++)
		sum += ns[i];
	med = n % 2 ? ns[n / 2] : (ns[n / 2 - 1] + ns[n / 2]) / 2;
	svc_printf("latency: count=%u size=%u warmup=%u mode=%s", n, b->a.size,
		   b->warmup, b->callback ? "callback" : "pull");
	svc_print_us("min_us", ns[0]);
	svc_print_us("avg_us", div_u64(sum, n));
	svc_print_us("median_us", med);
	/* Nearest rank: the smallest value with 99% of the samples at most it. */
	svc_print_us("p99_us", ns[(n * 99 + 99) / 100 - 1]);
	svc_print_us("max_us", ns[n - 1]);
	if (total)
		svc_printf(" round_trips_per_s=%llu",
			   div64_u64((u64)n * NSEC_PER_SEC, total));
	svc_printf("\n");
}

/*
 * ping ADDR [PORT] count=N size=N [warmup=N] [callback=0|1] [verify=0|1]
 * [OPTIONS]: round trips against an echo listener, one message at a time.
 * Each round trip is timed from just before smbdx_send() until the echo
 * has been received and freed, as every receiver must (pull mode: by us,
 * after smbdx_recv_msg() and a length check; callback mode: by the recv
 * callback, before it wakes us); verify=1 adds its comparison to the time.
 */
static int svc_ping(int argc, char **argv)
{
	struct smbdx_test_client *cl;
	struct svc_bench_args b;
	u64 *ns = NULL, t0, t1, first = 0;
	u8 *buf = NULL, *cmp = NULL;
	struct iov_iter it;
	struct kvec kv;
	u32 i, j, n;
	int rc;

	rc = svc_bench_parse(argc, argv, &b);
	if (rc)
		return rc;
	if (b.callback && b.a.verify) {
		svc_printf("error: verify=1 needs pull mode (callback=0)\n");
		return -EINVAL;
	}
	cl = kzalloc(sizeof(*cl), GFP_KERNEL);
	ns = kvmalloc_array(b.a.count, sizeof(*ns), GFP_KERNEL);
	buf = kvmalloc(b.a.size, GFP_KERNEL);
	if (b.a.verify)
		cmp = kvmalloc(b.a.size, GFP_KERNEL);
	if (!cl || !ns || !buf || (b.a.verify && !cmp)) {
		rc = -ENOMEM;
		goto out_free;
	}
	for (j = 0; j < b.a.size; j++)
		buf[j] = svc_byte(0, j);
	rc = svc_bench_open(&b, cl);
	if (rc)
		goto out_free;

	n = b.warmup + b.a.count;
	for (i = 0; i < n; i++) {
		kv.iov_base = buf;
		kv.iov_len = b.a.size;
		iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, b.a.size);
		if (i == b.warmup)
			first = ktime_get_ns();
		t0 = ktime_get_ns();
		rc = smbdx_send(cl->conn, &it, 0, 0);
		if (rc)
			break;
		rc = svc_ping_wait(cl, b.callback, i + 1, buf, cmp, b.a.size,
				   b.a.verify);
		t1 = ktime_get_ns();
		if (rc)
			break;
		if (i >= b.warmup)
			ns[i - b.warmup] = t1 - t0;
	}
	if (rc)
		svc_printf("error: round trip %u of %u: %d\n", i + 1, n, rc);
	else
		svc_ping_report(&b, ns, b.a.count, ktime_get_ns() - first);
	smbdx_destroy(cl->conn);
out_free:
	kvfree(cmp);
	kvfree(buf);
	kvfree(ns);
	kfree(cl);
	return rc;
}

/*
 * The listener connection of this service that @conn is connected to, if
 * the peer is a listener of this module (loopback on one device).
 */
static struct smbdx_test_sconn *svc_bench_peer(struct smbdx_conn *conn)
{
	struct smbdx_conn_info mine, theirs;
	struct smbdx_test_listener *tl;
	struct smbdx_test_sconn *sc, *found = NULL;

	lockdep_assert_held(&svc_mutex);
	if (smbdx_conn_query(conn, &mine))
		return NULL;
	list_for_each_entry(tl, &svc_listeners, list) {
		spin_lock_bh(&svc_lock);
		list_for_each_entry(sc, &tl->conns, list) {
			if (smbdx_conn_query(sc->conn, &theirs))
				continue;
			if (svc_addr_eq(&mine.local, &theirs.peer, true)) {
				found = sc;
				break;
			}
		}
		spin_unlock_bh(&svc_lock);
		if (found)
			break;
	}
	return found;
}

/* Poll (every 50-100 us) until the local peer has received @want messages. */
static int svc_stream_delivered(struct smbdx_test_client *cl,
				struct smbdx_test_sconn *sc, u64 want)
{
	unsigned long end = jiffies + msecs_to_jiffies(SMBDX_TEST_WAIT_MS);

	while (atomic64_read(&sc->msgs) < want) {
		if (smbdx_conn_error(cl->conn) || smbdx_conn_error(sc->conn))
			return smbdx_conn_error(cl->conn) ?: smbdx_conn_error(sc->conn);
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		usleep_range(50, 100);
	}
	return 0;
}

/*
 * stream ADDR [PORT] count=N size=N [warmup=N] [OPTIONS]: send count
 * messages back to back, as fast as smbdx_send() takes them, to a sink (or
 * echo) listener; echoes are dropped. The buffer is filled once. If the
 * listener is this module's (loopback), the clock stops when it has
 * received the last message ("end=delivered"); otherwise when the last
 * message was posted ("end=posted").
 */
static int svc_stream(int argc, char **argv)
{
	struct smbdx_test_sconn *sc = NULL;
	struct smbdx_test_client *cl;
	struct svc_bench_args b;
	u64 t0, t1, tp, base = 0, bytes, cmib, ns;
	u32 i, j, frac;
	struct iov_iter it;
	struct kvec kv;
	u8 *buf = NULL;
	int rc;

	rc = svc_bench_parse(argc, argv, &b);
	if (rc)
		return rc;
	b.callback = true;
	cl = kzalloc(sizeof(*cl), GFP_KERNEL);
	buf = kvmalloc(b.a.size, GFP_KERNEL);
	if (!cl || !buf) {
		rc = -ENOMEM;
		goto out_free;
	}
	for (j = 0; j < b.a.size; j++)
		buf[j] = svc_byte(0, j);
	rc = svc_bench_open(&b, cl);
	if (rc)
		goto out_free;

	/* A local listener's accept may still be on its way (2.5-5 s at most). */
	for (j = 0; j < 500; j++) {
		sc = svc_bench_peer(cl->conn);
		if (sc)
			break;
		usleep_range(5000, 10000);
	}

	t0 = ktime_get_ns();
	for (i = 0; i < b.warmup + b.a.count; i++) {
		if (i == b.warmup) {
			if (sc)
				rc = svc_stream_delivered(cl, sc, b.warmup);
			if (rc)
				break;
			base = sc ? atomic64_read(&sc->msgs) : 0;
			t0 = ktime_get_ns();
		}
		kv.iov_base = buf;
		kv.iov_len = b.a.size;
		iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, b.a.size);
		rc = smbdx_send(cl->conn, &it, 0, 0);
		if (rc)
			break;
	}
	tp = ktime_get_ns();
	if (!rc && sc)
		rc = svc_stream_delivered(cl, sc, base + b.a.count);
	t1 = sc ? ktime_get_ns() : tp;
	if (rc) {
		svc_printf("error: message %u of %u: %d\n", i + 1,
			   b.warmup + b.a.count, rc);
	} else {
		bytes = (u64)b.a.count * b.a.size;
		ns = max(t1 - t0, 1ULL);
		/* MiB/s in hundredths, as perftest's "MB/sec" (2^20 bytes). */
		cmib = div_u64_rem(mul_u64_u64_div_u64(bytes, 100 * NSEC_PER_SEC,
						       ns) >> 20, 100, &frac);
		svc_printf("stream: count=%u size=%u warmup=%u us=%llu posted_us=%llu",
			   b.a.count, b.a.size, b.warmup,
			   div_u64(t1 - t0, NSEC_PER_USEC),
			   div_u64(tp - t0, NSEC_PER_USEC));
		svc_printf(" msgs_per_s=%llu mib_per_s=%llu.%02u end=%s\n",
			   mul_u64_u64_div_u64(b.a.count, NSEC_PER_SEC, ns),
			   cmib, frac,
			   sc ? "delivered" : "posted");
	}
	smbdx_destroy(cl->conn);
out_free:
	kvfree(buf);
	kfree(cl);
	return rc;
}

/**
 * svc_bench_command() - the benchmark commands, ping and stream
 * @argc: number of arguments
 * @argv: argv[0] is "ping" or "stream", then its arguments
 *
 * Context: process context, with svc_mutex held.
 * Return: 0, or a negative errno (and an error line in the result).
 */
int svc_bench_command(int argc, char **argv)
{
	if (!strcmp(argv[0], "ping"))
		return svc_ping(argc - 1, argv + 1);
	return svc_stream(argc - 1, argv + 1);
}
