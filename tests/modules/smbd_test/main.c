// SPDX-License-Identifier: GPL-2.0
/*
 * smbd_test.ko: a test and demo service on top of smbdirect's exported
 * API, driven from a shell through debugfs:
 *
 *   /sys/kernel/debug/smbd_test/control   write one command per write()
 *   /sys/kernel/debug/smbd_test/result    text output of the last command
 *   /sys/kernel/debug/smbd_test/status    listeners, their connections and
 *                                         the named client connections
 *
 * Commands (Documentation/api.rst has the full reference; the interface is
 * kept stable for external test tools and the benchmark):
 *
 *   listen echo|sink ADDR [PORT] [OPTION=VALUE...]
 *   listen raw ADDR PORT [grant=N] [status=X] [close=1] [hold=1]
 *   unlisten ADDR [PORT] | unlisten all
 *   open NAME ADDR [PORT] [OPTION=VALUE...]
 *   send NAME count=N size=N [verify=0|1]
 *   close NAME | close all
 *   run ADDR [PORT] count=N size=N [verify=0|1] [OPTION=VALUE...]
 *   negotiate ADDR [PORT] [smb311=0|1] [xform=N] [timeout_ms=N]
 *        [OPTION=VALUE...]
 *   ping ADDR [PORT] count=N size=N [warmup=N] [callback=0|1] [verify=0|1]
 *        [OPTION=VALUE...]
 *   stream ADDR [PORT] count=N size=N [warmup=N] [OPTION=VALUE...]
 *   rawc open NAME ADDR PORT | rawc stall NAME [requests=N] [interval_ms=N]
 *        [hold_ms=N] | rawc half NAME [size=N] | rawc close NAME|all
 *
 * This file holds the module's init and exit, the three debugfs files, the
 * command parser (a command line, then the address, port and OPTION=VALUE
 * arguments every command shares) and the result text. The commands are in
 * service.c (listen, unlisten, open, send, close, run), smb2.c (negotiate),
 * bench.c (ping, stream) and rawc.c (rawc).
 *
 * Locking: svc_mutex serialises commands (one write() of the control file
 * runs one command from start to end, sleeping as long as it takes), the
 * result and status files and the reaper (service.c). It guards the result
 * text and, with svc_lock for the per-listener connection lists, the state
 * of service.c; smbd_test.h has the module's rules.
 */

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "smbd_test.h"

#define SMBDX_TEST_RESULT_MAX	4096

/* Serialises commands, result and status; see smbd_test.h. */
DEFINE_MUTEX(svc_mutex);
static struct dentry *svc_dir;
static char *svc_result;		/* under svc_mutex */
static size_t svc_result_len;

/**
 * svc_printf() - append to the result of the current command
 * @fmt: printf format
 *
 * The text is truncated at SMBDX_TEST_RESULT_MAX bytes.
 *
 * Context: process context, with svc_mutex held.
 */
void svc_printf(const char *fmt, ...)
{
	va_list ap;

	if (svc_result_len >= SMBDX_TEST_RESULT_MAX - 1)
		return;
	va_start(ap, fmt);
	svc_result_len += vscnprintf(svc_result + svc_result_len,
				     SMBDX_TEST_RESULT_MAX - svc_result_len, fmt, ap);
	va_end(ap);
}

/* ---- parsing ---- */

/**
 * svc_parse_addr() - parse an IPv4 or IPv6 address and an optional port
 * @s: the address
 * @port: the port, or NULL for 0 (the device's default)
 * @ss: set to the address and port
 *
 * Return: 0, or -EINVAL if either does not parse.
 */
int svc_parse_addr(const char *s, const char *port,
		   struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	return inet_pton_with_scope(&init_net, AF_UNSPEC, s, port, ss) ?
	       -EINVAL : 0;
}

/**
 * svc_parse_opt() - parse one OPTION=VALUE argument into @a
 * @tok: the argument; its '=' is overwritten
 * @a: the arguments being parsed
 *
 * Return: 0, or -EINVAL for an unknown option or a value that is not a
 * number.
 */
