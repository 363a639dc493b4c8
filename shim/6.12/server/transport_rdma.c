// SPDX-License-Identifier: GPL-2.0
/*
 * ksmbd's SMB Direct transport for Linux 6.12, as a thin adapter onto
 * smbdirect.ko (include/smbdirect/smbdirect.h). It replaces
 * fs/smb/server/transport_rdma.c when scripts/build-smb-modules.sh builds
 * ksmbd.ko and holds no RDMA logic of its own.
 *
 * Normal operation:
 *  - ksmbd_rdma_init() starts an smbdirect listener in pull mode on every
 *    device at the device's own port. smbdirect accepts the RDMA
 *    connection and negotiates SMB Direct (a listener holds at most
 *    smbdirect's max_negotiating connections before that); then
 *    ksmbd_rdma_accept() applies ksmbd.conf's "max connections" and "max
 *    ip connections" to RDMA connections (counted apart from TCP's, as
 *    TCP counts its own), creates the ksmbd_transport and ksmbd_conn and
 *    starts ksmbd's connection thread, as the TCP transport does.
 *  - ksmbd reads a byte stream of RFC 1002 framed PDUs. .read presents each
 *    SMB Direct message as that stream: at a message boundary it takes the
 *    next whole message (smbdx_recv_msg()) and the stream starts with its
 *    length, 4 bytes big-endian, followed by its bytes. Waits end every
 *    KSMBD_TCP_RECV_TIMEOUT to check ksmbd_conn_alive(), as TCP's do.
 *  - .writev sends a response, less its 4-byte RFC 1002 length, as one
 *    message (smbdx_send()), with Send with Invalidate of the client's
 *    token when ksmbd asks for it (SMB2_CHANNEL_RDMA_V1_INVALIDATE).
 *  - .rdma_read and .rdma_write move an SMB2 WRITE's or READ's data with
 *    smbdx_rdma_read() and smbdx_rdma_write() against the client's buffer
 *    descriptors, which smbdirect checks.
 *
 * Concurrency: one ksmbd connection thread per connection calls .prepare
 * and .read; ksmbd serialises .writev (conn->srv_mutex); .rdma_read and
 * .rdma_write come from request workers and may run concurrently, which
 * smbdirect allows. ksmbd_rdma_init(), ksmbd_rdma_stop_listening() and
 * ksmbd_rdma_destroy() run under ksmbd's init_lock.
 *
 * Transport recovery: .shutdown (server stop, ksmbd_conn_abort()) and
 * .disconnect (the end of the connection thread) only disconnect
 * (smbdx_disconnect()), which ends every wait at once; the transport and
 * its smbdirect connection are freed by .free_transport when ksmbd drops
 * the connection's last reference, which durable handles or oplock breaks
 * may hold long after the disconnect: until then every call fails with
 * the connection's error instead of touching freed memory.
 *
 * The RDMA transforms agreed on a connection (@xform) are written by the
 * NEGOTIATE, which ksmbd runs before any other request of the connection
 * and under conn->srv_mutex, and read by READ and WRITE workers afterwards:
 * WRITE_ONCE()/READ_ONCE(), no lock.
 */

#define SUBMOD_NAME	"smbdirect"

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kthread.h>
#include <linux/uio.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <smbdirect/smbdirect.h>

#include "glob.h"
#include "connection.h"
#include "smb_common.h"
#include "smb2pdu.h"
#include "server.h"
#include "transport_rdma.h"

MODULE_IMPORT_NS(SMBDX_NS);

/* The SMB Direct ports ([MS-SMBD] 1.9). */
#define KSMBD_RDMA_PORT_IWARP	5445
#define KSMBD_RDMA_PORT_IB	445

/* Bounds of the RDMA read/write size ("smbd max io size"), bytes. */
#define KSMBD_RDMA_MIN_IOSIZE	(512 * 1024)
#define KSMBD_RDMA_DEF_IOSIZE	(8 * 1024 * 1024)
#define KSMBD_RDMA_MAX_IOSIZE	(16 * 1024 * 1024)

/* Length field of the stream form of a message. */
#define KSMBD_RDMA_RFC1002_LEN	4

/*
 * MaxFragmentedRecvSize offered to clients: Windows' 1 MiB, so that an
 * encrypted (or signed) READ or WRITE of cifs's usual 1 MiB fits in one
 * message; smbdirect copies fragments out of the receive buffers.
 */
