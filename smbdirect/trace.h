/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smbdirect tracepoints (events/smbdirect/ in tracefs): connection state
 * changes and errors, every posted and completed Send and Receive (with the
 * connection number and a per-connection completion id, so a completion can
 * be matched with its post), credit grants in both directions, MR
 * registration and invalidation, and RDMA read/write contexts (posted with
 * status 1, then completed with the work completion status).
 *
 * Tracepoints may fire from any context, including softirq completion
 * handlers; they only copy scalar fields.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM smbdirect

#if !defined(_SMBDX_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SMBDX_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(smbdx_state,
	    TP_PROTO(u32 conn, int old, int new),
	    TP_ARGS(conn, old, new),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(int, old)
			     __field(int, new)),
	    TP_fast_assign(__entry->conn = conn;
			   __entry->old = old;
			   __entry->new = new;),
	    TP_printk("conn=%u state %d -> %d", __entry->conn, __entry->old,
		      __entry->new)
);

TRACE_EVENT(smbdx_error,
	    TP_PROTO(u32 conn, int err, int cause),
	    TP_ARGS(conn, err, cause),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(int, err)
			     __field(int, cause)),
	    TP_fast_assign(__entry->conn = conn;
			   __entry->err = err;
			   __entry->cause = cause;),
	    TP_printk("conn=%u error=%d cause=%d", __entry->conn, __entry->err,
		      __entry->cause)
);

DECLARE_EVENT_CLASS(smbdx_post_class,
		    TP_PROTO(u32 conn, u32 cid, u32 len),
		    TP_ARGS(conn, cid, len),
		    TP_STRUCT__entry(__field(u32, conn)
				     __field(u32, cid)
				     __field(u32, len)),
		    TP_fast_assign(__entry->conn = conn;
				   __entry->cid = cid;
				   __entry->len = len;),
		    TP_printk("conn=%u cid=%u len=%u", __entry->conn,
			      __entry->cid, __entry->len)
);

DEFINE_EVENT(smbdx_post_class, smbdx_post_send,
	     TP_PROTO(u32 conn, u32 cid, u32 len),
	     TP_ARGS(conn, cid, len));

DEFINE_EVENT(smbdx_post_class, smbdx_post_recv,
	     TP_PROTO(u32 conn, u32 cid, u32 len),
	     TP_ARGS(conn, cid, len));

DECLARE_EVENT_CLASS(smbdx_completion_class,
		    TP_PROTO(u32 conn, u32 cid, int status, u32 byte_len),
		    TP_ARGS(conn, cid, status, byte_len),
		    TP_STRUCT__entry(__field(u32, conn)
				     __field(u32, cid)
				     __field(int, status)
				     __field(u32, byte_len)),
		    TP_fast_assign(__entry->conn = conn;
				   __entry->cid = cid;
				   __entry->status = status;
				   __entry->byte_len = byte_len;),
		    TP_printk("conn=%u cid=%u status=%d byte_len=%u",
			      __entry->conn, __entry->cid, __entry->status,
			      __entry->byte_len)
);

DEFINE_EVENT(smbdx_completion_class, smbdx_send_done,
	     TP_PROTO(u32 conn, u32 cid, int status, u32 byte_len),
	     TP_ARGS(conn, cid, status, byte_len));

DEFINE_EVENT(smbdx_completion_class, smbdx_recv_done,
	     TP_PROTO(u32 conn, u32 cid, int status, u32 byte_len),
	     TP_ARGS(conn, cid, status, byte_len));

TRACE_EVENT(smbdx_credits,
	    TP_PROTO(u32 conn, bool tx, u32 granted, u32 send_credits,
		     u32 recv_posted, u32 recv_granted),
	    TP_ARGS(conn, tx, granted, send_credits, recv_posted, recv_granted),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(bool, tx)
			     __field(u32, granted)
			     __field(u32, send_credits)
			     __field(u32, recv_posted)
			     __field(u32, recv_granted)),
	    TP_fast_assign(__entry->conn = conn;
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
	    TP_PROTO(u32 conn, u32 rkey, const char *what),
	    TP_ARGS(conn, rkey, what),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(u32, rkey)
			     __string(what, what)),
	    TP_fast_assign(__entry->conn = conn;
			   __entry->rkey = rkey;
			   __assign_str(what);),
	    TP_printk("conn=%u rkey=0x%08x %s", __entry->conn, __entry->rkey,
		      __get_str(what))
);

TRACE_EVENT(smbdx_rw,
	    TP_PROTO(u32 conn, u32 cid, bool read, u32 len, u32 wrs, int status),
	    TP_ARGS(conn, cid, read, len, wrs, status),
	    TP_STRUCT__entry(__field(u32, conn)
			     __field(u32, cid)
			     __field(bool, read)
			     __field(u32, len)
			     __field(u32, wrs)
			     __field(int, status)),
	    TP_fast_assign(__entry->conn = conn;
			   __entry->cid = cid;
			   __entry->read = read;
			   __entry->len = len;
			   __entry->wrs = wrs;
			   __entry->status = status;),
	    TP_printk("conn=%u cid=%u %s len=%u wrs=%u status=%d",
		      __entry->conn, __entry->cid,
		      __entry->read ? "read" : "write", __entry->len,
		      __entry->wrs, __entry->status)
);

#endif /* _SMBDX_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
