// SPDX-License-Identifier: GPL-2.0
/*
 * Live KUnit suite for the SMB Direct transport: smbdirect's exported API
 * between a listener and a client in the same kernel, on each soft RDMA
 * device of the test VM (rxe: RoCE, siw: iWARP).
 *
 * Cases: negotiation both ways on the default ports with the negotiated
 * parameters checked on both sides; messages of every size class in both
 * directions with content checks (empty, 1 byte, exactly one fragment,
 * one byte more, several fragments, exactly the peer's MaxFragmentedSize,
 * one byte more as a local error); the recv and disconnected callbacks;
 * hostile or silent peers played by a raw RDMA CM endpoint (passive
 * negotiation timeout, short request, unsupported version, misaligned
 * DataOffset, and every broken Negotiate Response at the active side),
 * each checking its per-cause counter; 10,000 checked messages; three-credit
 * windows both ways; a receiver that stops reading; keepalive exchange and
 * idle disconnect with short timers; a peer that disconnects mid-stream;
 * 64 connections at once; the RDMA capability of a net device, also with
 * the RTNL held (as ksmbd asks); the IPv4 wildcard address with port 0,
 * which listens on each device at that device's default port only.
 *
 * A missing device, an address on another device, or a step that does not
 * finish within timeout_ms fails the case: nothing here skips.
 *
 * Concurrency: the listener's accept callback and the connections'
 * callbacks run on smbdirect's workqueue and only record what they got
 * under a spinlock and wake the test thread. Cleanup runs as KUnit
 * deferred actions in reverse order of creation (connections before the
 * listener), so a failed assertion still releases everything.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/unaligned.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <linux/seq_file.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <smbdirect/smbdirect.h>
#include "smbd.h"
#include "smbd_live_util.h"
#include "smbd_raw_peer.h"

static u8 tl_byte(u32 seed, u32 i)
{
	return (seed * 131 + i * 7 + (i >> 8) + (i >> 16)) & 0xff;
}

static void tl_fill(u8 *buf, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = tl_byte(seed, i);
}

static int tl_send(struct smbdx_conn *conn, const void *buf, size_t len)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct iov_iter it;

	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	return smbdx_send(conn, &it, 0, 0);
}

static void tl_send_pattern(struct kunit *test, struct smbdx_conn *conn, u8 *buf,
			    u32 len, u32 seed)
{
	int rc;

	tl_fill(buf, len, seed);
	rc = tl_send(conn, buf, len);
	KUNIT_ASSERT_EQ_MSG(test, rc, 0, "smbdx_send of %u bytes", len);
}

/* The next message must be @len bytes of pattern @seed. */
static void tl_check_msg(struct kunit *test, struct smbdx_msg *msg, u8 *buf,
			 u32 len, u32 seed)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter it;
	u32 i, bad = 0, first = 0;
	size_t n;

	KUNIT_ASSERT_EQ_MSG(test, smbdx_msg_len(msg), len, "message length");
	iov_iter_kvec(&it, ITER_DEST, &kv, 1, len);
	n = smbdx_msg_copy(msg, 0, &it);
	KUNIT_ASSERT_EQ(test, n, (size_t)len);
	for (i = 0; i < len; i++) {
		if (buf[i] != tl_byte(seed, i)) {
			if (!bad++)
				first = i;
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "%u of %u bytes differ, first at %u",
			    bad, len, first);
}

static void tl_expect_pull(struct kunit *test, struct smbdx_conn *conn, u8 *buf,
			   u32 len, u32 seed)
{
	struct smbdx_msg *msg;
	int rc;

	rc = smbdx_recv_msg(conn, msecs_to_jiffies(timeout_ms), &msg);
	KUNIT_ASSERT_EQ_MSG(test, rc, 0, "smbdx_recv_msg waiting for %u bytes", len);
	tl_check_msg(test, msg, buf, len, seed);
	smbdx_msg_free(msg);
}

static void tl_check_params(struct kunit *test, const struct tl_dev *d,
			    struct smbdx_conn *conn, struct smbdx_conn *peer)
{
	struct smbdx_conn_info a, b;

	KUNIT_ASSERT_EQ(test, smbdx_conn_query(conn, &a), 0);
	KUNIT_ASSERT_EQ(test, smbdx_conn_query(peer, &b), 0);
	KUNIT_EXPECT_EQ(test, a.params.protocol, SMBDX_VERSION_1_0);
	KUNIT_EXPECT_EQ(test, a.params.max_send_size, SMBDX_DEF_MAX_SEND_SIZE);
	KUNIT_EXPECT_EQ(test, a.params.max_receive_size, SMBDX_DEF_MAX_RECV_SIZE);
	/* Each side's MaxFragmentedSendSize is the other's receive limit. */
	KUNIT_EXPECT_EQ(test, a.params.max_fragmented_send_size,
			b.params.max_fragmented_recv_size);
	KUNIT_EXPECT_EQ(test, b.params.max_fragmented_send_size,
			a.params.max_fragmented_recv_size);
	KUNIT_EXPECT_GE(test, a.params.max_fragmented_send_size,
			(u32)SMBDX_PROTO_MIN_FRAG_SIZE);
	KUNIT_EXPECT_EQ(test, a.params.max_read_write_size,
			b.params.max_read_write_size);
	KUNIT_EXPECT_EQ(test, a.params.keepalive_interval,
			(u32)SMBDX_DEF_KEEPALIVE_SEC);
	KUNIT_EXPECT_EQ(test, a.iwarp, d->iwarp);
	KUNIT_EXPECT_EQ(test, b.iwarp, d->iwarp);
	KUNIT_EXPECT_STREQ(test, a.device, *d->dev);
	KUNIT_EXPECT_STREQ(test, b.device, *d->dev);
	KUNIT_EXPECT_GT(test, a.ird, 0U);
	KUNIT_EXPECT_GT(test, a.ord, 0U);
	KUNIT_EXPECT_GT(test, b.ird, 0U);
	KUNIT_EXPECT_GT(test, b.ord, 0U);
}

static void smbdx_negotiate_both_ways(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct tl_pair p;

	tl_pair_up(test, &p, NULL, NULL);
	tl_check_params(test, d, p.cli, p.srvc);
	tl_check_params(test, d, p.srvc, p.cli);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_TX_NEG_REQ), 1ULL);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_RX_NEG_RESP), 1ULL);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.srvc, SMBDX_STAT_RX_NEG_REQ), 1ULL);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.srvc, SMBDX_STAT_TX_NEG_RESP), 1ULL);
}

/* Every size class, one way; @from sends, @to receives (pull). */
static void tl_size_classes(struct kunit *test, struct smbdx_conn *from,
			    struct smbdx_conn *to, u32 seed0)
{
	struct smbdx_conn_info info;
	u32 payload, max, sizes[10], n = 0, i;
	u8 *sbuf, *rbuf;
	struct smbdx_msg *msg;

	KUNIT_ASSERT_EQ(test, smbdx_conn_query(from, &info), 0);
	payload = info.params.max_send_size - SMBDX_DATA_PAYLOAD_OFFSET;
	max = info.params.max_fragmented_send_size;
	sbuf = tl_kvmalloc(test, max + 1);
	rbuf = tl_kvmalloc(test, max + 1);

	sizes[n++] = 1;
	sizes[n++] = 2;
	sizes[n++] = payload - 1;
	sizes[n++] = payload;
	sizes[n++] = payload + 1;
	sizes[n++] = 2 * payload;
	sizes[n++] = 2 * payload + 1;
	sizes[n++] = 65536;
	sizes[n++] = max - 1;
	sizes[n++] = max;

	/* Empty: sent as one message without payload, never delivered. */
	KUNIT_EXPECT_EQ(test, tl_send(from, sbuf, 0), 0);
	for (i = 0; i < n; i++)
		tl_send_pattern(test, from, sbuf, sizes[i], seed0 + i);
	for (i = 0; i < n; i++)
		tl_expect_pull(test, to, rbuf, sizes[i], seed0 + i);

	/* One byte over the peer's MaxFragmentedSize: local error only. */
	KUNIT_EXPECT_EQ(test, tl_send(from, sbuf, max + 1), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(from, SMBDX_STAT_LOCAL_TOO_BIG), 1ULL);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(from), 0);
	tl_send_pattern(test, from, sbuf, 100, seed0 + 99);
	tl_expect_pull(test, to, rbuf, 100, seed0 + 99);
	/* Nothing else arrived (the empty message is not delivered). */
	KUNIT_EXPECT_EQ(test, smbdx_recv_msg(to, 0, &msg), -EAGAIN);
}

static void smbdx_size_classes_both_ways(struct kunit *test)
{
	struct tl_pair p;

	tl_pair_up(test, &p, NULL, NULL);
	tl_size_classes(test, p.cli, p.srvc, 1000);
	tl_size_classes(test, p.srvc, p.cli, 2000);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);
	KUNIT_EXPECT_GE(test, smbdx_test_stat(p.cli, SMBDX_STAT_TX_EMPTY), 1ULL);
	KUNIT_EXPECT_GE(test, smbdx_test_stat(p.srvc, SMBDX_STAT_RX_EMPTY), 1ULL);
}

