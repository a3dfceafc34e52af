/* SPDX-License-Identifier: MIT */
/*
 * tracer — attach specs to a target, one spec at a time.
 *
 * The tracer loads probetop.bpf.c once and owns its maps. A spec is
 * compiled against the target's objects into sites (one per probe
 * location or function entry/return; see engine/bpf/probetop.h) and
 * attached with one uprobe per site, the site's index as BPF cookie and
 * the location's semaphore as ref_ctr_offset, so the kernel raises and
 * lowers semaphores and nothing ever writes the target's memory. Removing
 * a spec detaches its links and deletes its keys while the other specs
 * keep counting.
 *
 * A target is a process (TRACER_PID: attach with the pid as filter), or
 * an ELF file (TRACER_FILE: every process that runs or maps it, present
 * and future; pid -1). Objects that appear later — libraries dlopen()ed
 * by the process, a new executable after exec — are found by
 * tracer_rescan(), which attaches every live spec there too. Before a
 * launched command has exec()ed, tracer_add_file() names the files it
 * will map (its executable and their DT_NEEDED libraries, see
 * tracer_add_command_files()).
 *
 * A spec that matches nothing yet is "waiting", not an error.
 * Links are file descriptors: if probetop dies the kernel removes every
 * uprobe and puts every semaphore back.
 */
#ifndef PROBETOP_TRACER_H
#define PROBETOP_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mapsize.h"
#include "spec.h"

struct tracer;

enum tracer_kind {
	TRACER_PID, /* one process (and what it maps later) */
	TRACER_FILE, /* every process running or mapping one ELF file */
};

/* Per spec, what user space needs to render its keys and state. */
struct tracer_spec_info {
	const struct spec *spec; /* valid until tracer_remove()/free */
	unsigned int gen; /* changes each time the slot is reused */
	size_t nprobes; /* distinct probes (or functions) attached */
	size_t nsites; /* locations attached */
	size_t role_sites[2]; /* of them, A's and (pairs A..B) B's */
	size_t nskipped; /* locations that could not be used (logged) */
	bool semaphore; /* a site has one its code tests (semread.h): the
			   target may prepare the probe's arguments only
			   while it is attached, work the meter cannot
			   price */
	unsigned int trap_kinds[2]; /* A's and B's sites: a bit per enum
				       trap_kind, TRAP_RET_BIT if return
				       probes (trapkind.h; the meter's
				       price of a hit) */
	unsigned int restamp_kinds; /* the probes past a single-stepped
				       start that take its time again
				       (latency.bpf.h): their kinds */
	size_t nrestamps; /* and how many */
	unsigned int lat_kinds; /* a pair's starts: the kinds of the traps
				   whose end falls in their time (their own,
				   or a restamp's) */
	bool key_signed[SPEC_MAX_KEYS]; /* numeric keys: sign of argN */
	int key_slot[SPEC_MAX_KEYS]; /* index into pt_key num[] or str[] */
	int width; /* enum pt_key_width: which hash maps hold its rows */
	bool val_signed;
	int site_prog; /* the program its sites run (siteprog_index(): 0
			  pt_usdt, 1.. a walker's; -1 profile:HZ's): the
			  meter's price of a run */
	bool exact; /* never sampled by the budget (tracer_keep_exact()) */
	bool preferred; /* the budget's first (tracer_prefer()) */
	pid_t solo_pid; /* a spec without keys on a one-process target: its
			 * one row, (spec, this pid), is slot id of the
			 * solo maps; 0: rows are in the hash maps */
	pid_t aslot_pid; /* one str() key counted on this one process: rows
			  * also in the spec's address slots (aslots), by
			  * the string read there; 0: not */
};

/* Whether spec info cannot record yet because a probe of it (A or B of a
 * pair) has no location attached. *missing (if not NULL) is then that
 * probe, or NULL when none of its probes has one. */
bool tracer_spec_waiting(const struct tracer_spec_info *info,
			 const struct spec_probe **missing);

/* The maps agg reads; fds owned by the tracer. counts/hists hold the
 * specs with two string keys (struct pt_key), scounts/shists those with
 * one (struct pt_skey), ncounts/nhists those without (struct pt_nkey);
 * solo_counts/solo_hists, per-CPU arrays indexed by spec id, the specs
 * with a solo_pid; aslots, slots id * PT_ASLOTS.., those with an
 * aslot_pid. */
