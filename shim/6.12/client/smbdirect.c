// SPDX-License-Identifier: GPL-2.0
/*
 * cifs's SMB Direct transport for Linux 6.12, as a thin adapter onto
 * smbdirect.ko (include/smbdirect/smbdirect.h). It replaces
 * fs/smb/client/smbdirect.c when scripts/build-smb-modules.sh builds
 * cifs.ko and holds no RDMA logic of its own.
 *
 * Normal operation:
 *  - smbd_get_connection() connects with smbdx_connect() in pull mode,
 *    port 5445 first, then 445, as the stock transport does (a stock ksmbd
 *    listens on one of the two only), with a configuration built from the
 *    /proc/fs/cifs tunables. It copies the negotiated parameters into the
 *    fields cifs reads. An SMB2 READ or WRITE carries up to SMBD_MAX_DESCS
 *    buffer descriptors (cifs-rdma-descs.patch), one only to a server whose
 *    MaxReadWriteSize says it may not take two (smbd_descs_for()).
 *    MaxReadWriteSize is capped to what they cover on every usable device
 *    (smbdx_reg_len_floor(): cifs sizes a mount's I/O from its first
 *    channel only): with one descriptor smbdx_conn_info.max_reg_len, with
 *    two a page more where that makes a power of two (siw's 256-page MRs:
 *    1 MiB, like the stock cifs; a buffer that does not start on a page
 *    boundary then takes two descriptors).
 *  - cifs reads a byte stream of RFC 1002 framed PDUs. smbd_recv() presents
 *    each SMB Direct message as that stream: at a message boundary it takes
 *    the next whole message (smbdx_recv_msg()) and the stream starts with
 *    its length, 4 bytes big-endian, followed by its bytes. A wait for a
 *    message ends after SMBD_RECV_TIMEOUT with -EAGAIN, like cifs's TCP
 *    socket, so cifs's receive loop gets to check the server's state.
 *  - smbd_send() sends the requests of one call, a compound, as one SMB
 *    Direct message (smbdx_sendv()): each request's kvec array, then its
 *    data iterator. A send that cannot go out within SMBD_SEND_TIMEOUT_MS
 *    (the server grants no send credits) ends the connection (smbdirect's
 *    io_timeout, set to it) and fails with -EAGAIN, as a stuck send on
 *    cifs's TCP socket does, so that cifs reconnects instead of waiting
 *    with its server lock held.
 *  - smbd_register_mr() registers a READ's buffer for the server's RDMA
 *    Write (cifs passes writing=true) and a WRITE's for its RDMA Read, in
 *    at most max_descs descriptors (SMBDX_REG_MAX_DESCS()), without waiting
 *    for the registration to complete (SMBDX_REG_POSTED: the request that
 *    carries the descriptors is posted after it on the same send queue, and
 *    a failed registration ends the connection); smbd_mr_put_descs() copies
 *    the descriptors into the request. smbd_deregister_mr() ends it;
 *    smbdirect checks whether the server's Send with Invalidate covered it
 *    (the server invalidates the first descriptor's MR; smbdirect
 *    invalidates the others locally), so cifs's need_invalidate is not
 *    needed here.
 *
 * Concurrency: cifs calls smbd_recv(), smbd_reconnect() and, but for the
 * mount's error path, smbd_destroy() from its one receive thread (cifsd) for
 * a server; smbd_send(), smbd_reconnect() and smbd_destroy() on
 * reconnection run under cifs's server lock (cifs_server_lock()).
 * smbd_register_mr() and smbd_deregister_mr() run in I/O submission and
 * completion without that lock. A registration in progress therefore holds
 * a reference on the struct smbd_connection (and smbdx_register() one on
 * the smbdirect connection), so smbd_destroy() never frees what it uses;
 * a registration keeps working after the connection was destroyed
 * (smbdx_deregister() then only frees it). cifs evaluates
 * server->smbd_conn for smbd_register_mr() without the lock, so the
 * pointer it passes may already be freed by a reconnection: smbdirect.h
 * turns the call into smbd_register_mr_at(&server->smbd_conn, ...), which
 * reads the pointer and takes its reference under RCU; smbd_destroy()
 * clears server->smbd_conn and waits for an RCU grace period before it
 * drops the server's reference. The same wait keeps the connection alive
 * for DebugData, which reads server->smbd_conn under cifs_tcp_ses_lock (a
 * spinlock, an RCU reader). cifs's other unlocked reads of
 * server->smbd_conn (smb2pdu.c's rdma_readwrite_threshold, file.c's
 * max_frmr_depth, smb2ops.c's sizes) stay as racy as in stock 6.12
 * (Documentation/design.rst, "Known limits").
 *
 * Transport recovery: a lost connection makes smbd_recv() return the
 * connection's error once the messages received before the loss are read,
 * and smbd_send() return -EAGAIN; cifs then reconnects: smbd_reconnect()
 * destroys the old connection and makes a new one. smbd_destroy() runs with
 * cifs's server lock held, so it first disconnects (failing every waiter at
 * once) and only then destroys, which then does not wait for the Sends
 * still posted.
 */