/*
 * One message from several parts (smbdx_sendv()): empty parts, a kvec part
 * of module data, bvec parts over pages, cut at and around fragment
 * boundaries, must arrive as their concatenation.
 */
static u8 tl_static_pad[8] = { 0 };

static void smbdx_sendv_parts(struct kunit *test)
{
	struct iov_iter its[8];
	struct kvec kv[4];
	struct bio_vec bv[3];
	struct smbdx_conn_info info;
	struct page *pg[3];
	struct tl_pair p;
	u32 payload, cut[3], len, max, i, n, seed;
	u8 *sbuf, *rbuf;
	struct smbdx_msg *msg;

	tl_pair_up(test, &p, NULL, NULL);
	KUNIT_ASSERT_EQ(test, smbdx_conn_query(p.cli, &info), 0);
	payload = info.params.max_send_size - SMBDX_DATA_PAYLOAD_OFFSET;
	len = 3 * payload + 3 * PAGE_SIZE + 17;
	max = info.params.max_fragmented_send_size;
	KUNIT_ASSERT_GT(test, max, len);
	sbuf = tl_kvmalloc(test, max + 1);
	rbuf = tl_kvmalloc(test, len);
	for (i = 0; i < 3; i++) {
		pg[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pg[i]);
	}

	for (seed = 0; seed < 3; seed++) {
		tl_fill(sbuf, len, 7000 + seed);
		/* The first cut moves across a fragment boundary. */
		cut[0] = payload - 1 + seed;
		cut[1] = cut[0] + sizeof(tl_static_pad);
		cut[2] = cut[1] + 3 * PAGE_SIZE;
		n = 0;
		kv[0].iov_base = sbuf;
		kv[0].iov_len = 0;
		iov_iter_kvec(&its[n++], ITER_SOURCE, &kv[0], 1, 0);
		kv[1].iov_base = sbuf;
		kv[1].iov_len = cut[0];
		iov_iter_kvec(&its[n++], ITER_SOURCE, &kv[1], 1, cut[0]);
		/* Module data, as cifs's padding kvec is. */
		memcpy(tl_static_pad, sbuf + cut[0], sizeof(tl_static_pad));
		kv[2].iov_base = tl_static_pad;
		kv[2].iov_len = sizeof(tl_static_pad);
		iov_iter_kvec(&its[n++], ITER_SOURCE, &kv[2], 1,
			      sizeof(tl_static_pad));
		for (i = 0; i < 3; i++) {
			memcpy(page_address(pg[i]), sbuf + cut[1] + i * PAGE_SIZE,
			       PAGE_SIZE);
			bvec_set_page(&bv[i], pg[i], PAGE_SIZE, 0);
		}
		iov_iter_bvec(&its[n++], ITER_SOURCE, bv, 3, 3 * PAGE_SIZE);
		iov_iter_kvec(&its[n++], ITER_SOURCE, &kv[0], 1, 0);
		kv[3].iov_base = sbuf + cut[2];
		kv[3].iov_len = len - cut[2];
		iov_iter_kvec(&its[n++], ITER_SOURCE, &kv[3], 1, len - cut[2]);

		KUNIT_ASSERT_EQ(test, smbdx_sendv(p.cli, its, n, 0, 0), 0);
		for (i = 0; i < n; i++)
			KUNIT_EXPECT_EQ(test, iov_iter_count(&its[i]), (size_t)0);
		tl_expect_pull(test, p.srvc, rbuf, len, 7000 + seed);
	}

	/* No parts: one empty message, not delivered. */
	KUNIT_EXPECT_EQ(test, smbdx_sendv(p.cli, its, 0, 0, 0), 0);
	/* Parts adding up to one byte more than the peer's MaxFragmentedSize. */
	kv[0].iov_base = sbuf;
	kv[0].iov_len = max / 2;
	kv[1].iov_base = sbuf + max / 2;
	kv[1].iov_len = max + 1 - max / 2;
	iov_iter_kvec(&its[0], ITER_SOURCE, &kv[0], 1, kv[0].iov_len);
	iov_iter_kvec(&its[1], ITER_SOURCE, &kv[1], 1, kv[1].iov_len);
	KUNIT_EXPECT_EQ(test, smbdx_sendv(p.cli, its, 2, 0, 0), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
	tl_send_pattern(test, p.cli, sbuf, 100, 7100);
	tl_expect_pull(test, p.srvc, rbuf, 100, 7100);
	KUNIT_EXPECT_EQ(test, smbdx_recv_msg(p.srvc, 0, &msg), -EAGAIN);
	for (i = 0; i < 3; i++)
		__free_page(pg[i]);
}

static DEFINE_SPINLOCK(tl_show_lock);

/* smbdx_conn_show() prints what debugfs shows, for an upper layer. */
static void smbdx_conn_show_prints(struct kunit *test)
{
	struct seq_file m = {};
	struct tl_pair p;
	char want[64];
	u8 buf[64];

	tl_pair_up(test, &p, NULL, NULL);
	tl_send_pattern(test, p.cli, buf, sizeof(buf), 1);
	tl_expect_pull(test, p.srvc, buf, sizeof(buf), 1);
	m.size = 4 * PAGE_SIZE;
	m.buf = kunit_kzalloc(test, m.size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	/* As cifs calls it: under a spinlock (atomic-sleep debugging checks). */
	spin_lock(&tl_show_lock);
	smbdx_conn_show(p.cli, &m);
	spin_unlock(&tl_show_lock);
	KUNIT_ASSERT_FALSE(test, seq_has_overflowed(&m));
	m.buf[min(m.count, m.size - 1)] = '\0';
	snprintf(want, sizeof(want), "conn %u role=active state=ESTABLISHED",
		 smbdx_conn_id(p.cli));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, want));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "\nmax_read_write_size "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "\nsend_credits "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "\ntx_messages 1\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "\ntx_bytes 64\n"));
}

static int tl_sink_count(struct tl_sink *sink, int *nlost)
{
	int n;

	spin_lock_bh(&sink->lock);
	n = sink->nmsgs;
	*nlost = sink->nlost;
	spin_unlock_bh(&sink->lock);
	return n;
}

static bool tl_sink_has(struct tl_sink *sink, int nmsgs, int nlost)
{
	int lost, n = tl_sink_count(sink, &lost);

	return n >= nmsgs && lost >= nlost;
}

/* Callback form: messages through recv, loss through disconnected. */
static void smbdx_callbacks(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct tl_server *srv;
	struct tl_sink *sink;
	struct smbdx_conn *cli, *srvc;
	struct sockaddr_in sin;
	struct smbdx_msg *none;
	struct tl_msg *m;
	u8 *buf;
	u32 i, sizes[] = { 1, 1340, 1341, 10000 };
	long left;

	tl_addr(test, d, &sin);
	buf = tl_kvmalloc(test, 10000);
	srv = tl_listen(test, &sin, NULL, &tl_pull_ops);
	sink = tl_sink_new(test);
	cli = tl_connect(test, &sin, NULL, &tl_sink_ops, sink);
	KUNIT_EXPECT_PTR_EQ(test, smbdx_conn_context(cli), (void *)sink);
	srvc = tl_accepted(test, srv, 0);

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		tl_send_pattern(test, srvc, buf, sizes[i], 300 + i);
	left = wait_event_timeout(sink->wq, tl_sink_has(sink, ARRAY_SIZE(sizes), 0),
				  msecs_to_jiffies(timeout_ms));
	KUNIT_ASSERT_GT_MSG(test, left, 0, "callback did not get %zu messages",
			    ARRAY_SIZE(sizes));
	i = 0;
	list_for_each_entry(m, &sink->msgs, list) {
		tl_check_msg(test, m->msg, buf, sizes[i], 300 + i);
		i++;
	}
	/* Pull is refused on a connection with a recv callback. */
	KUNIT_EXPECT_EQ(test, smbdx_recv_msg(cli, 0, &none), -EINVAL);

	/* The peer goes away: the loss is reported exactly once. */
	smbdx_disconnect(srvc);
	left = wait_event_timeout(sink->wq, tl_sink_has(sink, 0, 1),
				  msecs_to_jiffies(timeout_ms));
	KUNIT_ASSERT_GT_MSG(test, left, 0, "no loss notification");
	KUNIT_EXPECT_EQ(test, sink->lost, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(cli), -ECONNRESET);
	KUNIT_EXPECT_EQ(test, smbdx_test_cause(cli), SMBDX_CAUSE_PEER_DISCONNECT);
	KUNIT_EXPECT_EQ(test, tl_send(cli, buf, 10), -ECONNRESET);
	smbdx_disconnect(cli);
	smbdx_disconnect(cli);
	msleep(100);
	KUNIT_EXPECT_EQ(test, sink->nlost, 1);
}