struct tracer_maps {
	int counts, hists, scounts, shists, ncounts, nhists, solo_counts,
		solo_hists, aslots, stats, io, proc, kdrops, nstacks;
	int nmaps; /* the ring of new stacks' mappings (stackname) */
	int pystacks, mixstacks; /* Python stacks, mixstack pairs */
	const volatile uint64_t *nmaps_lost; /* its kernel's count of those
						it had no room for */
};

/*
 * Load the BPF object for a target. kind TRACER_PID: pid; TRACER_FILE:
 * path of the ELF file. The aggregation maps take about aggsize bytes of
 * kernel memory (0: MAPSIZE_DEFAULT; see mapsize.h). Returns NULL with
 * errno (EPERM: not allowed to load BPF; ESRCH: no such process; EACCES:
 * not allowed to read its maps; others), the reason logged but for ESRCH
 * and EACCES.
 */
struct tracer *tracer_new(enum tracer_kind kind, pid_t pid, const char *path,
			  uint64_t aggsize);

/* The aggregation maps' capacities, as loaded. */
const struct mapsize *tracer_mapsize(const struct tracer *tr);

/* The tables one process walks by: the objects with rows among those
 * it maps (each counted in every process that maps it), their rows. */
struct tracer_unwind_proc {
	int pid;
	size_t objects, rows;
};

#define TRACER_UNWIND_PROCS 64 /* at most, as uprocs (PT_UPROCS) */

/* The unwind tables in the kernel (ustack, engine/attach/unwind.h):
 * whether stacks are walked by them, the objects with rows, the rows
 * (8 bytes each: struct pt_urow) and the array's capacity, the bound
 * of rows, and the objects whose rows did not fit (walked by frame
 * pointer); per process, the tables of the processes whose mappings
 * hold them (the -p process or command; none under -b, whose tables
 * are the file's, shared by every process that runs it). Every object
 * of a process's is one of the total's: a process's rows are at most
 * the total's, and with one process that maps every object, equal. */
struct tracer_unwind {
	bool on;
	size_t objects, rows, full;
	uint32_t capacity;
	size_t nprocs;
	struct tracer_unwind_proc procs[TRACER_UNWIND_PROCS];
};

void tracer_unwind(const struct tracer *tr, struct tracer_unwind *out);

/* Detach everything and unload. NULL is a no-op. */
void tracer_free(struct tracer *tr);

/*
 * Add a file the target will map, before it has (a launched command
 * before exec). Live specs are attached there at once, filtered by pid.
 * Returns 0 or a negative errno (logged).
 */
int tracer_add_file(struct tracer *tr, const char *path);

/*
 * tracer_add_file() for an executable (found like execvp does) and,
 * recursively, the shared libraries it needs (DT_NEEDED, searched in
 * DT_RUNPATH/DT_RPATH with $ORIGIN, LD_LIBRARY_PATH and the system
 * library directories). Libraries not found are skipped (a rescan after
 * exec finds them). Returns 0 or a negative errno for the executable.
 */
int tracer_add_command_files(struct tracer *tr, const char *exe);

/*
 * Compile and attach a parsed spec everywhere it matches now. Returns the
 * spec id (>= 0, < PT_MAX_SPECS) or a negative errno: -ENOSPC (too many
 * specs or sites), -EINVAL (the spec cannot work on the probes it names,
 * e.g. an argument they do not have; logged). Attach failures of single
 * locations are logged and counted in nskipped.
 */
int tracer_add(struct tracer *tr, const struct spec *spec);

/* Detach spec id and delete its keys from the maps. 0 or -ENOENT. */
int tracer_remove(struct tracer *tr, int id);

/*
 * TRACER_PID: re-read the process's mappings and attach every live spec
 * to objects not seen before. Returns the number of new sites, or -ESRCH
 * once the process has gone. TRACER_FILE: returns 0. A process stopped
 * by tracer_hold_dlopen() stays stopped until tracer_resume(), so the
 * caller can add specs for what appeared (a runtime's library) first.
 */
int tracer_rescan(struct tracer *tr);

/* A number that changes at each tracer_rescan() that found an object not
 * mapped before (a library, a new program after exec): what is in the
 * target, its probes and symbols, is the same while it does not. */
unsigned int tracer_objects_gen(const struct tracer *tr);

/* Let a process go that tracer_hold_dlopen() or tracer_hold_exec()
 * stopped (a no-op if none). */
void tracer_resume(struct tracer *tr);

