// SPDX-License-Identifier: GPL-2.0
/*
 * smbd_test.ko: a test and demo service on top of smbdirect's exported
 * API, driven from a shell through debugfs:
 *
 *   /sys/kernel/debug/smbd_test/control   write one command per write()
 *   /sys/kernel/debug/smbd_test/result    text output of the last command
 *   /sys/kernel/debug/smbd_test/status    listeners, their connections and
 *                                         the named client connections
 *
 * Commands (Documentation/api.rst has the full reference; the interface is
 * kept stable for external test tools and the benchmark):
 *
 *   listen echo|sink ADDR [PORT] [OPTION=VALUE...]
 *   unlisten ADDR [PORT] | unlisten all
 *   open NAME ADDR [PORT] [OPTION=VALUE...]
 *   send NAME count=N size=N [verify=0|1]
 *   close NAME | close all
 *   run ADDR [PORT] count=N size=N [verify=0|1] [OPTION=VALUE...]
 *   negotiate ADDR [PORT] [smb311=0|1] [timeout_ms=N] [OPTION=VALUE...]
 *   ping ADDR [PORT] count=N size=N [warmup=N] [callback=0|1] [verify=0|1]
 *        [OPTION=VALUE...]
 *   stream ADDR [PORT] count=N size=N [warmup=N] [OPTION=VALUE...]
 *
 * An echo listener sends every message back on the connection it came
 * from; a sink listener counts and drops them. Client connections receive
 * through a callback that checks each echo against the pattern the sender
 * used (byte i of message k is (k * 131 + i * 7 + (i >> 8) + (i >> 16)) &
 * 0xff) and drops it.
 *
 * For interop with independent SMB2 peers (tests/vm/interop_*.sh), every
 * server connection records the first bytes of its first message and
 * counts the messages that begin with an SMB2 header (the listener keeps
 * totals that outlive its connections), a listener may hang up after a
 * number of messages (hangup=N), and the negotiate command sends one SMB2
 * NEGOTIATE request as a client and checks the server's response.
 *
 * ping and stream are the benchmark's: ping times round trips against an
 * echo listener, one message at a time (in pull mode unless callback=1);
 * stream sends messages back to back and, when the listener is this
 * module's, stops the clock once the listener has received the last one.
 * Both use a connection of their own, destroyed before the command ends.
 *
 * Locking: svc_mutex serialises commands and the reaper (which destroys
 * server connections that were lost); commands may sleep for as long as a
 * run takes. svc_lock (a spinlock) protects the per-listener connection
 * lists, which the accept callback extends from smbdirect's workqueue; the
 * callbacks never take svc_mutex, because smbdx_listener_destroy() and
 * smbdx_destroy(), called with it held, wait for them. svc_lock also
 * guards the recorded first bytes of connections and listeners, which the
 * recv callbacks write and the status file reads. stream reads the
 * counters of a listener connection found under svc_lock after dropping
 * it: the connection cannot be freed while the command holds svc_mutex.
 */

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/unaligned.h>
#include <linux/delay.h>
#include <linux/sort.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>

#include <smbdirect/smbdirect.h>

#define SMBDX_TEST_RESULT_MAX	4096
#define SMBDX_TEST_WAIT_MS	30000

enum smbdx_test_mode { SMBDX_TEST_ECHO, SMBDX_TEST_SINK };

/* SMB2 interop: options, and what server connections and listeners saw */
#define SVC_FIRST_MAX	16

struct svc_interop_args {
	u32 hangup;			/* listeners: disconnect after N messages */
	u32 timeout_ms;			/* negotiate: wait for the response */
	bool smb311;			/* negotiate: offer 3.1.1 too */
};

struct svc_interop_seen {
	atomic64_t smb2;		/* messages beginning with an SMB2 header */
	u8 first[SVC_FIRST_MAX];	/* set once, under svc_lock */
	u8 first_len;			/* 0: nothing yet; set once, under svc_lock */
};

struct smbdx_test_listener {
	struct list_head list;
	struct smbdx_listener *lis;
	enum smbdx_test_mode mode;
	struct sockaddr_storage addr;
	int port;
	struct list_head conns;		/* under svc_lock */
	atomic64_t accepted;
	struct svc_interop_seen seen;	/* totals over all its connections */
	u32 hangup;
};

