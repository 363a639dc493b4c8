// SPDX-License-Identifier: GPL-2.0
/*
 * smbdctl - is SMB Direct (smbdirect.ko) working on this host, and is it
 * being used?
 *
 *   smbdctl [--json] devices          RDMA devices, ports, netdevs, usable or why not
 *   smbdctl [--json] connections [N]  connections: role, peer, state, sizes,
 *                                     credits, bytes inline and by RDMA, errors
 *   smbdctl [--json] stats [--all]    totals since the module was loaded
 *   smbdctl [--json] check ADDR [--port N] [--src ADDR] [--timeout S]
 *                                     connect to ADDR and negotiate (root)
 *
 * devices, connections and stats read smbdirect's read-only debugfs files
 * (Documentation/admin-guide.rst lists every key); check uses the module's
 * generic netlink family (include/smbdirect/ctl.h). Exit status: 0 success,
 * 1 a check failed, 2 usage error or nothing to read (module not loaded,
 * debugfs not mounted).
 */

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include "smbdctl.h"

const char *smbdctl_root = SMBDCTL_DEBUGFS;
const char *smbdctl_sysfs_ib = SMBDCTL_SYSFS_IB;
static bool opt_json;
static bool opt_all;

static int cant_read(const char *path)
{
	int err = errno;

	fprintf(stderr, "smbdctl: cannot read %s: %s\n", path, strerror(err));
	if (err == ENOENT)
		fprintf(stderr,
			"smbdctl: is smbdirect loaded (modprobe smbdirect) and debugfs mounted\n"
			"smbdctl: (mount -t debugfs none /sys/kernel/debug)?\n");
	else if (err == EACCES || err == EPERM)
		fprintf(stderr,
			"smbdctl: debugfs is readable by root only (under kernel lockdown\n"
			"smbdctl: in confidentiality mode, not at all)\n");
	return 2;
}

static char *root_path(const char *rel)
{
	return xasprintf("%s/%s", smbdctl_root, rel);
}

/* ---- devices ---- */

