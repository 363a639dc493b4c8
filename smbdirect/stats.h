/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every counter of a connection (and of the module's totals), one line
 * each: SMBDX_STAT(ID, name). This file is the single list they derive
 * from; it has no include guard and is included by each user with its own
 * definition of SMBDX_STAT(): enum smbdx_stat in smbd.h (SMBDX_STAT_<ID>),
 * the debugfs names in stats.c (debugfs prints every counter in this
 * order) and the checks of kunit/smbdirect_tables_kunit.c.
 * Documentation/admin-guide.rst describes each.
 *
 * Concurrency: none (a list).
 */
SMBDX_STAT(TX_NEG_REQ, "tx_negotiate_req")
SMBDX_STAT(TX_NEG_RESP, "tx_negotiate_resp")
SMBDX_STAT(TX_MSGS, "tx_messages")
SMBDX_STAT(TX_FRAGS, "tx_fragments")
SMBDX_STAT(TX_EMPTY, "tx_empty")
SMBDX_STAT(TX_KEEPALIVE_REQ, "tx_keepalive_requests")
SMBDX_STAT(TX_KEEPALIVE_RESP, "tx_keepalive_responses")
SMBDX_STAT(TX_CREDITS_GRANTED, "tx_credits_granted")
SMBDX_STAT(TX_BYTES, "tx_bytes")
SMBDX_STAT(TX_INVALIDATE, "tx_send_with_invalidate")
SMBDX_STAT(RX_NEG_REQ, "rx_negotiate_req")
SMBDX_STAT(RX_NEG_RESP, "rx_negotiate_resp")
SMBDX_STAT(RX_MSGS, "rx_messages")
SMBDX_STAT(RX_FRAGS, "rx_fragments")
SMBDX_STAT(RX_EMPTY, "rx_empty")
SMBDX_STAT(RX_KEEPALIVE_REQ, "rx_keepalive_requests")
SMBDX_STAT(RX_CREDITS_GRANTED, "rx_credits_granted")
SMBDX_STAT(RX_BYTES, "rx_bytes")
SMBDX_STAT(RX_INVALIDATED, "rx_invalidated")
SMBDX_STAT(SEND_BLOCKED, "send_blocked_on_credits")
SMBDX_STAT(SEND_SQ_FULL, "send_queue_full")
SMBDX_STAT(RECV_GATED, "recv_repost_deferred")
SMBDX_STAT(LOCAL_TOO_BIG, "local_message_too_big")
SMBDX_STAT(KEEPALIVE_TIMER, "idle_timer_expired")
SMBDX_STAT(MR_REGISTRATIONS, "mr_registrations")
SMBDX_STAT(MR_REGISTERED_BYTES, "mr_registered_bytes")
SMBDX_STAT(MR_DESCS, "mr_registered_descriptors")
SMBDX_STAT(MR_REG_WAITS, "mr_registration_waits")
SMBDX_STAT(MR_REG_FAILED, "mr_registration_failures")
SMBDX_STAT(MR_LOCAL_INV, "mr_local_invalidations")
SMBDX_STAT(MR_REMOTE_INV, "mr_remote_invalidations")
SMBDX_STAT(MR_REMOTE_INV_UNKNOWN, "mr_remote_invalidations_unknown")
SMBDX_STAT(MR_RECYCLED, "mr_recycled")
SMBDX_STAT(MR_ALLOCATED, "mr_allocated")
SMBDX_STAT(MR_GLOBAL_LIMIT, "mr_global_limit")
SMBDX_STAT(RDMA_READS, "rdma_reads")
SMBDX_STAT(RDMA_READ_BYTES, "rdma_read_bytes")
SMBDX_STAT(RDMA_WRITES, "rdma_writes")
SMBDX_STAT(RDMA_WRITE_BYTES, "rdma_write_bytes")
SMBDX_STAT(RDMA_WRS, "rdma_rw_work_requests")
SMBDX_STAT(RDMA_LOCAL_MRS, "rdma_rw_local_mrs")
SMBDX_STAT(RW_FAILED, "rdma_rw_failures")
SMBDX_STAT(RW_BAD_DESC, "rdma_rw_bad_descriptors")
SMBDX_STAT(RW_TOO_BIG, "rdma_rw_too_big")
SMBDX_STAT(DESTROY_DRAIN_TIMEOUTS, "destroy_drain_timeouts")
SMBDX_STAT(CM_COMM_EST, "cm_established_by_data")
SMBDX_STAT(CM_EST_WAIT_TIMEOUTS, "cm_established_wait_timeouts")
SMBDX_STAT(SENDS_RECLAIMED, "sends_reclaimed")
SMBDX_STAT(CONNECT_KILLED, "connect_killed_in_teardown")
SMBDX_STAT(CM_CAPS_SENT, "cm_caps_sent")
SMBDX_STAT(CM_CAPS_FOUND, "cm_caps_found")
SMBDX_STAT(CM_CAPS_MALFORMED, "cm_caps_malformed")