struct smbdx_test_sconn {
	struct list_head list;
	struct smbdx_test_listener *tl;
	struct smbdx_conn *conn;
	atomic64_t msgs;
	atomic64_t bytes;
	atomic64_t echo_errors;
	struct svc_interop_seen seen;
};

struct smbdx_test_client {
	struct list_head list;
	char name[32];
	struct smbdx_conn *conn;
	struct sockaddr_storage addr;
	wait_queue_head_t wq;
	atomic64_t sent;
	atomic64_t received;
	atomic64_t verified;
	atomic64_t mismatched;
	u32 expect_size;		/* of the echoes of the current send */
	bool verify;
};

static DEFINE_MUTEX(svc_mutex);
static DEFINE_SPINLOCK(svc_lock);
static LIST_HEAD(svc_listeners);	/* under svc_mutex */
static LIST_HEAD(svc_clients);		/* under svc_mutex */
static struct dentry *svc_dir;
static char *svc_result;		/* under svc_mutex */
static size_t svc_result_len;
static struct work_struct svc_reaper;

static void svc_printf(const char *fmt, ...) __printf(1, 2);
static void svc_printf(const char *fmt, ...)
{
	va_list ap;

	if (svc_result_len >= SMBDX_TEST_RESULT_MAX - 1)
		return;
	va_start(ap, fmt);
	svc_result_len += vscnprintf(svc_result + svc_result_len,
				     SMBDX_TEST_RESULT_MAX - svc_result_len, fmt, ap);
	va_end(ap);
}

static u8 svc_byte(u64 seed, u32 i)
{
	return (seed * 131 + i * 7 + (i >> 8) + (i >> 16)) & 0xff;
}

static void svc_interop_recv(struct smbdx_test_sconn *sc, struct smbdx_msg *msg);
static void svc_interop_show(struct seq_file *m, struct svc_interop_seen *seen);
static bool svc_interop_opt(const char *key, u32 v, struct svc_interop_args *ia);

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

static const struct smbdx_conn_ops svc_client_ops = {
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

/* ---- parsing ---- */

struct svc_args {
	struct sockaddr_storage addr;
	struct smbdx_conn_config cfg;
	u32 count;
	u32 size;
	bool verify;
	struct svc_interop_args interop;
};

static int svc_parse_addr(const char *s, const char *port,
			  struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	u16 p = 0;

	if (port && kstrtou16(port, 0, &p))
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (in4_pton(s, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL)) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(p);
		return 0;
	}
	if (in6_pton(s, -1, sin6->sin6_addr.s6_addr, -1, NULL)) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(p);
		return 0;
	}
	return -EINVAL;
}

static int svc_parse_opt(char *tok, struct svc_args *a)
{
	struct smbdx_proto_config *p = &a->cfg.proto;
	char *val = strchr(tok, '=');
	u32 v;

	if (!val)
		return -EINVAL;
	*val++ = '\0';
	if (kstrtou32(val, 0, &v))
		return -EINVAL;
	if (svc_interop_opt(tok, v, &a->interop))
		return 0;
	if (!strcmp(tok, "credits")) {
		p->recv_credit_max = min_t(u32, v, U16_MAX);
		p->send_credit_target = p->recv_credit_max;
		return 0;
	}
	if (!strcmp(tok, "count"))
		a->count = v;
	else if (!strcmp(tok, "size"))
		a->size = v;
	else if (!strcmp(tok, "verify"))
		a->verify = v;
	else if (!strcmp(tok, "send_size"))
		p->max_send_size = v;
	else if (!strcmp(tok, "recv_size"))
		p->max_receive_size = v;
	else if (!strcmp(tok, "frag_size"))
		p->max_fragmented_recv_size = v;
	else if (!strcmp(tok, "keepalive_ms"))
		a->cfg.keepalive_ms = v;
	else if (!strcmp(tok, "keepalive_wait_ms"))
		a->cfg.keepalive_wait_ms = v;
	else if (!strcmp(tok, "negotiate_timeout_ms"))
		a->cfg.negotiate_timeout_ms = v;
	else if (!strcmp(tok, "recv_queue_max"))
		a->cfg.recv_queue_max = v;
	else
		return -EINVAL;
	return 0;
}

