/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smbdirect tracepoints (events/smbdirect/ in tracefs). Recording them
 * together with the RDMA core's (trace-cmd record -e smbdirect -e
 * rdma_core) shows where an I/O waited: the connection's CM events and
 * states, each message's life on both sides (queued, each fragment's Send
 * posted with its credits, the Send completed; the Receive completed, the
 * fragment placed in its message, the message ready, delivered to the
 * upper layer and freed by it), the sender stalling on credits or a full
 * send queue, every work request (Send, Receive, REG_MR, LOCAL_INV, RDMA
 * read/write chunk) posted and completed, and each MR's registration,
 * invalidations and recycling. Documentation/admin-guide.rst lists them.
 *
 * Identities: every event carries "conn=N", the number of the connection's
 * debugfs directory. Work requests and their completions carry "cq.id=N"
 * (the RDMA core's restrack id of the connection's completion queue, the
 * cq.id of its cq_poll, cq_process and cq_reschedule events) and a
 * completion id: "cid=N", a per-connection number given to each Send,
 * Receive and RDMA chunk as it is posted, or for REG_MR and LOCAL_INV
 * "mr.id=N", the MR's restrack id (the mr.id of the RDMA core's mr_alloc
 * and mr_dereg events). Messages carry "msg=N": the sender numbers the
 * upper-layer messages it queues 1, 2, ... (its tx_messages counter), the
 * receiver the messages it reassembles (its rx_messages counter); on a
 * reliable connection both count the same messages in the same order, so
 * message N of one side's sends is message N of the peer's receives. The
 * two ends of a connection are paired by the addresses of their CM events.
 *
 * Concurrency: tracepoints fire from any context, including softirq
 * completion handlers. They copy their arguments and fields of the
 * connection that are set before it is visible (num, cq_id, qpn); the
 * fields under conn->lock (message counters, credits, queue lengths,
 * held_bytes) are read with it held, except by smbdx_msg_free (called
 * without it), whose ready_msgs and held_bytes are only a snapshot. Nothing
 * is computed for them unless they are enabled; the only work done for
 * them while disabled is storing a message's number when it is complete
 * (deliver.c).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM smbdirect

#if !defined(_SMBDX_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SMBDX_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <trace/misc/rdma.h>
#include <smbdirect/pdu.h>

#include "smbd.h"
#include "frag.h"

/* Make the enum values known to user-space trace tools. */
TRACE_DEFINE_ENUM(SMBDX_CS_CREATED);
TRACE_DEFINE_ENUM(SMBDX_CS_RESOLVE_ADDR);
TRACE_DEFINE_ENUM(SMBDX_CS_RESOLVE_ROUTE);
TRACE_DEFINE_ENUM(SMBDX_CS_CONNECTING);
TRACE_DEFINE_ENUM(SMBDX_CS_NEGOTIATING);
TRACE_DEFINE_ENUM(SMBDX_CS_ESTABLISHED);
TRACE_DEFINE_ENUM(SMBDX_CS_DISCONNECTING);
TRACE_DEFINE_ENUM(SMBDX_CS_DISCONNECTED);
TRACE_DEFINE_ENUM(SMBDX_CS_DESTROYED);

/* connection.c checks that this covers every state */
#define smbdx_show_state(s)						\
	__print_symbolic(s, { SMBDX_CS_CREATED, "CREATED" },		\
			 { SMBDX_CS_RESOLVE_ADDR, "RESOLVE_ADDR" },	\
			 { SMBDX_CS_RESOLVE_ROUTE, "RESOLVE_ROUTE" },	\
			 { SMBDX_CS_CONNECTING, "CONNECTING" },		\
			 { SMBDX_CS_NEGOTIATING, "NEGOTIATING" },	\
			 { SMBDX_CS_ESTABLISHED, "ESTABLISHED" },	\
			 { SMBDX_CS_DISCONNECTING, "DISCONNECTING" },	\
			 { SMBDX_CS_DISCONNECTED, "DISCONNECTED" },	\
			 { SMBDX_CS_DESTROYED, "DESTROYED" })