#include <linux/delay.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/seq_file.h>
#include <smbdirect/smbdirect.h>

#include "cifsglob.h"
#include "cifsproto.h"
#include "cifs_debug.h"
#include "smb2pdu.h"
#include "smbdirect.h"
#include "trace.h"

MODULE_IMPORT_NS(SMBDX_NS);

/* The SMB Direct ports, tried in this order ([MS-SMBD] 1.9). */
#define SMBD_PORT_IWARP		5445
#define SMBD_PORT_IB		445

/* Longest wait for a message in smbd_recv(), like cifs's TCP socket. */
#define SMBD_RECV_TIMEOUT	(7 * HZ)

/*
 * Longest wait in smbd_send() for send credits, like a send on cifs's TCP
 * socket, which gives up after about 15 s ("sends on sock ... stuck for 15
 * seconds").
 */
#define SMBD_SEND_TIMEOUT_MS	15000

/*
 * Longest hold of a registration at the fault point
 * cifs.smbd_fault_hold_register.
 */
#define SMBD_FAULT_HOLD_MAX	(60 * HZ)

/* Length field of the stream form of a message. */
#define SMBD_RFC1002_LEN	4

/*
 * Tunables (/proc/fs/cifs): [MS-SMBD] 3.1.1.1 initial values.
 * MaxFragmentedRecvSize is Windows' 1 MiB rather than the stock client's
 * 173910: cifs sends signed or encrypted I/O in messages and does not cap
 * an encrypted mount's rsize to this, and smbdirect copies fragments out of
 * the receive buffers, so a large reassembly does not hold them.
 */
int smbd_receive_credit_max = 255;
int smbd_send_credit_target = 255;
int smbd_max_send_size = 1364;
int smbd_max_fragmented_recv_size = 1024 * 1024;
int smbd_max_receive_size = 1364;
/* Seconds. */
int smbd_keep_alive_interval = 120;
/* Pages: bounds MaxReadWriteSize. */
int smbd_max_frmr_depth = 2048;
/* Bytes: smaller I/O goes through Send/Receive. */
int rdma_readwrite_threshold = 4096;

/* A tunable as a configuration value: 0 (smbdirect's default) if not > 0. */
static u32 smbd_tunable(const int *v, u32 max)
{
	int x = READ_ONCE(*v);

	return x > 0 ? min_t(u32, x, max) : 0;
}

