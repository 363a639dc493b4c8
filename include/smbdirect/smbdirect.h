/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smbdirect.ko exported API: SMB Direct (MS-SMBD) connections over RDMA for
 * upper layers such as the SMB2 client (cifs) and server (ksmbd).
 *
 * A connection is a struct smbd_conn, opaque to callers. It is created by
 * smbd_connect() (active role, MS-SMBD 3.1.4.1) or handed to a listener's
 * accept callback once a peer has connected and negotiated (passive role,
 * 3.1.7.2). Its owner sends whole upper-layer messages with smbd_send()
 * (3.1.4.2; the transport fragments them), receives whole reassembled
 * messages with smbd_recv_msg()/smbd_recv() or through the recv callback,
 * queries the negotiated parameters with smbd_conn_query() (3.1.4.7), is
 * told once about the loss of the connection (3.1.7.1) through the
 * disconnected callback, and ends with smbd_destroy().
 *
 * Contexts and locking (each function's kernel-doc says more):
 *  - smbd_connect(), smbd_listen(), smbd_listener_destroy(), smbd_send(),
 *    smbd_recv_msg(), smbd_recv(), smbd_register(), smbd_deregister(),
 *    smbd_rdma_read(), smbd_rdma_write() and smbd_destroy() sleep:
 *    process context only, no spinlock held.
 *  - smbd_disconnect(), smbd_conn_query(), smbd_conn_error(),
 *    smbd_conn_context()/smbd_conn_set_context() and the smbd_msg_*()
 *    functions never sleep and may be called from any context, including
 *    the callbacks.
 *  - Callbacks (accept, recv, disconnected) run in process context on
 *    smbdirect's workqueue, one at a time per connection and in order, and
 *    may sleep; a callback may call any function of this API on its own
 *    connection, including smbd_destroy() (but not smbd_listener_destroy()
 *    on the listener it was accepted by).
 */
#ifndef _SMBDIRECT_SMBDIRECT_H
#define _SMBDIRECT_SMBDIRECT_H

#include <linux/types.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <smbdirect/pdu.h>

struct net;
struct net_device;
struct smbd_conn;
struct smbd_listener;
struct smbd_msg;
struct smbd_reg;

/**
 * struct smbd_conn_config - settings of one connection
 * @proto: MS-SMBD initial values (3.1.4.1 / 3.1.7.2): ReceiveCreditMax,
 *	SendCreditTarget, MaxSendSize, MaxReceiveSize, MaxFragmentedRecvSize,
 *	MaxReadWriteSize. Its keepalive_interval is ignored (see
 *	@keepalive_ms) and reported back in seconds.
 * @keepalive_ms: Connection.KeepaliveInterval, the Idle Connection Timer
 *	(3.1.2.2, 3.1.6.2), in milliseconds
 * @keepalive_wait_ms: how long to wait for any message after sending a
 *	keepalive request before terminating the connection (3.1.5.1 <4>)
 * @negotiate_timeout_ms: Negotiation Timer (3.1.2.1): 0 means the role's
 *	default (120 s active, 5 s passive, see the module parameters)
 * @recv_queue_max: bytes of received messages that may wait for, or be
 *	held by, the upper layer before smbdirect stops reposting receives
 *	(and so stops granting credits) until the upper layer frees some
 *
 * smbd_conn_config_init() fills in the module parameters' values; callers
 * change what they need. Any field left 0 also takes the default.
 */
struct smbd_conn_config {
	struct smbd_proto_config proto;
	u32 keepalive_ms;
	u32 keepalive_wait_ms;
	u32 negotiate_timeout_ms;
	u32 recv_queue_max;
};

/**
 * struct smbd_conn_ops - upper-layer callbacks of a connection
 * @recv: optional. A whole upper-layer message arrived; the callee owns
 *	@msg and must pass it to smbd_msg_free() (at once or later). When set,
 *	every message goes to it and smbd_recv_msg() must not be used.
 * @disconnected: optional. The connection was lost or refused after it was
 *	handed to the upper layer (3.1.7.1); @error is the first error
 *	(-ECONNRESET peer disconnect, -ETIMEDOUT keepalive, -EPROTO invalid
 *	message, -ENODEV device removal, ...). Called at most once and never
 *	after smbd_destroy() returned. The owner still has to call
 *	smbd_destroy().
 */
struct smbd_conn_ops {
	void (*recv)(struct smbd_conn *conn, struct smbd_msg *msg);
	void (*disconnected)(struct smbd_conn *conn, int error);
};

/**
 * struct smbd_listener_ops - callbacks of a listener
 * @accept: required. A peer connected and negotiated successfully
 *	(3.1.5.6, 3.1.7.2). Return 0 to take ownership of @conn (the callee
 *	must eventually call smbd_destroy() on it and may call
 *	smbd_conn_set_context() first), or a negative errno to refuse it, in
 *	which case smbdirect disconnects and frees it. No message or loss is
 *	delivered on @conn before this returns.
 * @conn_ops: callbacks installed on every connection of this listener
 *	before it negotiates; may be NULL (pull mode, no loss callback)
 */
struct smbd_listener_ops {
	int (*accept)(struct smbd_listener *lis, struct smbd_conn *conn);
	const struct smbd_conn_ops *conn_ops;
};

/**
 * struct smbd_conn_info - answer of smbd_conn_query()
 * @params: negotiated parameters; MS-SMBD 3.1.4.7 asks for MaxSendSize,
 *	MaxFragmentedSendSize, MaxReceiveSize, MaxReadWriteSize and
 *	KeepaliveInterval (seconds), the rest is there for diagnostics
 * @keepalive_ms: idle timer in milliseconds
 * @iwarp: the connection runs over iWARP
 * @ird: inbound RDMA Read depth set on the connection
 * @ord: outbound RDMA Read depth set on the connection
 * @max_sge: send SGEs the device allows per work request (for the
 *	upper layer's own RDMA work in a later release)
 * @local: local address and port
 * @peer: peer address and port
 * @device: RDMA device name
 */
struct smbd_conn_info {
	struct smbd_proto_params params;
	u32 keepalive_ms;
	bool iwarp;
	u32 ird;
	u32 ord;
	u32 max_sge;
	struct sockaddr_storage local;
	struct sockaddr_storage peer;
	char device[64];
};

/* smbd_send() flags */
#define SMBD_SEND_INVALIDATE	0x1	/* @remote_token is valid (3.1.4.2) */

void smbd_conn_config_init(struct smbd_conn_config *cfg);

struct smbd_conn *smbd_connect(struct net *net, const struct sockaddr *dst,
			       const struct sockaddr *src,
			       const struct smbd_conn_config *cfg,
			       const struct smbd_conn_ops *ops, void *ctx);

struct smbd_listener *smbd_listen(struct net *net, const struct sockaddr *addr,
				  const struct smbd_conn_config *cfg,
				  const struct smbd_listener_ops *ops,
				  void *ctx);
void *smbd_listener_context(struct smbd_listener *lis);
int smbd_listener_port(struct smbd_listener *lis);
void smbd_listener_destroy(struct smbd_listener *lis);

int smbd_send(struct smbd_conn *conn, struct iov_iter *from, u32 remote_token,
	      unsigned int flags);

int smbd_recv_msg(struct smbd_conn *conn, long timeout, struct smbd_msg **msgp);
ssize_t smbd_recv(struct smbd_conn *conn, struct iov_iter *to, long timeout);

u32 smbd_msg_len(const struct smbd_msg *msg);
void smbd_msg_iter(struct smbd_msg *msg, struct iov_iter *iter);
size_t smbd_msg_copy(struct smbd_msg *msg, u32 offset, struct iov_iter *to);
bool smbd_msg_invalidated(const struct smbd_msg *msg, u32 *token);
void smbd_msg_free(struct smbd_msg *msg);

int smbd_conn_query(struct smbd_conn *conn, struct smbd_conn_info *info);
int smbd_conn_error(struct smbd_conn *conn);
void *smbd_conn_context(struct smbd_conn *conn);
void smbd_conn_set_context(struct smbd_conn *conn, void *ctx);
u32 smbd_conn_id(struct smbd_conn *conn);

void smbd_disconnect(struct smbd_conn *conn);
void smbd_destroy(struct smbd_conn *conn);

bool smbd_netdev_rdma_capable(struct net_device *ndev);

/* smbd_register() flags: the access the peer is given (3.1.4.3) */
#define SMBD_REG_REMOTE_READ	0x1	/* the peer RDMA-reads the buffer */
#define SMBD_REG_REMOTE_WRITE	0x2	/* the peer RDMA-writes into it */
#define SMBD_REG_NOWAIT		0x4	/* -EAGAIN instead of waiting for MRs */

struct smbd_reg *smbd_register(struct smbd_conn *conn, struct iov_iter *iter,
			       unsigned int flags);
const struct smbd_buffer_desc_v1 *smbd_reg_descs(const struct smbd_reg *reg,
						 u32 *count);
u32 smbd_reg_len(const struct smbd_reg *reg);
u32 smbd_reg_token(const struct smbd_reg *reg);
int smbd_deregister(struct smbd_reg *reg);

int smbd_rdma_write(struct smbd_conn *conn, struct iov_iter *from,
		    const struct smbd_buffer_desc_v1 *descs, u32 ndescs,
		    u64 offset);
int smbd_rdma_read(struct smbd_conn *conn, struct iov_iter *to,
		   const struct smbd_buffer_desc_v1 *descs, u32 ndescs,
		   u64 offset);

#endif /* _SMBDIRECT_SMBDIRECT_H */