/* argv[0] is the address, argv[1] an optional port, then options. */
static int svc_parse(int argc, char **argv, struct svc_args *a)
{
	const char *port = NULL;
	int i = 1, rc;

	memset(a, 0, sizeof(*a));
	smbdx_conn_config_init(&a->cfg);
	a->cfg.proto.max_fragmented_recv_size = 0;
	if (argc < 1)
		return -EINVAL;
	if (argc > 1 && !strchr(argv[1], '=')) {
		port = argv[1];
		i = 2;
	}
	rc = svc_parse_addr(argv[0], port, &a->addr);
	for (; !rc && i < argc; i++)
		rc = svc_parse_opt(argv[i], a);
	if (rc)
		svc_printf("error: cannot parse '%s'\n", argv[i - 1]);
	return rc;
}

/* ---- commands ---- */

static void svc_print_info(struct smbdx_conn *conn)
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

static int svc_listen(int argc, char **argv)
{
	struct smbdx_test_listener *tl;
	enum smbdx_test_mode mode;
	struct smbdx_listener *lis;
	struct svc_args a;
	int rc;

	if (argc < 2)
		return -EINVAL;
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

static bool svc_addr_eq(const struct sockaddr_storage *a,
			const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr);
}

static int svc_unlisten(int argc, char **argv)
{
	struct smbdx_test_listener *tl, *tmp;
	struct sockaddr_storage ss;
	int n = 0, port = 0, rc;

	if (argc < 1)
		return -EINVAL;
	if (strcmp(argv[0], "all")) {
		rc = svc_parse_addr(argv[0], argc > 1 ? argv[1] : NULL, &ss);
		if (rc)
			return rc;
		port = ss.ss_family == AF_INET ?
		       ntohs(((struct sockaddr_in *)&ss)->sin_port) :
		       ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	}
	list_for_each_entry_safe(tl, tmp, &svc_listeners, list) {
		if (strcmp(argv[0], "all") &&
		    (!svc_addr_eq(&tl->addr, &ss) ||
		     (port && port != tl->port)))
			continue;
		svc_listener_free(tl);
		n++;
	}
	svc_printf("stopped %d listener(s)\n", n);
	return n ? 0 : -ENOENT;
}

/* ---- SMB2 interop ---- */

/*
 * Just enough of SMB2 ([MS-SMB2] 2.2.1.2, 2.2.3, 2.2.4) to open a session
 * with an independent server (the stock ksmbd) and to recognise what an
 * independent client (the stock cifs) sends first. Everything in a
 * response is checked against the received length before it is used.
 */
#define SVC_SMB2_MAGIC		0x424d53fe	/* 0xfe 'S' 'M' 'B' */
#define SVC_SMB2_HDR_LEN	64
#define SVC_SMB2_NEGOTIATE	0x0000
#define SVC_SMB2_FLAG_RESPONSE	0x00000001	/* SMB2_FLAGS_SERVER_TO_REDIR */
#define SVC_SMB2_SIGNING_ON	0x0001		/* SMB2_NEGOTIATE_SIGNING_ENABLED */
#define SVC_SMB2_CAP_LARGE_MTU	0x00000004
#define SVC_SMB2_NEG_REQ_LEN	36
#define SVC_SMB2_NEG_RSP_LEN	65
#define SVC_SMB311		0x0311
#define SVC_PREAUTH_CONTEXT	0x0001		/* SMB2_PREAUTH_INTEGRITY_CAPABILITIES */
#define SVC_PREAUTH_SHA512	0x0001
#define SVC_PREAUTH_SALT_LEN	32
#define SVC_NEG_TIMEOUT_MS	15000
#define SVC_NEG_RSP_MAX		65536

struct svc_smb2_hdr {
	__le32 protocol_id;
	__le16 structure_size;
	__le16 credit_charge;
	__le32 status;
	__le16 command;
	__le16 credits;
	__le32 flags;
	__le32 next_command;
	__le64 message_id;
	__le32 process_id;
	__le32 tree_id;
	__le64 session_id;
	u8 signature[16];
} __packed;
static_assert(sizeof(struct svc_smb2_hdr) == SVC_SMB2_HDR_LEN);

struct svc_smb2_neg_req {
	struct svc_smb2_hdr hdr;
	__le16 structure_size;
	__le16 dialect_count;
	__le16 security_mode;
	__le16 reserved;
	__le32 capabilities;
	u8 client_guid[16];
	__le32 context_offset;		/* ClientStartTime before 3.1.1 */
	__le16 context_count;
	__le16 reserved2;
	__le16 dialects[];
} __packed;
static_assert(sizeof(struct svc_smb2_neg_req) == SVC_SMB2_HDR_LEN + SVC_SMB2_NEG_REQ_LEN);