/* The message a fragment being received belongs to (see the top). */
#define smbdx_trace_rx_msg(conn)					\
	((u32)atomic64_read(&(conn)->stats.v[SMBDX_STAT_RX_MSGS]) + 1)

/*
 * Connection: CM events, states, errors
 */

TRACE_EVENT(smbdx_cm_event,
	    TP_PROTO(const struct smbdx_conn *conn,
		     const struct rdma_cm_id *id,
		     const struct rdma_cm_event *event),
	    TP_ARGS(conn, id, event),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(unsigned long, event)
			     __field(int, status)
			     __array(u8, src, sizeof(struct sockaddr_in6))
			     __array(u8, dst, sizeof(struct sockaddr_in6))),
	    TP_fast_assign(__entry->conn = conn->num;
			   __entry->event = event->event;
			   __entry->status = event->status;
			   memcpy(__entry->src, &id->route.addr.src_addr,
				  sizeof(struct sockaddr_in6));
			   memcpy(__entry->dst, &id->route.addr.dst_addr,
				  sizeof(struct sockaddr_in6));),
	    TP_printk("conn=%u %s status=%d src=%pISpc dst=%pISpc",
		      __entry->conn, rdma_show_cm_event(__entry->event),
		      __entry->status, __entry->src, __entry->dst)
);

TRACE_EVENT(smbdx_state,
	    TP_PROTO(const struct smbdx_conn *conn, int old, int new),
	    TP_ARGS(conn, old, new),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(u32, qpn)
			     __field(int, old)
			     __field(int, new)),
	    TP_fast_assign(__entry->conn = conn->num;
			   __entry->qpn = conn->qpn;
			   __entry->old = old;
			   __entry->new = new;),
	    TP_printk("conn=%u qpn=%u state %s -> %s", __entry->conn,
		      __entry->qpn, smbdx_show_state(__entry->old),
		      smbdx_show_state(__entry->new))
);

/* The cause's name is copied: verdicts and causes come from two lists. */
TRACE_EVENT(smbdx_error,
	    TP_PROTO(const struct smbdx_conn *conn, int err, int cause),
	    TP_ARGS(conn, err, cause),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(u32, qpn)
			     __field(int, err)
			     __string(cause, smbdx_cause_name(cause))),
	    TP_fast_assign(__entry->conn = conn->num;
			   __entry->qpn = conn->qpn;
			   __entry->err = err;
			   __assign_str(cause);),
	    TP_printk("conn=%u qpn=%u error=%d cause=%s", __entry->conn,
		      __entry->qpn, __entry->err, __get_str(cause))
);

/*
 * Sends: the message queued, each Send posted (with the header's credit
 * fields and the send credits left), stalls, completions
 */

TRACE_EVENT(smbdx_send_msg,
	    TP_PROTO(const struct smbdx_conn *conn, u32 len, u32 frags),
	    TP_ARGS(conn, len, frags),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(u32, msg)
			     __field(u32, len)
			     __field(u32, frags)
			     __field(u32, queued)),
	    TP_fast_assign(__entry->conn = conn->num;
			   __entry->msg = atomic64_read(&conn->stats.v[SMBDX_STAT_TX_MSGS]);
			   __entry->len = len;
			   __entry->frags = frags;
			   __entry->queued = conn->send.queue_len;),
	    TP_printk("conn=%u msg=%u len=%u frags=%u queued=%u",
		      __entry->conn, __entry->msg, __entry->len,
		      __entry->frags, __entry->queued)
);

/*
 * A Send: a Data Transfer message once established (its header is read
 * back from the buffer), a negotiate message before (kind "negotiate").
 */