#define KSMBD_RDMA_MAX_FRAG_RECV	(1024 * 1024)

/**
 * struct ksmbd_rdma_transport - a ksmbd transport on an smbdirect connection
 * @transport: ksmbd's part
 * @conn: the smbdirect connection, owned
 * @msg: message being read by .read, NULL at a message boundary
 * @msg_len: its length
 * @pos: bytes of the stream form of @msg (4-byte length, then the
 *	message) .read has returned
 * @len_be: @msg_len big-endian, the stream's 4-byte length field
 * @xform: the MS-SMB2 RDMA transforms agreed in the NEGOTIATE
 *	(Connection.RDMATransformIds as SMBDX_XF_* bits, ksmbd_xform.c)
 */
struct ksmbd_rdma_transport {
	struct ksmbd_transport transport;
	struct smbdx_conn *conn;
	struct smbdx_msg *msg;
	u32 msg_len;
	u32 pos;
	__be32 len_be;
	u8 xform;
};

static unsigned int ksmbd_rdma_max_io_size = KSMBD_RDMA_DEF_IOSIZE;

/*
 * RDMA connections handed to ksmbd and not yet disconnected, held to
 * ksmbd.conf's "max connections" as the TCP transport holds its own.
 */
static atomic_t ksmbd_rdma_active = ATOMIC_INIT(0);

static struct smbdx_listener *ksmbd_rdma_listener;

static const struct ksmbd_transport_ops ksmbd_rdma_transport_ops;

static struct ksmbd_rdma_transport *ksmbd_rdma_trans(struct ksmbd_transport *kt)
{
	return container_of(kt, struct ksmbd_rdma_transport, transport);
}

/**
 * init_smbd_max_io_size() - set the largest RDMA read or write
 * @sz: bytes ("smbd max io size" of ksmbd.conf), clamped to 512 KiB-16 MiB
 *
 * Offered as MaxReadWriteSize by listeners started afterwards.
 */
void init_smbd_max_io_size(unsigned int sz)
{
	WRITE_ONCE(ksmbd_rdma_max_io_size,
		   clamp_val(sz, KSMBD_RDMA_MIN_IOSIZE, KSMBD_RDMA_MAX_IOSIZE));
}

/**
 * get_smbd_max_read_write_size() - the largest RDMA read or write
 *
 * Return: bytes; ksmbd refuses larger SMB2 READ and WRITE on an RDMA
 * channel.
 */
unsigned int get_smbd_max_read_write_size(void)
{
	return READ_ONCE(ksmbd_rdma_max_io_size);
}

/**
 * ksmbd_rdma_conn() - is a ksmbd connection on our SMB Direct transport
 * @kc: the connection
 *
 * Return: true if @kc's transport is this file's.
 */
bool ksmbd_rdma_conn(struct ksmbd_conn *kc)
{
	return kc->transport && kc->transport->ops == &ksmbd_rdma_transport_ops;
}

/**
 * ksmbd_rdma_xform_set() - record the RDMA transforms agreed on a connection
 * @kc: the connection
 * @ids: SMBDX_XF_ENCRYPTION and/or SMBDX_XF_SIGNING, or 0
 *
 * Context: the NEGOTIATE of @kc (conn->srv_mutex held).
 * Return: 0, or -ENOTCONN if @kc is not an SMB Direct connection.
 */
int ksmbd_rdma_xform_set(struct ksmbd_conn *kc, u8 ids)
{
	if (!ksmbd_rdma_conn(kc))
		return -ENOTCONN;
	WRITE_ONCE(ksmbd_rdma_trans(kc->transport)->xform, ids);
	return 0;
}

/**
 * ksmbd_rdma_xform_get() - the RDMA transforms agreed on a connection
 * @kc: the connection
 *
 * Context: any.
 * Return: SMBDX_XF_* bits; 0 if none or @kc is not an SMB Direct connection.
 */
u8 ksmbd_rdma_xform_get(struct ksmbd_conn *kc)
{
	if (!ksmbd_rdma_conn(kc))
		return 0;
	return READ_ONCE(ksmbd_rdma_trans(kc->transport)->xform);
}

