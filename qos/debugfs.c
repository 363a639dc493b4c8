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
 * Locking: the files read the server through the walks of policy.c and
 * flow.c (sqos_server_walk_policies(), sqos_server_walk_flows()),
 * which take sqos_server.lock (and each flow's lock) and call the printers
 * here with them held; the printers do not sleep. The directory is removed
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

/*
 * A UTF-16LE string from the wire as UTF-8 (@buf may be NULL when @len is
 * 0; a trailing odd byte is ignored). Control characters, '"' and '\\' are
 * printed as \xNN; unpaired surrogates as U+FFFD.
 */
static void sqos_seq_utf16(struct seq_file *s, const u8 *buf, size_t len)
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

/*
 * One block per flow; every value is a key=value token so shell tests can
 * pick them with grep. Called under the server's and the flow's locks.
 */
static void sqos_flow_print(void *arg, const struct sqos_flow *f, u32 status,
			    u64 max, u64 min)
{
	struct seq_file *s = arg;

	seq_printf(s, "flow %pUl\n", &f->id);
	seq_printf(s, "  policy_id=%pUl initiator_id=%pUl\n",
		   &f->policy_id, &f->initiator_id);
	seq_puts(s, "  initiator_name=\"");
	sqos_seq_utf16(s, f->name, f->name_len);
	seq_puts(s, "\" initiator_node_name=\"");
	sqos_seq_utf16(s, f->node_name, f->node_name_len);
	seq_puts(s, "\"\n");
	seq_printf(s, "  limit=%llu reservation=%llu max_iops=%llu min_iops=%llu base_io_size=%u\n",
		   f->limit, f->reservation, max, min, f->base_io_size);
	seq_printf(s, "  status=%u policy_known=%d opens=%u refs=%u\n",
		   status, f->policy_known, f->opens, refcount_read(&f->ref));
	seq_printf(s, "  client_updates=%llu client_io_count=%llu client_normalized_io_count=%llu client_latency=%llu client_lower_latency=%llu\n",
		   f->rep_updates, f->rep_io_count, f->rep_norm_io_count,
		   f->rep_latency, f->rep_lower_latency);
	seq_printf(s, "  started=%llu started_units=%llu bytes=%llu completed=%llu completed_units=%llu inflight_units=%llu\n",
		   f->started, f->started_units, f->bytes, f->completed,
		   f->completed_units, f->meter.inflight);
	seq_printf(s, "  delayed=%llu delay_ns=%llu latency_ns=%llu completion_rate=%llu\n",
		   f->delayed, f->delay_ns, f->latency_ns,
		   sqos_meter_last_rate(&f->meter));
	seq_printf(s, "  held=%llu unheld=%llu capped=%llu\n",
		   f->held, f->unheld, f->capped);
}

static int sqos_flows_show(struct seq_file *s, void *unused)
{
	sqos_server_walk_flows(s->private, sqos_flow_print, s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sqos_flows);

static int sqos_stats_show(struct seq_file *s, void *unused)
{
	static const char * const names[SQOS_NT_IDX_MAX] = {
		[SQOS_NT_IDX_SUCCESS] = "success",
		[SQOS_NT_IDX_INVALID_PARAMETER] = "invalid_parameter",
		[SQOS_NT_IDX_INVALID_DEVICE_REQUEST] = "invalid_device_request",
		[SQOS_NT_IDX_REVISION_MISMATCH] = "revision_mismatch",
		[SQOS_NT_IDX_NOT_FOUND] = "not_found",
		[SQOS_NT_IDX_NO_MEMORY] = "insufficient_resources",
	};
	struct sqos_server *srv = s->private;
	unsigned int flows, opens, policies;
	int i;

	sqos_server_counts(srv, &flows, &opens, &policies);
	seq_printf(s, "enabled=%d flows=%u opens=%u policies=%u enforce=%d held=%d\n",
		   READ_ONCE(srv->enabled), flows, opens, policies,
		   READ_ONCE(srv->enforce), atomic_read(&srv->held));
	for (i = 0; i < SQOS_NT_IDX_MAX; i++)
		seq_printf(s, "control_%s=%lld\n", names[i],
			   atomic64_read(&srv->nt_count[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sqos_stats);

/* One line per entry of the store; called under the server's lock. */
static void sqos_policy_print(void *arg, const struct sqos_policy *p)
{
	seq_printf(arg, "%pUl max_iops=%llu min_iops=%llu\n",
		   &p->id, p->max_iops, p->min_iops);
}

static int sqos_policies_show(struct seq_file *s, void *unused)
{
	sqos_server_walk_policies(s->private, sqos_policy_print, s);
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