/* The fixed part of the response: StructureSize 65 counts one buffer byte. */
struct svc_smb2_neg_rsp {
	struct svc_smb2_hdr hdr;
	__le16 structure_size;
	__le16 security_mode;
	__le16 dialect;
	__le16 context_count;		/* 3.1.1 only */
	u8 server_guid[16];
	__le32 capabilities;
	__le32 max_transact_size;
	__le32 max_read_size;
	__le32 max_write_size;
	__le64 system_time;
	__le64 server_start_time;
	__le16 security_buffer_offset;
	__le16 security_buffer_length;
	__le32 context_offset;		/* 3.1.1 only */
} __packed;
static_assert(sizeof(struct svc_smb2_neg_rsp) == SVC_SMB2_HDR_LEN + SVC_SMB2_NEG_RSP_LEN - 1);

struct svc_smb2_context {
	__le16 type;
	__le16 data_length;
	__le32 reserved;
} __packed;

struct svc_preauth_context {
	struct svc_smb2_context ctx;
	__le16 hash_count;
	__le16 salt_length;
	__le16 hash;
	u8 salt[SVC_PREAUTH_SALT_LEN];
} __packed;

static const u16 svc_dialects[] = { 0x0202, 0x0210, 0x0300, 0x0302, SVC_SMB311 };

/* Does @buf (@len bytes) begin with an SMB2 header? */
static bool svc_is_smb2(const u8 *buf, u32 len)
{
	return len >= 6 && get_unaligned_le32(buf) == SVC_SMB2_MAGIC &&
	       get_unaligned_le16(buf + 4) == SVC_SMB2_HDR_LEN;
}

static void svc_seen_record(struct svc_interop_seen *seen, const u8 *buf,
			    u32 n)
{
	if (seen->first_len)
		return;
	memcpy(seen->first, buf, n);
	WRITE_ONCE(seen->first_len, n);
}

/*
 * Server connections (recv callback; one at a time per connection): note
 * the first bytes and whether the message is SMB2, free it, and hang up
 * once the listener's hangup=N messages have arrived.
 */
static void svc_interop_recv(struct smbdx_test_sconn *sc, struct smbdx_msg *msg)
{
	u32 len = smbdx_msg_len(msg), n = min_t(u32, len, SVC_FIRST_MAX);
	u8 head[SVC_FIRST_MAX];
	struct iov_iter it;
	struct kvec kv = { head, n };

	iov_iter_kvec(&it, ITER_DEST, &kv, 1, n);
	n = smbdx_msg_copy(msg, 0, &it);
	smbdx_msg_free(msg);
	if (len >= SVC_SMB2_HDR_LEN && svc_is_smb2(head, n)) {
		atomic64_inc(&sc->seen.smb2);
		atomic64_inc(&sc->tl->seen.smb2);
	}
	/* Only the first messages take the lock; first_len never goes back. */
	if (n && (!READ_ONCE(sc->seen.first_len) ||
		  !READ_ONCE(sc->tl->seen.first_len))) {
		spin_lock_bh(&svc_lock);
		svc_seen_record(&sc->seen, head, n);
		svc_seen_record(&sc->tl->seen, head, n);
		spin_unlock_bh(&svc_lock);
	}
	if (sc->tl->hangup && atomic64_read(&sc->msgs) >= sc->tl->hangup)
		smbdx_disconnect(sc->conn);
}

/* Called with svc_lock held; ends the status line. */
static void svc_interop_show(struct seq_file *m, struct svc_interop_seen *seen)
{
	seq_printf(m, " smb2=%lld first=", (long long)atomic64_read(&seen->smb2));
	if (seen->first_len)
		seq_printf(m, "%*phN\n", seen->first_len, seen->first);
	else
		seq_puts(m, "none\n");
}

static bool svc_interop_opt(const char *key, u32 v, struct svc_interop_args *ia)
{
	if (!strcmp(key, "hangup"))
		ia->hangup = v;
	else if (!strcmp(key, "timeout_ms"))
		ia->timeout_ms = v;
	else if (!strcmp(key, "smb311"))
		ia->smb311 = v;
	else
		return false;
	return true;
}