static void ksmbd_rdma_set_peer(struct ksmbd_conn *kc,
				const struct sockaddr_storage *peer)
{
	memcpy(&kc->peer_addr, peer, sizeof(kc->peer_addr));
#if IS_ENABLED(CONFIG_IPV6)
	if (peer->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)peer;

		memcpy(kc->inet6_addr, &sin6->sin6_addr, 16);
		kc->inet_hash = ipv6_addr_hash(&sin6->sin6_addr);
		return;
	}
#endif
	if (peer->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)peer;

		kc->inet_addr = sin->sin_addr.s_addr;
		kc->inet_hash = ipv4_addr_hash(sin->sin_addr.s_addr);
	}
}

/* Connections ksmbd has from the address of @peer, as the TCP path counts. */
static unsigned int ksmbd_rdma_conns_from(const struct sockaddr_storage *peer)
{
	struct ksmbd_conn probe = {}, *c;
	unsigned int n = 0;

	ksmbd_rdma_set_peer(&probe, peer);
	down_read(&conn_list_lock);
	hash_for_each_possible(conn_list, c, hlist, probe.inet_hash) {
#if IS_ENABLED(CONFIG_IPV6)
		if (peer->ss_family == AF_INET6) {
			if (!memcmp(c->inet6_addr, probe.inet6_addr, 16))
				n++;
			continue;
		}
#endif
		if (c->inet_addr == probe.inet_addr)
			n++;
	}
	up_read(&conn_list_lock);
	return n;
}

/*
 * ksmbd.conf's "max connections" and "max ip connections" (server_conf),
 * applied to RDMA connections as the TCP transport applies them to its
 * own: a connection over either limit is refused (smbdirect disconnects
 * it). On success the connection counts in ksmbd_rdma_active until
 * ksmbd_rdma_disconnect().
 */
static int ksmbd_rdma_admit(const struct sockaddr_storage *peer)
{
	if (server_conf.max_ip_connections &&
	    ksmbd_rdma_conns_from(peer) >= server_conf.max_ip_connections) {
		pr_info_ratelimited("refusing %pISc: max ip connections (%u)\n",
				    peer, server_conf.max_ip_connections);
		return -EAGAIN;
	}
	if (atomic_inc_return(&ksmbd_rdma_active) > server_conf.max_connections &&
	    server_conf.max_connections) {
		atomic_dec(&ksmbd_rdma_active);
		pr_info_ratelimited("refusing %pISc: max connections (%u)\n",
				    peer, server_conf.max_connections);
		return -EAGAIN;
	}
	return 0;
}

static int ksmbd_rdma_accept(struct smbdx_listener *lis, struct smbdx_conn *conn)
{
	struct ksmbd_rdma_transport *t;
	struct task_struct *handler;
	struct smbdx_conn_info ci;
	struct ksmbd_conn *kc;
	int rc;

	smbdx_conn_query(conn, &ci);
	rc = ksmbd_rdma_admit(&ci.peer);
	if (rc)
		return rc;
	t = kzalloc(sizeof(*t), KSMBD_DEFAULT_GFP);
	if (!t) {
		atomic_dec(&ksmbd_rdma_active);
		return -ENOMEM;
	}
	kc = ksmbd_conn_alloc();
	if (!kc) {
		atomic_dec(&ksmbd_rdma_active);
		kfree(t);
		return -ENOMEM;
	}
	ksmbd_rdma_set_peer(kc, &ci.peer);
	down_write(&conn_list_lock);
	hash_add(conn_list, &kc->hlist, kc->inet_hash);
	up_write(&conn_list_lock);

	t->conn = conn;
	t->transport.conn = kc;
	t->transport.ops = &ksmbd_rdma_transport_ops;
	kc->transport = &t->transport;
	smbdx_conn_set_context(conn, t);

	handler = kthread_run(ksmbd_conn_handler_loop, kc, "ksmbd:r%u",
			      smbdx_conn_id(conn));
	if (IS_ERR(handler)) {
		pr_err("cannot start the connection thread: %ld\n",
		       PTR_ERR(handler));
		/* Refused: smbdirect frees the connection itself. */
		t->conn = NULL;
		ksmbd_conn_free(kc);
		atomic_dec(&ksmbd_rdma_active);
		return PTR_ERR(handler);
	}
	ksmbd_debug(RDMA, "connection %u from %pISpc on %s\n",
		    smbdx_conn_id(conn), &ci.peer, ci.device);
	return 0;
}

static const struct smbdx_listener_ops ksmbd_rdma_listener_ops = {
	.accept = ksmbd_rdma_accept,
};

