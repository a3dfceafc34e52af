// SPDX-License-Identifier: MIT
/*
 * kside — the tracer's kernel side as collect/ reads and steers it: the
 * aggregation maps' descriptors and capacities, the names the kernel
 * took of processes, the programs the cost meter prices, each spec's
 * statistics, and the budget's switches (park, hit counting). These
 * implement part of tracer.h; called by agg, aggread, cost and budget.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cost.h"
#include "park.h"
#include "probetop.h"
#include "probetop.skel.h"
#include "proc.h"
#include "profile.h"
#include "siteprog.h"
#include "tracer.h"
#include "tracer_state.h"

void tracer_maps(const struct tracer *tr, struct tracer_maps *out)
{
	out->counts = bpf_map__fd(tr->skel->maps.counts);
	out->hists = bpf_map__fd(tr->skel->maps.hists);
	out->ncounts = bpf_map__fd(tr->skel->maps.ncounts);
	out->nhists = bpf_map__fd(tr->skel->maps.nhists);
	out->scounts = bpf_map__fd(tr->skel->maps.scounts);
	out->shists = bpf_map__fd(tr->skel->maps.shists);
	out->solo_counts = bpf_map__fd(tr->skel->maps.solo_counts);
	out->solo_hists = bpf_map__fd(tr->skel->maps.solo_hists);
	out->aslots = bpf_map__fd(tr->skel->maps.aslots);
	out->stats = bpf_map__fd(tr->skel->maps.stats);
	out->io = bpf_map__fd(tr->skel->maps.io);
	out->proc = bpf_map__fd(tr->skel->maps.proc);
	out->kdrops = bpf_map__fd(tr->skel->maps.kdrops);
	out->nstacks = bpf_map__fd(tr->skel->maps.nstacks);
	out->nmaps = bpf_map__fd(tr->skel->maps.nmaps);
	out->pystacks = bpf_map__fd(tr->skel->maps.pystacks);
	out->mixstacks = bpf_map__fd(tr->skel->maps.mixstacks);
	out->nmaps_lost = (const volatile uint64_t *)&tr->skel->bss->vmas_lost;
}

int tracer_pid_name(const struct tracer *tr, uint32_t pid, char *buf, size_t n)
{
	struct pt_pid_name v;
	size_t len;

	if (bpf_map_lookup_elem(bpf_map__fd(tr->skel->maps.pid_names), &pid,
				&v))
		return -ENOENT;
	v.comm[sizeof(v.comm) - 1] = '\0';
	len = v.args_len < sizeof(v.args) ? v.args_len : sizeof(v.args);
	if (!v.args[0] || !(len = proc_join_args(v.args, len))) {
		snprintf(buf, n, "[%s]", v.comm);
		return 0;
	}
	snprintf(buf, n, "%.*s", (int)len, v.args);
	return 0;
}

const struct mapsize *tracer_mapsize(const struct tracer *tr)
{
	return &tr->sizes;
}

void tracer_cost_progs(const struct tracer *tr, struct cost_progs *out)
{
	const struct bpf_program *usdt = tr->skel->progs.pt_usdt,
				 *calib = tr->skel->progs.pt_calib,
				 *calib_in = tr->skel->progs.pt_calib_in,
				 *calib_out = tr->skel->progs.pt_calib_out;
	struct bpf_program *p;
	int prof[SITEPROG_WALKS + 1];

	out->site[0] = bpf_program__fd(usdt);
	_Static_assert(COST_SITE_PROGS == SITEPROG_WALKS + 1,
		       "pt_usdt and every walker program");
	siteprog_fds(tr, out->site + 1);
	out->nkernel = 0;
	out->sys[0] = bpf_program__fd(tr->skel->progs.pt_sys_enter);
	out->sys[1] = bpf_program__fd(tr->skel->progs.pt_sys_exit);
	out->syscall_ns = tr->watch.syscall_ns;
	out->syscalls = (const volatile uint64_t *)tr->skel->bss->syscalls_seen;
	bpf_object__for_each_program(p, tr->skel->obj)
	{
		if (p == usdt || p == calib || p == calib_in ||
		    p == calib_out || !bpf_program__autoload(p) ||
		    p == tr->skel->progs.pt_sys_enter ||
		    p == tr->skel->progs.pt_sys_exit ||
		    out->nkernel >= COST_PROGS_MAX)
			continue;
		out->kernel[out->nkernel++] = bpf_program__fd(p);
	}
	profile_fds(tr, prof);
	for (int f = 0; f <= SITEPROG_WALKS; f++)
		if (prof[f] >= 0 && out->nkernel < COST_PROGS_MAX)
			out->kernel[out->nkernel++] = prof[f];
}

int tracer_park(struct tracer *tr, int id)
{
	if (id < 0 || id >= tr->nspecs || !tr->specs[id].used)
		return -ENOENT;
	return park_spec(tr, &tr->specs[id]);
}

int tracer_unpark(struct tracer *tr, int id, bool wait)
{
	int n;

	if (id < 0 || id >= tr->nspecs || !tr->specs[id].used)
		return -ENOENT;
	n = park_unpark(tr, &tr->specs[id], wait);
	return n < 0 ? n : 0;
}

void tracer_count_again(struct tracer *tr, int id)
{
	if (id >= 0 && id < tr->nspecs && tr->specs[id].used)
		park_resume(tr, &tr->specs[id]);
}

void tracer_keep_exact(struct tracer *tr, int id)
{
	if (id >= 0 && id < tr->nspecs && tr->specs[id].used)
		tr->specs[id].info.exact = true;
}

void tracer_prefer(struct tracer *tr, int id, bool on)
{
	if (id >= 0 && id < tr->nspecs && tr->specs[id].used)
		tr->specs[id].info.preferred = on;
}

bool tracer_parked(const struct tracer *tr, int id)
{
	return id >= 0 && id < tr->nspecs && tr->specs[id].used &&
	       tr->specs[id].parked;
}

int tracer_stat(const struct tracer *tr, int id, struct pt_stat *sum)
{
	int ncpu = libbpf_num_possible_cpus();
	struct pt_stat v[ncpu > 0 ? ncpu : 1];
	uint32_t key = (uint32_t)id;

	memset(sum, 0, sizeof(*sum));
	if (bpf_map__lookup_elem(tr->skel->maps.stats, &key, sizeof(key), v,
				 sizeof(v), 0))
		return -errno;
	for (int c = 0; c < (ncpu > 0 ? ncpu : 1); c++) {
		sum->drop_full += v[c].drop_full;
		sum->drop_str += v[c].drop_str;
		sum->drop_deep += v[c].drop_deep;
		sum->drop_py += v[c].drop_py;
		sum->unmatched += v[c].unmatched;
		sum->hits += v[c].hits;
		sum->parked += v[c].parked;
		sum->cut += v[c].cut;
		sum->shared += v[c].shared;
	}
	return 0;
}

void tracer_count_hits(struct tracer *tr, enum tracer_hits_by who, bool on)
{
	tr->hits_by = on ? tr->hits_by | who : tr->hits_by & ~(unsigned)who;
	tr->skel->bss->pt_count_hits = tr->hits_by != 0;
}
