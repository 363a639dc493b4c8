// SPDX-License-Identifier: GPL-2.0
/*
 * "smbdctl check": one request to smbdirect.ko's generic netlink family
 * (include/smbdirect/ctl.h), over a plain NETLINK_GENERIC socket. The
 * module acknowledges the request at once and runs the check in a work item
 * of its own (so that genetlink's locks are not held while it waits for
 * the peer); the answer comes later on the same socket, a message of the
 * family with the request's sequence number. It may arrive before or after
 * the acknowledgment; the wait for both is bounded by the check's timeout
 * plus CHECK_MARGIN_S.
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <smbdirect/ctl.h>

#include "smbdctl.h"

/* Longest wait for an answer beyond the check's own timeout */
#define CHECK_MARGIN_S	30

enum attr_kind { A_STR, A_U8, A_U16, A_U32, A_S32 };

static const struct {
	const char *name;
	enum attr_kind kind;
} check_attrs[SMBDX_CTL_A_MAX + 1] = {
	[SMBDX_CTL_A_ADDR] = { "addr", A_STR },
	[SMBDX_CTL_A_PORT] = { "port", A_U16 },
	[SMBDX_CTL_A_SRC] = { "src", A_STR },
	[SMBDX_CTL_A_TIMEOUT_MS] = { "timeout_ms", A_U32 },
	[SMBDX_CTL_A_RESULT] = { "result", A_S32 },
	[SMBDX_CTL_A_STEP] = { "step", A_STR },
	[SMBDX_CTL_A_CAUSE] = { "cause", A_STR },
	[SMBDX_CTL_A_CAUSE_TEXT] = { "cause_text", A_STR },
	[SMBDX_CTL_A_DEVICE] = { "device", A_STR },
	[SMBDX_CTL_A_IWARP] = { "iwarp", A_U8 },
	[SMBDX_CTL_A_LOCAL] = { "local", A_STR },
	[SMBDX_CTL_A_PEER] = { "peer", A_STR },
	[SMBDX_CTL_A_CONN_ID] = { "conn_id", A_U32 },
	[SMBDX_CTL_A_ELAPSED_US] = { "elapsed_us", A_U32 },
	[SMBDX_CTL_A_PROTOCOL] = { "protocol", A_U32 },
	[SMBDX_CTL_A_MAX_SEND_SIZE] = { "max_send_size", A_U32 },
	[SMBDX_CTL_A_MAX_RECEIVE_SIZE] = { "max_receive_size", A_U32 },
	[SMBDX_CTL_A_MAX_FRAGMENTED_SEND_SIZE] = { "max_fragmented_send_size", A_U32 },
	[SMBDX_CTL_A_MAX_FRAGMENTED_RECV_SIZE] = { "max_fragmented_recv_size", A_U32 },
	[SMBDX_CTL_A_MAX_READ_WRITE_SIZE] = { "max_read_write_size", A_U32 },
	[SMBDX_CTL_A_KEEPALIVE_INTERVAL] = { "keepalive_interval", A_U32 },
	[SMBDX_CTL_A_RECV_CREDIT_MAX] = { "recv_credit_max", A_U32 },
	[SMBDX_CTL_A_SEND_CREDIT_TARGET] = { "send_credit_target", A_U32 },
	[SMBDX_CTL_A_SEND_CREDITS] = { "send_credits", A_U32 },
	[SMBDX_CTL_A_IRD] = { "ird", A_U32 },
	[SMBDX_CTL_A_ORD] = { "ord", A_U32 },
};

struct nlbuf {
	union {
		struct nlmsghdr hdr;
		char data[8192];
	};
	size_t len;
};

static void msg_init(struct nlbuf *b, unsigned short type, unsigned char cmd)
{
	struct genlmsghdr *g;

	memset(b, 0, sizeof(*b));
	b->hdr.nlmsg_type = type;
	b->hdr.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	b->hdr.nlmsg_seq = 1;
	b->len = NLMSG_LENGTH(GENL_HDRLEN);
	g = NLMSG_DATA(&b->hdr);
	g->cmd = cmd;
	g->version = SMBDX_CTL_FAMILY_VERSION;
}