static const char *verdict_text(const char *v)
{
	static const struct {
		const char *verdict;
		const char *text;
	} t[] = {
		{ "usable", "usable" },
		{ "no-frwr",
		  "no fast registration (FRWR): the device lacks memory management extensions" },
		{ "few-send-sge", "too few send SGEs per work request" },
		{ "few-recv-sge", "too few receive SGEs per work request" },
		{ "small-qp", "work queues or completion queues too small" },
		{ "no-rdma-read", "no RDMA Read (IRD or ORD is 0)" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		if (!strcmp(t[i].verdict, v))
			return t[i].text;
	return v;
}

/* "RoCE", "InfiniBand" or "iWARP", from debugfs and the port's link layer. */
static const char *transport_name(const char *dev, const char *transport)
{
	static char ll[64];
	char *path, *text, *nl;

	if (transport && !strcmp(transport, "iwarp"))
		return "iWARP";
	path = xasprintf("%s/%s/ports/1/link_layer", smbdctl_sysfs_ib, dev);
	text = read_text(path);
	free(path);
	if (!text)
		return "IB/RoCE";
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	if (!strcmp(text, "Ethernet"))
		snprintf(ll, sizeof(ll), "RoCE");
	else
		snprintf(ll, sizeof(ll), "%s", text);
	free(text);
	return ll;
}

/* The port numbers a device line mentions ("port1=ACTIVE", ...). */
static int device_ports(const struct kvlist *d, unsigned int *ports, int max)
{
	int n = 0;
	size_t i;
	unsigned int p;
	char rest;

	for (i = 0; i < d->n && n < max; i++)
		if (sscanf(d->v[i].key, "port%u%c", &p, &rest) == 1)
			ports[n++] = p;
	return n;
}

static const char *port_key(unsigned int port, const char *suffix)
{
	static char key[64];

	snprintf(key, sizeof(key), "port%u%s", port, suffix);
	return key;
}

static bool device_is_port_key(const char *key)
{
	unsigned int p;
	int n = 0;

	return sscanf(key, "port%u%n", &p, &n) == 1 && n > 4;
}

static void device_json(struct json *j, const struct kvlist *d)
{
	const char *name = kv_get(d, "name");
	const char *verdict = kv_get(d, "verdict");
	unsigned int ports[16];
	int np, i;
	size_t k;

	json_obj_begin(j, NULL);
	json_str(j, "name", name);
	json_str(j, "transport", transport_name(name, kv_get(d, "transport")));
	json_bool(j, "usable", verdict && !strcmp(verdict, "usable"));
	json_str(j, "verdict", verdict);
	json_str(j, "reason", verdict && strcmp(verdict, "usable") ?
		 verdict_text(verdict) : NULL);
	json_auto(j, "smb_direct_port", kv_get(d, "port"));
	json_arr_begin(j, "ports");
	np = device_ports(d, ports, 16);
	for (i = 0; i < np; i++) {
		const char *nd = kv_get(d, port_key(ports[i], "_netdev"));
		const char *nds = kv_get(d, port_key(ports[i], "_netdevs"));
		char *copy, *tok, *save = NULL;

		json_obj_begin(j, NULL);
		json_num(j, "port", ports[i]);
		json_str(j, "state", kv_get(d, port_key(ports[i], "")));
		json_str(j, "netdev", nd);
		json_arr_begin(j, "netdevs");
		if (nds) {
			copy = xstrdup(nds);
			for (tok = strtok_r(copy, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save))
				json_str(j, NULL, tok);
			free(copy);
		} else if (nd) {
			json_str(j, NULL, nd);
		}
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_begin(j, "attrs");
	for (k = 0; k < d->n; k++)
		if (strcmp(d->v[k].key, "name") && !device_is_port_key(d->v[k].key))
			json_auto(j, d->v[k].key, d->v[k].val);
	json_obj_end(j);
	json_obj_end(j);
}

static void device_human(const struct kvlist *d)
{
	const char *name = kv_get(d, "name");
	const char *verdict = kv_get(d, "verdict");
	bool usable = verdict && !strcmp(verdict, "usable");
	unsigned int ports[16];
	int np, i, active = 0;

	np = device_ports(d, ports, 16);
	for (i = 0; i < np; i++) {
		const char *st = kv_get(d, port_key(ports[i], ""));

		if (st && !strcmp(st, "ACTIVE"))
			active++;
	}
	printf("%s: %s, SMB Direct port %s: ", name,
	       transport_name(name, kv_get(d, "transport")),
	       kv_get(d, "port") ? kv_get(d, "port") : "?");
	if (!usable)
		printf("NOT usable: %s\n", verdict ? verdict_text(verdict) : "unknown");
	else if (!active)
		printf("usable, but no port is ACTIVE\n");
	else
		printf("usable\n");
	for (i = 0; i < np; i++) {
		const char *nd = kv_get(d, port_key(ports[i], "_netdev"));
		const char *nds = kv_get(d, port_key(ports[i], "_netdevs"));

		printf("    port %u: %s", ports[i], kv_get(d, port_key(ports[i], "")));
		if (nds && *nds)
			printf(", netdevs %s", nds);
		else if (nd)
			printf(", netdev %s", nd);
		else
			printf(", no netdev");
		printf("\n");
	}
	printf("    limits: send SGEs %s, receive SGEs %s, FRWR pages %s\n",
	       kv_get(d, "max_send_sge"), kv_get(d, "max_recv_sge"),
	       kv_get(d, "frwr_depth"));
	printf("            IRD %s, ORD %s, QP depth %s\n", kv_get(d, "ird"),
	       kv_get(d, "ord"), kv_get(d, "max_qp_wr"));
}

/*
 * Print each line of a debugfs list file (devices, connections) as an
 * object of the array @key (--json) or as text: @one prints one line and
 * returns 1, or 0 when it leaves the line out. Return: how many @one
 * printed, or -1 after cant_read()'s message when the file cannot be read
 * (*@rc is then the exit status).
 */
static int list_each(const char *file, const char *key,
		     int (*one)(struct json *j, char *line, void *arg),
		     void *arg, int *rc)
{
	char *path = root_path(file);
	char *text, *line, *save = NULL;
	struct json j;
	int n = 0;

	text = read_text(path);
	if (!text) {
		*rc = cant_read(path);
		free(path);
		return -1;
	}
	json_init(&j, stdout);
	if (opt_json) {
		json_obj_begin(&j, NULL);
		json_arr_begin(&j, key);
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		n += one(&j, line, arg);
	if (opt_json) {
		json_arr_end(&j);
		json_obj_end(&j);
	}
	free(text);
	free(path);
	return n;
}

static int device_one(struct json *j, char *line, void *unused)
{
	struct kvlist d = { 0 };
	int shown = 0;

	kv_parse_pairs(line, &d);
	if (kv_get(&d, "name")) {
		if (opt_json)
			device_json(j, &d);
		else
			device_human(&d);
		shown = 1;
	}
	kv_free(&d);
	return shown;
}

static int cmd_devices(int argc, char **argv)
{
	int rc, n = list_each("devices", "devices", device_one, NULL, &rc);

	if (n < 0)
		return rc;
	if (!n && !opt_json)
		printf("no RDMA devices: load the NIC's RDMA driver, or add a soft device\n"
		       "(rdma link add rxe0 type rxe netdev eth0)\n");
	return 0;
}

/* ---- connections ---- */

struct conn {
	struct kvlist line;	/* the "connections" line */
	struct kvlist params;
	struct kvlist credits;
	struct kvlist mr;
	struct kvlist counters;
	struct kvlist errors;
};

static void conn_free(struct conn *c)
{
	kv_free(&c->line);
	kv_free(&c->params);
	kv_free(&c->credits);
	kv_free(&c->mr);
	kv_free(&c->counters);
	kv_free(&c->errors);
}

/*
 * Read conn/<id>/. Return: 0, or -1 when the connection went away while it
 * was read (it is then left out).
 */
static int conn_read(const char *id, struct conn *c)
{
	static const char * const files[] = { "params", "credits", "mr",
					      "counters", "errors" };
	struct kvlist *lists[] = { &c->params, &c->credits, &c->mr,
				   &c->counters, &c->errors };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char *path = xasprintf("%s/conn/%s/%s", smbdctl_root, id, files[i]);
		int rc = kv_read_lines(path, lists[i], NULL);

		free(path);
		if (rc)
			return -1;
	}
	return 0;
}

/* Is RDMA (not only send/receive) carrying data on this connection? */
static bool conn_rdma_used(const struct conn *c)
{
	return kv_num(&c->counters, "rdma_reads") + kv_num(&c->counters, "rdma_writes") +
	       kv_num(&c->counters, "mr_registrations") > 0;
}

/* A comma-separated capability list ("none": empty) as a JSON array. */
static void json_caps(struct json *j, const char *key, const char *list)
{
	char *copy, *tok, *save = NULL;

	json_arr_begin(j, key);
	if (list && strcmp(list, "none")) {
		copy = xstrdup(list);
		for (tok = strtok_r(copy, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			json_str(j, NULL, tok);
		free(copy);
	}
	json_arr_end(j);
}

/* The capabilities in CM private data; nothing from an older module. */
static void conn_caps_json(struct json *j, const struct kvlist *p)
{
	if (!kv_get(p, "caps_peer_blob"))
		return;
	json_obj_begin(j, "capabilities");
	json_bool(j, "sent", kv_num(p, "caps_sent"));
	json_caps(j, "own", kv_get(p, "caps_own"));
	json_num(j, "own_push_ird", kv_num(p, "caps_own_push_ird"));
	json_str(j, "peer_blob", kv_get(p, "caps_peer_blob"));
	json_caps(j, "peer", kv_get(p, "caps_peer"));
	json_num(j, "peer_push_ird", kv_num(p, "caps_peer_push_ird"));
	json_obj_end(j);
}

/*
 * The MS-SMB2 RDMA transform the upper layer negotiated and what it
 * moved; nothing from an older module.
 */
static void conn_xform_json(struct json *j, const struct conn *c)
{
	if (!kv_get(&c->params, "rdma_transform"))
		return;
	json_obj_begin(j, "rdma_transform");
	json_caps(j, "negotiated", kv_get(&c->params, "rdma_transform"));
	json_num(j, "sealed", kv_num(&c->counters, "xform_sealed"));
	json_num(j, "signed", kv_num(&c->counters, "xform_signed"));
	json_num(j, "rejected", kv_num(&c->counters, "xform_rejected"));
	json_obj_end(j);
}

static void conn_json(struct json *j, struct conn *c)
{
	struct kvlist nonzero = { 0 };
	const char *dev = kv_get(&c->line, "dev");
	size_t i;

	json_obj_begin(j, NULL);
	json_auto(j, "id", kv_get(&c->line, "name"));
	json_str(j, "role", kv_get(&c->line, "role"));
	json_str(j, "state", kv_get(&c->line, "state"));
	json_str(j, "device", dev);
	json_str(j, "transport", dev && strcmp(dev, "-") ?
		 transport_name(dev, kv_num(&c->params, "iwarp") ? "iwarp" : "ib") :
		 NULL);
	json_str(j, "local", kv_get(&c->line, "local"));
	json_str(j, "peer", kv_get(&c->line, "peer"));
	json_auto(j, "error", kv_get(&c->line, "error"));
	json_str(j, "cause", kv_get(&c->line, "cause"));
	json_bool(j, "rdma_in_use", conn_rdma_used(c));
	json_obj_begin(j, "bytes");
	json_num(j, "sent_inline", kv_num(&c->counters, "tx_bytes"));
	json_num(j, "received_inline", kv_num(&c->counters, "rx_bytes"));
	json_num(j, "rdma_read", kv_num(&c->counters, "rdma_read_bytes"));
	json_num(j, "rdma_write", kv_num(&c->counters, "rdma_write_bytes"));
	json_num(j, "registered_for_peer", kv_num(&c->counters, "mr_registered_bytes"));
	json_obj_end(j);
	json_obj_begin(j, "invalidations");
	json_num(j, "remote", kv_num(&c->counters, "mr_remote_invalidations"));
	json_num(j, "local", kv_num(&c->counters, "mr_local_invalidations"));
	json_obj_end(j);
	conn_caps_json(j, &c->params);
	conn_xform_json(j, c);
	json_kvlist(j, "params", &c->params);
	json_kvlist(j, "credits", &c->credits);
	json_kvlist(j, "mr", &c->mr);
	json_kvlist(j, "counters", &c->counters);
	for (i = 0; i < c->errors.n; i++)
		if (strcmp(c->errors.v[i].val, "0"))
			kv_add(&nonzero, c->errors.v[i].key, c->errors.v[i].val);
	json_kvlist(j, "errors", &nonzero);
	kv_free(&nonzero);
	json_obj_end(j);
}

static void print_bytes(long long n)
{
	static const char * const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = n;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u)
		printf("%lld bytes (%.1f %s)", n, v, unit[u]);
	else
		printf("%lld bytes", n);
}

/* Negotiated sizes, from a params file or a check's answer (same keys). */
static void print_params(const struct kvlist *p)
{
	printf("    negotiated: max send %lld, max receive %lld, keepalive %lld s\n",
	       kv_num(p, "max_send_size"), kv_num(p, "max_receive_size"),
	       kv_num(p, "keepalive_interval"));
	printf("    max fragmented send %lld, receive %lld; max read/write %lld\n",
	       kv_num(p, "max_fragmented_send_size"),
	       kv_num(p, "max_fragmented_recv_size"),
	       kv_num(p, "max_read_write_size"));
	printf("    IRD %lld, ORD %lld\n", kv_num(p, "ird"), kv_num(p, "ord"));
}

/* The capabilities in CM private data; nothing from an older module. */
static void print_caps(const struct kvlist *p)
{
	const char *blob = kv_get(p, "caps_peer_blob");

	if (!blob)
		return;
	printf("    capabilities (CM private data): ours ");
	if (kv_num(p, "caps_sent"))
		printf("%s, push IRD %lld", kv_get(p, "caps_own"),
		       kv_num(p, "caps_own_push_ird"));
	else
		printf("not sent");
	printf("; peer's ");
	if (!strcmp(blob, "found"))
		printf("%s, push IRD %lld\n", kv_get(p, "caps_peer"),
		       kv_num(p, "caps_peer_push_ird"));
	else if (!strcmp(blob, "absent"))
		printf("not sent\n");
	else
		printf("malformed (%s), taken as none\n", blob);
}

/* The RDMA transform line; nothing from an older module. */
static void print_xform(const struct conn *c)
{
	const char *xf = kv_get(&c->params, "rdma_transform");

	if (!xf)
		return;
	printf("    RDMA transform: %s; payloads sealed %lld, signed %lld, rejected %lld\n",
	       xf, kv_num(&c->counters, "xform_sealed"),
	       kv_num(&c->counters, "xform_signed"),
	       kv_num(&c->counters, "xform_rejected"));
}

static void conn_human(struct conn *c)
{
	const struct kvlist *k = &c->counters;
	const char *dev = kv_get(&c->line, "dev");
	bool any = false;
	size_t i;

	printf("connection %s: %s %s", kv_get(&c->line, "name"),
	       kv_get(&c->line, "role"), kv_get(&c->line, "state"));
	if (dev && strcmp(dev, "-"))
		printf(" on %s (%s)", dev,
		       transport_name(dev, kv_num(&c->params, "iwarp") ? "iwarp" : "ib"));
	printf(", %s -> %s\n", kv_get(&c->line, "local"), kv_get(&c->line, "peer"));
	if (kv_num(&c->params, "negotiated"))
		print_params(&c->params);
	else
		printf("    not negotiated\n");
	print_caps(&c->params);
	print_xform(c);
	printf("    credits: send %lld (target %lld), granted to the peer %lld\n",
	       kv_num(&c->credits, "send_credits"),
	       kv_num(&c->credits, "send_credit_target"),
	       kv_num(&c->credits, "recv_credits_granted"));
	printf("    receives posted %lld, sends waiting for credits %lld\n",
	       kv_num(&c->credits, "recvs_posted"),
	       kv_num(&c->credits, "send_queue_len"));
	printf("    sent: %lld messages, ", kv_num(k, "tx_messages"));
	print_bytes(kv_num(k, "tx_bytes"));
	printf(" inline\n    received: %lld messages, ", kv_num(k, "rx_messages"));
	print_bytes(kv_num(k, "rx_bytes"));
	printf(" inline\n    RDMA by this side: read ");
	print_bytes(kv_num(k, "rdma_read_bytes"));
	printf(" (%lld), write ", kv_num(k, "rdma_reads"));
	print_bytes(kv_num(k, "rdma_write_bytes"));
	printf(" (%lld)\n    buffers registered for the peer: %lld, ",
	       kv_num(k, "rdma_writes"), kv_num(k, "mr_registrations"));
	print_bytes(kv_num(k, "mr_registered_bytes"));
	printf("; invalidated by the peer %lld, locally %lld\n",
	       kv_num(k, "mr_remote_invalidations"),
	       kv_num(k, "mr_local_invalidations"));
	printf("    RDMA in use: %s\n", conn_rdma_used(c) ?
	       "yes (RDMA read/write or buffers registered for the peer)" :
	       "no, only send/receive so far");
	printf("    errors:");
	for (i = 0; i < c->errors.n; i++) {
		if (!strcmp(c->errors.v[i].val, "0"))
			continue;
		printf(" %s %s", c->errors.v[i].key, c->errors.v[i].val);
		any = true;
	}
	printf("%s\n", any ? "" : " none");
}

static bool wanted(const char *id, int argc, char **argv)
{
	int i;

	if (!argc)
		return true;
	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], id))
			return true;
	return false;
}

struct conn_filter {
	int argc;
	char **argv;
};

static int conn_one(struct json *j, char *line, void *arg)
{
	struct conn_filter *want = arg;
	struct conn c = { 0 };
	const char *id;
	int shown = 0;

	kv_parse_pairs(line, &c.line);
	id = kv_get(&c.line, "name");
	if (id && wanted(id, want->argc, want->argv) && !conn_read(id, &c)) {
		if (opt_json)
			conn_json(j, &c);
		else
			conn_human(&c);
		shown = 1;
	}
	conn_free(&c);
	return shown;
}

static int cmd_connections(int argc, char **argv)
{
	struct conn_filter want = { argc, argv };
	int rc, n = list_each("connections", "connections", conn_one, &want,
			      &rc);

	if (n < 0)
		return rc;
	if (!n && !opt_json)
		printf("no connections\n");
	return argc && !n ? 1 : 0;
}

/* ---- stats ---- */

static int cmd_stats(int argc, char **argv)
{
	struct kvlist st = { 0 }, errs = { 0 }, nonzero = { 0 };
	char *path = root_path("stats");
	struct json j;
	size_t i;

	if (kv_read_lines(path, &st, &errs))
		return cant_read(path);
	for (i = 0; i < errs.n; i++)
		if (strcmp(errs.v[i].val, "0"))
			kv_add(&nonzero, errs.v[i].key, errs.v[i].val);
	if (opt_json) {
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_kvlist(&j, "counters", &st);
		json_kvlist(&j, "errors", opt_all ? &errs : &nonzero);
		json_obj_end(&j);
	} else if (opt_all) {
		for (i = 0; i < st.n; i++)
			printf("%-32s %s\n", st.v[i].key, st.v[i].val);
		for (i = 0; i < errs.n; i++)
			printf("error %-26s %s\n", errs.v[i].key, errs.v[i].val);
	} else {
		printf("connections now %lld, listeners %lld\n", kv_num(&st, "connections"),
		       kv_num(&st, "listeners"));
		printf("since smbdirect was loaded:\n");
		printf("    sent: %lld messages, ", kv_num(&st, "tx_messages"));
		print_bytes(kv_num(&st, "tx_bytes"));
		printf(" inline\n    received: %lld messages, ", kv_num(&st, "rx_messages"));
		print_bytes(kv_num(&st, "rx_bytes"));
		printf(" inline\n    RDMA read ");
		print_bytes(kv_num(&st, "rdma_read_bytes"));
		printf(" (%lld), RDMA write ", kv_num(&st, "rdma_reads"));
		print_bytes(kv_num(&st, "rdma_write_bytes"));
		printf(" (%lld)\n", kv_num(&st, "rdma_writes"));
		printf("    buffers registered for peers %lld\n",
		       kv_num(&st, "mr_registrations"));
		printf("    invalidated by peers %lld, locally %lld\n",
		       kv_num(&st, "mr_remote_invalidations"),
		       kv_num(&st, "mr_local_invalidations"));
		printf("    connections ended by:");
		for (i = 0; i < nonzero.n; i++)
			printf(" %s %s", nonzero.v[i].key, nonzero.v[i].val);
		printf("%s\n", nonzero.n ? "" : " nothing (no errors)");
		printf("(smbdctl stats --all lists every counter)\n");
	}
	kv_free(&st);
	kv_free(&errs);
	kv_free(&nonzero);
	free(path);
	return 0;
}

/* ---- check ---- */

static const char *step_hint(const char *step, const char *cause, int result)
{
	if (!step)
		return NULL;
	if (!strcmp(step, "RESOLVE_ADDR") || !strcmp(step, "CREATED"))
		return "no RDMA device reaches this address: is the RDMA device (or rxe, siw)\n"
		       "on the interface that routes to it? See smbdctl devices";
	if (!strcmp(step, "RESOLVE_ROUTE"))
		return "no route over RDMA to this address";
	if (!strcmp(step, "CONNECTING")) {
		if (cause && !strcmp(cause, "rejected"))
			return "the peer refused the RDMA connection: nothing listens there\n"
			       "(SMB Direct uses 445 on InfiniBand and RoCE, 5445 on iWARP)";
		return "no answer to the RDMA connection request: a firewall\n"
		       "(RoCEv2 is UDP 4791; iWARP is TCP to the port), or the peer is down";
	}
	if (!strcmp(step, "NEGOTIATING"))
		return "the RDMA connection was made, but the SMB Direct negotiation failed";
	return NULL;
}

static int cmd_check(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "src", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_req req = { 0 };
	struct check_res res;
	const char *step, *cause, *hint;
	char err[256];
	struct json j;
	int c, rc;

	optind = 0;	/* glibc: start afresh (main's scan stopped at the command) */
	while ((c = getopt_long(argc, argv, "p:s:t:", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			req.port = strtoul(optarg, NULL, 0);
			break;
		case 's':
			req.src = optarg;
			break;
		case 't':
			req.timeout_ms = strtod(optarg, NULL) * 1000;
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr,
			"usage: smbdctl check ADDR [--port N] [--src ADDR] [--timeout SECONDS]\n");
		return 2;
	}
	req.addr = argv[optind];
	rc = nl_check(&req, &res, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "smbdctl: %s\n", err);
		return 2;
	}
	step = kv_get(&res.attrs, "step");
	cause = kv_get(&res.attrs, "cause");
	if (opt_json) {
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_bool(&j, "ok", res.result == 0);
		json_str(&j, "error", res.result ? strerror(-res.result) : NULL);
		hint = res.result ? step_hint(step, cause, res.result) : NULL;
		if (hint) {
			char *one = xstrdup(hint), *nl;

			while ((nl = strchr(one, '\n')))
				*nl = ' ';
			json_str(&j, "hint", one);
			free(one);
		} else {
			json_str(&j, "hint", NULL);
		}
		json_kvlist(&j, "answer", &res.attrs);
		json_obj_end(&j);
	} else if (!res.result) {
		printf("%s: SMB Direct OK over %s (%s) in %.1f ms\n", req.addr,
		       kv_get(&res.attrs, "device"),
		       transport_name(kv_get(&res.attrs, "device"),
				      kv_num(&res.attrs, "iwarp") ? "iwarp" : "ib"),
		       kv_num(&res.attrs, "elapsed_us") / 1000.0);
		printf("    local %s, peer %s\n", kv_get(&res.attrs, "local"),
		       kv_get(&res.attrs, "peer"));
		printf("    protocol 0x%04llx; peer granted %lld credits (asked: %lld)\n",
		       kv_num(&res.attrs, "protocol"),
		       kv_num(&res.attrs, "send_credits"),
		       kv_num(&res.attrs, "send_credit_target"));
		print_params(&res.attrs);
	} else {
		printf("%s: SMB Direct FAILED at %s: %s (%d)\n", req.addr,
		       step ? step : "?", strerror(-res.result), res.result);
		if (kv_get(&res.attrs, "device"))
			printf("    device %s, local %s, peer %s\n",
			       kv_get(&res.attrs, "device"),
			       kv_get(&res.attrs, "local") ? kv_get(&res.attrs, "local") : "-",
			       kv_get(&res.attrs, "peer") ? kv_get(&res.attrs, "peer") : "-");
		if (cause && strcmp(cause, "none"))
			printf("    cause: %s: %s\n", cause,
			       kv_get(&res.attrs, "cause_text") ?
			       kv_get(&res.attrs, "cause_text") : "");
		hint = step_hint(step, cause, res.result);
		for (; hint && *hint; hint += strcspn(hint, "\n")) {
			if (*hint == '\n')
				hint++;
			printf("    %.*s\n", (int)strcspn(hint, "\n"), hint);
		}
	}
	rc = res.result ? 1 : 0;
	kv_free(&res.attrs);
	return rc;
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: smbdctl [--json] [--debugfs DIR] [--sysfs DIR] COMMAND\n"
		"  devices                RDMA devices: transport, ports, netdevs, usable or why not\n"
		"  connections [ID...]    connections: role, peer, state, negotiated sizes, credits,\n"
		"                         bytes inline and by RDMA, invalidations, errors\n"
		"  stats [--all]          totals since smbdirect was loaded\n"
		"  check ADDR [--port N] [--src ADDR] [--timeout SECONDS]\n"
		"                         connect to ADDR over SMB Direct and negotiate (root)\n"
		"  version\n"
		"--json prints JSON; --debugfs and --sysfs read another copy of\n"
		"/sys/kernel/debug/smbdirect and /sys/class/infiniband.\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "all", no_argument, NULL, 'a' },
		{ "debugfs", required_argument, NULL, 'd' },
		{ "sysfs", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd;
	int c;

	while ((c = getopt_long(argc, argv, "+jahd:S:", lo, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = true;
			break;
		case 'a':
			opt_all = true;
			break;
		case 'd':
			smbdctl_root = optarg;
			break;
		case 'S':
			smbdctl_sysfs_ib = optarg;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		print_usage(stderr);
		return 2;
	}
	cmd = argv[optind];
	argc -= optind + 1;
	argv += optind + 1;
	if (!strcmp(cmd, "devices"))
		return cmd_devices(argc, argv);
	if (!strcmp(cmd, "connections") || !strcmp(cmd, "conn"))
		return cmd_connections(argc, argv);
	if (!strcmp(cmd, "stats")) {
		if (argc == 1 && !strcmp(argv[0], "--all")) {
			opt_all = true;
		} else if (argc) {
			print_usage(stderr);
			return 2;
		}
		return cmd_stats(argc, argv);
	}
	if (!strcmp(cmd, "check"))
		return cmd_check(argc + 1, argv - 1);
	if (!strcmp(cmd, "version")) {
		printf("smbdctl %s\n", SMBDCTL_VERSION);
		return 0;
	}
	fprintf(stderr, "smbdctl: unknown command '%s'\n", cmd);
	print_usage(stderr);
	return 2;
}