TRACE_EVENT(smbdx_post_send,
	    TP_PROTO(const struct smbdx_conn *conn,
		     const struct smbdx_send_io *io, bool signaled),
	    TP_ARGS(conn, io, signaled),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(u32, cq_id)
			     __field(u32, cid)
			     __field(u32, qpn)
			     __field(u32, len)
			     __field(bool, data)
			     __field(bool, signaled)
			     __field(bool, inv)
			     __field(u32, msg)
			     __field(u32, data_len)
			     __field(u32, remaining)
			     __field(u16, flags)
			     __field(u16, credits_req)
			     __field(u16, credits_granted)
			     __field(u16, send_credits)),
	    TP_fast_assign(const struct smbdx_data_transfer *hdr =
				(const void *)io->buf;
			   __entry->conn = conn->num;
			   __entry->cq_id = conn->cq_id;
			   __entry->cid = io->cid;
			   __entry->qpn = conn->qpn;
			   __entry->len = io->len;
			   __entry->data = conn->state == SMBDX_CS_ESTABLISHED;
			   __entry->signaled = signaled;
			   __entry->inv = io->inv;
			   __entry->msg = io->msg;
			   __entry->data_len = __entry->data ?
				le32_to_cpu(hdr->data_length) : 0;
			   __entry->remaining = __entry->data ?
				le32_to_cpu(hdr->remaining_data_length) : 0;
			   __entry->flags = __entry->data ?
				le16_to_cpu(hdr->flags) : 0;
			   __entry->credits_req = __entry->data ?
				le16_to_cpu(hdr->credits_requested) : 0;
			   __entry->credits_granted = __entry->data ?
				le16_to_cpu(hdr->credits_granted) : 0;
			   __entry->send_credits = conn->cr.send_credits;),
	    TP_printk("conn=%u cq.id=%u cid=%u qpn=%u len=%u %s msg=%u data_len=%u remaining=%u credits_requested=%u credits_granted=%u send_credits=%u%s%s%s",
		      __entry->conn, __entry->cq_id, __entry->cid,
		      __entry->qpn, __entry->len,
		      __entry->data ? "data" : "negotiate", __entry->msg,
		      __entry->data_len, __entry->remaining,
		      __entry->credits_req, __entry->credits_granted,
		      __entry->send_credits,
		      __entry->flags & SMBDX_FLAG_RESPONSE_REQUESTED ?
		      " response_requested" : "",
		      __entry->inv ? " invalidate" : "",
		      __entry->signaled ? " signaled" : "")
);

/* The send loop stopped with fragments queued. */
DECLARE_EVENT_CLASS(smbdx_send_stall_class,
		    TP_PROTO(const struct smbdx_conn *conn),
		    TP_ARGS(conn),
		    TP_STRUCT__entry(__field(u32, conn)
				     __field(u32, queued)
				     __field(u32, posted)
				     __field(u32, send_credits)),
		    TP_fast_assign(__entry->conn = conn->num;
				   __entry->queued = conn->send.queue_len;
				   __entry->posted = conn->send.posted;
				   __entry->send_credits = conn->cr.send_credits;),
		    TP_printk("conn=%u queued=%u sends_posted=%u send_credits=%u",
			      __entry->conn, __entry->queued, __entry->posted,
			      __entry->send_credits)
);

#define DEFINE_SMBDX_SEND_STALL_EVENT(name)				\
	DEFINE_EVENT(smbdx_send_stall_class, name,			\
		     TP_PROTO(const struct smbdx_conn *conn),		\
		     TP_ARGS(conn))

DEFINE_SMBDX_SEND_STALL_EVENT(smbdx_send_no_credits);
DEFINE_SMBDX_SEND_STALL_EVENT(smbdx_send_sq_full);

/*
 * Work requests posted with a per-connection completion id
 */

DECLARE_EVENT_CLASS(smbdx_post_class,
		    TP_PROTO(const struct smbdx_conn *conn, u32 cid, u32 len),
		    TP_ARGS(conn, cid, len),
		    TP_STRUCT__entry(__field(u32, conn)
				     __field(u32, cq_id)
				     __field(u32, cid)
				     __field(u32, qpn)
				     __field(u32, len)),
		    TP_fast_assign(__entry->conn = conn->num;
				   __entry->cq_id = conn->cq_id;
				   __entry->cid = cid;
				   __entry->qpn = conn->qpn;
				   __entry->len = len;),
		    TP_printk("conn=%u cq.id=%u cid=%u qpn=%u len=%u",
			      __entry->conn, __entry->cq_id, __entry->cid,
			      __entry->qpn, __entry->len)
);