static int put_attr(struct nlbuf *b, unsigned short type, const void *data,
		    size_t len)
{
	struct nlattr *a = (struct nlattr *)(b->data + NLMSG_ALIGN(b->len));
	size_t total = NLMSG_ALIGN(b->len) + NLA_ALIGN(NLA_HDRLEN + len);

	if (total > sizeof(b->data))
		return -EMSGSIZE;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	b->len = total;
	return 0;
}

static int put_str(struct nlbuf *b, unsigned short type, const char *s)
{
	return put_attr(b, type, s, strlen(s) + 1);
}

/*
 * Send @req and read the answer, the first message of the family with
 * @req's sequence number, into @ans. With @late the answer may come after
 * the acknowledgment (a check); without it, it comes before. Return: 0
 * when @ans holds the answer; a negative errno from the kernel (its
 * NLMSG_ERROR answer) or from the socket otherwise (-EAGAIN: no answer
 * within the socket's receive timeout).
 */
static int transact(int fd, struct nlbuf *req, struct nlbuf *ans, bool late)
{
	struct sockaddr_nl nladdr = { .nl_family = AF_NETLINK };
	static struct nlbuf rx;
	bool have = false, acked = false;
	struct nlmsghdr *h;
	ssize_t n;

	req->hdr.nlmsg_len = req->len;
	if (sendto(fd, req->data, req->len, 0, (struct sockaddr *)&nladdr,
		   sizeof(nladdr)) < 0)
		return -errno;
	while (!have || !acked) {
		n = recv(fd, rx.data, sizeof(rx.data), 0);
		if (n < 0)
			return -errno;
		for (h = &rx.hdr; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != req->hdr.nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				if (e->error)
					return e->error;
				if (!have && !late)
					return -ENODATA;
				acked = true;	/* the ACK */
			} else if (!have) {
				memcpy(ans->data, h, h->nlmsg_len);
				ans->len = h->nlmsg_len;
				have = true;
			}
		}
	}
	return 0;
}

