/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smbdirect tracepoints (events/smbdirect/ in tracefs): connection state
 * changes and errors, every posted and completed Send and Receive, credit
 * grants in both directions, MR registration and invalidation, and RDMA
 * read/write chunks.
 *
 * Work requests and their completions carry "cq.id=N cid=N": the RDMA
 * core's id of the connection's completion queue (the cq.id of its own
 * cq_poll, cq_process and cq_reschedule events in events/rdma_core/) and a
 * per-connection completion id, the way net/sunrpc/xprtrdma names them, so
 * one trace follows a message from its post through the RDMA core's
 * polling to its completion. Posts also name the QP (qpn). States,
 * work-completion status and MR events print symbolically, the cause of an
 * error by its name (the verdicts' and the transport's lists); each event
 * also keeps "conn=N", the number of the connection's debugfs directory.
 *
 * Tracepoints may fire from any context, including softirq completion
 * handlers; they copy scalar fields of the connection that are set before
 * it is visible (num, cq_id, qpn) and their arguments.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM smbdirect

#if !defined(_SMBDX_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SMBDX_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_cm.h>
#include <trace/misc/rdma.h>

#include "smbd.h"

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
TRACE_DEFINE_ENUM(SMBDX_MR_EV_REGISTER);
TRACE_DEFINE_ENUM(SMBDX_MR_EV_WR_DONE);
TRACE_DEFINE_ENUM(SMBDX_MR_EV_WR_FAILED);
TRACE_DEFINE_ENUM(SMBDX_MR_EV_LOCAL_INV);
TRACE_DEFINE_ENUM(SMBDX_MR_EV_REMOTE_INV);

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
#define smbdx_show_mr_event(e)						\
	__print_symbolic(e, { SMBDX_MR_EV_REGISTER, "register" },	\
			 { SMBDX_MR_EV_WR_DONE, "wr_done" },		\
			 { SMBDX_MR_EV_WR_FAILED, "wr_failed" },	\
			 { SMBDX_MR_EV_LOCAL_INV, "local_inv" },	\
			 { SMBDX_MR_EV_REMOTE_INV, "remote_inv" })

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

DEFINE_EVENT(smbdx_post_class, smbdx_post_send,
	     TP_PROTO(const struct smbdx_conn *conn, u32 cid, u32 len),
	     TP_ARGS(conn, cid, len));

DEFINE_EVENT(smbdx_post_class, smbdx_post_recv,
	     TP_PROTO(const struct smbdx_conn *conn, u32 cid, u32 len),
	     TP_ARGS(conn, cid, len));

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

DEFINE_EVENT(smbdx_completion_class, smbdx_send_done,
	     TP_PROTO(const struct smbdx_conn *conn, u32 cid,
		      const struct ib_wc *wc),
	     TP_ARGS(conn, cid, wc));

DEFINE_EVENT(smbdx_completion_class, smbdx_recv_done,
	     TP_PROTO(const struct smbdx_conn *conn, u32 cid,
		      const struct ib_wc *wc),
	     TP_ARGS(conn, cid, wc));

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

TRACE_EVENT(smbdx_mr,
	    TP_PROTO(const struct smbdx_conn *conn, u32 rkey, int event,
		     int status),
	    TP_ARGS(conn, rkey, event, status),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(u32, cq_id)
			     __field(u32, rkey)
			     __field(int, event)
			     __field(unsigned long, status)),
	    TP_fast_assign(__entry->conn = conn->num;
			   __entry->cq_id = conn->cq_id;
			   __entry->rkey = rkey;
			   __entry->event = event;
			   __entry->status = status;),
	    TP_printk("conn=%u cq.id=%u rkey=0x%08x %s status=%s",
		      __entry->conn, __entry->cq_id, __entry->rkey,
		      smbdx_show_mr_event(__entry->event),
		      rdma_show_wc_status(__entry->status))
);

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
