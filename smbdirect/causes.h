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