/* A peer that never negotiates is dropped when the passive timer fires. */
static void smbdx_passive_negotiation_timeout(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct smbdx_conn_config cfg;
	struct tl_server *srv;
	struct sockaddr_in sin;
	struct tl_raw *raw;
	u64 before;
	unsigned long start;

	tl_addr(test, d, &sin);
	smbdx_conn_config_init(&cfg);
	cfg.negotiate_timeout_ms = 1000;
	srv = tl_listen(test, &sin, &cfg, &tl_pull_ops);
	sin.sin_port = htons(smbdx_listener_port(srv->lis));
	before = smbdx_test_global_error_count(SMBDX_CAUSE_NEG_TIMEOUT);
	start = jiffies;
	raw = tl_raw_connect(test, &sin);
	tl_raw_expect_disconnect(test, raw);
	KUNIT_EXPECT_GE_MSG(test, jiffies_to_msecs(jiffies - start), 900U,
			    "dropped before the timer could fire");
	KUNIT_EXPECT_EQ(test, smbdx_test_global_error_count(SMBDX_CAUSE_NEG_TIMEOUT),
			before + 1);
	KUNIT_EXPECT_EQ(test, tl_nconns(srv), 0);
}

/* 3.1.5.6: a 19-byte request terminates the connection, nothing else. */
static void smbdx_passive_short_request(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct smbdx_negotiate_req req;
	struct tl_server *srv;
	struct sockaddr_in sin;
	struct smbdx_conn *cli, *srvc;
	struct tl_raw *raw;
	u64 before;
	u8 buf[64];

	tl_addr(test, d, &sin);
	srv = tl_listen(test, &sin, NULL, &tl_pull_ops);
	sin.sin_port = htons(smbdx_listener_port(srv->lis));
	before = smbdx_test_global_error_count(SMBDX_ERR_NEG_REQ_SHORT);
	raw = tl_raw_connect(test, &sin);
	tl_raw_negotiate_req(&req, SMBDX_VERSION_1_0, SMBDX_VERSION_1_0);
	tl_raw_send_last(test, raw, &req, sizeof(req) - 1);
	tl_raw_expect_disconnect(test, raw);
	KUNIT_EXPECT_EQ(test, smbdx_test_global_error_count(SMBDX_ERR_NEG_REQ_SHORT),
			before + 1);

	/* The listener still serves well-behaved peers. */
	cli = tl_connect(test, &sin, NULL, NULL, NULL);
	srvc = tl_accepted(test, srv, 0);
	tl_send_pattern(test, cli, buf, sizeof(buf), 7);
	tl_expect_pull(test, srvc, buf, sizeof(buf), 7);
}

/* 3.1.5.6 + 3.1.5.3: a version range without 0x0100 gets NOT_SUPPORTED. */
static void smbdx_passive_bad_version(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct smbdx_negotiate_req req;
	struct smbdx_negotiate_resp *resp;
	struct tl_server *srv;
	struct sockaddr_in sin;
	struct tl_raw *raw;
	u64 before;
	u32 len;

	tl_addr(test, d, &sin);
	srv = tl_listen(test, &sin, NULL, &tl_pull_ops);
	sin.sin_port = htons(smbdx_listener_port(srv->lis));
	before = smbdx_test_global_error_count(SMBDX_ERR_NEG_REQ_VERSION);
	raw = tl_raw_connect(test, &sin);
	tl_raw_negotiate_req(&req, 0x0200, 0x0300);
	tl_raw_send(test, raw, &req, sizeof(req));
	len = tl_raw_recv(test, raw);
	KUNIT_ASSERT_EQ(test, len, (u32)SMBDX_NEGOTIATE_RESP_LEN);
	resp = tl_raw_rbuf(raw);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(resp->status), SMBDX_STATUS_NOT_SUPPORTED);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(resp->min_version), SMBDX_VERSION_1_0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(resp->credits_granted), 0);
	tl_raw_expect_disconnect(test, raw);
	KUNIT_EXPECT_EQ(test, smbdx_test_global_error_count(SMBDX_ERR_NEG_REQ_VERSION),
			before + 1);
	KUNIT_EXPECT_EQ(test, tl_nconns(srv), 0);
}

/* 3.1.5.8: a misaligned DataOffset after a good negotiation. */
static void smbdx_passive_bad_data_offset(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct smbdx_data_transfer dt = {};
	struct tl_server *srv;
	struct sockaddr_in sin;
	struct smbdx_conn *srvc;
	struct tl_raw *raw;
	u8 msg[64] = {};
	u64 before;

	tl_addr(test, d, &sin);
	srv = tl_listen(test, &sin, NULL, &tl_pull_ops);
	sin.sin_port = htons(smbdx_listener_port(srv->lis));
	before = smbdx_test_global_error_count(SMBDX_ERR_DATA_OFFSET_ALIGN);
	raw = tl_raw_connect(test, &sin);
	tl_raw_negotiate(test, raw);
	srvc = tl_accepted(test, srv, 0);

	dt.credits_requested = cpu_to_le16(1);
	dt.data_offset = cpu_to_le32(28);
	dt.data_length = cpu_to_le32(8);
	memcpy(msg, &dt, sizeof(dt));
	tl_raw_send_last(test, raw, msg, 36);
	tl_raw_expect_disconnect(test, raw);
	KUNIT_EXPECT_EQ(test, smbdx_test_global_error_count(SMBDX_ERR_DATA_OFFSET_ALIGN),
			before + 1);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(srvc), -EPROTO);
	KUNIT_EXPECT_EQ(test, smbdx_test_cause(srvc), SMBDX_ERR_DATA_OFFSET_ALIGN);
	KUNIT_EXPECT_EQ(test, smbdx_test_error_count(srvc, SMBDX_ERR_DATA_OFFSET_ALIGN),
			1ULL);
}

/* ---- a sending thread, so that one side can block while the test reads ---- */

struct tl_sender {
	struct smbdx_conn *conn;
	u32 count;
	u32 max_size;
	u32 seed;
	u8 *buf;
	int rc;
	atomic_t sent;
	struct completion done;
};

static u32 tl_size(u32 i, u32 max)
{
	return 1 + (i * 7919u) % max;
}

static int tl_sender_fn(void *data)
{
	struct tl_sender *snd = data;
	u32 i, len;

	for (i = 0; i < snd->count; i++) {
		len = tl_size(i, snd->max_size);
		tl_fill(snd->buf, len, snd->seed + i);
		snd->rc = tl_send(snd->conn, snd->buf, len);
		if (snd->rc)
			break;
		atomic_inc(&snd->sent);
	}
	complete_all(&snd->done);
	return 0;
}

/* Cleanup: make the sender's smbdx_send() fail if it is stuck, then wait. */
static void tl_sender_stop(void *data)
{
	struct tl_sender *snd = data;

	if (!wait_for_completion_timeout(&snd->done, 0))
		smbdx_disconnect(snd->conn);
	wait_for_completion(&snd->done);
	kvfree(snd->buf);
}

static struct tl_sender *tl_sender_start(struct kunit *test,
					 struct smbdx_conn *conn, u32 count,
					 u32 max_size, u32 seed)
{
	struct tl_sender *snd = kunit_kzalloc(test, sizeof(*snd), GFP_KERNEL);
	struct task_struct *t;

	KUNIT_ASSERT_NOT_NULL(test, snd);
	snd->conn = conn;
	snd->count = count;
	snd->max_size = max_size;
	snd->seed = seed;
	atomic_set(&snd->sent, 0);
	init_completion(&snd->done);
	snd->buf = kvmalloc(max_size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, snd->buf);
	t = kthread_run(tl_sender_fn, snd, "tl_sender");
	if (IS_ERR(t)) {
		kvfree(snd->buf);
		KUNIT_FAIL_AND_ABORT(test, "kthread_run: %ld", PTR_ERR(t));
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_sender_stop, snd), 0);
	return snd;
}

static void tl_sender_wait(struct kunit *test, struct tl_sender *snd)
{
	long left = wait_for_completion_timeout(&snd->done,
						msecs_to_jiffies(timeout_ms));

	KUNIT_ASSERT_GT_MSG(test, left, 0, "sender stuck after %d messages",
			    atomic_read(&snd->sent));
	KUNIT_EXPECT_EQ(test, snd->rc, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&snd->sent), (int)snd->count);
}

/* Receive what a tl_sender sends, checking every byte. */
static void tl_expect_stream(struct kunit *test, struct smbdx_conn *conn,
			     u32 count, u32 max_size, u32 seed)
{
	u8 *buf = tl_kvmalloc(test, max_size);
	u32 i;

	for (i = 0; i < count; i++) {
		tl_expect_pull(test, conn, buf, tl_size(i, max_size), seed + i);
		if (test->status == KUNIT_FAILURE)
			break;
	}
}

struct tl_receiver {
	struct smbdx_conn *conn;
	int rc;
	struct completion done;
};

static int tl_receiver_fn(void *data)
{
	struct tl_receiver *rcv = data;
	struct smbdx_msg *msg;

	rcv->rc = smbdx_recv_msg(rcv->conn, MAX_SCHEDULE_TIMEOUT, &msg);
	if (!rcv->rc)
		smbdx_msg_free(msg);
	complete_all(&rcv->done);
	return 0;
}

static bool tl_send_blocked(struct smbdx_conn *conn)
{
	return smbdx_test_stat(conn, SMBDX_STAT_SEND_BLOCKED) > 0;
}

/*
 * smbdx_destroy() while other threads sleep inside the API on the same
 * connection (a sender waiting for credits, a receiver for a message, as
 * when cifs reconnects under its demultiplex thread): they return the
 * connection's error, and destroy returns only after they have left, so
 * none wakes up on a freed connection.
 */