/* Build the request in @buf (room for 256 bytes); returns its length. */
static u32 svc_negotiate_build(u8 *buf, u32 ndialects, bool smb311)
{
	struct svc_smb2_neg_req *req = (struct svc_smb2_neg_req *)buf;
	struct svc_preauth_context *pa;
	u32 len, i;

	memset(buf, 0, 256);
	req->hdr.protocol_id = cpu_to_le32(SVC_SMB2_MAGIC);
	req->hdr.structure_size = cpu_to_le16(SVC_SMB2_HDR_LEN);
	req->hdr.command = cpu_to_le16(SVC_SMB2_NEGOTIATE);
	req->hdr.credits = cpu_to_le16(31);
	req->structure_size = cpu_to_le16(SVC_SMB2_NEG_REQ_LEN);
	req->dialect_count = cpu_to_le16(ndialects);
	req->security_mode = cpu_to_le16(SVC_SMB2_SIGNING_ON);
	req->capabilities = cpu_to_le32(SVC_SMB2_CAP_LARGE_MTU);
	get_random_bytes(req->client_guid, sizeof(req->client_guid));
	for (i = 0; i < ndialects; i++)
		req->dialects[i] = cpu_to_le16(svc_dialects[i]);
	len = struct_size(req, dialects, ndialects);
	if (!smb311)
		return len;

	/* 3.1.1 needs a preauth integrity context, 8-byte aligned. */
	len = ALIGN(len, 8);
	req->context_offset = cpu_to_le32(len);
	req->context_count = cpu_to_le16(1);
	pa = (struct svc_preauth_context *)(buf + len);
	pa->ctx.type = cpu_to_le16(SVC_PREAUTH_CONTEXT);
	pa->ctx.data_length = cpu_to_le16(sizeof(*pa) - sizeof(pa->ctx));
	pa->hash_count = cpu_to_le16(1);
	pa->salt_length = cpu_to_le16(SVC_PREAUTH_SALT_LEN);
	pa->hash = cpu_to_le16(SVC_PREAUTH_SHA512);
	get_random_bytes(pa->salt, sizeof(pa->salt));
	return len + sizeof(*pa);
}

/* Check the negotiate contexts of a 3.1.1 response. */
static int svc_negotiate_contexts(const u8 *buf, u32 len,
				  const struct svc_smb2_neg_rsp *rsp)
{
	u32 off = le32_to_cpu(rsp->context_offset);
	u32 count = le16_to_cpu(rsp->context_count), i, dlen = 0;
	const struct svc_preauth_context *pa;
	const struct svc_smb2_context *ctx;
	bool preauth = false;

	if (!count || off < sizeof(*rsp) || off % 8) {
		svc_printf("error: 3.1.1 response with %u contexts at offset %u\n",
			   count, off);
		return -EBADMSG;
	}
	for (i = 0; i < count; i++, off = ALIGN(off + sizeof(*ctx) + dlen, 8)) {
		if (off > len || len - off < sizeof(*ctx)) {
			svc_printf("error: context %u at %u beyond the %u-byte message\n",
				   i, off, len);
			return -EBADMSG;
		}
		ctx = (const struct svc_smb2_context *)(buf + off);
		dlen = le16_to_cpu(ctx->data_length);
		if (len - off - sizeof(*ctx) < dlen) {
			svc_printf("error: context %u (type %u) of %u bytes overruns the message\n",
				   i, le16_to_cpu(ctx->type), dlen);
			return -EBADMSG;
		}
		svc_printf("context: type=%u length=%u\n", le16_to_cpu(ctx->type),
			   dlen);
		if (le16_to_cpu(ctx->type) != SVC_PREAUTH_CONTEXT)
			continue;
		pa = (const struct svc_preauth_context *)ctx;
		if (dlen < 6 || le16_to_cpu(pa->hash_count) != 1 ||
		    le16_to_cpu(pa->hash) != SVC_PREAUTH_SHA512 ||
		    dlen - 6 < le16_to_cpu(pa->salt_length)) {
			svc_printf("error: bad preauth integrity context\n");
			return -EBADMSG;
		}
		svc_printf("preauth: hash=sha512 salt_length=%u\n",
			   le16_to_cpu(pa->salt_length));
		preauth = true;
	}
	if (!preauth) {
		svc_printf("error: 3.1.1 response without a preauth integrity context\n");
		return -EBADMSG;
	}
	return 0;
}