static void smbd_make_config(struct smbdx_conn_config *cfg)
{
	u64 rw;

	smbdx_conn_config_init(cfg);
	cfg->proto.recv_credit_max = smbd_tunable(&smbd_receive_credit_max,
						  U16_MAX);
	cfg->proto.send_credit_target = smbd_tunable(&smbd_send_credit_target,
						     U16_MAX);
	cfg->proto.max_send_size = smbd_tunable(&smbd_max_send_size, U32_MAX);
	cfg->proto.max_receive_size = smbd_tunable(&smbd_max_receive_size,
						   U32_MAX);
	cfg->proto.max_fragmented_recv_size =
		smbd_tunable(&smbd_max_fragmented_recv_size, U32_MAX);
	rw = (u64)smbd_tunable(&smbd_max_frmr_depth, U32_MAX) * PAGE_SIZE;
	cfg->proto.max_read_write_size = min_t(u64, rw, U32_MAX);
	cfg->proto.keepalive_interval =
		smbd_tunable(&smbd_keep_alive_interval, U32_MAX / MSEC_PER_SEC);
	cfg->keepalive_ms = cfg->proto.keepalive_interval * MSEC_PER_SEC;
	cfg->io_timeout_ms = SMBD_SEND_TIMEOUT_MS;
}

#ifdef CONFIG_FAULT_INJECTION
/*
 * A fault point for the tests (tests/vm/smb_shim.sh): writing 1 to
 * /sys/module/cifs/parameters/smbd_fault_hold_register arms it; the next
 * smbd_register_mr() sets it to 2 and waits, before it looks at the
 * connection, until it is written 0 (at most SMBD_FAULT_HOLD_MAX), so that
 * a test can end and replace the connection exactly there.
 */
static int smbd_fault_hold_register;
module_param(smbd_fault_hold_register, int, 0644);
MODULE_PARM_DESC(smbd_fault_hold_register,
		 "Test fault point: 1 holds the next SMB Direct registration until this is set to 0");

static void smbd_fault_hold(void)
{
	unsigned long end = jiffies + SMBD_FAULT_HOLD_MAX;

	if (cmpxchg(&smbd_fault_hold_register, 1, 2) != 1)
		return;
	while (READ_ONCE(smbd_fault_hold_register) == 2 &&
	       time_before(jiffies, end))
		msleep(20);
	WRITE_ONCE(smbd_fault_hold_register, 0);
}
#else
static inline void smbd_fault_hold(void)
{
}
#endif

/*
 * Buffer descriptors in one READ or WRITE to a server of MaxReadWriteSize
 * @max_rw. Linux 6.12's ksmbd takes an array, but it spends one of the
 * connection's RDMA read/write credits per descriptor (of at most 256
 * pages, the most its MRs hold) and a connection has DIV_ROUND_UP(its
 * MaxReadWriteSize, 255 pages) of them; a request needing more than that
 * waits for credits that never come. With a MaxReadWriteSize above 255
 * pages (the default is 8 MiB) it has at least two; below, one descriptor
 * covers every I/O of that size anyway (MRs of 256 pages and more). This
 * assumes the server's pages are the size of ours.
 */
static unsigned int smbd_descs_for(u32 max_rw)
{
	return max_rw > 255 * PAGE_SIZE ? SMBD_MAX_DESCS : 1;
}

static void smbd_release(struct kref *ref)
{
	struct smbd_connection *info = container_of(ref, struct smbd_connection,
						    ref);

	smbdx_destroy(info->conn);
	kfree(info);
}

