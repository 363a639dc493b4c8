// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "smbdirect" (include/smbdirect/ctl.h; YNL spec
 * Documentation/netlink/specs/smbdirect.yaml): the one thing smbdctl needs
 * that the read-only debugfs files cannot give, "smbdctl check ADDR":
 * connect to an address over SMB Direct, negotiate, and report.
 *
 * Why netlink and not debugfs: a check makes a connection, so it needs a
 * request with arguments. A writable debugfs file is refused under kernel
 * lockdown (integrity mode allows read-only debugfs files only;
 * confidentiality mode closes debugfs), and the product cannot rely on the
 * test module's debugfs "negotiate" command. A generic netlink command
 * works under lockdown, is checked for CAP_NET_ADMIN (GENL_ADMIN_PERM),
 * connects in the caller's network namespace, and has a YNL description.
 *
 * Normal operation: SMBDX_CTL_CMD_CHECK runs in the sender's context. It
 * parses the address, calls smbdx_connect_report() (connect.c) with the
 * timeout as the Negotiation Timer, queries the negotiated parameters,
 * destroys the connection, and answers with the result, the last step the
 * connection reached, the cause of a failure (the names of the debugfs
 * "errors" file) and the parameters.
 *
 * Concurrency and recovery: the family has parallel_ops, so a check holds
 * no genetlink-wide mutex while it waits; at most SMBDX_CTL_MAX_CHECKS run
 * at once (-EBUSY beyond), each for at most SMBDX_CTL_TIMEOUT_MAX_MS. A
 * signal to the sender ends the wait (-EINTR). The connection belongs to
 * the command alone and is destroyed before the answer is built. Module
 * unload unregisters the family first; genetlink waits for commands in
 * progress (they run under its cb_lock), so none outlives the module.
 */

#include <linux/inet.h>
#include <linux/module.h>
#include <net/genetlink.h>
#include <smbdirect/ctl.h>

#include "smbd.h"

#define SMBDX_CTL_MAX_CHECKS	4

static atomic_t smbdx_ctl_checks = ATOMIC_INIT(0);
static struct genl_family smbdx_ctl_family;

static const struct nla_policy smbdx_ctl_policy[SMBDX_CTL_A_MAX + 1] = {
	[SMBDX_CTL_A_ADDR] = { .type = NLA_NUL_STRING, .len = INET6_ADDRSTRLEN + 16 },
	[SMBDX_CTL_A_PORT] = { .type = NLA_U16 },
	[SMBDX_CTL_A_SRC] = { .type = NLA_NUL_STRING, .len = INET6_ADDRSTRLEN + 16 },
	[SMBDX_CTL_A_TIMEOUT_MS] = NLA_POLICY_RANGE(NLA_U32, 1, SMBDX_CTL_TIMEOUT_MAX_MS),
};

/* An IPv4 or IPv6 address (with %scope for link-local IPv6). */
static int smbdx_ctl_addr(struct net *net, struct nlattr *attr,
			  struct sockaddr_storage *ss, struct netlink_ext_ack *extack)
{
	int rc = inet_pton_with_scope(net, AF_UNSPEC, nla_data(attr), NULL, ss);

	if (rc)
		NL_SET_ERR_MSG_ATTR(extack, attr, "not an IPv4 or IPv6 address");
	return rc;
}

static int smbdx_ctl_put_addr(struct sk_buff *msg, int type,
			      const struct sockaddr_storage *ss)
{
	char buf[INET6_ADDRSTRLEN + 24];

	if (ss->ss_family != AF_INET && ss->ss_family != AF_INET6)
		return 0;
	snprintf(buf, sizeof(buf), "%pISpc", ss);
	return nla_put_string(msg, type, buf);
}

static int smbdx_ctl_put_params(struct sk_buff *msg, const struct smbdx_conn_info *ci)
{
	const struct smbdx_proto_params *p = &ci->params;

	if (nla_put_u32(msg, SMBDX_CTL_A_PROTOCOL, p->protocol) ||
	    nla_put_u32(msg, SMBDX_CTL_A_MAX_SEND_SIZE, p->max_send_size) ||
	    nla_put_u32(msg, SMBDX_CTL_A_MAX_RECEIVE_SIZE, p->max_receive_size) ||
	    nla_put_u32(msg, SMBDX_CTL_A_MAX_FRAGMENTED_SEND_SIZE,
			p->max_fragmented_send_size) ||
	    nla_put_u32(msg, SMBDX_CTL_A_MAX_FRAGMENTED_RECV_SIZE,
			p->max_fragmented_recv_size) ||
	    nla_put_u32(msg, SMBDX_CTL_A_MAX_READ_WRITE_SIZE, p->max_read_write_size) ||
	    nla_put_u32(msg, SMBDX_CTL_A_KEEPALIVE_INTERVAL, p->keepalive_interval) ||
	    nla_put_u32(msg, SMBDX_CTL_A_RECV_CREDIT_MAX, p->recv_credit_max) ||
	    nla_put_u32(msg, SMBDX_CTL_A_SEND_CREDIT_TARGET, p->send_credit_target) ||
	    nla_put_u32(msg, SMBDX_CTL_A_SEND_CREDITS, p->send_credits) ||
	    nla_put_u32(msg, SMBDX_CTL_A_IRD, ci->ird) ||
	    nla_put_u32(msg, SMBDX_CTL_A_ORD, ci->ord) ||
	    nla_put_u8(msg, SMBDX_CTL_A_IWARP, ci->iwarp) ||
	    nla_put_string(msg, SMBDX_CTL_A_DEVICE, ci->device) ||
	    smbdx_ctl_put_addr(msg, SMBDX_CTL_A_LOCAL, &ci->local) ||
	    smbdx_ctl_put_addr(msg, SMBDX_CTL_A_PEER, &ci->peer))
		return -EMSGSIZE;
	return 0;
}

