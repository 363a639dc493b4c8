// SPDX-License-Identifier: GPL-2.0
/*
 * configfs.c - /sys/kernel/config/sqos/, the administrator's interface to
 * the module's Storage QoS server (the convention of nvmet and the SCSI
 * target; unlike writable debugfs files it works under kernel lockdown):
 *
 *   enabled             rw  1 or 0; 0 makes ksmbd answer the FSCTL as
 *                           without sqos.ko and stops all accounting
 *   enforce             rw  1 or 0; 0 keeps accounting and the protocol
 *                           but never delays I/O (monitoring only)
 *   ttl_ms              rw  TimeToLive returned by GET_STATUS, >= 1
 *   capacity_iops       rw  normalized IOPS the storage can guarantee;
 *                           0 = unknown
 *   max_delay_ms        rw  longest delay of an I/O, 1..3600000
 *   max_held_flow       rw  delayed I/Os one flow may have at once,
 *                           0..1000000 (more go undelayed)
 *   max_held            rw  delayed I/Os all flows may have at once,
 *                           0..1000000 (more go undelayed)
 *   policies/           mkdir <PolicyID> adds a policy (maximum and
 *                           minimum 0, or the values it already has in
 *                           the store); rmdir removes it
 *   policies/<PolicyID>/max_iops  rw  MaximumIoRate of flows with it
 *   policies/<PolicyID>/min_iops  rw  MinimumIoRate of flows with it
 *
 * A <PolicyID> is a GUID in the lower-case 36-character form %pUl prints
 * (anything else is refused, so one policy has one directory). Values are
 * decimal (or 0x hexadecimal), at most 10^9, and a non-zero max_iops is
 * never below min_iops: a write that would break that fails with EINVAL and
 * changes nothing. A change reaches the flows using the PolicyID at once.
 *
 * Locking: the settings are single words written with WRITE_ONCE() and read
 * with READ_ONCE() by flow.c. The policy store is locked by policy.c;
 * sqos_cfs_mutex serialises the read-modify-write of a policy's two values
 * here. configfs pins this module while a policy directory exists, and the
 * subsystem is unregistered before the server is destroyed.
 */
#include <linux/configfs.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "sqos_internal.h"

static struct sqos_server *sqos_cfs_srv;
static DEFINE_MUTEX(sqos_cfs_mutex);

/**
 * struct sqos_cfs_policy - one directory under policies/
 * @item: its configfs item, named after the PolicyID
 * @id: the PolicyID
 */
struct sqos_cfs_policy {
	struct config_item item;
	guid_t id;
};

static struct sqos_cfs_policy *to_sqos_cfs_policy(struct config_item *item)
{
	return container_of(item, struct sqos_cfs_policy, item);
}

/* ---- the settings at the top ---- */

static ssize_t sqos_cfs_bool_store(bool *field, const char *page,
				   size_t count)
{
	bool v;
	int ret;

	ret = kstrtobool(page, &v);
	if (ret)
		return ret;
	WRITE_ONCE(*field, v);
	return count;
}

static ssize_t sqos_cfs_enabled_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(sqos_cfs_srv->enabled));
}

static ssize_t sqos_cfs_enabled_store(struct config_item *item,
				      const char *page, size_t count)
{
	return sqos_cfs_bool_store(&sqos_cfs_srv->enabled, page, count);
}

static ssize_t sqos_cfs_enforce_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(sqos_cfs_srv->enforce));
}

static ssize_t sqos_cfs_enforce_store(struct config_item *item,
				      const char *page, size_t count)
{
	return sqos_cfs_bool_store(&sqos_cfs_srv->enforce, page, count);
}

static ssize_t sqos_cfs_ttl_ms_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(sqos_cfs_srv->ttl_ms));
}

static ssize_t sqos_cfs_ttl_ms_store(struct config_item *item,
				     const char *page, size_t count)
{
	u32 v;
	int ret;

	ret = kstrtou32(page, 0, &v);
	if (ret)
		return ret;
	if (!v)
		return -EINVAL;
	WRITE_ONCE(sqos_cfs_srv->ttl_ms, v);
	return count;
}

static ssize_t sqos_cfs_capacity_iops_show(struct config_item *item,
					   char *page)
{
	return sysfs_emit(page, "%llu\n",
			  READ_ONCE(sqos_cfs_srv->capacity_iops));
}