/* Fill in what cifs reads from a new connection. */
static void smbd_publish_params(struct smbd_connection *info,
				const struct smbdx_conn_config *cfg)
{
	struct smbdirect_socket_parameters *sp = &info->socket.parameters;
	struct smbdx_conn_info ci;

	smbdx_conn_query(info->conn, &ci);
	sp->recv_credit_max = ci.params.recv_credit_max;
	sp->send_credit_target = ci.params.send_credit_target;
	sp->max_send_size = ci.params.max_send_size;
	sp->max_fragmented_send_size = ci.params.max_fragmented_send_size;
	sp->max_recv_size = ci.params.max_receive_size;
	sp->max_fragmented_recv_size = ci.params.max_fragmented_recv_size;
	sp->keepalive_interval_msec = ci.keepalive_ms;
	sp->keepalive_timeout_msec = cfg->keepalive_wait_ms;
	info->rdma_readwrite_threshold = READ_ONCE(rdma_readwrite_threshold);
	if (ci.max_reg_len) {
		/*
		 * cifs fixes a mount's rsize and wsize from its first channel;
		 * a later channel may run on another device, so the size is
		 * what a registration covers on every usable device: with
		 * one descriptor max_reg_len at any offset; with two a page
		 * more (one descriptor when page-aligned), taken only where
		 * it is a power of two, so that rxe's 257-page MRs keep
		 * 1 MiB rather than 1028 KiB.
		 */
		u32 reg = ci.max_reg_len, floor = smbdx_reg_len_floor(), io;

		if (floor)
			reg = min(reg, floor);
		info->max_descs = smbd_descs_for(ci.params.max_read_write_size);
		io = reg;
		if (info->max_descs > 1 && is_power_of_2(reg + PAGE_SIZE))
			io = reg + PAGE_SIZE;
		sp->max_read_write_size = min(ci.params.max_read_write_size, io);
		/* A buffer without gaps of that size spans this many pages. */
		info->max_frmr_depth = io / PAGE_SIZE + 1;
	} else {
		/* No buffer registration: every I/O goes through messages. */
		sp->max_read_write_size =
			min(sp->max_fragmented_send_size,
			    sp->max_fragmented_recv_size) -
			SMB2_READWRITE_PDU_HEADER_SIZE -
			sizeof(struct smb2_transform_hdr);
		info->max_frmr_depth = 1;
		info->max_descs = 1;
		info->rdma_readwrite_threshold = INT_MAX;
	}
}