static int smbdx_ctl_put_failure(struct sk_buff *msg,
				 const struct smbdx_connect_report *rep)
{
	if (nla_put_string(msg, SMBDX_CTL_A_STEP, smbdx_state_str(rep->step)) ||
	    nla_put_string(msg, SMBDX_CTL_A_CAUSE, smbdx_cause_name(rep->cause)) ||
	    nla_put_string(msg, SMBDX_CTL_A_CAUSE_TEXT, smbdx_cause_str(rep->cause)) ||
	    (rep->device[0] &&
	     nla_put_string(msg, SMBDX_CTL_A_DEVICE, rep->device)) ||
	    smbdx_ctl_put_addr(msg, SMBDX_CTL_A_LOCAL, &rep->local) ||
	    smbdx_ctl_put_addr(msg, SMBDX_CTL_A_PEER, &rep->peer))
		return -EMSGSIZE;
	return 0;
}

static int smbdx_ctl_check(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct smbdx_connect_report rep;
	struct sockaddr_storage dst, src;
	struct smbdx_conn_config cfg;
	struct smbdx_conn_info ci = {};
	struct smbdx_conn *conn;
	struct sk_buff *msg;
	bool have_src = false;
	u32 id, elapsed_us;
	ktime_t start;
	void *hdr;
	int rc, err;

	if (GENL_REQ_ATTR_CHECK(info, SMBDX_CTL_A_ADDR))
		return -EINVAL;
	rc = smbdx_ctl_addr(net, info->attrs[SMBDX_CTL_A_ADDR], &dst, info->extack);
	if (rc)
		return rc;
	if (info->attrs[SMBDX_CTL_A_PORT])
		smbdx_sockaddr_set_port((struct sockaddr *)&dst,
					nla_get_u16(info->attrs[SMBDX_CTL_A_PORT]));
	if (info->attrs[SMBDX_CTL_A_SRC]) {
		rc = smbdx_ctl_addr(net, info->attrs[SMBDX_CTL_A_SRC], &src, info->extack);
		if (rc)
			return rc;
		have_src = true;
	}
	smbdx_conn_config_init(&cfg);
	cfg.negotiate_timeout_ms = SMBDX_CTL_TIMEOUT_DEF_MS;
	if (info->attrs[SMBDX_CTL_A_TIMEOUT_MS])
		cfg.negotiate_timeout_ms = nla_get_u32(info->attrs[SMBDX_CTL_A_TIMEOUT_MS]);

	if (atomic_inc_return(&smbdx_ctl_checks) > SMBDX_CTL_MAX_CHECKS) {
		atomic_dec(&smbdx_ctl_checks);
		NL_SET_ERR_MSG(info->extack, "too many checks in progress");
		return -EBUSY;
	}
	start = ktime_get();
	conn = smbdx_connect_report(net, (struct sockaddr *)&dst,
				    have_src ? (struct sockaddr *)&src : NULL,
				    &cfg, NULL, NULL, &rep);
	elapsed_us = ktime_us_delta(ktime_get(), start);
	if (IS_ERR(conn)) {
		err = PTR_ERR(conn);
		id = rep.conn_id;
	} else {
		err = smbdx_conn_query(conn, &ci);
		id = smbdx_conn_id(conn);
		smbdx_destroy(conn);
	}
	atomic_dec(&smbdx_ctl_checks);

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &smbdx_ctl_family, 0, SMBDX_CTL_CMD_CHECK);
	if (!hdr)
		goto too_big;
	if (nla_put_s32(msg, SMBDX_CTL_A_RESULT, err) ||
	    nla_put_u32(msg, SMBDX_CTL_A_CONN_ID, id) ||
	    nla_put_u32(msg, SMBDX_CTL_A_ELAPSED_US, elapsed_us) ||
	    nla_put_string(msg, SMBDX_CTL_A_ADDR, nla_data(info->attrs[SMBDX_CTL_A_ADDR])))
		goto too_big;
	if (err) {
		if (smbdx_ctl_put_failure(msg, &rep))
			goto too_big;
	} else {
		if (nla_put_string(msg, SMBDX_CTL_A_STEP,
				   smbdx_state_str(SMBDX_CS_ESTABLISHED)) ||
		    nla_put_u16(msg, SMBDX_CTL_A_PORT,
				smbdx_sockaddr_port((struct sockaddr *)&ci.peer)) ||
		    smbdx_ctl_put_params(msg, &ci))
			goto too_big;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

too_big:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static const struct genl_small_ops smbdx_ctl_ops[] = {
	{
		.cmd = SMBDX_CTL_CMD_CHECK,
		.doit = smbdx_ctl_check,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family smbdx_ctl_family __ro_after_init = {
	.name = SMBDX_CTL_FAMILY_NAME,
	.version = SMBDX_CTL_FAMILY_VERSION,
	.maxattr = SMBDX_CTL_A_MAX,
	.policy = smbdx_ctl_policy,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.small_ops = smbdx_ctl_ops,
	.n_small_ops = ARRAY_SIZE(smbdx_ctl_ops),
};

/**
 * smbdx_ctl_init() - register the generic netlink family
 *
 * Return: 0 or a negative errno from genl_register_family().
 */
int smbdx_ctl_init(void)
{
	return genl_register_family(&smbdx_ctl_family);
}

/**
 * smbdx_ctl_exit() - unregister it; waits for checks in progress
 */
void smbdx_ctl_exit(void)
{
	genl_unregister_family(&smbdx_ctl_family);
}