/*
 * TRACER_PID, for a launched command before it execs exe: stop the
 * process each time its dynamic linker (exe's PT_INTERP) changes the list
 * of loaded objects — start-up, dlopen(), and again after an exec — so
 * that tracer_rescan() attaches to a new library before any of its code
 * runs; tracer_resume() lets it go on. Call tracer_rescan() as soon as
 * tracer_event_fd() is readable. A static exe needs nothing (0).
 * Never for a process probetop did not start: its shell would see it
 * stop. 0 or a negative errno (logged; the periodic rescan still works).
 */
int tracer_hold_dlopen(struct tracer *tr, const char *exe);

/*
 * TRACER_PID, for a launched command before it execs: stop the process
 * at each exec() (its first, the launch's, too) before the new image's
 * first instruction, so that tracer_rescan() attaches every live spec to
 * the new executable before it runs (and moves the tracer_hold_dlopen()
 * hold to the new image's dynamic linker if that is another);
 * tracer_resume() lets it go on. Never for a process probetop did not
 * start. 0 or a negative errno (-EINVAL: exec()s cannot be followed;
 * the periodic rescan still finds the new image).
 */
int tracer_hold_exec(struct tracer *tr);

/* The exec()s of a TRACER_PID process, as of the last tracer_rescan(). */
struct tracer_exec {
	unsigned int count; /* exec()s since tracer_new() (all 0: none) */
	char path[4096]; /* the executable after the last one */
};

/* Valid until the next tracer_rescan(). */
const struct tracer_exec *tracer_exec(const struct tracer *tr);

/* Readable when the target waits in its dynamic linker or at an exec()
 * for tracer_rescan(); -1 without tracer_hold_dlopen() or
 * tracer_hold_exec(). */
int tracer_event_fd(const struct tracer *tr);

/* Info on spec id; NULL if no such spec. Valid until the next add/remove. */
const struct tracer_spec_info *tracer_spec_info(const struct tracer *tr,
						int id);

/* Highest spec id + 1 (ids below may be free). */
int tracer_nspecs(const struct tracer *tr);

/* Distinct probes attached over all specs. */
size_t tracer_nprobes(const struct tracer *tr);

/* Of them, those in objects the TRACER_PID process maps as of the last
 * tracer_rescan() (after an exec: its new image's). */
size_t tracer_mapped_probes(const struct tracer *tr);

/*
 * Watch pid and its descendants (those running now and those it will
 * start) from the kernel, what being enum pt_watch bits (added to what
 * is watched already): PT_WATCH_IO counts their IO (syscalls by class,
 * block requests) into the io map, PT_WATCH_PROC the processes and
 * threads they fork, exec and end into the proc map; both count for pid.
 * Attaches the BTF tracepoint programs on first use. 0 or a negative
 * errno (logged when a program cannot be attached).
 */
int tracer_watch(struct tracer *tr, pid_t pid, unsigned int what);

/* Stop watching IO (the process watch stays): its programs detached,
 * their machine-wide cost gone. The io map keeps what it counted. */
void tracer_unwatch_io(struct tracer *tr);

/*
 * The distinct ELF objects the tracer knows (mapped by the process, or
 * added as files), newest catalog first, at most max into out. They stay
 * valid until tracer_free(). Returns how many were written.
 */
struct cat_object;
size_t tracer_objects(const struct tracer *tr, const struct cat_object **out,
		      size_t max);

/* Whether any known object has a USDT probe matching p (object and
 * provider:name globs, as a spec would attach), or, for fn:SYMBOL, the
 * symbol. */
bool tracer_has_probe(const struct tracer *tr, const struct spec_probe *p);

void tracer_maps(const struct tracer *tr, struct tracer_maps *out);

/*
 * Process pid as the kernel saw it when it first made a key (-b names its
 * processes with it, the gone ones too): its command line, arguments
 * joined by blanks and cut at PT_ARGS_LEN bytes, or "[comm]" when they
 * could not be read. 0, or -ENOENT if pid made no key (or was forgotten
 * for PT_PID_NAMES newer ones).
 */
int tracer_pid_name(const struct tracer *tr, uint32_t pid, char *buf, size_t n);

/* Restart profile:HZ's clocks if due, at new rates near HZ: call at
 * tracer_profile_wake_s(), the CLOCK_MONOTONIC second they are due at
 * (< 0: no profile:HZ spec). See profile.h. */
void tracer_profile_tick(struct tracer *tr);
double tracer_profile_wake_s(const struct tracer *tr);