/* Validate an SMB2 NEGOTIATE response of @len bytes to our request. */
static int svc_negotiate_check(const u8 *buf, u32 len, u32 ndialects)
{
	const struct svc_smb2_neg_rsp *rsp = (const struct svc_smb2_neg_rsp *)buf;
	u32 status, flags, soff, slen, i;
	u16 dialect;

	if (len < SVC_SMB2_HDR_LEN || !svc_is_smb2(buf, len)) {
		svc_printf("error: not an SMB2 message (%u bytes, %*phN)\n", len,
			   (int)min_t(u32, len, 8), buf);
		return -EBADMSG;
	}
	status = le32_to_cpu(rsp->hdr.status);
	flags = le32_to_cpu(rsp->hdr.flags);
	svc_printf("response: %u bytes, command=%u status=0x%08x flags=0x%08x ",
		   len, le16_to_cpu(rsp->hdr.command), status, flags);
	svc_printf("message_id=%llu credits=%u\n",
		   le64_to_cpu(rsp->hdr.message_id), le16_to_cpu(rsp->hdr.credits));
	if (le16_to_cpu(rsp->hdr.command) != SVC_SMB2_NEGOTIATE ||
	    !(flags & SVC_SMB2_FLAG_RESPONSE) || rsp->hdr.message_id ||
	    rsp->hdr.next_command) {
		svc_printf("error: not the response to our NEGOTIATE\n");
		return -EBADMSG;
	}
	if (status) {
		svc_printf("error: the server refused: status 0x%08x\n", status);
		return -EREMOTEIO;
	}
	if (len < sizeof(*rsp) ||
	    le16_to_cpu(rsp->structure_size) != SVC_SMB2_NEG_RSP_LEN) {
		svc_printf("error: negotiate response body: StructureSize %u in %u bytes\n",
			   len >= sizeof(*rsp) ? le16_to_cpu(rsp->structure_size) : 0,
			   len);
		return -EBADMSG;
	}
	dialect = le16_to_cpu(rsp->dialect);
	for (i = 0; i < ndialects; i++)
		if (dialect == svc_dialects[i])
			break;
	if (i == ndialects) {
		svc_printf("error: dialect 0x%04x was not offered\n", dialect);
		return -EBADMSG;
	}
	soff = le16_to_cpu(rsp->security_buffer_offset);
	slen = le16_to_cpu(rsp->security_buffer_length);
	if (slen && (soff < sizeof(*rsp) || soff > len || len - soff < slen)) {
		svc_printf("error: security buffer %u+%u outside the %u-byte message\n",
			   soff, slen, len);
		return -EBADMSG;
	}
	svc_printf("dialect=0x%04x security_mode=0x%04x capabilities=0x%08x\n",
		   dialect, le16_to_cpu(rsp->security_mode),
		   le32_to_cpu(rsp->capabilities));
	svc_printf("max_transact_size=%u max_read_size=%u max_write_size=%u security_buffer=%u\n",
		   le32_to_cpu(rsp->max_transact_size),
		   le32_to_cpu(rsp->max_read_size),
		   le32_to_cpu(rsp->max_write_size), slen);
	if (dialect == SVC_SMB311)
		return svc_negotiate_contexts(buf, len, rsp);
	return 0;
}

/*
 * negotiate ADDR [PORT] [smb311=1] [timeout_ms=N] [OPTIONS]: connect, send
 * one SMB2 NEGOTIATE request offering 2.0.2, 2.1, 3.0 and 3.0.2 (and 3.1.1
 * with smb311=1) as one SMB Direct message, wait for one message back and
 * check that it is a valid, successful NEGOTIATE response.
 */