static int ksmbd_rdma_prepare(struct ksmbd_transport *kt)
{
	/* smbdirect negotiated SMB Direct before handing the connection over. */
	return smbdx_conn_error(ksmbd_rdma_trans(kt)->conn);
}

/* Wait for the next message; the stream of the previous one is done. */
static int ksmbd_rdma_next_msg(struct ksmbd_rdma_transport *t, int max_retries)
{
	int rc;

	for (;;) {
		if (!ksmbd_conn_alive(t->transport.conn))
			return -ESHUTDOWN;
		rc = smbdx_recv_msg(t->conn, KSMBD_TCP_RECV_TIMEOUT, &t->msg);
		if (rc != -EAGAIN)
			break;
		if (!max_retries)
			return rc;
		if (max_retries > 0)
			max_retries--;
	}
	if (rc)
		return rc;
	t->msg_len = smbdx_msg_len(t->msg);
	t->len_be = cpu_to_be32(t->msg_len);
	t->pos = 0;
	return 0;
}

static int ksmbd_rdma_read(struct ksmbd_transport *kt, char *buf,
			   unsigned int size, int max_retries)
{
	struct ksmbd_rdma_transport *t = ksmbd_rdma_trans(kt);
	struct kvec kv = { .iov_base = buf, .iov_len = size };
	struct iov_iter to;
	size_t n, done = 0;
	int rc;

	if (!t->msg) {
		rc = ksmbd_rdma_next_msg(t, max_retries);
		if (rc)
			return rc;
	}
	iov_iter_kvec(&to, ITER_DEST, &kv, 1, size);
	if (t->pos < KSMBD_RDMA_RFC1002_LEN && iov_iter_count(&to)) {
		n = min_t(size_t, KSMBD_RDMA_RFC1002_LEN - t->pos,
			  iov_iter_count(&to));
		memcpy(buf, (u8 *)&t->len_be + t->pos, n);
		iov_iter_advance(&to, n);
		t->pos += n;
		done += n;
	}
	if (t->pos >= KSMBD_RDMA_RFC1002_LEN && iov_iter_count(&to)) {
		n = smbdx_msg_copy(t->msg, t->pos - KSMBD_RDMA_RFC1002_LEN, &to);
		t->pos += n;
		done += n;
	}
	if (t->pos == KSMBD_RDMA_RFC1002_LEN + t->msg_len) {
		smbdx_msg_free(t->msg);
		t->msg = NULL;
	}
	return done;
}

static int ksmbd_rdma_writev(struct ksmbd_transport *kt, struct kvec *iovs,
			     int niov, int size, bool need_invalidate,
			     unsigned int remote_key)
{
	struct ksmbd_rdma_transport *t = ksmbd_rdma_trans(kt);
	struct iov_iter from;

	if (niov <= 0 || size < KSMBD_RDMA_RFC1002_LEN)
		return -EINVAL;
	/* The response without its RFC 1002 length: [MS-SMBD] 2.2.3. */
	iov_iter_kvec(&from, ITER_SOURCE, iovs, niov, size);
	iov_iter_advance(&from, KSMBD_RDMA_RFC1002_LEN);
	return smbdx_send(t->conn, &from, remote_key,
			  need_invalidate ? SMBDX_SEND_INVALIDATE : 0);
}

static int ksmbd_rdma_rw(struct ksmbd_transport *kt, void *buf,
			 unsigned int len, struct smb2_buffer_desc_v1 *desc,
			 unsigned int desc_len, bool read)
{
	struct ksmbd_rdma_transport *t = ksmbd_rdma_trans(kt);
	const struct smbdx_buffer_desc_v1 *d = (const void *)desc;
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	u32 ndescs = desc_len / sizeof(*d);
	struct iov_iter it;

	BUILD_BUG_ON(sizeof(*desc) != sizeof(*d));
	if (!len)
		return 0;
	if (read) {
		iov_iter_kvec(&it, ITER_DEST, &kv, 1, len);
		return smbdx_rdma_read(t->conn, &it, d, ndescs, 0);
	}
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	return smbdx_rdma_write(t->conn, &it, d, ndescs, 0);
}

static int ksmbd_rdma_read_remote(struct ksmbd_transport *kt, void *buf,
				  unsigned int len,
				  struct smb2_buffer_desc_v1 *desc,
				  unsigned int desc_len)
{
	return ksmbd_rdma_rw(kt, buf, len, desc, desc_len, true);
}

