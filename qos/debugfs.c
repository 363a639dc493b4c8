// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - /sys/kernel/debug/sqos/, read-only diagnostics of the
 * module's Storage QoS server (configuration is in configfs, configfs.c):
 *
 *   enabled        r   Storage QoS supported (configfs sqos/enabled)
 *   enforce        r   I/O is delayed to the flows' rates (sqos/enforce)
 *   ttl_ms         r   TimeToLive returned by GET_STATUS
 *   capacity_iops  r   guaranteed capacity; 0 = unknown
 *   policies       r   policy store: one "<PolicyID> max_iops=N min_iops=N"
 *                      line per entry, whoever set it
 *   flows          r   every logical flow with its policy, names, rates,
 *                      status, client-reported and server-side counters
 *   stats          r   object counts and control requests per NTSTATUS
 *
 * Locking: the files read the server through the functions of policy.c
 * and flow.c, which take sqos_server.lock. The directory is removed
 * before the server is destroyed (debugfs_remove() waits for open files).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include "sqos_internal.h"

static struct dentry *sqos_dir;

static void sqos_seq_utf8(struct seq_file *s, u32 c)
{
	if (c < 0x80) {
		seq_putc(s, c);
	} else if (c < 0x800) {
		seq_putc(s, 0xc0 | (c >> 6));
		seq_putc(s, 0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		seq_putc(s, 0xe0 | (c >> 12));
		seq_putc(s, 0x80 | ((c >> 6) & 0x3f));
		seq_putc(s, 0x80 | (c & 0x3f));
	} else {
		seq_putc(s, 0xf0 | (c >> 18));
		seq_putc(s, 0x80 | ((c >> 12) & 0x3f));
		seq_putc(s, 0x80 | ((c >> 6) & 0x3f));
		seq_putc(s, 0x80 | (c & 0x3f));
	}
}

/**
 * sqos_seq_utf16() - print a UTF-16LE string from the wire as UTF-8
 * @s: seq_file
 * @buf: string bytes, may be NULL when @len is 0
 * @len: byte length; a trailing odd byte is ignored
 *
 * Control characters, '"' and '\\' are printed as \xNN; unpaired
 * surrogates as U+FFFD.
 */
void sqos_seq_utf16(struct seq_file *s, const u8 *buf, size_t len)
{
	size_t i;
	u32 c, lo;

	for (i = 0; i + 1 < len; i += 2) {
		c = buf[i] | (buf[i + 1] << 8);
		if (c >= 0xd800 && c < 0xdc00 && i + 3 < len) {
			lo = buf[i + 2] | (buf[i + 3] << 8);
			if (lo >= 0xdc00 && lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) +
				    (lo - 0xdc00);
				i += 2;
			}
		}
		if (c >= 0xd800 && c < 0xe000)
			c = 0xfffd;
		if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
			seq_printf(s, "\\x%02x", c);
		else
			sqos_seq_utf8(s, c);
	}
}

static int sqos_flows_show(struct seq_file *s, void *unused)
{
	sqos_server_show_flows(s->private, s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sqos_flows);

static int sqos_stats_show(struct seq_file *s, void *unused)
{
	sqos_server_show_stats(s->private, s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sqos_stats);

static int sqos_policies_show(struct seq_file *s, void *unused)
{
	sqos_server_show_policies(s->private, s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sqos_policies);

/**
 * sqos_debugfs_init() - create /sys/kernel/debug/sqos for a server
 * @srv: the module's server
 *
 * Return: 0; debugfs failures are not fatal to the module.
 */
int sqos_debugfs_init(struct sqos_server *srv)
{
	sqos_dir = debugfs_create_dir("sqos", NULL);
	debugfs_create_bool("enabled", 0444, sqos_dir, &srv->enabled);
	debugfs_create_bool("enforce", 0444, sqos_dir, &srv->enforce);
	debugfs_create_u32("ttl_ms", 0444, sqos_dir, &srv->ttl_ms);
	debugfs_create_u64("capacity_iops", 0444, sqos_dir,
			   &srv->capacity_iops);
	debugfs_create_file("policies", 0444, sqos_dir, srv,
			    &sqos_policies_fops);
	debugfs_create_file("flows", 0444, sqos_dir, srv, &sqos_flows_fops);
	debugfs_create_file("stats", 0444, sqos_dir, srv, &sqos_stats_fops);
	return 0;
}

/**
 * sqos_debugfs_exit() - remove /sys/kernel/debug/sqos
 */
void sqos_debugfs_exit(void)
{
	debugfs_remove(sqos_dir);
	sqos_dir = NULL;
}