static int svc_negotiate(int argc, char **argv)
{
	u32 ndialects, len, rlen;
	struct smbdx_conn *conn;
	struct smbdx_msg *msg;
	struct iov_iter it;
	struct svc_args a;
	struct kvec kv;
	u8 *buf;
	long tmo;
	int rc;

	rc = svc_parse(argc, argv, &a);
	if (rc)
		return rc;
	ndialects = ARRAY_SIZE(svc_dialects) - !a.interop.smb311;
	tmo = msecs_to_jiffies(a.interop.timeout_ms ?: SVC_NEG_TIMEOUT_MS);
	buf = kvmalloc(SVC_NEG_RSP_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	conn = smbdx_connect(&init_net, (struct sockaddr *)&a.addr, NULL, &a.cfg,
			    NULL, NULL);
	if (IS_ERR(conn)) {
		svc_printf("error: connect to %pISpc: %ld\n", &a.addr,
			   PTR_ERR(conn));
		kvfree(buf);
		return PTR_ERR(conn);
	}
	svc_printf("connected: ");
	svc_print_info(conn);

	len = svc_negotiate_build(buf, ndialects, a.interop.smb311);
	kv.iov_base = buf;
	kv.iov_len = len;
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	rc = smbdx_send(conn, &it, 0, 0);
	if (rc) {
		svc_printf("error: send: %d\n", rc);
		goto out;
	}
	svc_printf("sent SMB2 NEGOTIATE: %u bytes, %u dialects up to 0x%04x\n",
		   len, ndialects, svc_dialects[ndialects - 1]);

	rc = smbdx_recv_msg(conn, tmo, &msg);
	if (rc == -EAGAIN)
		rc = -ETIMEDOUT;
	if (rc) {
		svc_printf("error: no response: %d\n", rc);
		goto out;
	}
	rlen = smbdx_msg_len(msg);
	if (rlen > SVC_NEG_RSP_MAX) {
		svc_printf("error: a %u-byte response\n", rlen);
		smbdx_msg_free(msg);
		rc = -EMSGSIZE;
		goto out;
	}
	kv.iov_len = rlen;
	iov_iter_kvec(&it, ITER_DEST, &kv, 1, rlen);
	if (smbdx_msg_copy(msg, 0, &it) != rlen) {
		svc_printf("error: could not copy the %u-byte response\n", rlen);
		rc = -EFAULT;
	}
	smbdx_msg_free(msg);
	if (!rc)
		rc = svc_negotiate_check(buf, rlen, ndialects);
	if (!rc)
		svc_printf("valid SMB2 NEGOTIATE response\n");
out:
	smbdx_destroy(conn);
	kvfree(buf);
	return rc;
}

static int svc_open(const char *name, struct svc_args *a,
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

static bool svc_echoes_done(struct smbdx_test_client *cl, u64 want)
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

static int svc_cmd_send(int argc, char **argv)
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

static int svc_close(int argc, char **argv)
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

static int svc_run(int argc, char **argv)
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

/* ---- benchmark commands: ping (round-trip latency), stream (rate) ---- */

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

static u16 svc_port(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET ?
	       ntohs(((const struct sockaddr_in *)ss)->sin_port) :
	       ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
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
			if (svc_addr_eq(&mine.local, &theirs.peer) &&
			    svc_port(&mine.local) == svc_port(&theirs.peer)) {
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

/* The benchmark commands: argv[0] is "ping" or "stream". */
static int svc_bench_command(int argc, char **argv)
{
	if (!strcmp(argv[0], "ping"))
		return svc_ping(argc - 1, argv + 1);
	return svc_stream(argc - 1, argv + 1);
}

#define SVC_MAX_ARGS	16

static int svc_command(char *line)
{
	char *argv[SVC_MAX_ARGS], *tok;
	int argc = 0;

	while ((tok = strsep(&line, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		if (argc == SVC_MAX_ARGS)
			return -E2BIG;
		argv[argc++] = tok;
	}
	if (!argc)
		return -EINVAL;
	if (!strcmp(argv[0], "ping") || !strcmp(argv[0], "stream"))
		return svc_bench_command(argc, argv);
	if (!strcmp(argv[0], "listen"))
		return svc_listen(argc - 1, argv + 1);
	if (!strcmp(argv[0], "unlisten"))
		return svc_unlisten(argc - 1, argv + 1);
	if (!strcmp(argv[0], "open")) {
		struct smbdx_test_client *cl;
		struct svc_args a;
		int rc;

		if (argc < 3)
			return -EINVAL;
		rc = svc_parse(argc - 2, argv + 2, &a);
		return rc ? rc : svc_open(argv[1], &a, &cl);
	}
	if (!strcmp(argv[0], "send"))
		return svc_cmd_send(argc - 1, argv + 1);
	if (!strcmp(argv[0], "close"))
		return svc_close(argc - 1, argv + 1);
	if (!strcmp(argv[0], "run"))
		return svc_run(argc - 1, argv + 1);
	if (!strcmp(argv[0], "negotiate"))
		return svc_negotiate(argc - 1, argv + 1);
	return -EINVAL;
}

static ssize_t svc_control_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	char *line;
	int rc;

	if (len >= PAGE_SIZE)
		return -E2BIG;
	line = memdup_user_nul(ubuf, len);
	if (IS_ERR(line))
		return PTR_ERR(line);
	mutex_lock(&svc_mutex);
	svc_result_len = 0;
	svc_result[0] = '\0';
	rc = svc_command(line);
	if (rc && !svc_result_len)
		svc_printf("error: %d\n", rc);
	mutex_unlock(&svc_mutex);
	kfree(line);
	return rc ? rc : len;
}

static const struct file_operations svc_control_fops = {
	.owner = THIS_MODULE,
	.write = svc_control_write,
	.llseek = noop_llseek,
};

static int svc_result_show(struct seq_file *m, void *unused)
{
	mutex_lock(&svc_mutex);
	seq_puts(m, svc_result);
	mutex_unlock(&svc_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(svc_result);

static int svc_status_show(struct seq_file *m, void *unused)
{
	struct smbdx_test_listener *tl;
	struct smbdx_test_client *cl;
	struct smbdx_test_sconn *sc;

	mutex_lock(&svc_mutex);
	list_for_each_entry(tl, &svc_listeners, list) {
		seq_printf(m, "listener %s %pISc port=%d accepted=%lld",
			   tl->mode == SMBDX_TEST_ECHO ? "echo" : "sink",
			   &tl->addr, tl->port,
			   (long long)atomic64_read(&tl->accepted));
		spin_lock_bh(&svc_lock);
		svc_interop_show(m, &tl->seen);
		list_for_each_entry(sc, &tl->conns, list) {
			seq_printf(m, "  server conn=%u messages=%lld bytes=%lld echo_errors=%lld error=%d",
				   smbdx_conn_id(sc->conn),
				   (long long)atomic64_read(&sc->msgs),
				   (long long)atomic64_read(&sc->bytes),
				   (long long)atomic64_read(&sc->echo_errors),
				   smbdx_conn_error(sc->conn));
			svc_interop_show(m, &sc->seen);
		}
		spin_unlock_bh(&svc_lock);
	}
	list_for_each_entry(cl, &svc_clients, list)
		seq_printf(m, "client %s conn=%u peer=%pISpc sent=%lld received=%lld verified=%lld mismatched=%lld error=%d\n",
			   cl->name, smbdx_conn_id(cl->conn), &cl->addr,
			   (long long)atomic64_read(&cl->sent),
			   (long long)atomic64_read(&cl->received),
			   (long long)atomic64_read(&cl->verified),
			   (long long)atomic64_read(&cl->mismatched),
			   smbdx_conn_error(cl->conn));
	mutex_unlock(&svc_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(svc_status);

static int __init svc_init(void)
{
	svc_result = kzalloc(SMBDX_TEST_RESULT_MAX, GFP_KERNEL);
	if (!svc_result)
		return -ENOMEM;
	INIT_WORK(&svc_reaper, svc_reaper_fn);
	svc_dir = debugfs_create_dir("smbd_test", NULL);
	debugfs_create_file("control", 0200, svc_dir, NULL, &svc_control_fops);
	debugfs_create_file("result", 0444, svc_dir, NULL, &svc_result_fops);
	debugfs_create_file("status", 0444, svc_dir, NULL, &svc_status_fops);
	return 0;
}

static void __exit svc_exit(void)
{
	struct smbdx_test_listener *tl, *tlt;
	struct smbdx_test_client *cl, *clt;

	debugfs_remove_recursive(svc_dir);
	mutex_lock(&svc_mutex);
	list_for_each_entry_safe(cl, clt, &svc_clients, list)
		svc_client_free(cl);
	list_for_each_entry_safe(tl, tlt, &svc_listeners, list)
		svc_listener_free(tl);
	mutex_unlock(&svc_mutex);
	cancel_work_sync(&svc_reaper);
	kfree(svc_result);
}

module_init(svc_init);
module_exit(svc_exit);

MODULE_DESCRIPTION("SMB Direct test and demo service (echo/sink listeners, client)");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SMBDX_NS);