static int ksmbd_rdma_write_remote(struct ksmbd_transport *kt, void *buf,
				   unsigned int len,
				   struct smb2_buffer_desc_v1 *desc,
				   unsigned int desc_len)
{
	return ksmbd_rdma_rw(kt, buf, len, desc, desc_len, false);
}

static void ksmbd_rdma_shutdown(struct ksmbd_transport *kt)
{
	smbdx_disconnect(ksmbd_rdma_trans(kt)->conn);
}

static void ksmbd_rdma_disconnect(struct ksmbd_transport *kt)
{
	smbdx_disconnect(ksmbd_rdma_trans(kt)->conn);
	atomic_dec(&ksmbd_rdma_active);
	/* Drops the thread's reference: .free_transport may follow at once. */
	ksmbd_conn_free(kt->conn);
}

static void ksmbd_rdma_free_transport(struct ksmbd_transport *kt)
{
	struct ksmbd_rdma_transport *t = ksmbd_rdma_trans(kt);

	if (t->msg)
		smbdx_msg_free(t->msg);
	if (t->conn)
		smbdx_destroy(t->conn);
	kfree(t);
}

static const struct ksmbd_transport_ops ksmbd_rdma_transport_ops = {
	.prepare	= ksmbd_rdma_prepare,
	.disconnect	= ksmbd_rdma_disconnect,
	.shutdown	= ksmbd_rdma_shutdown,
	.read		= ksmbd_rdma_read,
	.writev		= ksmbd_rdma_writev,
	.rdma_read	= ksmbd_rdma_read_remote,
	.rdma_write	= ksmbd_rdma_write_remote,
	.free_transport	= ksmbd_rdma_free_transport,
};

/**
 * ksmbd_rdma_init() - start listening for SMB Direct clients
 *
 * Listens on every RDMA device, present or added later, at the device's
 * own port: 445 on InfiniBand/RoCE, 5445 on iWARP ([MS-SMBD] 1.9), and
 * only there. smbdirect does that for the wildcard address with port 0
 * (one listener per address of each device): a wildcard listener on 445
 * would collide on iWARP devices with ksmbd's own TCP listener on 445.
 *
 * Context: process, ksmbd's init_lock held.
 *
 * Return: 0, or a negative errno if smbdirect could not start listening.
 */
int ksmbd_rdma_init(void)
{
	struct sockaddr_in any = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	struct smbdx_conn_config cfg;
	struct smbdx_listener *lis;

	smbdx_conn_config_init(&cfg);
	cfg.proto.max_read_write_size = get_smbd_max_read_write_size();
	cfg.proto.max_fragmented_recv_size = KSMBD_RDMA_MAX_FRAG_RECV;
	lis = smbdx_listen(&init_net, (struct sockaddr *)&any, &cfg,
			   &ksmbd_rdma_listener_ops, NULL);
	if (IS_ERR(lis)) {
		pr_err("cannot listen: %ld\n", PTR_ERR(lis));
		return PTR_ERR(lis);
	}
	ksmbd_rdma_listener = lis;
	ksmbd_debug(RDMA, "listening on every RDMA device\n");
	return 0;
}

/**
 * ksmbd_rdma_stop_listening() - stop accepting SMB Direct clients
 *
 * Connections already handed to ksmbd are not affected.
 *
 * Context: process, ksmbd's init_lock held.
 */
void ksmbd_rdma_stop_listening(void)
{
	if (ksmbd_rdma_listener)
		smbdx_listener_destroy(ksmbd_rdma_listener);
	ksmbd_rdma_listener = NULL;
}

/**
 * ksmbd_rdma_destroy() - release what ksmbd_rdma_init() set up
 *
 * Nothing is left once the listener is gone: connections are freed with
 * their ksmbd_conn.
 *
 * Context: process.
 */
void ksmbd_rdma_destroy(void)
{
	ksmbd_rdma_stop_listening();
}

/**
 * ksmbd_rdma_capable_netdev() - can clients reach us over RDMA here
 * @netdev: network device
 *
 * Context: process; ksmbd calls it with the RTNL held.
 *
 * Return: true if a usable RDMA device is bound to @netdev.
 */
bool ksmbd_rdma_capable_netdev(struct net_device *netdev)
{
	return smbdx_netdev_rdma_capable(netdev);
}