DEFINE_EVENT(smbdx_post_class, smbdx_post_recv,
	     TP_PROTO(const struct smbdx_conn *conn, u32 cid, u32 len),
	     TP_ARGS(conn, cid, len));

/*
 * Completions of Sends and Receives
 */

DECLARE_EVENT_CLASS(smbdx_completion_class,
		    TP_PROTO(const struct smbdx_conn *conn, u32 cid,
			     const struct ib_wc *wc),
		    TP_ARGS(conn, cid, wc),
		    TP_STRUCT__entry(__field(u32, conn)
				     __field(u32, cq_id)
				     __field(u32, cid)
				     __field(unsigned long, status)
				     __field(u32, byte_len)
				     __field(u32, vendor_err)),
		    TP_fast_assign(__entry->conn = conn->num;
				   __entry->cq_id = conn->cq_id;
				   __entry->cid = cid;
				   __entry->status = wc->status;
				   __entry->byte_len = wc->status ? 0 : wc->byte_len;
				   __entry->vendor_err = wc->status ?
							 wc->vendor_err : 0;),
		    TP_printk("conn=%u cq.id=%u cid=%u status=%s (%lu/0x%x) byte_len=%u",
			      __entry->conn, __entry->cq_id, __entry->cid,
			      rdma_show_wc_status(__entry->status),
			      __entry->status, __entry->vendor_err,
			      __entry->byte_len)
);

#define DEFINE_SMBDX_COMPLETION_EVENT(name)				\
	DEFINE_EVENT(smbdx_completion_class, name,			\
		     TP_PROTO(const struct smbdx_conn *conn, u32 cid,	\
			      const struct ib_wc *wc),			\
		     TP_ARGS(conn, cid, wc))

DEFINE_SMBDX_COMPLETION_EVENT(smbdx_send_done);
DEFINE_SMBDX_COMPLETION_EVENT(smbdx_recv_done);

/*
 * Receives: credits, each data fragment placed in its message, the
 * message ready, handed to the upper layer, freed by it
 */

TRACE_EVENT(smbdx_credits,
	    TP_PROTO(const struct smbdx_conn *conn, bool tx, u32 granted,
		     u32 send_credits, u32 recv_posted, u32 recv_granted),
	    TP_ARGS(conn, tx, granted, send_credits, recv_posted, recv_granted),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(bool, tx)
			     __field(u32, granted)
			     __field(u32, send_credits)
			     __field(u32, recv_posted)
			     __field(u32, recv_granted)),
	    TP_fast_assign(__entry->conn = conn->num;
			   __entry->tx = tx;
			   __entry->granted = granted;
			   __entry->send_credits = send_credits;
			   __entry->recv_posted = recv_posted;
			   __entry->recv_granted = recv_granted;),
	    TP_printk("conn=%u %s granted=%u send_credits=%u recv_posted=%u recv_granted=%u",
		      __entry->conn, __entry->tx ? "tx" : "rx", __entry->granted,
		      __entry->send_credits, __entry->recv_posted,
		      __entry->recv_granted)
);

/* @cid: the Receive that carried the fragment */
TRACE_EVENT(smbdx_reasm,
	    TP_PROTO(const struct smbdx_conn *conn, u32 cid,
		     const struct smbdx_reasm_place *place),
	    TP_ARGS(conn, cid, place),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(u32, cid)
			     __field(u32, msg)
			     __field(u32, offset)
			     __field(u32, length)
			     __field(u32, total)
			     __field(bool, complete)),
	    TP_fast_assign(__entry->conn = conn->num;
			   __entry->cid = cid;
			   __entry->msg = smbdx_trace_rx_msg(conn);
			   __entry->offset = place->offset;
			   __entry->length = place->length;
			   __entry->total = place->total;
			   __entry->complete =
				place->state == SMBDX_REASM_COMPLETE;),
	    TP_printk("conn=%u cid=%u msg=%u offset=%u length=%u total=%u%s",
		      __entry->conn, __entry->cid, __entry->msg,
		      __entry->offset, __entry->length, __entry->total,
		      __entry->complete ? " complete" : "")
);

