/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every way an input can break a rule of the SMB Direct engine, one line
 * each: SMBDX_VERDICT(ID, name, rule). This file is the single list the
 * verdicts derive from; it has no include guard and is included by each
 * user with its own definition of SMBDX_VERDICT():
 *
 *  - pdu.h: enum smbdx_verdict, SMBDX_ERR_<ID> in this order after SMBDX_OK;
 *  - smbdirect/pdu.c: smbdx_verdict_name() and smbdx_verdict_str();
 *  - smbdirect.ko's cause names (debugfs "errors", tracepoints, logs);
 *  - kunit/smbdirect_tables_kunit.c: the checks that every entry is whole.
 *
 * ID gives the enumerator; name is the short name (lower case, digits and
 * '_'); rule is the rule broken, with its MS-SMBD section, or "local:" for
 * a caller's mistake. A new verdict is one line here (and, when the
 * transport can see it, a row in Documentation/admin-guide.rst).
 *
 * Concurrency: none (a list).
 */
SMBDX_VERDICT(NEG_REQ_SHORT, "neg_req_short",
	      "3.1.5.6: negotiate request shorter than 20 bytes")
SMBDX_VERDICT(NEG_REQ_VERSION, "neg_req_version",
	      "3.1.5.6: MinVersion..MaxVersion does not include 0x0100")
SMBDX_VERDICT(NEG_REQ_CREDITS, "neg_req_credits",
	      "3.1.5.6: negotiate request CreditsRequested is 0")
SMBDX_VERDICT(NEG_REQ_MAX_RECV, "neg_req_max_recv",
	      "3.1.5.6: negotiate request MaxReceiveSize below 128")
SMBDX_VERDICT(NEG_REQ_MAX_FRAG, "neg_req_max_frag",
	      "3.1.5.6: negotiate request MaxFragmentedSize below 131072")
SMBDX_VERDICT(NEG_RESP_SHORT, "neg_resp_short",
	      "3.1.5.7: negotiate response shorter than 32 bytes")
SMBDX_VERDICT(NEG_RESP_STATUS, "neg_resp_status",
	      "3.1.5.7: negotiate response Status is not 0")
SMBDX_VERDICT(NEG_RESP_VERSION, "neg_resp_version",
	      "3.1.5.7: NegotiatedVersion is not 0x0100")
SMBDX_VERDICT(NEG_RESP_CREDITS_GRANTED, "neg_resp_credits_granted",
	      "3.1.5.7: negotiate response CreditsGranted is 0")
SMBDX_VERDICT(NEG_RESP_CREDITS_REQUESTED, "neg_resp_credits_requested",
	      "3.1.5.7: negotiate response CreditsRequested is 0")
SMBDX_VERDICT(NEG_RESP_MAX_RECV, "neg_resp_max_recv",
	      "3.1.5.7: negotiate response MaxReceiveSize below 128")
SMBDX_VERDICT(NEG_RESP_MAX_FRAG, "neg_resp_max_frag",
	      "3.1.5.7: negotiate response MaxFragmentedSize below 131072")
SMBDX_VERDICT(NEG_RESP_PREF_SEND, "neg_resp_pref_send",
	      "3.1.5.7: PreferredSendSize above our MaxReceiveSize")
SMBDX_VERDICT(NEG_NO_RECV_CREDITS, "neg_no_recv_credits",
	      "3.1.5.6/3.1.5.7: no receive credits after credit set-up")
SMBDX_VERDICT(DATA_SHORT, "data_short",
	      "3.1.5.8: data transfer message shorter than 20 bytes")
SMBDX_VERDICT(DATA_CREDITS_REQUESTED, "data_credits_requested",
	      "3.1.5.8: data transfer CreditsRequested is 0")
SMBDX_VERDICT(DATA_OFFSET_ALIGN, "data_offset_align",
	      "3.1.5.8: DataOffset is not 8-byte aligned")
SMBDX_VERDICT(DATA_OFFSET_OVERLAP, "data_offset_overlap",
	      "2.2.3: payload starts inside the 20-byte header")
SMBDX_VERDICT(DATA_OVERFLOW, "data_overflow",
	      "3.1.5.8: DataOffset + DataLength overflows 32 bits")
SMBDX_VERDICT(DATA_PAST_END, "data_past_end",
	      "3.1.5.8: DataOffset + DataLength beyond the received message")
SMBDX_VERDICT(DATA_TOO_BIG, "data_too_big",
	      "3.1.5.8: DataLength + RemainingDataLength above MaxFragmentedRecvSize")
SMBDX_VERDICT(REASM_MISMATCH, "reassembly_mismatch",
	      "3.1.5.8: RemainingDataLength inconsistent with the fragmented message")
SMBDX_VERDICT(RECV_NO_CREDIT, "recv_without_credit",
	      "3.1.5.1: peer sent a message without holding a credit")
SMBDX_VERDICT(SEND_CREDIT_OVERFLOW, "send_credit_overflow",
	      "3.1.5.8: peer granted more than 65535 outstanding credits")
SMBDX_VERDICT(MSG_TOO_BIG, "msg_too_big",
	      "3.1.5.4: message longer than MaxFragmentedSendSize")
SMBDX_VERDICT(BUF_TOO_SMALL, "buf_too_small",
	      "local: output buffer too small")
SMBDX_VERDICT(INVALID, "invalid",
	      "local: invalid argument or configuration")
SMBDX_VERDICT(FRAG_CONFIG, "frag_config",
	      "local: receive credits too few for a MaxFragmentedRecvSize of 131072")
SMBDX_VERDICT(BD_LENGTH, "bd_length",
	      "2.2.3.1: buffer descriptor array empty or not a multiple of 16 bytes")
SMBDX_VERDICT(BD_OVERFLOW, "bd_overflow",
	      "2.2.3.1: buffer descriptor Offset + Length overflows")
SMBDX_VERDICT(IRD_ORD_ZERO, "ird_ord_zero",
	      "appendix A 6.2: negotiated IRD or ORD is 0")
