// SPDX-License-Identifier: GPL-2.0
/*
 * scx_minimal: the smallest sched_ext scheduler, and no pvsched driver.
 * Without SCX_OPS_SWITCH_PARTIAL in its flags, enabling it moves every
 * task of the fair policies (SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE) to
 * the sched_ext class; each task it is given goes to the tail of the
 * global DSQ with the default slice, and the CPUs take them from its head
 * (no ops.dispatch: the core consumes the global DSQ by itself).
 *
 * The boost test (boost.scx) enables it with "pvsched-bpf load scx" and
 * disables it with "pvsched-bpf unload scx_minimal": a vCPU thread that
 * sched_ext runs is not in the fair class, so the boost server leaves it
 * alone.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

/* kernel/sched/ext.c: a kfunc, which vmlinux.h does not declare. */
extern void scx_bpf_dispatch(struct task_struct *p, u64 dsq_id, u64 slice,
			     u64 enq_flags) __ksym;

SEC("struct_ops/scx_minimal_enqueue")
void BPF_PROG(scx_minimal_enqueue, struct task_struct *p, u64 enq_flags)
{
	scx_bpf_dispatch(p, SCX_DSQ_GLOBAL, SCX_SLICE_DFL, enq_flags);
}

SEC(".struct_ops")
struct sched_ext_ops scx_minimal_ops = {
	.enqueue	= (void *)scx_minimal_enqueue,
	.name		= "scx_minimal",
};