static void smbdx_destroy_with_waiters(struct kunit *test)
{
	struct smbdx_conn_config cfg;
	struct tl_receiver *rcv;
	struct tl_sender *snd;
	struct task_struct *t;
	struct tl_pair p;
	int i;

	smbdx_conn_config_init(&cfg);
	cfg.proto.recv_credit_max = 3;
	cfg.proto.send_credit_target = 3;
	cfg.proto.max_fragmented_recv_size = SMBDX_PROTO_MIN_FRAG_SIZE;
	tl_pair_up(test, &p, &cfg, &cfg);
	/* The server answers nothing: no credits come back. */
	smbdx_test_set_mute(p.srvc, true);
	snd = tl_sender_start(test, p.cli, 1000, 3000, 1);
	rcv = kunit_kzalloc(test, sizeof(*rcv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rcv);
	rcv->conn = p.cli;
	init_completion(&rcv->done);
	t = kthread_run(tl_receiver_fn, rcv, "tl_receiver");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	for (i = 0; i < timeout_ms / 20 && !tl_send_blocked(p.cli); i++)
		msleep(20);
	KUNIT_ASSERT_TRUE(test, tl_send_blocked(p.cli));
	KUNIT_EXPECT_FALSE(test, completion_done(&snd->done));
	KUNIT_EXPECT_FALSE(test, completion_done(&rcv->done));

	kunit_release_action(test, tl_conn_destroy, p.cli);
	KUNIT_EXPECT_TRUE(test, completion_done(&snd->done));
	KUNIT_EXPECT_TRUE(test, completion_done(&rcv->done));
	/* Whatever happens, do not leave the threads behind. */
	wait_for_completion(&snd->done);
	wait_for_completion(&rcv->done);
	KUNIT_EXPECT_EQ(test, snd->rc, -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, rcv->rc, -ESHUTDOWN);
}

/*
 * The long cases are shorter on a KASAN kernel (every byte checked, about
 * ten times slower), so that the debug kernel's run stays within CI's
 * time; the plain kernel runs them in full.
 */
#define TL_NMSGS	(IS_ENABLED(CONFIG_KASAN) ? 2000 : 10000)

/*
 * 10,000 messages (2,000 with KASAN) of 1..6000 bytes (up to five
 * fragments), all checked.
 */
static void smbdx_many_messages(struct kunit *test)
{
	struct tl_sender *snd;
	struct tl_pair p;

	tl_pair_up(test, &p, NULL, NULL);
	snd = tl_sender_start(test, p.cli, TL_NMSGS, 6000, 5000);
	tl_expect_stream(test, p.srvc, TL_NMSGS, 6000, 5000);
	tl_sender_wait(test, snd);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.srvc, SMBDX_STAT_RX_MSGS), (u64)TL_NMSGS);
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.cli, SMBDX_STAT_TX_MSGS), (u64)TL_NMSGS);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);
}

/* Three credits each way: senders block on credits and always recover. */
static void smbdx_credit_exhaustion(struct kunit *test)
{
	struct smbdx_conn_config cfg;
	struct tl_sender *a, *b;
	struct tl_pair p;
	struct smbdx_conn_info info;

	smbdx_conn_config_init(&cfg);
	cfg.proto.recv_credit_max = 3;
	cfg.proto.send_credit_target = 3;
	cfg.proto.max_fragmented_recv_size = SMBDX_PROTO_MIN_FRAG_SIZE;
	tl_pair_up(test, &p, &cfg, &cfg);
	KUNIT_ASSERT_EQ(test, smbdx_conn_query(p.cli, &info), 0);
	KUNIT_EXPECT_EQ(test, info.params.recv_credit_max, 3);
	KUNIT_EXPECT_EQ(test, info.params.max_fragmented_send_size,
			(u32)SMBDX_PROTO_MIN_FRAG_SIZE);

	/* Both directions at once, up to 98 fragments per message. */
	a = tl_sender_start(test, p.cli, 300, SMBDX_PROTO_MIN_FRAG_SIZE, 100);
	b = tl_sender_start(test, p.srvc, 100, 20000, 900);
	tl_expect_stream(test, p.srvc, 300, SMBDX_PROTO_MIN_FRAG_SIZE, 100);
	tl_expect_stream(test, p.cli, 100, 20000, 900);
	tl_sender_wait(test, a);
	tl_sender_wait(test, b);
	KUNIT_EXPECT_GT(test, smbdx_test_stat(p.cli, SMBDX_STAT_SEND_BLOCKED), 0ULL);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);
}

/*
 * A receiver that does not read stops granting credits once it holds
 * recv_queue_max bytes; the sender blocks, and resumes when it reads.
 */
static void smbdx_receiver_flow_control(struct kunit *test)
{
	struct smbdx_conn_config scfg;
	struct tl_sender *snd;
	struct tl_pair p;
	u64 held, bound;

	smbdx_conn_config_init(&scfg);
	scfg.proto.recv_credit_max = 8;
	scfg.recv_queue_max = 16384;
	tl_pair_up(test, &p, NULL, &scfg);
	snd = tl_sender_start(test, p.cli, 200, 2000, 77);
	msleep(1500);
	held = smbdx_test_held_bytes(p.srvc);
	/* held_bytes counts memory: each message of up to 2000 bytes a page. */
	bound = scfg.recv_queue_max + (u64)8 * (PAGE_SIZE + 256);
	KUNIT_EXPECT_LE(test, held, bound);
	KUNIT_EXPECT_GT(test, held, (u64)scfg.recv_queue_max);
	KUNIT_EXPECT_LT(test, atomic_read(&snd->sent), 200);
	KUNIT_EXPECT_GT(test, smbdx_test_stat(p.srvc, SMBDX_STAT_RECV_GATED), 0ULL);
	tl_expect_stream(test, p.srvc, 200, 2000, 77);
	tl_sender_wait(test, snd);
	KUNIT_EXPECT_EQ(test, smbdx_test_held_bytes(p.srvc), 0ULL);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
}

/*
 * Memory, not payload, is what a receiver that does not read holds: a
 * stream of one-byte messages (a page each) is gated at recv_queue_max
 * bytes of memory like a stream of large ones, where counting payload
 * bytes let 16384 of them (64 MiB of pages) in before the gate.
 */
static void smbdx_receiver_tiny_messages(struct kunit *test)
{
	struct smbdx_conn_config scfg;
	struct tl_sender *snd;
	struct tl_pair p;
	u64 msgs, held, bound;

	smbdx_conn_config_init(&scfg);
	scfg.proto.recv_credit_max = 8;
	scfg.recv_queue_max = 16384;
	tl_pair_up(test, &p, NULL, &scfg);
	snd = tl_sender_start(test, p.cli, 2000, 1, 55);
	msleep(1500);
	msgs = smbdx_test_stat(p.srvc, SMBDX_STAT_RX_MSGS);
	held = smbdx_test_held_bytes(p.srvc);
	/* The gate, then what the 8 credits the sender holds can bring. */
	bound = scfg.recv_queue_max + (u64)8 * (PAGE_SIZE + 256);
	KUNIT_EXPECT_LE_MSG(test, msgs * PAGE_SIZE, bound,
			    "%llu one-byte messages held, a page each", msgs);
	KUNIT_EXPECT_GE(test, held, msgs * PAGE_SIZE);
	KUNIT_EXPECT_LE(test, held, bound);
	KUNIT_EXPECT_GT(test, smbdx_test_stat(p.srvc, SMBDX_STAT_RECV_GATED), 0ULL);
	tl_expect_stream(test, p.srvc, 2000, 1, 55);
	tl_sender_wait(test, snd);
	KUNIT_EXPECT_EQ(test, smbdx_test_held_bytes(p.srvc), 0ULL);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
}

/*
 * A first fragment that announces a 1 MiB message holds what it brought
 * (a page, and the message's page vector), not 1 MiB: its pages come with
 * the fragments that fill them. The peer never sends the rest; the
 * listener serves others meanwhile, and everything goes with the peer.
 */