/* The programs the cost meter times (cost.h): pt_usdt, which every hit
 * runs, and the others (watches, the target's hooks). */
struct cost_progs;
void tracer_cost_progs(const struct tracer *tr, struct cost_progs *out);

/*
 * Park spec id (park.h): its uprobes out, the semaphores they held put
 * back, its rows kept. 0, -ENOENT for no such spec, or a negative errno
 * (logged).
 */
int tracer_park(struct tracer *tr, int id);

/*
 * Attach parked spec id again, its hits dropped until
 * tracer_count_again(). While its uprobes of the last park are still
 * going out it stays parked: -EBUSY, or with wait after they have.
 * 0, -ENOENT for no such spec.
 */
int tracer_unpark(struct tracer *tr, int id, bool wait);

/* Count the hits of spec id, attached again, from now (park.h). */
void tracer_count_again(struct tracer *tr, int id);

/* Never sample spec id under a budget: another spec needs it whole (a
 * semaphore it raises). */
void tracer_keep_exact(struct tracer *tr, int id);

/* Spend the budget on spec id first (governor.h), or (on false) no
 * longer: the user reads its rows first (the view on screen's), from
 * the budget's next slot. */
void tracer_prefer(struct tracer *tr, int id, bool on);

/* Whether spec id is parked now. */
bool tracer_parked(const struct tracer *tr, int id);

/* Spec id's counters in the stats map (struct pt_stat), summed over the
 * CPUs, into *sum. 0 or a negative errno (then *sum is zero). */
struct pt_stat;
int tracer_stat(const struct tracer *tr, int id, struct pt_stat *sum);

/* Who asks for every hit to be counted (tracer_count_hits()). */
enum tracer_hits_by {
	TRACER_HITS_BUDGET = 1, /* the governor, all the time */
	TRACER_HITS_METER = 2, /* the cost meter, in its windows: which hits
				  shared a trap with another spec's */
};

/* Count every hit of every spec in the stats map (struct pt_stat hits,
 * and those that shared a trap) while anyone (who) asks; off by default
 * (it costs each hit a few ns). */
void tracer_count_hits(struct tracer *tr, enum tracer_hits_by who, bool on);

/*
 * Whether keys that read Python frames (pyframe, pyline, pystack) can
 * serve this target: one process (TRACER_PID) whose CPython, if it is
 * found yet, is one pyframe reads (its CPython is set up for that now).
 * A CPython not found yet (a launched command before its exec) counts as
 * readable; -b (TRACER_FILE) never is.
 */
bool tracer_py_readable(struct tracer *tr);

/* The namer of the traced process's Python frames (pyframe.h). */
struct pyframe;
struct pyframe *tracer_pyframe(const struct tracer *tr);

/* Whether phpframe and phpstack keys can serve this target, as
 * tracer_py_readable() for PHP (phpframe.h). */
bool tracer_php_readable(struct tracer *tr);

/* The namer of the traced process's PHP frames (phpframe.h). */
struct phpframe;
struct phpframe *tracer_phpframe(const struct tracer *tr);

/* Whether rbframe and rbstack keys can serve this target, as
 * tracer_py_readable() for Ruby (rbframe.h). */
bool tracer_rb_readable(struct tracer *tr);

/* The namer of the traced process's Ruby frames (rbframe.h). */
struct rbframe;
struct rbframe *tracer_rbframe(const struct tracer *tr);

/* Whether the traced process's JIT code is named by its runtime's own
 * tables, with no flag: an Erlang node whose BEAM lists its modules'
 * code (beamjit.h). Looked for at most every second until found, then
 * kept; false for -b. */
bool tracer_jit_named(struct tracer *tr);

/* The namer of the traced JVM's interpreted frames (jvmframe.h). */
struct jvmframe;
struct jvmframe *tracer_jvmframe(const struct tracer *tr);

/* TRACER_PID: the process traced; TRACER_FILE: 0. */
pid_t tracer_target_pid(const struct tracer *tr);

/* The cache of parsed ELF objects the tracer uses; lives as long as tr. */
struct objcache *tracer_objcache(const struct tracer *tr);

/* The maps of pid as of the tracer's last rescan, when pid is the traced
 * process (-p or a command), else NULL: what names addresses once the
 * process is gone. Valid until the next rescan. */
struct proc_maps;
const struct proc_maps *tracer_known_maps(const struct tracer *tr, pid_t pid);

#endif
