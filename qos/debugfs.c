// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - /sys/kernel/debug/sqos/, the run-time view and configuration
 * of the module's Storage QoS server:
 *
 *   enabled        rw  0 makes every control request fail with
 *                      STATUS_INVALID_DEVICE_REQUEST
 *   ttl_ms         rw  TimeToLive returned by GET_STATUS
 *   capacity_iops  rw  guaranteed capacity; 0 = unknown
 *   policies       rw  policy store; read: one "<PolicyID> max_iops=N
 *                      min_iops=N" line per entry; write: commands of
 *                      sqos_policy_parse(), one per line
 *   flows          r   every logical flow with its policy, names, rates,
 *                      status, client-reported and server-side counters
 *   stats          r   object counts and control requests per NTSTATUS
 *
 * Locking: the files read and write the server through the functions of
 * policy.c and flow.c, which take sqos_server.lock. Nothing here holds a
 * lock across a copy from or to user space. The directory is removed
 * before the server is destroyed (debugfs_remove() waits for open files).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
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

static int sqos_policies_open(struct inode *inode, struct file *file)
{
	return single_open(file, sqos_policies_show, inode->i_private);
}

static int sqos_policy_apply(struct sqos_server *srv, const char *line)
{
	struct sqos_policy_cmd cmd;
	int ret;

	ret = sqos_policy_parse(line, &cmd);
	if (ret)
		return ret;
	switch (cmd.op) {
	case SQOS_POLICY_OP_SET:
		return sqos_server_policy_set(srv, &cmd.id, cmd.max_iops,
					      cmd.min_iops);
	case SQOS_POLICY_OP_DEL:
		return sqos_server_policy_delete(srv, &cmd.id);
	case SQOS_POLICY_OP_CLEAR:
		sqos_server_policy_clear(srv);
		return 0;
	}
	return -EINVAL;
}

static ssize_t sqos_policies_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct sqos_server *srv = file_inode(file)->i_private;
	char *buf, *cur, *line;
	int ret = 0;

	if (count > PAGE_SIZE)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	cur = buf;
	while ((line = strsep(&cur, "\n")) != NULL) {
		line = strim(line);
		if (!*line || *line == '#')
			continue;
		ret = sqos_policy_apply(srv, line);
		if (ret)
			break;
	}
	kfree(buf);
	return ret ? ret : count;
}

static const struct file_operations sqos_policies_fops = {
	.owner = THIS_MODULE,
	.open = sqos_policies_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = sqos_policies_write,
};

/**
 * sqos_debugfs_init() - create /sys/kernel/debug/sqos for a server
 * @srv: the module's server
 *
 * Return: 0; debugfs failures are not fatal to the module.
 */
int sqos_debugfs_init(struct sqos_server *srv)
{
	sqos_dir = debugfs_create_dir("sqos", NULL);
	debugfs_create_bool("enabled", 0644, sqos_dir, &srv->enabled);
	debugfs_create_u32("ttl_ms", 0644, sqos_dir, &srv->ttl_ms);
	debugfs_create_u64("capacity_iops", 0644, sqos_dir,
			   &srv->capacity_iops);
	debugfs_create_file("policies", 0644, sqos_dir, srv,
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