static void smbdx_half_finished_message(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct smbdx_data_transfer dt = {};
	struct smbdx_negotiate_resp *resp;
	struct smbdx_conn_config cfg;
	struct smbdx_conn *srvc, *cli, *other;
	struct smbdx_msg *got;
	struct tl_server *srv;
	struct sockaddr_in sin;
	struct tl_raw *raw;
	u32 total = 1048576, first;
	u64 held;
	u8 *msg;
	int i;

	tl_addr(test, d, &sin);
	smbdx_conn_config_init(&cfg);
	cfg.proto.max_fragmented_recv_size = total;
	srv = tl_listen(test, &sin, &cfg, &tl_pull_ops);
	sin.sin_port = htons(smbdx_listener_port(srv->lis));
	raw = tl_raw_connect(test, &sin);
	resp = tl_raw_negotiate(test, raw);
	KUNIT_ASSERT_GE(test, le32_to_cpu(resp->max_fragmented_size), total);
	srvc = tl_accepted(test, srv, 0);

	first = le32_to_cpu(resp->max_receive_size) - SMBDX_DATA_PAYLOAD_OFFSET;
	msg = kunit_kzalloc(test, SMBDX_DATA_PAYLOAD_OFFSET + first, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, msg);
	dt.credits_requested = cpu_to_le16(1);
	dt.remaining_data_length = cpu_to_le32(total - first);
	dt.data_offset = cpu_to_le32(SMBDX_DATA_PAYLOAD_OFFSET);
	dt.data_length = cpu_to_le32(first);
	memcpy(msg, &dt, sizeof(dt));
	tl_raw_send(test, raw, msg, SMBDX_DATA_PAYLOAD_OFFSET + first);
	held = 0;
	for (i = 0; i < timeout_ms / 20 && !held; i++) {
		held = smbdx_test_held_bytes(srvc);
		if (!held)
			msleep(20);
	}
	KUNIT_EXPECT_GT(test, held, 0ULL);
	KUNIT_EXPECT_LE_MSG(test, held, (u64)4 * PAGE_SIZE,
			    "a 1 MiB message of which %u bytes came holds %llu bytes",
			    first, held);

	/* Others are served meanwhile. */
	cli = tl_connect(test, &sin, NULL, NULL, NULL);
	other = tl_accepted(test, srv, 1);
	tl_send_pattern(test, cli, msg, 100, 9);
	tl_expect_pull(test, other, msg, 100, 9);

	/* The peer goes: the half message goes with its connection. */
	kunit_release_action(test, tl_raw_release, raw);
	KUNIT_EXPECT_EQ(test, smbdx_recv_msg(srvc, msecs_to_jiffies(timeout_ms),
					     &got), -ECONNRESET);
}

/*
 * A peer that keeps the connection up but grants no send credit cannot
 * hold a sender: after io_timeout the send fails (-ETIMEDOUT) and the
 * connection ends (send_timeout). Linux 6.12's own cifs and ksmbd wait for
 * send credits with no bound at all.
 */
static void smbdx_send_timeout(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct smbdx_conn_config cfg;
	struct tl_server *srv;
	struct sockaddr_in sin;
	struct smbdx_conn *srvc;
	struct tl_sender *snd;
	struct tl_raw *raw;
	unsigned long start;
	u64 before;
	long left;

	tl_addr(test, d, &sin);
	smbdx_conn_config_init(&cfg);
	cfg.io_timeout_ms = 1000;
	srv = tl_listen(test, &sin, &cfg, &tl_pull_ops);
	sin.sin_port = htons(smbdx_listener_port(srv->lis));
	before = smbdx_test_global_error_count(SMBDX_CAUSE_SEND_TIMEOUT);
	raw = tl_raw_connect(test, &sin);
	tl_raw_negotiate(test, raw);
	srvc = tl_accepted(test, srv, 0);

	/* The raw peer never grants a credit: the server's message waits. */
	start = jiffies;
	snd = tl_sender_start(test, srvc, 1, 100, 3);
	left = wait_for_completion_timeout(&snd->done, msecs_to_jiffies(timeout_ms));
	KUNIT_ASSERT_GT_MSG(test, left, 0, "the send still waits after %u ms",
			    timeout_ms);
	KUNIT_EXPECT_EQ(test, snd->rc, -ETIMEDOUT);
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - start), 900U);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(srvc), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, smbdx_test_cause(srvc), SMBDX_CAUSE_SEND_TIMEOUT);
	KUNIT_EXPECT_EQ(test, smbdx_test_global_error_count(SMBDX_CAUSE_SEND_TIMEOUT),
			before + 1);
	tl_raw_expect_disconnect(test, raw);
}

/* 3.1.6.2 with short timers: keepalives are answered, nobody drops. */
static void smbdx_keepalive_exchange(struct kunit *test)
{
	struct smbdx_conn_config ccfg;
	struct tl_pair p;
	u8 buf[32];

	smbdx_conn_config_init(&ccfg);
	ccfg.keepalive_ms = 300;
	ccfg.keepalive_wait_ms = 3000;
	tl_pair_up(test, &p, &ccfg, NULL);
	msleep(2000);
	KUNIT_EXPECT_GE(test, smbdx_test_stat(p.cli, SMBDX_STAT_TX_KEEPALIVE_REQ), 2ULL);
	KUNIT_EXPECT_GE(test, smbdx_test_stat(p.srvc, SMBDX_STAT_RX_KEEPALIVE_REQ), 2ULL);
	KUNIT_EXPECT_GE(test, smbdx_test_stat(p.srvc, SMBDX_STAT_TX_KEEPALIVE_RESP), 2ULL);
	/* An answer never asks for an answer itself (no ping-pong). */
	KUNIT_EXPECT_EQ(test, smbdx_test_stat(p.srvc, SMBDX_STAT_TX_KEEPALIVE_REQ), 0ULL);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), 0);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), 0);
	tl_send_pattern(test, p.cli, buf, sizeof(buf), 5);
	tl_expect_pull(test, p.srvc, buf, sizeof(buf), 5);
}

/* A peer that stops answering is dropped after interval + wait. */
static void smbdx_keepalive_timeout(struct kunit *test)
{
	struct smbdx_conn_config ccfg;
	struct smbdx_msg *msg;
	struct tl_pair p;
	unsigned long start;
	int rc;

	smbdx_conn_config_init(&ccfg);
	ccfg.keepalive_ms = 300;
	ccfg.keepalive_wait_ms = 500;
	tl_pair_up(test, &p, &ccfg, NULL);
	smbdx_test_set_mute(p.srvc, true);
	start = jiffies;
	rc = smbdx_recv_msg(p.cli, msecs_to_jiffies(timeout_ms), &msg);
	KUNIT_EXPECT_EQ(test, rc, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, smbdx_test_cause(p.cli), SMBDX_CAUSE_KEEPALIVE_TIMEOUT);
	KUNIT_EXPECT_EQ(test, smbdx_test_error_count(p.cli, SMBDX_CAUSE_KEEPALIVE_TIMEOUT),
			1ULL);
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - start), 700U);
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - start), timeout_ms);
	/* The muted side sees the disconnect. */
	rc = smbdx_recv_msg(p.srvc, msecs_to_jiffies(timeout_ms), &msg);
	KUNIT_EXPECT_EQ(test, rc, -ECONNRESET);
}

/* The receiving side destroys its connection in the middle of a stream. */
static void smbdx_peer_disconnect_mid_stream(struct kunit *test)
{
	struct tl_sender *snd;
	struct tl_pair p;
	long left;
	int cause;

	tl_pair_up(test, &p, NULL, NULL);
	snd = tl_sender_start(test, p.cli, 1000000, 3000, 11);
	tl_expect_stream(test, p.srvc, 50, 3000, 11);
	kunit_release_action(test, tl_conn_destroy, p.srvc);
	left = wait_for_completion_timeout(&snd->done, msecs_to_jiffies(timeout_ms));
	KUNIT_ASSERT_GT(test, left, 0);
	/*
	 * The disconnect, or a Send the peer's end aborted (siw reports the
	 * latter as a completion error before the CM event).
	 */
	KUNIT_EXPECT_TRUE_MSG(test, snd->rc == -ECONNRESET || snd->rc == -EIO,
			      "smbdx_send returned %d", snd->rc);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.cli), snd->rc);
	cause = smbdx_test_cause(p.cli);
	KUNIT_EXPECT_TRUE_MSG(test, cause == SMBDX_CAUSE_PEER_DISCONNECT ||
			      cause == SMBDX_CAUSE_SEND_ERROR ||
			      cause == SMBDX_CAUSE_RECV_ERROR,
			      "cause %s", smbdx_cause_name(cause));
	KUNIT_EXPECT_EQ(test, tl_send(p.cli, "x", 1), snd->rc);
}

/*
 * smbdx_destroy() right after smbdx_send() returned (the fragments are posted,
 * not yet delivered): the message, 100 KiB in 76 fragments, still reaches
 * the peer whole, because smbdx_destroy() lets the Sends complete before it
 * disconnects.
 */
static void smbdx_destroy_after_send(struct kunit *test)
{
	const u32 len = 100 * 1024;
	u8 *buf = tl_kvmalloc(test, len);
	struct tl_pair p;

	tl_pair_up(test, &p, NULL, NULL);
	tl_send_pattern(test, p.cli, buf, len, 77);
	kunit_release_action(test, tl_conn_destroy, p.cli);
	tl_expect_pull(test, p.srvc, buf, len, 77);
}

static void tl_release_recvs(void *unused)
{
	smbdx_test_release_recvs();
}

/*
 * The peer sends a message and disconnects, and the CM reports the
 * disconnect before the CQ is polled for the Receives that message
 * filled (a busy CPU: the CM's thread runs first). The message must still
 * be delivered whole, then the connection ends as the peer's disconnect.
 * The receiver's completions are held back (test hook) until its CM event
 * has been handled; before the fix, that event ended the connection at
 * once and the held data was dropped (smbdx_recv_msg: -ECONNRESET): the
 * rare failure of smbdx_destroy_after_send.
 */
