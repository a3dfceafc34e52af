/* SPDX-License-Identifier: MIT */
/*
 * cost — what tracing costs, estimated every interval (the cost meter).
 *
 * A spec's hit runs in the target: the uprobe trap (breakpoint, the
 * kernel's uprobe dispatch, the return) and then pt_usdt. The trap's
 * price depends on the instruction the breakpoint replaces (trapkind.h:
 * a nop or a push is emulated, anything else single-stepped out of
 * line, several times dearer) and on whether it is a return probe (the
 * trampoline's trap too). Each kind is measured once per process
 * (cost_calibrate_start(): pt_calib, an empty program, attached the way the
 * specs are to a function of probetop itself that begins with that kind
 * of instruction, timed in CPU time over a loop against the same loop
 * without it, best of a few rounds), and a spec's hits priced by the
 * kinds of its sites (cost_spec_trap_ns()). The programs' own time per run comes
 * from the kernel's BPF run-time statistics (bpf_prog_info run_time_ns,
 * run_cnt). Those cost every run of every program some 50 ns while on, so
 * they are switched on (BPF_ENABLE_STATS) only for the first
 * COST_WINDOW_S of each interval, unless kernel.bpf_stats_enabled is 1
 * already (then every interval is read whole); the price of that window
 * is measured at calibration and counted too. A spec's sites run one
 * program (siteprog.h: pt_usdt, or the walker program its keys need),
 * so a spec is charged that program's average time per run: its hits
 * times (trap + average). Each program's runs and time over the windows
 * are in the snapshot (struct agg_overhead's progs). The kernel-side programs (IO and process
 * watches, the target's hooks) have no trap: their run time is taken as
 * it is. Without statistics (an old kernel) the programs are charged
 * COST_EST_PROG_NS per run, and that is said once.
 *
 * The kernel-side programs (the IO and process watches, the hooks)
 * run at tracepoints every process on the machine passes: their cost is
 * machine-wide, reported apart (kernel_pct), never as the target's.
 * The syscall tracepoints' is more than their programs' run time (every
 * syscall takes the kernel's slow path while they are on): each syscall
 * is priced at what the watch was measured to add to one when attached
 * (watch.h; its programs' run time if that could not be measured), and
 * counted by the entry program (syscall_ns in the snapshot).
 *
 * probetop's own CPU (getrusage) is reported apart, and the specs' cost
 * as a share of the target's CPU time (its process CPU clock, every
 * thread's; with -b, of the processes whose rows moved).
 *
 * Called by agg (agg_new, agg_read, agg_tick) and tracer (calibration at
 * the first load); the numbers land in struct agg_snapshot.
 */
#ifndef PROBETOP_COST_H
#define PROBETOP_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agg.h"
#include "trapkind.h"

#define COST_WINDOW_S 0.1 /* run-time statistics on per interval */
#define COST_EST_PROG_NS 120.0 /* a program run, without statistics */
#define COST_EST_TRAP_NS 500.0 /* a uprobe trap, if calibration failed */
#define COST_EST_STEP_NS 3000.0 /* ... single-stepped, if that one did */
/* prices known to this share (cost_price_err()): measured, a target's
 * hits cost within it of the calibration's */
#define COST_PRICE_ERR 0.15
/* ... where a trap at a nop costs COST_DEAR_NS or more: in 0.4 s blocks
 * of 200 hits it cost 4.2 to 7.5 us there, 35% more while another CPU
 * trapped, trace_trapcost's fixture paid 0.85 to 1.31 times what the
 * meter showed, and truthwork's bursts 1.42 times (their calls read
 * 0.77 of the truth by CPU time at 1.35 times) */
#define COST_PRICE_ERR_DEAR 0.5
#define COST_DEAR_NS 1000.0
#define COST_PROGS_MAX 32
#define COST_SITE_PROGS 6 /* pt_usdt and SITEPROG_WALKS */

struct bpf_program;
struct tracer_spec_info;

/* The programs whose time is counted: their fds, owned by the tracer. */
struct cost_progs {
	int site[COST_SITE_PROGS]; /* pt_usdt and the pt_walk* (-1: none,
				      not loaded): one of them runs once
				      per hit, entry or return */
	int kernel[COST_PROGS_MAX]; /* every other program but sys[]: run
				       time only */
	size_t nkernel;
	int sys[2]; /* the IO watch's syscall entry and exit programs (-1:
		       none): every syscall of the machine runs both */
	double syscall_ns; /* what they add to a syscall, as measured when
			      attached (0: not attached; watch.h) */
	const volatile uint64_t *syscalls; /* the syscalls they saw, by CPU
					      (PT_ONCPU_CPUS); NULL: none */
};

/* The calibration's programs (calib.bpf.h) and the pair's counters. */
struct cost_calib {
	struct bpf_program *empty; /* pt_calib */
	struct bpf_program *in, *out; /* pt_calib_in, pt_calib_out */
	volatile uint64_t *t0, *min, *cap; /* calib_t0, calib_min, calib_cap */
	volatile uint64_t *n, *sum; /* calib_n, calib_sum */
	bool multi; /* attached by uprobe_multi (prepared) */
};