static void smbd_set_port(struct sockaddr_storage *ss, u16 port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/**
 * smbd_get_connection() - connect to an SMB server over SMB Direct
 * @server: the cifs server the connection is for
 * @dstaddr: the server's address (IPv4 or IPv6); its port is not used
 *
 * Tries port 5445, then 445, but not after a fatal signal. Uses the
 * server's network namespace and its source address, if one was set.
 *
 * Context: process, may sleep (up to smbdirect's Negotiation Timer, 120 s
 * by default, per port tried); a fatal signal ends the wait at once, at
 * every step (smbdx_connect() leaves the teardown of a killed attempt to
 * smbdirect's work queue).
 *
 * Return: the connection, or NULL if none could be made.
 */
struct smbd_connection *smbd_get_connection(struct TCP_Server_Info *server,
					    struct sockaddr *dstaddr)
{
	static const u16 ports[] = { SMBD_PORT_IWARP, SMBD_PORT_IB };
	struct sockaddr *src = NULL;
	struct smbd_connection *info;
	struct smbdx_conn_config cfg;
	struct sockaddr_storage dst;
	struct smbdx_conn *conn;
	unsigned int i;
	long rc = 0;

	if (dstaddr->sa_family != AF_INET && dstaddr->sa_family != AF_INET6)
		return NULL;
	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return NULL;
	smbd_make_config(&cfg);
	if (server->srcaddr.ss_family != AF_UNSPEC)
		src = (struct sockaddr *)&server->srcaddr;

	for (i = 0; i < ARRAY_SIZE(ports); i++) {
		memset(&dst, 0, sizeof(dst));
		memcpy(&dst, dstaddr, dstaddr->sa_family == AF_INET ?
		       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
		smbd_set_port(&dst, ports[i]);
		conn = smbdx_connect(cifs_net_ns(server), (struct sockaddr *)&dst,
				     src, &cfg, NULL, info);
		if (!IS_ERR(conn))
			break;
		rc = PTR_ERR(conn);
		cifs_dbg(FYI, "SMB Direct connect to %pISpc failed: %ld\n",
			 &dst, rc);
		/*
		 * A killed mount tries no other port: a kill that came while
		 * this attempt failed for another reason must still end it.
		 */
		if (rc == -EINTR || rc == -ERESTARTSYS || rc == -EINVAL ||
		    fatal_signal_pending(current))
			break;
	}
	if (IS_ERR(conn)) {
		cifs_server_dbg(VFS, "SMB Direct connection failed: %ld\n", rc);
		kfree(info);
		return NULL;
	}
	info->conn = conn;
	kref_init(&info->ref);
	smbd_publish_params(info, &cfg);
	cifs_dbg(FYI, "SMB Direct connection %u to %pISpc\n",
		 smbdx_conn_id(conn), &dst);
	return info;
}

/**
 * smbd_destroy() - end the server's SMB Direct connection
 * @server: the cifs server; its smbd_conn is destroyed and set to NULL
 *
 * Disconnects first, so that every wait on the connection ends at once;
 * the connection is freed when no registration is in progress any more.
 *
 * Context: process, may sleep briefly (an RCU grace period, the QP is
 * drained); called with cifs's server lock held on reconnection.
 */
void smbd_destroy(struct TCP_Server_Info *server)
{
	struct smbd_connection *info = server->smbd_conn;

	if (!info)
		return;
	WRITE_ONCE(server->smbd_conn, NULL);
	smbdx_disconnect(info->conn);
	if (info->msg) {
		smbdx_msg_free(info->msg);
		info->msg = NULL;
	}
	/*
	 * Readers that found the connection in server->smbd_conn under RCU
	 * (smbd_register_mr_at(); DebugData, under cifs_tcp_ses_lock) have
	 * taken their reference or are done with it.
	 */
	synchronize_rcu();
	kref_put(&info->ref, smbd_release);
}

/**
 * smbd_reconnect() - replace the server's SMB Direct connection
 * @server: the cifs server
 *
 * Context: process, may sleep; cifs's server lock is held.
 *
 * Return: 0, or -ENOENT if no new connection could be made.
 */
int smbd_reconnect(struct TCP_Server_Info *server)
{
	struct smbd_connection *info;

	smbd_destroy(server);
	info = smbd_get_connection(server, (struct sockaddr *)&server->dstaddr);
	/* Published whole to smbd_register_mr(), which does not lock. */
	smp_store_release(&server->smbd_conn, info);
	if (!info) {
		trace_smb3_smbd_connect_err(server->hostname, server->conn_id,
					    &server->dstaddr);
		return -ENOENT;
	}
	cifs_dbg(VFS, "RDMA transport re-established\n");
	trace_smb3_smbd_connect_done(server->hostname, server->conn_id,
				     &server->dstaddr);
	return 0;
}

/**
 * smbd_recv() - read the stream form of the received messages
 * @info: connection
 * @msg: destination, msg_data_left() bytes wanted
 *
 * Each message reads as its length (4 bytes, big-endian) followed by its
 * bytes; a read never goes past the end of the message it started in.
 *
 * Context: process (cifsd), may sleep.
 *
 * Return: bytes read (> 0); -EAGAIN if no message came within
 * SMBD_RECV_TIMEOUT; -ERESTARTSYS on a signal; -EFAULT; or the connection's
 * error once it is lost and its messages are read.
 */
int smbd_recv(struct smbd_connection *info, struct msghdr *msg)
{
	struct iov_iter *to = &msg->msg_iter;
	size_t n, done = 0;
	int rc;

	if (!info->msg) {
		rc = smbdx_recv_msg(info->conn, SMBD_RECV_TIMEOUT, &info->msg);
		if (rc)
			return rc;
		info->msg_len = smbdx_msg_len(info->msg);
		info->len_be = cpu_to_be32(info->msg_len);
		info->pos = 0;
	}
	if (info->pos < SMBD_RFC1002_LEN && iov_iter_count(to)) {
		n = min_t(size_t, SMBD_RFC1002_LEN - info->pos,
			  iov_iter_count(to));
		if (copy_to_iter((u8 *)&info->len_be + info->pos, n, to) != n)
			return -EFAULT;
		info->pos += n;
		done += n;
	}
	if (info->pos >= SMBD_RFC1002_LEN && iov_iter_count(to)) {
		n = smbdx_msg_copy(info->msg, info->pos - SMBD_RFC1002_LEN, to);
		if (!n && info->pos < SMBD_RFC1002_LEN + info->msg_len)
			return -EFAULT;
		info->pos += n;
		done += n;
	}
	if (info->pos == SMBD_RFC1002_LEN + info->msg_len) {
		smbdx_msg_free(info->msg);
		info->msg = NULL;
	}
	return done;
}

/**
 * smbd_send() - send one call's requests as one SMB Direct message
 * @server: the cifs server
 * @num_rqst: number of requests (a compound), at most MAX_COMPOUND
 * @rqst: the requests: each one's kvec array, then its data iterator
 *
 * The requests' iterators are not consumed.
 *
 * Context: process, may sleep (SMBD_SEND_TIMEOUT_MS at most); cifs's server
 * lock is held.
 *
 * Return: 0 once the message is posted; -EAGAIN if the connection is
 * lost, or was ended because the message could not be posted within
 * SMBD_SEND_TIMEOUT_MS (cifs reconnects); -EINVAL if the message is longer
 * than the server accepts; -ENOMEM or -EFAULT.
 */
int smbd_send(struct TCP_Server_Info *server, int num_rqst,
	      struct smb_rqst *rqst)
{
	struct smbd_connection *info = server->smbd_conn;
	struct iov_iter iters[2 * MAX_COMPOUND];
	unsigned int n = 0;
	size_t klen;
	int i, j, rc;

	if (!info)
		return -EAGAIN;
	if (num_rqst <= 0 || num_rqst > MAX_COMPOUND)
		return -EINVAL;
	for (i = 0; i < num_rqst; i++) {
		klen = 0;
		for (j = 0; j < rqst[i].rq_nvec; j++)
			klen += rqst[i].rq_iov[j].iov_len;
		iov_iter_kvec(&iters[n++], ITER_SOURCE, rqst[i].rq_iov,
			      rqst[i].rq_nvec, klen);
		if (iov_iter_count(&rqst[i].rq_iter))
			iters[n++] = rqst[i].rq_iter;
	}
	rc = smbdx_sendv(info->conn, iters, n, 0, 0);
	switch (rc) {
	case -ETIMEDOUT:
		cifs_server_dbg(VFS, "SMB Direct send stuck for %d seconds (no send credits), disconnecting\n",
				SMBD_SEND_TIMEOUT_MS / 1000);
		return -EAGAIN;
	case 0:
		return 0;
	case -EINTR:
		/* A fatal signal: the message still goes out. */
		return 0;
	case -EMSGSIZE:
		return -EINVAL;
	}
	/* A lost connection, whatever the error said (a failed post: -ENOMEM). */
	if (smbdx_conn_error(info->conn))
		return -EAGAIN;
	return rc;
}

/**
 * smbd_register_mr_at() - register an I/O buffer for the server's RDMA
 * @slot: where cifs keeps its connection, &server->smbd_conn (cifs calls
 *	smbd_register_mr(server->smbd_conn, ...), a macro of smbdirect.h)
 * @iter: the buffer; consumed
 * @writing: true if the server writes into the buffer (the data of an
 *	SMB2 READ), false if it reads it (an SMB2 WRITE)
 * @need_invalidate: unused: smbdx_deregister() finds out by itself
 *	whether the server invalidated the buffer
 *
 * The buffer must fit in the connection's max_descs descriptors: cifs
 * sizes its I/O with the MaxReadWriteSize and max_frmr_depth
 * smbd_get_connection() published; a buffer with gaps that needs more
 * fails (as with the stock cifs).
 *
 * cifs does not hold its server lock here, so a reconnection may replace
 * or destroy the connection at any time. The connection is therefore read
 * from @slot here, not where cifs evaluated its argument, and the
 * registration's reference is taken under RCU: smbd_destroy() clears the
 * slot and waits for a grace period before it drops the server's
 * reference, so a connection still in the slot has that reference.
 *
 * Context: process, may sleep (until enough MRs are free, or the
 * connection is lost).
 *
 * Return: the registration, or NULL on failure, among them no connection
 * (cifs retries the I/O).
 */
struct smbd_mr *smbd_register_mr_at(struct smbd_connection **slot,
				    struct iov_iter *iter, bool writing,
				    bool need_invalidate)
{
	unsigned int flags = SMBDX_REG_POSTED;
	struct smbd_connection *info;
	struct smbdx_reg *reg;
	struct smbd_mr *mr;

	smbd_fault_hold();
	flags |= writing ? SMBDX_REG_REMOTE_WRITE : SMBDX_REG_REMOTE_READ;
	mr = kzalloc(sizeof(*mr), GFP_NOFS);
	if (!mr)
		return NULL;
	rcu_read_lock();
	info = READ_ONCE(*slot);
	if (info)
		kref_get(&info->ref);
	rcu_read_unlock();
	if (!info) {
		kfree(mr);
		return NULL;
	}
	flags |= SMBDX_REG_MAX_DESCS(info->max_descs);
	reg = smbdx_register(info->conn, iter, flags);
	kref_put(&info->ref, smbd_release);
	if (IS_ERR(reg)) {
		cifs_dbg(FYI, "SMB Direct registration failed: %ld\n",
			 PTR_ERR(reg));
		kfree(mr);
		return NULL;
	}
	mr->reg = reg;
	return mr;
}

/**
 * smbd_mr_put_descs() - write a registration's descriptors into a request
 * @mr: registration from smbd_register_mr()
 * @buf: the channel info of an SMB2 READ or WRITE (its Buffer field), room
 *	for SMBD_MAX_DESCS descriptors
 *
 * Copies the Buffer Descriptor V1 array, in buffer order and wire format,
 * as [MS-SMB2] 2.2.19 and 2.2.21 describe the channel info.
 *
 * Context: any.
 *
 * Return: its length in bytes (ReadChannelInfoLength or
 * WriteChannelInfoLength), 16 per descriptor.
 */
unsigned int smbd_mr_put_descs(const struct smbd_mr *mr, void *buf)
{
	const struct smbdx_buffer_desc_v1 *d;
	u32 n;

	/* cifs builds READs and WRITEs in its small request buffers. */
	BUILD_BUG_ON(offsetof(struct smb2_read_req, Buffer) +
		     SMBD_MAX_DESCS * sizeof(*d) > MAX_CIFS_SMALL_BUFFER_SIZE);
	BUILD_BUG_ON(offsetof(struct smb2_write_req, Buffer) +
		     SMBD_MAX_DESCS * sizeof(*d) > MAX_CIFS_SMALL_BUFFER_SIZE);
	d = smbdx_reg_descs(mr->reg, &n);
	memcpy(buf, d, n * sizeof(*d));
	return n * sizeof(*d);
}

/**
 * smbd_deregister_mr() - end a registration made by smbd_register_mr()
 * @mr: registration; freed
 *
 * When this returns the server can no longer reach the buffer. Works after
 * the connection was lost or destroyed too.
 *
 * Context: process, may sleep (for a local invalidation).
 *
 * Return: 0, or a negative errno if invalidation failed (the connection is
 * then terminated, which also ends the server's access).
 */
int smbd_deregister_mr(struct smbd_mr *mr)
{
	int rc = smbdx_deregister(mr->reg);

	kfree(mr);
	return rc;
}

/**
 * smbd_debug_show() - the SMB Direct part of /proc/fs/cifs/DebugData
 * @m: the seq_file
 * @info: connection
 *
 * What cifs uses of the connection, then smbdirect's own view of it
 * (state, negotiated parameters, credits, MRs, counters).
 *
 * Context: process, cifs_tcp_ses_lock held; does not sleep.
 */
void smbd_debug_show(struct seq_file *m, struct smbd_connection *info)
{
	const struct smbdirect_socket_parameters *sp;

	/* cifs read server->smbd_conn again: destroyed since its check */
	if (!info)
		return;
	sp = &info->socket.parameters;

	seq_printf(m, "\nSMBDirect: smbdirect.ko connection %u",
		   smbdx_conn_id(info->conn));
	seq_printf(m, "\ncifs: max_readwrite_size: %u rdma_readwrite_threshold: %d max_frmr_depth: %d max_descriptors: %u\n",
		   sp->max_read_write_size, info->rdma_readwrite_threshold,
		   info->max_frmr_depth, info->max_descs);
	smbdx_conn_show(info->conn, m);
}