static void smbdx_peer_disconnect_before_cq(struct kunit *test)
{
	const u32 len = 16 * 1024;
	u8 *buf = tl_kvmalloc(test, len);
	unsigned long end;
	struct tl_pair p;

	tl_pair_up(test, &p, NULL, NULL);
	KUNIT_ASSERT_EQ(test, smbdx_test_hold_recvs(p.srvc), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_release_recvs,
							NULL), 0);
	tl_send_pattern(test, p.cli, buf, len, 78);
	kunit_release_action(test, tl_conn_destroy, p.cli);
	end = jiffies + msecs_to_jiffies(timeout_ms);
	while (!smbdx_test_peer_disconnected(p.srvc) && time_before(jiffies, end))
		msleep(20);
	KUNIT_ASSERT_TRUE(test, smbdx_test_peer_disconnected(p.srvc));
	/* Let the flushes of a QP moved to the error state queue up too. */
	msleep(100);
	kunit_release_action(test, tl_release_recvs, NULL);
	tl_expect_pull(test, p.srvc, buf, len, 78);
	KUNIT_EXPECT_EQ(test, smbdx_test_cause(p.srvc),
			SMBDX_CAUSE_PEER_DISCONNECT);
	KUNIT_EXPECT_EQ(test, smbdx_conn_error(p.srvc), -ECONNRESET);
}

#define TL_NCONN	(IS_ENABLED(CONFIG_KASAN) ? 16 : 64)

/* 64 connections (16 with KASAN) at once, each with its own message both ways. */
static void smbdx_many_connections(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct smbdx_conn **cli, **srvc;
	struct smbdx_conn_config cfg;
	bool *seen;
	struct tl_server *srv;
	struct sockaddr_in sin;
	struct smbdx_msg *msg;
	struct kvec kv;
	struct iov_iter it;
	u8 *buf;
	u32 idx;
	int i;

	cli = kunit_kcalloc(test, TL_NCONN, sizeof(*cli), GFP_KERNEL);
	srvc = kunit_kcalloc(test, TL_NCONN, sizeof(*srvc), GFP_KERNEL);
	seen = kunit_kcalloc(test, TL_NCONN, sizeof(*seen), GFP_KERNEL);
	buf = tl_kvmalloc(test, 4096);
	KUNIT_ASSERT_NOT_NULL(test, cli);
	KUNIT_ASSERT_NOT_NULL(test, srvc);
	KUNIT_ASSERT_NOT_NULL(test, seen);

	/* Smaller windows keep 128 endpoints' buffers modest. */
	smbdx_conn_config_init(&cfg);
	cfg.proto.recv_credit_max = 32;
	cfg.proto.send_credit_target = 32;
	tl_addr(test, d, &sin);
	srv = tl_listen(test, &sin, &cfg, &tl_pull_ops);
	for (i = 0; i < TL_NCONN; i++)
		cli[i] = tl_connect(test, &sin, &cfg, NULL, NULL);
	for (i = 0; i < TL_NCONN; i++)
		srvc[i] = tl_accepted(test, srv, i);

	for (i = 0; i < TL_NCONN; i++) {
		tl_fill(buf, 3000, 4000 + i);
		*(u32 *)buf = i;
		KUNIT_ASSERT_EQ(test, tl_send(cli[i], buf, 3000), 0);
	}
	/* Each server side answers with the index it got. */
	for (i = 0; i < TL_NCONN; i++) {
		KUNIT_ASSERT_EQ(test, smbdx_recv_msg(srvc[i], msecs_to_jiffies(timeout_ms),
						     &msg), 0);
		KUNIT_ASSERT_EQ(test, smbdx_msg_len(msg), 3000U);
		kv.iov_base = buf;
		kv.iov_len = 3000;
		iov_iter_kvec(&it, ITER_DEST, &kv, 1, 3000);
		KUNIT_ASSERT_EQ(test, smbdx_msg_copy(msg, 0, &it), (size_t)3000);
		smbdx_msg_free(msg);
		idx = *(u32 *)buf;
		KUNIT_ASSERT_LT(test, idx, (u32)TL_NCONN);
		KUNIT_EXPECT_FALSE(test, seen[idx]);
		seen[idx] = true;
		*(u32 *)buf = tl_byte(4000 + idx, 0) | tl_byte(4000 + idx, 1) << 8 |
			      tl_byte(4000 + idx, 2) << 16 | tl_byte(4000 + idx, 3) << 24;
		tl_send_pattern(test, srvc[i], buf, 100 + idx, 6000 + idx);
	}
	for (i = 0; i < TL_NCONN; i++)
		tl_expect_pull(test, cli[i], buf, 100 + i, 6000 + i);
	KUNIT_EXPECT_EQ(test, tl_nconns(srv), TL_NCONN);
}

/* The device's net device is RDMA capable, the loopback device is not. */
static void smbdx_netdev_capable(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct net_device *ndev;
	struct sockaddr_in sin;

	tl_addr(test, d, &sin);
	ndev = dev_get_by_name(&init_net, *d->netdev);
	KUNIT_ASSERT_NOT_NULL_MSG(test, ndev, "no net device %s", *d->netdev);
	KUNIT_EXPECT_TRUE(test, smbdx_netdev_rdma_capable(ndev));
	dev_put(ndev);
	ndev = dev_get_by_name(&init_net, "lo");
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	KUNIT_EXPECT_FALSE(test, smbdx_netdev_rdma_capable(ndev));
	dev_put(ndev);
}

/*
 * ksmbd asks with the RTNL held (FSCTL_QUERY_NETWORK_INTERFACE_INFO), and
 * debugfs "devices" queries the ports, which takes the RTNL on rxe and siw:
 * both in one case, so that lockdep sees both lock orders in every run.
 */
static void smbdx_netdev_capable_under_rtnl(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct seq_file m = {};
	struct net_device *ndev;
	struct sockaddr_in sin;
	bool yes;

	tl_addr(test, d, &sin);
	m.size = PAGE_SIZE;
	m.buf = kunit_kzalloc(test, m.size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	KUNIT_ASSERT_EQ(test, smbdx_devices_show(&m, NULL), 0);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(m.buf, *d->dev), "%s not in:\n%s",
				  *d->dev, m.buf);

	ndev = dev_get_by_name(&init_net, *d->netdev);
	KUNIT_ASSERT_NOT_NULL_MSG(test, ndev, "no net device %s", *d->netdev);
	rtnl_lock();
	yes = smbdx_netdev_rdma_capable(ndev);
	rtnl_unlock();
	dev_put(ndev);
	KUNIT_EXPECT_TRUE(test, yes);
}

/*
 * The IPv4 wildcard address with port 0 listens on every device at that
 * device's default port and nowhere else: a client reaches the rxe address
 * on 445 and the siw address on 5445 (the accepted connections carry the
 * wildcard listener's context), but not the other port of either. Once the
 * listener is destroyed, neither default port answers.
 */
static void smbdx_listen_each_device_port(struct kunit *test)
{
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct smbdx_conn_config cfg;
	struct smbdx_conn_info info;
	struct smbdx_conn *conn;
	struct tl_server *srv;
	struct sockaddr_in sin;
	unsigned int i;
	u16 port;

	smbdx_conn_config_init(&cfg);
	cfg.negotiate_timeout_ms = 5000;
	srv = tl_listen(test, &any, NULL, &tl_pull_ops);
	KUNIT_EXPECT_EQ(test, smbdx_listener_port(srv->lis), 0);
	for (i = 0; i < ARRAY_SIZE(tl_devs); i++) {
		const struct tl_dev *d = &tl_devs[i];

		port = d->iwarp ? SMBDX_PORT_IWARP : SMBDX_PORT_IB;
		tl_addr(test, d, &sin);
		conn = tl_connect(test, &sin, &cfg, NULL, NULL);
		KUNIT_ASSERT_EQ(test, smbdx_conn_query(conn, &info), 0);
		KUNIT_EXPECT_EQ_MSG(test, ntohs(((struct sockaddr_in *)&info.peer)->sin_port),
				    port, "%s", *d->dev);
		tl_accepted(test, srv, i);

		sin.sin_port = htons(d->iwarp ? SMBDX_PORT_IB : SMBDX_PORT_IWARP);
		conn = smbdx_connect(&init_net, (struct sockaddr *)&sin, NULL, &cfg,
				     NULL, NULL);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(conn), "%s: %pISpc answered",
				      *d->dev, &sin);
		if (!IS_ERR(conn))
			smbdx_destroy(conn);
	}
	KUNIT_EXPECT_EQ(test, tl_nconns(srv), (int)ARRAY_SIZE(tl_devs));

	/* Destroy it now (the deferred action then finds nothing to do). */
	kunit_release_action(test, tl_listener_destroy, srv->lis);
	for (i = 0; i < ARRAY_SIZE(tl_devs); i++) {
		tl_addr(test, &tl_devs[i], &sin);
		conn = smbdx_connect(&init_net, (struct sockaddr *)&sin, NULL, &cfg,
				     NULL, NULL);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(conn), "%s answered after destroy",
				      *tl_devs[i].dev);
		if (!IS_ERR(conn))
			smbdx_destroy(conn);
	}
}

struct tl_bad_resp {
	const char *what;
	int field;		/* which field to break, see tl_break_resp() */
	int err;
	int cause;
};