static ssize_t sqos_cfs_capacity_iops_store(struct config_item *item,
					    const char *page, size_t count)
{
	u64 v;
	int ret;

	ret = kstrtou64(page, 0, &v);
	if (ret)
		return ret;
	WRITE_ONCE(sqos_cfs_srv->capacity_iops, v);
	return count;
}

/* A u32 setting in @min..@max */
static ssize_t sqos_cfs_u32_store(u32 *dst, u32 min, u32 max,
				  const char *page, size_t count)
{
	u32 v;
	int ret;

	ret = kstrtou32(page, 0, &v);
	if (ret)
		return ret;
	if (v < min || v > max)
		return -EINVAL;
	WRITE_ONCE(*dst, v);
	return count;
}

static ssize_t sqos_cfs_max_delay_ms_show(struct config_item *item,
					  char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(sqos_cfs_srv->max_delay_ms));
}

static ssize_t sqos_cfs_max_delay_ms_store(struct config_item *item,
					   const char *page, size_t count)
{
	return sqos_cfs_u32_store(&sqos_cfs_srv->max_delay_ms, 1,
				  SQOS_MAX_DELAY_MS_LIMIT, page, count);
}

static ssize_t sqos_cfs_max_held_flow_show(struct config_item *item,
					   char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(sqos_cfs_srv->max_held_flow));
}

static ssize_t sqos_cfs_max_held_flow_store(struct config_item *item,
					    const char *page, size_t count)
{
	return sqos_cfs_u32_store(&sqos_cfs_srv->max_held_flow, 0,
				  SQOS_MAX_HELD_LIMIT, page, count);
}

static ssize_t sqos_cfs_max_held_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(sqos_cfs_srv->max_held));
}

static ssize_t sqos_cfs_max_held_store(struct config_item *item,
				       const char *page, size_t count)
{
	return sqos_cfs_u32_store(&sqos_cfs_srv->max_held, 0,
				  SQOS_MAX_HELD_LIMIT, page, count);
}

CONFIGFS_ATTR(sqos_cfs_, enabled);
CONFIGFS_ATTR(sqos_cfs_, enforce);
CONFIGFS_ATTR(sqos_cfs_, ttl_ms);
CONFIGFS_ATTR(sqos_cfs_, capacity_iops);
CONFIGFS_ATTR(sqos_cfs_, max_delay_ms);
CONFIGFS_ATTR(sqos_cfs_, max_held_flow);
CONFIGFS_ATTR(sqos_cfs_, max_held);

static struct configfs_attribute *sqos_cfs_root_attrs[] = {
	&sqos_cfs_attr_enabled,
	&sqos_cfs_attr_enforce,
	&sqos_cfs_attr_ttl_ms,
	&sqos_cfs_attr_capacity_iops,
	&sqos_cfs_attr_max_delay_ms,
	&sqos_cfs_attr_max_held_flow,
	&sqos_cfs_attr_max_held,
	NULL,
};

/* ---- policies/<PolicyID> ---- */

/* Both values of a policy; 0/0 if it left the store by another way. */
static void sqos_cfs_policy_values(struct sqos_cfs_policy *p, u64 *max,
				   u64 *min)
{
	if (sqos_server_policy_get(sqos_cfs_srv, &p->id, max, min))
		*max = *min = 0;
}

static ssize_t sqos_cfs_policy_store(struct config_item *item,
				     const char *page, size_t count,
				     bool is_max)
{
	struct sqos_cfs_policy *p = to_sqos_cfs_policy(item);
	u64 v, max, min;
	int ret;

	ret = kstrtou64(page, 0, &v);
	if (ret)
		return ret;
	mutex_lock(&sqos_cfs_mutex);
	sqos_cfs_policy_values(p, &max, &min);
	if (is_max)
		max = v;
	else
		min = v;
	ret = sqos_server_policy_set(sqos_cfs_srv, &p->id, max, min);
	mutex_unlock(&sqos_cfs_mutex);
	return ret ? ret : count;
}

static ssize_t sqos_cfs_policy_max_iops_show(struct config_item *item,
					     char *page)
{
	u64 max, min;

	sqos_cfs_policy_values(to_sqos_cfs_policy(item), &max, &min);
	return sysfs_emit(page, "%llu\n", max);
}

static ssize_t sqos_cfs_policy_max_iops_store(struct config_item *item,
					      const char *page, size_t count)
{
	return sqos_cfs_policy_store(item, page, count, true);
}

