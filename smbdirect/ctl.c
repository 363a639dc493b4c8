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
 * Normal operation: SMBDX_CTL_CMD_CHECK parses and checks the request in
 * the sender's context and queues it to a work item, then returns at once
 * (genetlink acknowledges it). The work item calls smbdx_connect_report()
 * (connect.c) with the timeout as the Negotiation Timer, queries the
 * negotiated parameters, destroys the connection, and sends the answer to
 * the sender's socket as a unicast SMBDX_CTL_CMD_CHECK message with the
 * request's sequence number: the result, the last step the connection
 * reached, the cause of a failure (the names of the debugfs "errors" file)
 * and the parameters.
 *
 * Why not answer from the doit: genetlink runs every doit with its cb_lock
 * held for reading, whatever the family's parallel_ops, and
 * genl_register_family()/genl_unregister_family() take it for writing. A
 * check waits up to SMBDX_CTL_TIMEOUT_MAX_MS for a peer; held across that
 * wait, cb_lock kept every module in the system from registering or
 * unregistering a generic netlink family, and a writer waiting on it held
 * up every other genetlink request behind it.
 *
 * Concurrency and recovery: smbdx_ctl_mutex protects the list of checks
 * in progress (at most SMBDX_CTL_MAX_CHECKS, -EBUSY beyond, each for at
 * most SMBDX_CTL_TIMEOUT_MAX_MS plus the teardown), each check's orphan
 * flag and smbdx_ctl_closing; a check's answer is sent with it held, so
 * that the netlink notifier (NETLINK_URELEASE) can mark the checks of a
 * socket that closed as orphans, which then run to their end and are not
 * answered (the sender's port may belong to another socket by then). The
 * sender's network namespace is held by the check until it ends. The
 * connection belongs to the check alone and is destroyed before the answer
 * is built. Module unload refuses new checks (-ESHUTDOWN), waits for those
 * in progress (destroy_workqueue()), then unregisters the family, so no
 * answer goes out under a family id that is no longer ours.
 */

#include <linux/inet.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <smbdirect/ctl.h>

#include "smbd.h"

#define SMBDX_CTL_MAX_CHECKS	4
/* SMBDX_CTL_A_ADDR and SMBDX_CTL_A_SRC: the policy's length plus the NUL */
#define SMBDX_CTL_ADDR_LEN	(INET6_ADDRSTRLEN + 16 + 1)

/**
 * struct smbdx_ctl_check - one check in progress
 * @node: in smbdx_ctl_checks
 * @work: runs the check (smbdx_ctl_run())
 * @net: the sender's network namespace (a reference)
 * @portid: the sender's netlink port, where the answer goes
 * @seq: the request's sequence number, repeated in the answer
 * @orphan: the sender's socket closed: no answer
 * @have_src: @src was given
 * @dst: the peer
 * @src: the local address to bind, if @have_src
 * @cfg: the connection's configuration (the timeout as Negotiation Timer)
 * @addr: SMBDX_CTL_A_ADDR as given, repeated in the answer
 */
struct smbdx_ctl_check {
	struct list_head node;
	struct work_struct work;
	struct net *net;
	u32 portid;
	u32 seq;
	bool orphan;
	bool have_src;
	struct sockaddr_storage dst;
	struct sockaddr_storage src;
	struct smbdx_conn_config cfg;
	char addr[SMBDX_CTL_ADDR_LEN];
};

static DEFINE_MUTEX(smbdx_ctl_mutex);
static LIST_HEAD(smbdx_ctl_checks);
static unsigned int smbdx_ctl_nr;
static bool smbdx_ctl_closing;
static struct workqueue_struct *smbdx_ctl_wq;
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

/* The answer to @c: one SMBDX_CTL_CMD_CHECK message, or NULL */
static struct sk_buff *smbdx_ctl_answer(const struct smbdx_ctl_check *c, int err,
					u32 id, u32 elapsed_us,
					const struct smbdx_connect_report *rep,
					const struct smbdx_conn_info *ci)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return NULL;
	hdr = genlmsg_put(msg, c->portid, c->seq, &smbdx_ctl_family, 0,
			  SMBDX_CTL_CMD_CHECK);
	if (!hdr)
		goto too_big;
	if (nla_put_s32(msg, SMBDX_CTL_A_RESULT, err) ||
	    nla_put_u32(msg, SMBDX_CTL_A_CONN_ID, id) ||
	    nla_put_u32(msg, SMBDX_CTL_A_ELAPSED_US, elapsed_us) ||
	    nla_put_string(msg, SMBDX_CTL_A_ADDR, c->addr))
		goto too_big;
	if (err) {
		if (smbdx_ctl_put_failure(msg, rep))
			goto too_big;
	} else {
		if (nla_put_string(msg, SMBDX_CTL_A_STEP,
				   smbdx_state_str(SMBDX_CS_ESTABLISHED)) ||
		    nla_put_u16(msg, SMBDX_CTL_A_PORT,
				smbdx_sockaddr_port((struct sockaddr *)&ci->peer)) ||
		    smbdx_ctl_put_params(msg, ci))
			goto too_big;
	}
	genlmsg_end(msg, hdr);
	return msg;

too_big:
	nlmsg_free(msg);
	return NULL;
}