static const struct tl_bad_resp tl_bad_resps[] = {
	{ "no response", 0, -ETIMEDOUT, SMBDX_CAUSE_NEG_TIMEOUT },
	{ "31 bytes", 1, -EPROTO, SMBDX_ERR_NEG_RESP_SHORT },
	{ "status NOT_SUPPORTED", 2, -ECONNREFUSED, SMBDX_ERR_NEG_RESP_STATUS },
	{ "version 0x0200", 3, -EPROTO, SMBDX_ERR_NEG_RESP_VERSION },
	{ "CreditsGranted 0", 4, -EPROTO, SMBDX_ERR_NEG_RESP_CREDITS_GRANTED },
	{ "MaxFragmentedSize 131071", 5, -EPROTO, SMBDX_ERR_NEG_RESP_MAX_FRAG },
	{ "PreferredSendSize 1365", 6, -EPROTO, SMBDX_ERR_NEG_RESP_PREF_SEND },
};

static void tl_break_resp(struct tl_raw *srv, int field)
{
	struct smbdx_negotiate_resp *r = &srv->resp;

	memset(r, 0, sizeof(*r));
	r->min_version = cpu_to_le16(SMBDX_VERSION_1_0);
	r->max_version = cpu_to_le16(SMBDX_VERSION_1_0);
	r->negotiated_version = cpu_to_le16(SMBDX_VERSION_1_0);
	r->credits_requested = cpu_to_le16(10);
	r->credits_granted = cpu_to_le16(10);
	r->max_read_write_size = cpu_to_le32(1048576);
	r->preferred_send_size = cpu_to_le32(1364);
	r->max_receive_size = cpu_to_le32(1364);
	r->max_fragmented_size = cpu_to_le32(131072);
	srv->resp_len = sizeof(*r);
	switch (field) {
	case 0:
		srv->resp_len = 0;
		break;
	case 1:
		srv->resp_len = sizeof(*r) - 1;
		break;
	case 2:
		r->status = cpu_to_le32(SMBDX_STATUS_NOT_SUPPORTED);
		break;
	case 3:
		r->negotiated_version = cpu_to_le16(0x0200);
		break;
	case 4:
		r->credits_granted = 0;
		break;
	case 5:
		r->max_fragmented_size = cpu_to_le32(131071);
		break;
	case 6:
		r->preferred_send_size = cpu_to_le32(1365);
		break;
	}
}

/* 3.1.5.7: every broken Negotiate Response fails smbdx_connect(). */
static void smbdx_active_bad_responses(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	const struct tl_bad_resp *b;
	struct smbdx_conn_config cfg;
	struct sockaddr_in sin;
	struct smbdx_conn *conn;
	struct tl_raw *srv;
	u64 before;
	u32 i;

	smbdx_conn_config_init(&cfg);
	cfg.negotiate_timeout_ms = 1000;
	for (i = 0; i < ARRAY_SIZE(tl_bad_resps); i++) {
		b = &tl_bad_resps[i];
		tl_addr(test, d, &sin);
		srv = tl_raw_new(test);
		srv->respond = true;
		tl_break_resp(srv, b->field);
		tl_raw_listen(test, &sin, srv);
		before = smbdx_test_global_error_count(b->cause);
		conn = smbdx_connect(&init_net, (struct sockaddr *)&sin, NULL, &cfg,
				     NULL, NULL);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(conn), "%s: connected", b->what);
		if (!IS_ERR(conn)) {
			smbdx_destroy(conn);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(conn), (long)b->err, "%s", b->what);
		KUNIT_EXPECT_EQ_MSG(test, smbdx_test_global_error_count(b->cause),
				    before + 1, "%s: %s not counted", b->what,
				    smbdx_cause_name(b->cause));
	}
}

/* ---- capabilities in CM private data (cm.c, privdata.c) ---- */

/* What the test build advertises here: two flags, IRD 7. */
#define TL_CAPS		(SMBDX_CAP_FLUSH_GLOBAL | SMBDX_CAP_ATOMIC_WRITE)
#define TL_CAPS_IRD	7

static void tl_restore_caps(void *unused)
{
	smbdx_test_set_own_caps(0, 0);
}

/* Advertise TL_CAPS plus a reserved bit (never sent) until the case ends. */
static void tl_set_caps(struct kunit *test)
{
	struct smbdx_conn_config cfg;

	smbdx_conn_config_init(&cfg);
	KUNIT_ASSERT_FALSE_MSG(test, cfg.cm_caps,
			       "module parameter cm_caps is on; these cases need it off");
	smbdx_test_set_own_caps(TL_CAPS | 0x80, TL_CAPS_IRD);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tl_restore_caps, NULL), 0);
}

/* What @conn recorded: whether it sent TL_CAPS, and the peer's blob. */
static void tl_expect_caps(struct kunit *test, struct smbdx_conn *conn,
			   const char *who, bool sent, enum smbdx_pd_result blob,
			   u8 peer_flags, u8 peer_ird)
{
	struct smbdx_conn_caps c;

	smbdx_test_conn_caps(conn, &c);
	KUNIT_EXPECT_EQ_MSG(test, c.sent, sent, "%s: sent", who);
	KUNIT_EXPECT_EQ_MSG(test, c.own.flags, sent ? TL_CAPS : 0, "%s: own", who);
	KUNIT_EXPECT_EQ_MSG(test, c.own.push_ird, sent ? TL_CAPS_IRD : 0,
			    "%s: own IRD", who);
	KUNIT_EXPECT_EQ_MSG(test, c.peer_blob, blob, "%s: peer's blob", who);
	KUNIT_EXPECT_EQ_MSG(test, c.peer.flags, peer_flags, "%s: peer's", who);
	KUNIT_EXPECT_EQ_MSG(test, c.peer.push_ird, peer_ird, "%s: peer's IRD", who);
	KUNIT_EXPECT_EQ_MSG(test, smbdx_test_stat(conn, SMBDX_STAT_CM_CAPS_SENT),
			    (u64)sent, "%s: cm_caps_sent", who);
	KUNIT_EXPECT_EQ_MSG(test, smbdx_test_stat(conn, SMBDX_STAT_CM_CAPS_FOUND),
			    (u64)(blob == SMBDX_PD_FOUND), "%s: cm_caps_found", who);
	KUNIT_EXPECT_EQ_MSG(test, smbdx_test_stat(conn, SMBDX_STAT_CM_CAPS_MALFORMED),
			    (u64)(blob != SMBDX_PD_FOUND && blob != SMBDX_PD_ABSENT),
			    "%s: cm_caps_malformed", who);
}

/*
 * Two smbdirect ends with cm_caps on learn each other's capabilities on
 * IB/RoCE (connect request and accept) and send nothing on iWARP; a
 * second client without the setting, on the same listener, is evaluated
 * afresh. Data flows either way.
 */
static void smbdx_cm_caps_exchange(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct smbdx_conn_config cfg;
	struct smbdx_conn *cli2, *srvc2;
	bool ib = !d->iwarp;
	struct tl_pair p;
	u8 buf[64];

	tl_set_caps(test);
	smbdx_conn_config_init(&cfg);
	cfg.cm_caps = true;
	tl_pair_up(test, &p, &cfg, &cfg);
	tl_expect_caps(test, p.cli, "client", ib,
		       ib ? SMBDX_PD_FOUND : SMBDX_PD_ABSENT,
		       ib ? TL_CAPS : 0, ib ? TL_CAPS_IRD : 0);
	tl_expect_caps(test, p.srvc, "server", ib,
		       ib ? SMBDX_PD_FOUND : SMBDX_PD_ABSENT,
		       ib ? TL_CAPS : 0, ib ? TL_CAPS_IRD : 0);
	tl_send_pattern(test, p.cli, buf, sizeof(buf), 3);
	tl_expect_pull(test, p.srvc, buf, sizeof(buf), 3);

	cli2 = tl_connect(test, &p.sin, NULL, NULL, NULL);
	srvc2 = tl_accepted(test, p.srv, 1);
	tl_expect_caps(test, cli2, "client 2", false,
		       ib ? SMBDX_PD_FOUND : SMBDX_PD_ABSENT,
		       ib ? TL_CAPS : 0, ib ? TL_CAPS_IRD : 0);
	tl_expect_caps(test, srvc2, "server 2", ib, SMBDX_PD_ABSENT, 0, 0);
	tl_send_pattern(test, srvc2, buf, sizeof(buf), 4);
	tl_expect_pull(test, cli2, buf, sizeof(buf), 4);
}

/*
 * cm_caps_iwarp: a client that opts in sends its blob on iWARP too (after
 * the IRD/ORD header), and the listener, with cm_caps alone, answers with
 * its own because the request carried one; the IRD/ORD both ends set is
 * what a pair without blobs gets (a 16-octet header-and-blob is no IRD/ORD
 * header to either reader). A second client of the same listener with
 * cm_caps but without the opt-in gets nothing on iWARP, as before. On
 * IB/RoCE the opt-in changes nothing.
 */