/* The attributes of a genetlink message, indexed by type. */
static void parse_attrs(struct nlbuf *b, struct nlattr **tb, int max)
{
	struct nlattr *a;
	int rem;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	a = (struct nlattr *)((char *)NLMSG_DATA(&b->hdr) + GENL_HDRLEN);
	rem = b->len - NLMSG_LENGTH(GENL_HDRLEN);
	while (rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= rem) {
		int type = a->nla_type & NLA_TYPE_MASK;

		if (type <= max)
			tb[type] = a;
		rem -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
}

static void *attr_data(struct nlattr *a)
{
	return (char *)a + NLA_HDRLEN;
}

static int family_id(int fd, char *err, size_t errlen)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	static struct nlbuf req, ans;
	int rc;

	msg_init(&req, GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
	((struct genlmsghdr *)NLMSG_DATA(&req.hdr))->version = 1;
	put_str(&req, CTRL_ATTR_FAMILY_NAME, SMBDX_CTL_FAMILY_NAME);
	rc = transact(fd, &req, &ans, false);
	if (rc == -ENOENT) {
		snprintf(err, errlen,
			 "smbdirect.ko is not loaded (no generic netlink family \"%s\"; modprobe smbdirect)",
			 SMBDX_CTL_FAMILY_NAME);
		return rc;
	}
	if (rc) {
		snprintf(err, errlen, "looking up the netlink family: %s",
			 strerror(-rc));
		return rc;
	}
	parse_attrs(&ans, tb, CTRL_ATTR_MAX);
	if (!tb[CTRL_ATTR_FAMILY_ID]) {
		snprintf(err, errlen, "no family id in the answer");
		return -EPROTO;
	}
	return *(uint16_t *)attr_data(tb[CTRL_ATTR_FAMILY_ID]);
}

/**
 * nl_check() - ask smbdirect.ko to connect to an address and negotiate
 * @req: address, optional source address, port and timeout
 * @res: the answer: @res->result and every attribute by name
 * @err: gets a message when the request itself failed
 * @errlen: size of @err
 *
 * Return: 0 when the module answered (the check may still have failed:
 * see @res->result), or a negative errno with @err set.
 */
int nl_check(const struct check_req *req, struct check_res *res, char *err,
	     size_t errlen)
{
	struct nlattr *tb[SMBDX_CTL_A_MAX + 1];
	static struct nlbuf msg, ans;
	uint16_t port = req->port;
	uint32_t tmo = req->timeout_ms;
	struct timeval tv = {};
	int fd, fam, rc, i;
	char num[32];

	memset(res, 0, sizeof(*res));
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "netlink socket: %s", strerror(errno));
		return rc;
	}
	fam = family_id(fd, err, errlen);
	if (fam < 0) {
		close(fd);
		return fam;
	}
	msg_init(&msg, fam, SMBDX_CTL_CMD_CHECK);
	msg.hdr.nlmsg_seq = 2;
	tv.tv_sec = (tmo ? tmo : SMBDX_CTL_TIMEOUT_DEF_MS) / 1000 + 1 +
		    CHECK_MARGIN_S;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "netlink socket: %s", strerror(errno));
		close(fd);
		return rc;
	}
	rc = put_str(&msg, SMBDX_CTL_A_ADDR, req->addr);
	if (!rc && req->src)
		rc = put_str(&msg, SMBDX_CTL_A_SRC, req->src);
	if (!rc)
		rc = put_attr(&msg, SMBDX_CTL_A_PORT, &port, sizeof(port));
	if (!rc && tmo)
		rc = put_attr(&msg, SMBDX_CTL_A_TIMEOUT_MS, &tmo, sizeof(tmo));
	if (!rc)
		rc = transact(fd, &msg, &ans, true);
	close(fd);
	if (rc == -EPERM) {
		snprintf(err, errlen, "check needs CAP_NET_ADMIN (run it as root)");
		return rc;
	}
	if (rc == -EAGAIN) {
		snprintf(err, errlen, "check request: no answer from the module within %ld s",
			 (long)tv.tv_sec);
		return rc;
	}
	if (rc) {
		snprintf(err, errlen, "check request: %s", strerror(-rc));
		return rc;
	}

	parse_attrs(&ans, tb, SMBDX_CTL_A_MAX);
	for (i = 1; i <= SMBDX_CTL_A_MAX; i++) {
		struct nlattr *a = tb[i];
		const char *name = check_attrs[i].name;
		const char *val = num;

		if (!a || !name)
			continue;
		switch (check_attrs[i].kind) {
		case A_STR:
			if (a->nla_len > NLA_HDRLEN)
				((char *)attr_data(a))[a->nla_len - NLA_HDRLEN - 1] = '\0';
			val = a->nla_len > NLA_HDRLEN ? attr_data(a) : "";
			break;
		case A_U8:
			snprintf(num, sizeof(num), "%u", *(uint8_t *)attr_data(a));
			break;
		case A_U16:
			snprintf(num, sizeof(num), "%u", *(uint16_t *)attr_data(a));
			break;
		case A_U32:
			snprintf(num, sizeof(num), "%u", *(uint32_t *)attr_data(a));
			break;
		case A_S32:
			snprintf(num, sizeof(num), "%d", *(int32_t *)attr_data(a));
			break;
		}
		kv_add(&res->attrs, name, val);
	}
	if (!tb[SMBDX_CTL_A_RESULT]) {
		snprintf(err, errlen, "the answer has no result");
		kv_free(&res->attrs);
		return -EPROTO;
	}
	res->result = *(int32_t *)attr_data(tb[SMBDX_CTL_A_RESULT]);
	return 0;
}