/* The work item of a check: connect, negotiate, disconnect, answer. */
static void smbdx_ctl_run(struct work_struct *work)
{
	struct smbdx_ctl_check *c = container_of(work, struct smbdx_ctl_check,
						 work);
	struct smbdx_connect_report rep;
	struct smbdx_conn_info ci = {};
	struct smbdx_conn *conn;
	struct sk_buff *msg;
	u32 id, elapsed_us;
	ktime_t start;
	int err;

	start = ktime_get();
	conn = smbdx_connect_report(c->net, (struct sockaddr *)&c->dst,
				    c->have_src ? (struct sockaddr *)&c->src : NULL,
				    &c->cfg, NULL, NULL, &rep);
	elapsed_us = ktime_us_delta(ktime_get(), start);
	if (IS_ERR(conn)) {
		err = PTR_ERR(conn);
		id = rep.conn_id;
	} else {
		err = smbdx_conn_query(conn, &ci);
		id = smbdx_conn_id(conn);
		smbdx_destroy(conn);
	}
	msg = smbdx_ctl_answer(c, err, id, elapsed_us, &rep, &ci);

	mutex_lock(&smbdx_ctl_mutex);
	list_del(&c->node);
	smbdx_ctl_nr--;
	if (msg && !c->orphan)
		/* Fails harmlessly if the socket cannot take it. */
		genlmsg_unicast(c->net, msg, c->portid);
	else
		nlmsg_free(msg);
	mutex_unlock(&smbdx_ctl_mutex);
	put_net(c->net);
	kfree(c);
}

/* SMBDX_CTL_CMD_CHECK: check the request, queue it, return at once. */
static int smbdx_ctl_check(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct smbdx_ctl_check *c;
	int rc;

	if (GENL_REQ_ATTR_CHECK(info, SMBDX_CTL_A_ADDR))
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	rc = smbdx_ctl_addr(net, info->attrs[SMBDX_CTL_A_ADDR], &c->dst,
			    info->extack);
	if (rc)
		goto out_free;
	if (info->attrs[SMBDX_CTL_A_PORT])
		smbdx_sockaddr_set_port((struct sockaddr *)&c->dst,
					nla_get_u16(info->attrs[SMBDX_CTL_A_PORT]));
	if (info->attrs[SMBDX_CTL_A_SRC]) {
		rc = smbdx_ctl_addr(net, info->attrs[SMBDX_CTL_A_SRC], &c->src,
				    info->extack);
		if (rc)
			goto out_free;
		c->have_src = true;
	}
	smbdx_conn_config_init(&c->cfg);
	c->cfg.negotiate_timeout_ms = SMBDX_CTL_TIMEOUT_DEF_MS;
	if (info->attrs[SMBDX_CTL_A_TIMEOUT_MS])
		c->cfg.negotiate_timeout_ms =
			nla_get_u32(info->attrs[SMBDX_CTL_A_TIMEOUT_MS]);
	nla_strscpy(c->addr, info->attrs[SMBDX_CTL_A_ADDR], sizeof(c->addr));
	c->portid = info->snd_portid;
	c->seq = info->snd_seq;
	INIT_WORK(&c->work, smbdx_ctl_run);

	mutex_lock(&smbdx_ctl_mutex);
	if (smbdx_ctl_closing) {
		rc = -ESHUTDOWN;
	} else if (smbdx_ctl_nr >= SMBDX_CTL_MAX_CHECKS) {
		NL_SET_ERR_MSG(info->extack, "too many checks in progress");
		rc = -EBUSY;
	} else {
		c->net = get_net(net);
		list_add_tail(&c->node, &smbdx_ctl_checks);
		smbdx_ctl_nr++;
		queue_work(smbdx_ctl_wq, &c->work);
	}
	mutex_unlock(&smbdx_ctl_mutex);
	if (!rc)
		return 0;
out_free:
	kfree(c);
	return rc;
}

/* A netlink socket closed: its checks in progress go unanswered. */
static int smbdx_ctl_release(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct netlink_notify *n = ptr;
	struct smbdx_ctl_check *c;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	mutex_lock(&smbdx_ctl_mutex);
	list_for_each_entry(c, &smbdx_ctl_checks, node)
		if (c->portid == n->portid && net_eq(c->net, n->net))
			c->orphan = true;
	mutex_unlock(&smbdx_ctl_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block smbdx_ctl_nb = {
	.notifier_call = smbdx_ctl_release,
};

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
 * Return: 0, -ENOMEM, or a negative errno from genl_register_family().
 */
int smbdx_ctl_init(void)
{
	int rc;

	smbdx_ctl_wq = alloc_workqueue("smbdx_ctl", WQ_UNBOUND,
				       SMBDX_CTL_MAX_CHECKS);
	if (!smbdx_ctl_wq)
		return -ENOMEM;
	rc = netlink_register_notifier(&smbdx_ctl_nb);
	if (rc)
		goto out_wq;
	rc = genl_register_family(&smbdx_ctl_family);
	if (rc)
		goto out_nb;
	return 0;

out_nb:
	netlink_unregister_notifier(&smbdx_ctl_nb);
out_wq:
	destroy_workqueue(smbdx_ctl_wq);
	return rc;
}

/**
 * smbdx_ctl_exit() - unregister it
 *
 * Refuses new checks, waits for those in progress (each answers), then
 * unregisters the family.
 */
void smbdx_ctl_exit(void)
{
	mutex_lock(&smbdx_ctl_mutex);
	smbdx_ctl_closing = true;
	mutex_unlock(&smbdx_ctl_mutex);
	destroy_workqueue(smbdx_ctl_wq);
	genl_unregister_family(&smbdx_ctl_family);
	netlink_unregister_notifier(&smbdx_ctl_nb);
}