static void smbdx_cm_caps_iwarp(struct kunit *test)
{
	const struct tl_dev *d = test->param_value;
	struct smbdx_conn_config ccfg, scfg;
	struct smbdx_conn_info *ci;
	struct smbdx_conn *cli2, *srvc2;
	bool ib = !d->iwarp;
	struct tl_pair p;
	u8 buf[64];

	tl_set_caps(test);
	smbdx_conn_config_init(&scfg);
	scfg.cm_caps = true;
	ccfg = scfg;
	ccfg.cm_caps_iwarp = true;
	tl_pair_up(test, &p, &ccfg, &scfg);
	tl_expect_caps(test, p.cli, "client", true, SMBDX_PD_FOUND, TL_CAPS,
		       TL_CAPS_IRD);
	tl_expect_caps(test, p.srvc, "server", true, SMBDX_PD_FOUND, TL_CAPS,
		       TL_CAPS_IRD);
	tl_send_pattern(test, p.cli, buf, sizeof(buf), 5);
	tl_expect_pull(test, p.srvc, buf, sizeof(buf), 5);

	cli2 = tl_connect(test, &p.sin, &scfg, NULL, NULL);
	srvc2 = tl_accepted(test, p.srv, 1);
	tl_expect_caps(test, cli2, "client 2", ib,
		       ib ? SMBDX_PD_FOUND : SMBDX_PD_ABSENT,
		       ib ? TL_CAPS : 0, ib ? TL_CAPS_IRD : 0);
	tl_expect_caps(test, srvc2, "server 2", ib,
		       ib ? SMBDX_PD_FOUND : SMBDX_PD_ABSENT,
		       ib ? TL_CAPS : 0, ib ? TL_CAPS_IRD : 0);
	tl_send_pattern(test, srvc2, buf, sizeof(buf), 6);
	tl_expect_pull(test, cli2, buf, sizeof(buf), 6);

	/* Four conn_info are too large for a debug kernel's stack frame. */
	ci = kunit_kcalloc(test, 4, sizeof(*ci), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ci);
	KUNIT_ASSERT_EQ(test, smbdx_conn_query(p.cli, &ci[0]), 0);
	KUNIT_ASSERT_EQ(test, smbdx_conn_query(p.srvc, &ci[1]), 0);
	KUNIT_ASSERT_EQ(test, smbdx_conn_query(cli2, &ci[2]), 0);
	KUNIT_ASSERT_EQ(test, smbdx_conn_query(srvc2, &ci[3]), 0);
	KUNIT_EXPECT_GT(test, ci[0].ird, 0U);
	KUNIT_EXPECT_GT(test, ci[0].ord, 0U);
	KUNIT_EXPECT_EQ(test, ci[0].ird, ci[2].ird);
	KUNIT_EXPECT_EQ(test, ci[0].ord, ci[2].ord);
	KUNIT_EXPECT_EQ(test, ci[1].ird, ci[3].ird);
	KUNIT_EXPECT_EQ(test, ci[1].ord, ci[3].ord);
}

/* The private data a raw peer received, copied out under its lock. */
static u8 tl_raw_pd(struct tl_raw *raw, u8 *buf)
{
	u8 len;

	spin_lock_bh(&raw->lock);
	len = raw->peer_pd_len;
	memcpy(buf, raw->peer_pd, len);
	spin_unlock_bh(&raw->lock);
	return len;
}

/* @pd (@len bytes) is our blob at offset 0 and zeros (IB/RoCE's fill). */
static void tl_expect_our_blob(struct kunit *test, const u8 *pd, u8 len, u8 area)
{
	static const u8 want[] = { 0x25, 0x09, 0xc3, 0x90, 1, TL_CAPS, TL_CAPS_IRD, 0 };

	KUNIT_ASSERT_EQ(test, len, area);
	KUNIT_EXPECT_MEMEQ(test, pd, want, sizeof(want));
	KUNIT_EXPECT_NULL(test, memchr_inv(pd + sizeof(want), 0, len - sizeof(want)));
}

/*
 * The bytes on the wire, and hostile private data from raw peers:
 * - our client (cm_caps on) to a raw server: the connect request carries
 *   exactly our blob on IB/RoCE and only MS-SMBD's IRD/ORD header on
 *   iWARP; the server's accept carries junk, a blob of an unknown version
 *   and then a version 1 blob with reserved bits set, which the client
 *   takes (reserved bits dropped) on either transport;
 * - a raw client to our listener (cm_caps on) whose blob starts 50 bytes
 *   in and would end past the 56 bytes of the request: counted as
 *   malformed, the connection negotiates all the same, and the accept
 *   carries our blob on IB/RoCE and nothing on iWARP.
 */
static void smbdx_cm_caps_raw_peers(struct kunit *test)
{
	static const u8 rep_pd[] = {
		0xde, 0xad, 0xbe,
		0x25, 0x09, 0xc3, 0x90, 2, 0x07, 3, 0,
		0x25, 0x09, 0xc3, 0x90, 1, 0xff, 9, 0xee,
	};
	const struct tl_dev *d = test->param_value;
	u8 req_pd[SMBDX_PD_IB_REQ_MAX] = {};
	struct smbdx_conn_config cfg;
	struct smbdx_conn *conn, *srvc;
	u8 pd[TL_RAW_PD_MAX];
	struct tl_server *srv;
	bool ib = !d->iwarp;
	struct sockaddr_in sin;
	struct tl_raw *raw;
	u8 len;

	tl_set_caps(test);
	smbdx_conn_config_init(&cfg);
	cfg.cm_caps = true;

	tl_addr(test, d, &sin);
	raw = tl_raw_new(test);
	raw->respond = true;
	tl_break_resp(raw, -1);
	raw->accept_pd = rep_pd;
	raw->accept_pd_len = sizeof(rep_pd);
	tl_raw_listen(test, &sin, raw);
	conn = tl_connect(test, &sin, &cfg, NULL, NULL);
	tl_expect_caps(test, conn, "client", ib, SMBDX_PD_FOUND, SMBDX_CAPS_KNOWN, 9);
	len = tl_raw_pd(raw, pd);
	if (ib) {
		tl_expect_our_blob(test, pd, len, SMBDX_PD_IB_REQ_MAX);
	} else {
		KUNIT_EXPECT_EQ(test, len, SMBDX_IRD_ORD_LEN);
		KUNIT_EXPECT_EQ(test, smbdx_caps_parse(pd, len, &(struct smbdx_caps){},
						       NULL), SMBDX_PD_ABSENT);
	}

	tl_addr(test, d, &sin);
	srv = tl_listen(test, &sin, &cfg, &tl_pull_ops);
	sin.sin_port = htons(smbdx_listener_port(srv->lis));
	put_unaligned_be32(SMBDX_CAPS_ID, req_pd + 50);
	req_pd[54] = SMBDX_CAPS_VERSION_1;
	req_pd[55] = SMBDX_CAPS_KNOWN;
	raw = tl_raw_connect_pd(test, &sin, req_pd, sizeof(req_pd));
	tl_raw_negotiate(test, raw);
	srvc = tl_accepted(test, srv, 0);
	tl_expect_caps(test, srvc, "server", ib, SMBDX_PD_TRUNCATED, 0, 0);
	len = tl_raw_pd(raw, pd);
	if (ib)
		tl_expect_our_blob(test, pd, len, SMBDX_PD_IB_REP_MAX);
	else
		KUNIT_EXPECT_EQ(test, len, 0);
}

static struct kunit_case smbdx_transport_live_cases[] = {
	KUNIT_CASE_PARAM(smbdx_netdev_capable, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_netdev_capable_under_rtnl, tl_dev_gen_params),
	KUNIT_CASE(smbdx_listen_each_device_port),
	KUNIT_CASE_PARAM(smbdx_negotiate_both_ways, tl_dev_gen_params),
	KUNIT_CASE_PARAM_ATTR(smbdx_size_classes_both_ways, tl_dev_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM(smbdx_callbacks, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_sendv_parts, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_conn_show_prints, tl_dev_gen_params),
	KUNIT_CASE_PARAM_ATTR(smbdx_passive_negotiation_timeout, tl_dev_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM(smbdx_passive_short_request, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_passive_bad_version, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_passive_bad_data_offset, tl_dev_gen_params),
	KUNIT_CASE_PARAM_ATTR(smbdx_active_bad_responses, tl_dev_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(smbdx_many_messages, tl_dev_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(smbdx_credit_exhaustion, tl_dev_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(smbdx_receiver_flow_control, tl_dev_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM(smbdx_receiver_tiny_messages, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_half_finished_message, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_send_timeout, tl_dev_gen_params),
	KUNIT_CASE_PARAM_ATTR(smbdx_keepalive_exchange, tl_dev_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(smbdx_keepalive_timeout, tl_dev_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM(smbdx_destroy_after_send, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_peer_disconnect_before_cq, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_cm_caps_exchange, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_cm_caps_raw_peers, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_cm_caps_iwarp, tl_dev_gen_params),
	KUNIT_CASE_PARAM(smbdx_destroy_with_waiters, tl_dev_gen_params),
	KUNIT_CASE_PARAM_ATTR(smbdx_peer_disconnect_mid_stream, tl_dev_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(smbdx_many_connections, tl_dev_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite smbdx_transport_live_suite = {
	.name = "smbdirect_transport_live",
	.test_cases = smbdx_transport_live_cases,
};

kunit_test_suite(smbdx_transport_live_suite);

MODULE_DESCRIPTION("Live tests of the smbdirect transport on rxe and siw");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SMBDX_NS);
MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));