/*
 * Begin measuring on this machine, once per process (later calls do
 * nothing), in a thread of its own, beside the rest of the start (the
 * walkers' verifying, the attaching): the uprobe trap at each kind of
 * instruction and a return probe's, attaching p->empty to functions of
 * probetop and timing them; and what a latency pair's probes add to
 * each time (cost_trap_lat()), p->in and p->out at a function's entry
 * and return and at two nops. Some 100 ms. Every price below waits for
 * it; without it (it failed: logged then) cost_trap_ns() gives
 * COST_EST_TRAP_NS and no pair's time is adjusted.
 */
void cost_calibrate_start(const struct cost_calib *p);

/* Wait for the calibration to end (its links are gone then): before
 * p's programs are freed, and before the meter starts. */
void cost_calibrate_wait(void);

/* What a latency pair's probes add to each time, as calibrated (all 0
 * if it could not be). */
const struct trap_lat *cost_trap_lat(void);

/* ns of CPU per uprobe hit of an empty program at a nop (a USDT site),
 * as calibrated. */
double cost_trap_ns(void);

/* ... at an instruction of kind k. */
double cost_kind_ns(enum trap_kind k);

/*
 * The share by which a target's hits may cost more or less than the
 * prices say: COST_PRICE_ERR where a trap is cheap; COST_PRICE_ERR_DEAR
 * where one at a nop costs COST_DEAR_NS or more (kernel page-table
 * isolation without PCID: each trap flushes the TLB), as its price then
 * moves with the host's other work and with traps on the other CPUs.
 */
double cost_price_err(void);

/* What a return probe's trampoline adds to its hit. */
double cost_ret_ns(void);

/* The trap of one hit of spec info, by the kinds of its sites: the
 * dearest kind of each role's, a pair's two roles averaged (a hit is
 * either half); the nop's for NULL. */
double cost_spec_trap_ns(const struct tracer_spec_info *info);

/* ns each program run costs more while the statistics are on. */
double cost_stats_ns(void);

/* What the statistics time of an empty program's run (the calibration's
 * trap holds its run: a program's price is its time beyond this); 0 if
 * not measured. */
double cost_empty_run_ns(void);

struct cost;

/*
 * Start measuring progs (copied) for target (a pid whose CPU time is the
 * reference; 0: the pids of the snapshot's rows, as with -b). Opens the
 * first statistics window. NULL with errno ENOMEM.
 */
struct cost *cost_new(const struct cost_progs *progs, pid_t target);
void cost_free(struct cost *c);

struct cputime;

/* -b: the targets' CPU time, for "% of target", is cpu's (cputime.h: every
 * process of the executable), from now on, not that of the processes
 * whose rows moved (an allpids row has none: -b postgres read 188%).
 * cpu NULL: none (a library's processes cannot be told). */
void cost_target_cpu(struct cost *c, const struct cputime *cpu);

/* Count the run time of progs' kernel and site programs that c does not
 * count yet (a program loaded since: pt_profile at the first profile:HZ,
 * a pt_walk* at the first spec that needs it), from now on. */
void cost_add_progs(struct cost *c, const struct cost_progs *progs);

/* ns of CPU one hit of spec info costs the target, as last measured:
 * its trap and the programs' average run. */
double cost_hit_ns(const struct cost *c, const struct tracer_spec_info *info);

/* ... of which its program's average run (siteprog.h; the site
 * programs' average before that one was timed, or for a profile:HZ
 * spec). */
double cost_prog_ns(const struct cost *c, const struct tracer_spec_info *info);

/* Whether c's statistics window is open: the tracer then counts every
 * hit, for the share of them that shared a trap (tracer_count_hits()). */
bool cost_in_window(const struct cost *c);

/* Close the statistics window once it has been open COST_WINDOW_S; call
 * it a few times a second (cheap otherwise). */
void cost_tick(struct cost *c);

/*
 * At the end of an interval, from the events in snap (its specs are
 * specs, writable): set each spec's cost_pct and cost_pct_total,
 * snap->overhead and overhead_total, then open the next window.
 */
void cost_fill(struct cost *c, struct agg_snapshot *snap,
	       struct agg_spec *specs);

/* The pure arithmetic (unit-tested). */

/* Uprobe hits an interval's events stand for: one per event, but two per
 * latency pair recorded (its start and its end), plus ends without a
 * start and the halves the budget's windows cut from their pair. Starts
 * still open at the end are not known, and not counted. total: since
 * attach, else this interval. */
uint64_t cost_hits(const struct agg_spec *as, bool total);

/* ns of CPU over seconds as a % of one CPU; 0 if seconds <= 0. */
double cost_pct(double ns, double seconds);

/* cost_ns as a % of target_ns, or -1 if target_ns <= 0 (unknown). */
double cost_share(double cost_ns, double target_ns);

/* ns of CPU that hits of a spec took: hits x (trap + program per run),
 * but for the share shared of them that shared another spec's trap (one
 * breakpoint, two specs' programs: the target paid the trap once). */
double cost_spec_ns(uint64_t hits, double trap_ns, double prog_ns,
		    double shared);

#endif