static ssize_t sqos_cfs_policy_min_iops_show(struct config_item *item,
					     char *page)
{
	u64 max, min;

	sqos_cfs_policy_values(to_sqos_cfs_policy(item), &max, &min);
	return sysfs_emit(page, "%llu\n", min);
}

static ssize_t sqos_cfs_policy_min_iops_store(struct config_item *item,
					      const char *page, size_t count)
{
	return sqos_cfs_policy_store(item, page, count, false);
}

CONFIGFS_ATTR(sqos_cfs_policy_, max_iops);
CONFIGFS_ATTR(sqos_cfs_policy_, min_iops);

static struct configfs_attribute *sqos_cfs_policy_attrs[] = {
	&sqos_cfs_policy_attr_max_iops,
	&sqos_cfs_policy_attr_min_iops,
	NULL,
};

static void sqos_cfs_policy_release(struct config_item *item)
{
	kfree(to_sqos_cfs_policy(item));
}

static struct configfs_item_operations sqos_cfs_policy_item_ops = {
	.release = sqos_cfs_policy_release,
};

static const struct config_item_type sqos_cfs_policy_type = {
	.ct_item_ops = &sqos_cfs_policy_item_ops,
	.ct_attrs = sqos_cfs_policy_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_item *sqos_cfs_policy_make(struct config_group *group,
						const char *name)
{
	struct sqos_cfs_policy *p;
	char canon[UUID_STRING_LEN + 1];
	u64 max, min;
	guid_t id;
	int ret;

	if (strlen(name) != UUID_STRING_LEN || guid_parse(name, &id) ||
	    guid_is_null(&id))
		return ERR_PTR(-EINVAL);
	snprintf(canon, sizeof(canon), "%pUl", &id);
	if (strcmp(canon, name))
		return ERR_PTR(-EINVAL);

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	p->id = id;
	mutex_lock(&sqos_cfs_mutex);
	/* A policy set by kernel code already keeps its values. */
	if (sqos_server_policy_get(sqos_cfs_srv, &id, &max, &min))
		ret = sqos_server_policy_set(sqos_cfs_srv, &id, 0, 0);
	else
		ret = 0;
	mutex_unlock(&sqos_cfs_mutex);
	if (ret) {
		kfree(p);
		return ERR_PTR(ret);
	}
	config_item_init_type_name(&p->item, name, &sqos_cfs_policy_type);
	return &p->item;
}

static void sqos_cfs_policy_drop(struct config_group *group,
				 struct config_item *item)
{
	struct sqos_cfs_policy *p = to_sqos_cfs_policy(item);

	mutex_lock(&sqos_cfs_mutex);
	sqos_server_policy_delete(sqos_cfs_srv, &p->id);
	mutex_unlock(&sqos_cfs_mutex);
	config_item_put(item);
}

static struct configfs_group_operations sqos_cfs_policies_group_ops = {
	.make_item = sqos_cfs_policy_make,
	.drop_item = sqos_cfs_policy_drop,
};

static const struct config_item_type sqos_cfs_policies_type = {
	.ct_group_ops = &sqos_cfs_policies_group_ops,
	.ct_owner = THIS_MODULE,
};

static const struct config_item_type sqos_cfs_root_type = {
	.ct_attrs = sqos_cfs_root_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_group sqos_cfs_policies;

static struct configfs_subsystem sqos_cfs_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "sqos",
			.ci_type = &sqos_cfs_root_type,
		},
	},
};

/**
 * sqos_configfs_init() - register /sys/kernel/config/sqos for a server
 * @srv: the module's server
 *
 * Return: 0 or the error of configfs_register_subsystem().
 */
int sqos_configfs_init(struct sqos_server *srv)
{
	int ret;

	sqos_cfs_srv = srv;
	config_group_init(&sqos_cfs_subsys.su_group);
	mutex_init(&sqos_cfs_subsys.su_mutex);
	config_group_init_type_name(&sqos_cfs_policies, "policies",
				    &sqos_cfs_policies_type);
	configfs_add_default_group(&sqos_cfs_policies,
				   &sqos_cfs_subsys.su_group);
	ret = configfs_register_subsystem(&sqos_cfs_subsys);
	if (ret)
		pr_err("sqos: cannot register with configfs: %d\n", ret);
	return ret;
}

/**
 * sqos_configfs_exit() - remove /sys/kernel/config/sqos
 *
 * No policy directory can exist any more: each one holds a reference on
 * the module.
 */
void sqos_configfs_exit(void)
{
	configfs_unregister_subsystem(&sqos_cfs_subsys);
}