int svc_parse_opt(char *tok, struct svc_args *a)
{
	struct smbdx_proto_config *p = &a->cfg.proto;
	char *val = strchr(tok, '=');
	u32 v;

	if (!val)
		return -EINVAL;
	*val++ = '\0';
	if (kstrtou32(val, 0, &v))
		return -EINVAL;
	if (svc_interop_opt(tok, v, &a->interop))
		return 0;
	if (!strcmp(tok, "credits")) {
		p->recv_credit_max = min_t(u32, v, U16_MAX);
		p->send_credit_target = p->recv_credit_max;
		return 0;
	}
	if (!strcmp(tok, "count"))
		a->count = v;
	else if (!strcmp(tok, "size"))
		a->size = v;
	else if (!strcmp(tok, "verify"))
		a->verify = v;
	else if (!strcmp(tok, "send_size"))
		p->max_send_size = v;
	else if (!strcmp(tok, "recv_size"))
		p->max_receive_size = v;
	else if (!strcmp(tok, "frag_size"))
		p->max_fragmented_recv_size = v;
	else if (!strcmp(tok, "keepalive_ms"))
		a->cfg.keepalive_ms = v;
	else if (!strcmp(tok, "keepalive_wait_ms"))
		a->cfg.keepalive_wait_ms = v;
	else if (!strcmp(tok, "negotiate_timeout_ms"))
		a->cfg.negotiate_timeout_ms = v;
	else if (!strcmp(tok, "recv_queue_max"))
		a->cfg.recv_queue_max = v;
	else if (!strcmp(tok, "io_timeout_ms"))
		a->cfg.io_timeout_ms = v;
	else
		return -EINVAL;
	return 0;
}

/**
 * svc_parse() - parse a command's address, port and options
 * @argc: number of arguments
 * @argv: argv[0] is the address, argv[1] an optional port, then options
 * @a: set to the defaults of smbdx_conn_config_init() (with
 *	MaxFragmentedRecvSize 0: the device's default) and what @argv changes
 *
 * Context: process context, with svc_mutex held.
 * Return: 0, or -EINVAL (and an error line in the result).
 */
int svc_parse(int argc, char **argv, struct svc_args *a)
{
	const char *port = NULL;
	int i = 1, rc;

	memset(a, 0, sizeof(*a));
	smbdx_conn_config_init(&a->cfg);
	a->cfg.proto.max_fragmented_recv_size = 0;
	if (argc < 1)
		return -EINVAL;
	if (argc > 1 && !strchr(argv[1], '=')) {
		port = argv[1];
		i = 2;
	}
	rc = svc_parse_addr(argv[0], port, &a->addr);
	for (; !rc && i < argc; i++)
		rc = svc_parse_opt(argv[i], a);
	if (rc)
		svc_printf("error: cannot parse '%s'\n", argv[i - 1]);
	return rc;
}

/* ---- the command line and the debugfs files ---- */

#define SVC_MAX_ARGS	16