DECLARE_EVENT_CLASS(smbdx_msg_class,
		    TP_PROTO(const struct smbdx_conn *conn,
			     const struct smbdx_msg *msg),
		    TP_ARGS(conn, msg),
		    TP_STRUCT__entry(__field(u32, conn)
				     __field(u32, msg)
				     __field(u32, len)
				     __field(u32, ready)
				     __field(u64, held)),
		    TP_fast_assign(__entry->conn = conn->num;
				   __entry->msg = msg->seq;
				   __entry->len = msg->len;
				   __entry->ready = conn->recv.ready_msgs;
				   __entry->held = conn->recv.held_bytes;),
		    TP_printk("conn=%u msg=%u len=%u ready_msgs=%u held_bytes=%llu",
			      __entry->conn, __entry->msg, __entry->len,
			      __entry->ready, __entry->held)
);

#define DEFINE_SMBDX_MSG_EVENT(name)					\
	DEFINE_EVENT(smbdx_msg_class, name,				\
		     TP_PROTO(const struct smbdx_conn *conn,		\
			      const struct smbdx_msg *msg),		\
		     TP_ARGS(conn, msg))

DEFINE_SMBDX_MSG_EVENT(smbdx_msg_ready);
DEFINE_SMBDX_MSG_EVENT(smbdx_msg_deliver);

/* Only a message handed out (@conn set) counts in its connection. */
DEFINE_EVENT_CONDITION(smbdx_msg_class, smbdx_msg_free,
		       TP_PROTO(const struct smbdx_conn *conn,
				const struct smbdx_msg *msg),
		       TP_ARGS(conn, msg),
		       TP_CONDITION(conn));

/*
 * Memory registration: REG_MR and LOCAL_INV posted and completed (the
 * completion id is the MR's restrack id), remote invalidation, recycling
 */

DECLARE_EVENT_CLASS(smbdx_mr_class,
		    TP_PROTO(const struct smbdx_conn *conn,
			     const struct smbdx_mr *mr),
		    TP_ARGS(conn, mr),
		    TP_STRUCT__entry(__field(u32, conn)
				     __field(u32, cq_id)
				     __field(u32, mr_id)
				     __field(u32, rkey)
				     __field(u32, len)),
		    TP_fast_assign(__entry->conn = conn->num;
				   __entry->cq_id = conn->cq_id;
				   __entry->mr_id = mr->mr ? mr->mr->res.id : 0;
				   __entry->rkey = mr->rkey;
				   __entry->len = mr->mr ? mr->mr->length : 0;),
		    TP_printk("conn=%u cq.id=%u mr.id=%u rkey=0x%08x len=%u",
			      __entry->conn, __entry->cq_id, __entry->mr_id,
			      __entry->rkey, __entry->len)
);

#define DEFINE_SMBDX_MR_EVENT(name)					\
	DEFINE_EVENT(smbdx_mr_class, name,				\
		     TP_PROTO(const struct smbdx_conn *conn,		\
			      const struct smbdx_mr *mr),		\
		     TP_ARGS(conn, mr))

DEFINE_SMBDX_MR_EVENT(smbdx_mr_alloc);
DEFINE_SMBDX_MR_EVENT(smbdx_post_reg_mr);
DEFINE_SMBDX_MR_EVENT(smbdx_post_local_inv);
DEFINE_SMBDX_MR_EVENT(smbdx_mr_remote_inv);
DEFINE_SMBDX_MR_EVENT(smbdx_mr_recycle);

