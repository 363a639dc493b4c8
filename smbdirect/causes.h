/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The transport's own causes of a connection's termination, one line
 * each: SMBDX_CAUSE(ID, name, text). This file is the single list they
 * derive from; it has no include guard and is included by each user with
 * its own definition of SMBDX_CAUSE(): enum smbdx_cause in smbd.h
 * (SMBDX_CAUSE_<ID>, after the protocol verdicts of
 * <smbdirect/pdu_verdicts.h>, which are causes too), the names and
 * descriptions in causes.c (debugfs "errors", tracepoints, logs) and the
 * checks of kunit/smbdirect_tables_kunit.c. Documentation/admin-guide.rst
 * describes each.
 *
 * Concurrency: none (a list).
 */
SMBDX_CAUSE(NEG_TIMEOUT, "negotiation_timeout",
	    "3.1.6.1: negotiation timer expired")
SMBDX_CAUSE(KEEPALIVE_TIMEOUT, "keepalive_timeout",
	    "3.1.6.2: no message after a keepalive request")
SMBDX_CAUSE(PEER_DISCONNECT, "peer_disconnect",
	    "3.1.7.1: the peer disconnected (or flushed the QP)")
SMBDX_CAUSE(CM_ERROR, "cm_error",
	    "connection manager error (address, route, connect)")
SMBDX_CAUSE(REJECTED, "rejected",
	    "the peer rejected the connection")
SMBDX_CAUSE(DEVICE_REMOVAL, "device_removal",
	    "the RDMA device was removed")
SMBDX_CAUSE(RECV_ERROR, "recv_completion_error",
	    "receive completed with an error")
SMBDX_CAUSE(SEND_ERROR, "send_completion_error",
	    "send completed with an error")
SMBDX_CAUSE(POST_ERROR, "post_error",
	    "posting a work request failed")
SMBDX_CAUSE(NOMEM, "no_memory",
	    "out of memory")
SMBDX_CAUSE(NEG_REFUSED, "negotiation_refused",
	    "3.1.5.7: the peer refused our negotiate request")
SMBDX_CAUSE(ACCEPT_REFUSED, "accept_refused",
	    "the upper layer refused the connection")
SMBDX_CAUSE(DEVICE_UNUSABLE, "device_unusable",
	    "the RDMA device cannot carry SMB Direct")
SMBDX_CAUSE(MR_ERROR, "mr_completion_error",
	    "a memory registration or invalidation failed")
SMBDX_CAUSE(RW_ERROR, "rdma_rw_completion_error",
	    "an RDMA read or write failed (bad descriptor?)")
SMBDX_CAUSE(SEND_TIMEOUT, "send_timeout",
	    "a message waited io_timeout to be sent (no send credit from the peer)")
SMBDX_CAUSE(WR_TIMEOUT, "wr_timeout",
	    "an RDMA read/write or registration did not complete within io_timeout")
SMBDX_CAUSE(PUSH_UNNEGOTIATED, "push_unnegotiated",
	    "push mode: a control message, but push mode was not negotiated")
SMBDX_CAUSE(PUSH_BAD_MSG, "push_bad_message",
	    "push mode: malformed control message (length, version, type, flags, fields)")
SMBDX_CAUSE(PUSH_BAD_SEQ, "push_bad_sequence",
	    "push mode: a request out of sequence, or an answer to no request")
SMBDX_CAUSE(PUSH_TOO_MANY, "push_too_many",
	    "push mode: more outstanding requests than advertised")
SMBDX_CAUSE(PUSH_RANGE, "push_range",
	    "push mode: a commit outside its region")
SMBDX_CAUSE(PUSH_ALIGN, "push_align",
	    "push mode: an atomic write target not 8-byte aligned")
SMBDX_CAUSE(PUSH_REVOKED, "push_revoked",
	    "push mode: a commit on a revoked or unknown region")
SMBDX_CAUSE(PUSH_ACCESS, "push_access",
	    "push mode: a commit the region was not registered for (persistence...)")
SMBDX_CAUSE(PUSH_FAILED, "push_failed",
	    "push mode: the responder could not complete a commit")
SMBDX_CAUSE(PUSH_TIMEOUT, "push_timeout",
	    "push mode: a commit or revoke was not answered within io_timeout")