static int svc_command(char *line)
{
	char *argv[SVC_MAX_ARGS], *tok;
	int argc = 0;

	while ((tok = strsep(&line, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		if (argc == SVC_MAX_ARGS)
			return -E2BIG;
		argv[argc++] = tok;
	}
	if (!argc)
		return -EINVAL;
	if (!strcmp(argv[0], "ping") || !strcmp(argv[0], "stream"))
		return svc_bench_command(argc, argv);
	if (!strcmp(argv[0], "listen"))
		return svc_listen(argc - 1, argv + 1);
	if (!strcmp(argv[0], "unlisten"))
		return svc_unlisten(argc - 1, argv + 1);
	if (!strcmp(argv[0], "open")) {
		struct smbdx_test_client *cl;
		struct svc_args a;
		int rc;

		if (argc < 3)
			return -EINVAL;
		rc = svc_parse(argc - 2, argv + 2, &a);
		return rc ? rc : svc_open(argv[1], &a, &cl);
	}
	if (!strcmp(argv[0], "send"))
		return svc_cmd_send(argc - 1, argv + 1);
	if (!strcmp(argv[0], "close"))
		return svc_close(argc - 1, argv + 1);
	if (!strcmp(argv[0], "run"))
		return svc_run(argc - 1, argv + 1);
	if (!strcmp(argv[0], "negotiate"))
		return svc_negotiate(argc - 1, argv + 1);
	if (!strcmp(argv[0], "rawc"))
		return svc_rawc_command(argc - 1, argv + 1);
	return -EINVAL;
}

static ssize_t svc_control_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	char *line;
	int rc;

	if (len >= PAGE_SIZE)
		return -E2BIG;
	line = memdup_user_nul(ubuf, len);
	if (IS_ERR(line))
		return PTR_ERR(line);
	mutex_lock(&svc_mutex);
	svc_result_len = 0;
	svc_result[0] = '\0';
	rc = svc_command(line);
	if (rc && !svc_result_len)
		svc_printf("error: %d\n", rc);
	mutex_unlock(&svc_mutex);
	kfree(line);
	return rc ? rc : len;
}

static const struct file_operations svc_control_fops = {
	.owner = THIS_MODULE,
	.write = svc_control_write,
	.llseek = noop_llseek,
};

static int svc_result_show(struct seq_file *m, void *unused)
{
	mutex_lock(&svc_mutex);
	seq_puts(m, svc_result);
	mutex_unlock(&svc_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(svc_result);

static int svc_status_show(struct seq_file *m, void *unused)
{
	struct smbdx_test_listener *tl;
	struct smbdx_test_client *cl;
	struct smbdx_test_sconn *sc;

	mutex_lock(&svc_mutex);
	list_for_each_entry(tl, &svc_listeners, list) {
		seq_printf(m, "listener %s %pISc port=%d accepted=%lld",
			   tl->mode == SMBDX_TEST_ECHO ? "echo" : "sink",
			   &tl->addr, tl->port,
			   (long long)atomic64_read(&tl->accepted));
		spin_lock_bh(&svc_lock);
		svc_interop_show(m, &tl->seen);
		list_for_each_entry(sc, &tl->conns, list) {
			seq_printf(m, "  server conn=%u messages=%lld bytes=%lld echo_errors=%lld error=%d",
				   smbdx_conn_id(sc->conn),
				   (long long)atomic64_read(&sc->msgs),
				   (long long)atomic64_read(&sc->bytes),
				   (long long)atomic64_read(&sc->echo_errors),
				   smbdx_conn_error(sc->conn));
			svc_interop_show(m, &sc->seen);
		}
		spin_unlock_bh(&svc_lock);
	}
	svc_raw_show(m);
	svc_rawc_show(m);
	list_for_each_entry(cl, &svc_clients, list)
		seq_printf(m, "client %s conn=%u peer=%pISpc sent=%lld received=%lld verified=%lld mismatched=%lld error=%d\n",
			   cl->name, smbdx_conn_id(cl->conn), &cl->addr,
			   (long long)atomic64_read(&cl->sent),
			   (long long)atomic64_read(&cl->received),
			   (long long)atomic64_read(&cl->verified),
			   (long long)atomic64_read(&cl->mismatched),
			   smbdx_conn_error(cl->conn));
	mutex_unlock(&svc_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(svc_status);

/* A test of smbdirect's clean-up after a faulty upper layer only. */
static bool orphan_on_exit;
module_param(orphan_on_exit, bool, 0644);
MODULE_PARM_DESC(orphan_on_exit,
		 "on unload, leave listeners and connections to smbdirect (tests only)");

static int __init svc_init(void)
{
	svc_result = kzalloc(SMBDX_TEST_RESULT_MAX, GFP_KERNEL);
	if (!svc_result)
		return -ENOMEM;
	svc_dir = debugfs_create_dir("smbd_test", NULL);
	debugfs_create_file("control", 0200, svc_dir, NULL, &svc_control_fops);
	debugfs_create_file("result", 0444, svc_dir, NULL, &svc_result_fops);
	debugfs_create_file("status", 0444, svc_dir, NULL, &svc_status_fops);
	return 0;
}

static void __exit svc_exit(void)
{
	debugfs_remove_recursive(svc_dir);
	if (orphan_on_exit)
		svc_orphan_all();
	else
		svc_stop_all();
	svc_raw_stop_all();
	svc_rawc_stop_all();
	kfree(svc_result);
}

module_init(svc_init);
module_exit(svc_exit);

MODULE_DESCRIPTION("SMB Direct test and demo service (echo/sink listeners, client)");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SMBDX_NS);