DECLARE_EVENT_CLASS(smbdx_mr_completion_class,
		    TP_PROTO(const struct smbdx_conn *conn,
			     const struct smbdx_mr *mr,
			     const struct ib_wc *wc),
		    TP_ARGS(conn, mr, wc),
		    TP_STRUCT__entry(__field(u32, conn)
				     __field(u32, cq_id)
				     __field(u32, mr_id)
				     __field(u32, rkey)
				     __field(unsigned long, status)
				     __field(u32, vendor_err)),
		    TP_fast_assign(__entry->conn = conn->num;
				   __entry->cq_id = conn->cq_id;
				   __entry->mr_id = mr->mr ? mr->mr->res.id : 0;
				   __entry->rkey = mr->rkey;
				   __entry->status = wc->status;
				   __entry->vendor_err = wc->status ?
							 wc->vendor_err : 0;),
		    TP_printk("conn=%u cq.id=%u mr.id=%u rkey=0x%08x status=%s (%lu/0x%x)",
			      __entry->conn, __entry->cq_id, __entry->mr_id,
			      __entry->rkey,
			      rdma_show_wc_status(__entry->status),
			      __entry->status, __entry->vendor_err)
);

#define DEFINE_SMBDX_MR_COMPLETION_EVENT(name)				\
	DEFINE_EVENT(smbdx_mr_completion_class, name,			\
		     TP_PROTO(const struct smbdx_conn *conn,		\
			      const struct smbdx_mr *mr,		\
			      const struct ib_wc *wc),			\
		     TP_ARGS(conn, mr, wc))

DEFINE_SMBDX_MR_COMPLETION_EVENT(smbdx_reg_mr_done);
DEFINE_SMBDX_MR_COMPLETION_EVENT(smbdx_local_inv_done);

/*
 * RDMA read/write chunks (rw.c): one chain of work requests each, the
 * last signaled
 */

TRACE_EVENT(smbdx_rw_post,
	    TP_PROTO(const struct smbdx_conn *conn, u32 cid, bool read, u32 len,
		     u32 wrs),
	    TP_ARGS(conn, cid, read, len, wrs),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(u32, cq_id)
			     __field(u32, cid)
			     __field(u32, qpn)
			     __field(bool, read)
			     __field(u32, len)
			     __field(u32, wrs)),
	    TP_fast_assign(__entry->conn = conn->num;
			   __entry->cq_id = conn->cq_id;
			   __entry->cid = cid;
			   __entry->qpn = conn->qpn;
			   __entry->read = read;
			   __entry->len = len;
			   __entry->wrs = wrs;),
	    TP_printk("conn=%u cq.id=%u cid=%u qpn=%u %s len=%u wrs=%u",
		      __entry->conn, __entry->cq_id, __entry->cid,
		      __entry->qpn, __entry->read ? "read" : "write",
		      __entry->len, __entry->wrs)
);

TRACE_EVENT(smbdx_rw_done,
	    TP_PROTO(const struct smbdx_conn *conn, u32 cid, bool read, u32 len,
		     const struct ib_wc *wc),
	    TP_ARGS(conn, cid, read, len, wc),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(u32, cq_id)
			     __field(u32, cid)
			     __field(bool, read)
			     __field(u32, len)
			     __field(unsigned long, status)
			     __field(u32, vendor_err)),
	    TP_fast_assign(__entry->conn = conn->num;
			   __entry->cq_id = conn->cq_id;
			   __entry->cid = cid;
			   __entry->read = read;
			   __entry->len = len;
			   __entry->status = wc->status;
			   __entry->vendor_err = wc->status ? wc->vendor_err : 0;),
	    TP_printk("conn=%u cq.id=%u cid=%u %s len=%u status=%s (%lu/0x%x)",
		      __entry->conn, __entry->cq_id, __entry->cid,
		      __entry->read ? "read" : "write", __entry->len,
		      rdma_show_wc_status(__entry->status), __entry->status,
		      __entry->vendor_err)
);

#endif /* _SMBDX_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
