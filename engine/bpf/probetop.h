/* SPDX-License-Identifier: MIT */
/*
 * probetop.h — what the BPF programs and user space share: map sizes and
 * the fixed-width records in the maps. No includes, no pointers: the same
 * text compiles for -target bpf and for the host (which defines the
 * __u8.. types through <linux/types.h> before including this).
 *
 * A site is one attachment (one probe location, or one function entry or
 * return) and is selected by the BPF cookie, an index into the sites
 * array. It carries everything the program needs at that location: how
 * to fetch each argument it uses (decoded by probetop from the note, so
 * different locations of one probe may fetch differently), which
 * arguments form the key, and what to do.
 */
#ifndef PROBETOP_BPF_SHARED_H
#define PROBETOP_BPF_SHARED_H

#define PT_MAX_SPECS 256 /* specs alive at once (spec ids are slots) */
#define PT_ONCPU_CPUS 256 /* CPUs oncpu[] counts on (collect/cputime.c) */
#define PT_WAIT_MAX_NS 10000000ULL /* a longer wait is not counted (pt_oncpu) */
#define PT_SLEEPERS 4096 /* the target's threads asleep pt_oncpu follows */
#define PT_MAX_SITES 16384 /* attachments, cookies 0..PT_MAX_SITES-1 */
#define PT_MAX_KEYS 4
#define PT_MAX_STRS 2
#define PT_STR_LEN 64 /* string key bytes, NUL included */
#define PT_SQL_IN 256 /* bytes of a statement read to make its sql() key */
/* str[PT_STR_LEN - 1] of a string key: the target's string went on
 * past the PT_STR_LEN - 1 bytes kept (0 otherwise) */
#define PT_STR_CUT 1
#define PT_NBUCKETS 66 /* log2: [0] < 0, [1] == 0, [2+k] in [2^k, 2^k+1) */
#define PT_STACK_DEPTH 32 /* latency starts kept per thread and spec */
/* every frame field a Python walk reads (back, code, owner, is_entry)
 * lies in a frame's first PT_PYFRAME_SPAN bytes (pylayout.c: below 76 in
 * every version; pyframe.c refuses a layout past it) */
#define PT_PYFRAME_SPAN 80
#define PT_PYSTACK_DEPTH 32 /* Python frames of a pystack key, innermost */
#define PT_PYSTACK_ENTRIES 4096 /* distinct Python stacks kept */
#define PT_STACK_FRAMES 64 /* frames of a ustack or kstack key */
#define PT_STACKS 8192 /* distinct native stacks kept */
#define PT_MIXSTACKS 8192 /* distinct (native, Python) stack pairs kept */
#define PT_PY_PROCS 1024 /* CPython processes whose frames are read */
#define PT_PY_THREADS 64 /* thread states walked to find a thread's */
#define PT_PY_NONE 0xffffffffu /* a layout field the version lacks */
#define PT_COUNT_ENTRIES 65536 /* keys of count and sum specs */
#define PT_HIST_ENTRIES 16384 /* keys of quantize, lquantize, latency */
#define PT_STACK_ENTRIES 8192 /* (live thread, latency spec) pairs */
#define PT_TASK_STACKS 4 /* solo latency stacks in a thread's own storage */
#define PT_ASLOTS 16 /* address slots per spec, a power of two */
#define PT_ASLOT_PROBES 4 /* slots an address may take, from its hash on */
#define PT_RO_RANGES 64 /* read-only ranges of the target, a power of two */
#define PT_IO_ENTRIES 4096 /* (pid, syscall class) pairs */
#define PT_IO_PIDS 1024 /* processes watched from the kernel */
#define PT_IO_INFLIGHT 16384 /* their syscalls and block requests under way */
#define PT_PROC_ENTRIES 4096 /* (pid, event, code, name) of process events */
#define PT_PROC_KIDS 8192 /* their descendants (watched, too) */
#define PT_IO_NR_MAX 512 /* syscall numbers classified */
#define PT_PID_NAMES 4096 /* processes named when they first make a key */
#define PT_ARGS_LEN 96 /* bytes of a process's arguments kept */
#define PT_REG_NONE 0xff
#define PT_SIGSTOP 19 /* x86-64; vmlinux.h has no signal numbers */

enum pt_fetch_kind {
	PT_FETCH_NONE, /* not available: fetches 0 */
	PT_FETCH_CONST, /* disp */
	PT_FETCH_REG, /* reg >> shift */
	PT_FETCH_MEM, /* *(disp + reg + index * scale), reg/index may be
		       * PT_REG_NONE; reg 16 is the probe's address (ip) */
	PT_FETCH_ADDR, /* reg + disp, no load: a variable's address */
};

/* Registers in enum x86_reg order: rax rbx rcx rdx rsi rdi rbp rsp
 * r8..r15, then 16 = the instruction pointer at the probe. */
struct pt_fetch {
	__u8 kind;
	__u8 size; /* 1, 2, 4, 8 */
	__u8 is_signed;
	__u8 reg;
	__u8 index;
	__u8 scale;
	__u8 shift;
	__u8 pad;
	__s64 disp;
};

enum pt_action {
	PT_ACT_COUNT, /* count (and sum val) into counts */
	PT_ACT_QUANTIZE, /* log2 histogram of val into hists */
	PT_ACT_LQUANTIZE, /* linear histogram of val into hists */
	PT_ACT_LAT_START, /* push (time, key) on the thread's stack */
	PT_ACT_LAT_END, /* pop; log2 histogram of the elapsed ns */
	PT_ACT_LAT_RESTAMP, /* past a start single-stepped: its time again */
};

enum pt_key_kind {
	PT_KEY_NUM,
	PT_KEY_STR, /* NUL-terminated string at the fetched address */
	PT_KEY_STRN, /* len bytes at the fetched address */
	PT_KEY_SQL, /* the statement at the fetched address, its literals
		       $1, $2 ... (fetch.bpf.h: read_sql_key()) */
	PT_KEY_PYFRAME, /* the innermost Python frame's code object */
	PT_KEY_PYSTACK, /* the id of the thread's Python stack (pystacks) */
	PT_KEY_PYLINE, /* that frame's code object and bytecode offset */
	PT_KEY_PYFIRSTLINE, /* that frame's function's first line */
	PT_KEY_USTACK, /* the id of the thread's user stack (nstacks) */
	PT_KEY_KSTACK, /* the id of its kernel stack (nstacks) */
	PT_KEY_MIXSTACK, /* the id of its (user stack, Python stack) pair
			    (mixstacks) */
	PT_KEY_PHPFRAME, /* the innermost PHP function frame (PT_PHPFUNC_KEY) */
	PT_KEY_PHPSTACK, /* the id of the thread's PHP stack (phpstacks) */
	PT_KEY_PHPLINE, /* that PHP function frame and its line (PT_PHPLINE) */
	PT_KEY_RBFRAME, /* the innermost Ruby method frame (PT_RBFUNC_KEY) */
	PT_KEY_RBSTACK, /* the id of the thread's Ruby stack (rbstacks) */
	PT_KEY_RBLINE, /* that frame's function and pc (PT_RBLINE) */
};

/* The walkers a site program has (a bit each): a site whose keys need
 * none runs pt_usdt, one that needs one family's its pt_walk_*, others
 * pt_walk, with them all (probetop.bpf.c, engine/attach/siteprog.c). */
enum pt_walk {
	PT_WALK_PY = 1, /* CPython's frames and stacks */
	PT_WALK_PHP = 2,
	PT_WALK_RB = 4,
	PT_WALK_NATIVE = 8, /* the user and kernel stack walkers */
	PT_WALK_ALL = 15,
};

/* The walkers key kind needs (enum pt_walk bits; 0: none). */
static inline __u32 pt_key_walks(__u32 kind)
{
	if (kind >= PT_KEY_RBFRAME)
		return PT_WALK_RB;
	if (kind >= PT_KEY_PHPFRAME)
		return PT_WALK_PHP;
	if (kind == PT_KEY_MIXSTACK)
		return PT_WALK_NATIVE | PT_WALK_PY;
	if (kind >= PT_KEY_USTACK)
		return PT_WALK_NATIVE;
	if (kind >= PT_KEY_PYFRAME)
		return PT_WALK_PY;
	return 0;
}

/* pyprocs: where a CPython process keeps its frames, by tgid; written by
 * engine/name/pyframe.c from the version's layout (engine/name/pylayout.h). */
struct pt_pyproc {
	__u64 runtime; /* the address of _PyRuntime */
	__u32 runtime_interp_head; /* offsets, as in struct pylayout */
	__u32 interp_tstate_head;
	__u32 tstate_next;
	__u32 tstate_thread_id; /* pthread_self(): the thread's fs base */
	__u32 tstate_frame;
	__u32 cframe_current_frame; /* PT_PY_NONE: the frame is tstate's */
	__u32 frame_back;
	__u32 frame_code;
	__u32 frame_owner; /* PT_PY_NONE: no owner (3.8-3.10) */
	__u32 frame_lasti; /* the frame's last instruction: */
	__u32 code_adaptive; /* (pointer kind) the bytecode in the code */
	__u8 owner_cstack; /* the least owner that is no function's frame */
	__u8 lasti_kind; /* enum pt_lasti */
	/* what a code object is named by (pyframe.bpf.h's py_name()):
	 * offsets in the code object (all below PT_PYCODE_SPAN), in a str
	 * (below PT_PYSTR_HEAD: length, state; the characters'), in a bytes
	 * object (below PT_PYBYTES_HEAD: size; the bytes'), the state's
	 * bits */
	__u8 code_firstlineno;
	__u8 code_filename;
	__u8 code_name;
	__u8 code_linetable;
	__u8 str_length;
	__u8 str_state;
	__u8 str_ascii_data;
	__u8 str_compact_data;
	__u8 bytes_size;
	__u8 bytes_sval;
	__u8 state_kind_shift;
	__u8 state_compact_shift;
	__u8 state_ascii_shift;
	__u8 split; /* enum pt_pysplit: how eval calls part the frames */
	/* this set-up of this process, never another's (a new one after
	 * an exec: code objects and stacks seen before are another
	 * program's, so their first sights are keyed by it) */
	__u32 gen;
	/* a frame walk reads the 8 bytes at frame_flags (frame_owner, or
	 * is_entry's offset when lower): owner is their byte at bit
	 * owner_shift, is_entry (PT_PYSPLIT_FLAG) at bit entry_shift */
	__u32 frame_flags;
	__u8 owner_shift;
	__u8 entry_shift;
	__u8 code_version; /* co_version's offset (3.12+); 0: none */
	__u8 code_tag; /* frame_code's low bits that tag it (3.14) */
};

/*
 * How a thread's Python frames part into the C-level calls of the eval
 * loop that run them (mixstack keys): each such call runs one frame
 * (3.8-3.10), or a frame and the Python frames it called inline (3.11+),
 * the first of which says so.
 */
enum pt_pysplit {
	PT_PYSPLIT_NONE, /* not known */
	PT_PYSPLIT_EACH, /* a call a frame (3.8-3.10) */
	PT_PYSPLIT_FLAG, /* its first frame's is_entry is set (3.11) */
	PT_PYSPLIT_SHIM, /* a frame owned by the C stack (owner_cstack) lies
			    below its first frame (3.12+) */
};

/* How a frame says where it is in its bytecode. */
enum pt_lasti {
	PT_LASTI_BYTES, /* an int, bytes (3.8, 3.9) */
	PT_LASTI_UNITS, /* an int, 2-byte code units (3.10) */
	PT_LASTI_PTR, /* a pointer into the code object's bytecode (3.11+) */
};

/*
 * A code object as frames and stacks key it: its address (16-byte
 * aligned, below 2^47 in user space: bits 4-46) and, in the other 21
 * bits (0-3 and 47-63), a tag: of its co_version (3.12+: a number no
 * other code object has), else of its co_filename pointer and its
 * co_name's hash (a str's cached hash, after its length), so that an
 * address freed and taken by another code object (a module's code after
 * its import, exec'd code: their names' strings freed and taken again
 * too) is another key, not the first one's name. Two code objects at one
 * address share a tag once in 2^21 (with 16 bits, 30 exec'd functions at
 * one address, 435 pairs, shared one in about a run in 150).
 */
#define PT_PYCODE_ADDR(v) ((v) & ((1ULL << 47) - 16))
#define PT_PYCODE_TAG_BITS 21
#define PT_PYCODE_TAG(file, hash)                                           \
	(((file) ^ ((hash) << 7 | (hash) >> 57)) * 0x9e3779b97f4a7c15ULL >> \
	 (64 - PT_PYCODE_TAG_BITS))
#define PT_PYCODE_SPREAD(tag) (((tag)&15) | (tag) >> 4 << 47)
#define PT_PYCODE_TAGOF(key) (((key)&15) | (key) >> 47 << 4)
#define PT_PYCODE_KEY(code, file, hash) \
	(PT_PYCODE_ADDR(code) | PT_PYCODE_SPREAD(PT_PYCODE_TAG(file, hash)))

/* A pyline key's code object: its address with its tag folded into bits
 * 26-46, its low 4 bits clear (a line key keeps bits 4-46), so that an
 * address taken again by another code object is another line key too.
 * Not an address (but where the tag is 0): such a code object is named
 * by what the kernel sent (PT_PYNAMED_OPAQUE), never read from the
 * process. */
#define PT_PYCODE_LINE(key) (PT_PYCODE_ADDR(key) ^ PT_PYCODE_TAGOF(key) << 26)

/* A pyline key: the code object (16-byte aligned, PT_PYCODE_LINE()) and
 * the offset. */
#define PT_PYLINE_OFF_BITS 20
#define PT_PYLINE(code, off)                 \
	((code) >> 4 << PT_PYLINE_OFF_BITS | \
	 ((off) & ((1u << PT_PYLINE_OFF_BITS) - 1)))

/*
 * pynew: a code object seen for the first time (pyframe.bpf.h's
 * py_name()), with its names as read at that moment from the process,
 * which may be gone by the time user space reads the record. Sent with
 * only the bytes of lines[] used: PT_PYNEW_HEAD + nlines.
 */
#define PT_PYCODE_SPAN 144 /* bytes of a code object read: its fields */
#define PT_PYSTR_HEAD 40 /* bytes of a str's header read */
#define PT_PYBYTES_HEAD 24 /* bytes of a bytes object's header read */
#define PT_PYSTR 256 /* bytes of a name's characters kept */
#define PT_PYLINES 16384 /* bytes of a line table kept */

/* The characters of a str (compact: the kind of every name), the first
 * (a function) or last (a file) PT_PYSTR bytes of them. */
struct pt_pystr {
	__u32 kind; /* bytes a character: 1, 2 or 4; 0: not read */
	__u32 len; /* bytes in data */
	__u64 chars; /* the whole string's length in characters */
	__u8 data[PT_PYSTR];
};

/* what a struct pt_pynew's named has (bits) */
#define PT_PYNAMED_FUNC 1u
#define PT_PYNAMED_FILE 2u
#define PT_PYNAMED_LINES 4u /* lines[] read (nlines may be 0) */
#define PT_PYNAMED_OPAQUE 8u /* code is a line key's, not an address */

struct pt_pynew {
	__u32 pid;
	__u32 gen; /* pt_pyproc's when it was seen */
	__u64 code; /* the code object's address */
	__u64 type; /* its type (its ob_type) */
	__s32 firstlineno;
	__u32 named; /* PT_PYNAMED_* */
	__u32 nlines; /* bytes of the line table in lines[] */
	__u32 lines_cut; /* the table was longer than PT_PYLINES */
	struct pt_pystr func, file;
	__u8 lines[PT_PYLINES];
};
#define PT_PYNEW_HEAD 584 /* offsetof(struct pt_pynew, lines) */

/* pystacks: a Python stack by its id (a hash of it), innermost frame
 * first: the code objects, 0 for a frame that could not be read. Bit i
 * of ends: frame i is the first (outermost) frame of the eval loop's
 * C-level call that runs it (enum pt_pysplit: split says how that was
 * known; meaningful only for split != PT_PYSPLIT_NONE, and taken into a
 * stack's id only for mixstack keys). */
struct pt_pystack {
	__u32 depth;
	__u32 truncated; /* deeper than PT_PYSTACK_DEPTH */
	__u32 ends;
	__u32 split; /* enum pt_pysplit */
	__u64 code[PT_PYSTACK_DEPTH];
};

/* mixstacks: a mixstack key's two stacks, by its id (a hash of both):
 * the native user stack's id in nstacks and the Python stack's in
 * pystacks (0: the thread ran no Python that could be read). */
struct pt_mixstack {
	__u64 native;
	__u64 py;
};

/* nstacks: a native stack by its id (a hash of it), innermost frame
 * first: return addresses (the first one the probe's own address); a
 * frame of a HotSpot JVM's interpreter, PT_IP_JAVA | its bytecode index
 * << PT_JAVA_BCI_SHIFT | its Method* >> 3 (8-aligned, below 2^47; see
 * unwind.bpf.h, engine/name/jvmframe.h); fn: a JavaScript frame's
 * SharedFunctionInfo (v8shared.h), 0 for others, read only if js (the
 * frames that have one). */
#define PT_IP_JAVA (1ULL << 62) /* no user address has it */
#define PT_JAVA_BCI_SHIFT 44
#define PT_JAVA_BCI_NONE 0xffffULL /* the bytecode index not known */
struct pt_stack_ips {
	__u32 depth;
	__u32 truncated; /* deeper than PT_STACK_FRAMES */
	__u32 pid; /* the process it was first seen in (0: a kernel stack) */
	__u32 js;
	__u64 ip[PT_STACK_FRAMES];
	__u64 fn[PT_STACK_FRAMES];
};

/*
 * nmaps: the mapping (a file's) of a user stack's frame, sent the first
 * time a stack of a process has a frame in it (stack.bpf.h), so that a
 * process gone by the time its stack is named still has its maps. The
 * path is the file's as the process's mount namespace shows it, built
 * from the end of path[]: it starts at path_at and ends at its last byte
 * (NUL); path_at 0 when it could not be read whole.
 */
#define PT_PATH_MAX 256 /* bytes of a mapped file's path, NUL included */
#define PT_PATH_PARTS 40 /* dentries and mounts walked up from a file */
#define PT_VMAS 1024 /* (process, mapping) pairs remembered as sent */

struct pt_vma {
	__u32 pid;
	__u32 dev; /* the file's device, as the kernel keeps it (major << 20
		      | minor) */
	__u64 ino;
	__u64 start, end; /* the mapping */
	__u64 offset; /* the file offset of its start */
	__u32 flags; /* VM_READ 1, VM_WRITE 2, VM_EXEC 4 */
	__u32 path_at; /* where in path[] the path starts; 0: unknown */
	char path[PT_PATH_MAX];
};

/*
 * Unwind tables (issue 34): each object's .eh_frame (or .debug_frame)
 * compiled by engine/find/ehframe.c into rows sorted by file offset: from
 * a row's offset to the next row's, how to find the caller's frame. All
 * objects' rows share one array (urows); uobjs finds an object's
 * [first, first + count) by the device (the kernel's, major << 20 |
 * minor) and inode of the file its mapping has, so a frame is looked up
 * from its VMA (vm_pgoff, vm_start) without the load bias. The vDSO,
 * which is no file, is dev 0, inode 0, offsets from its start.
 *
 * A row's rule is 32 bits: its kind (enum pt_ur_kind) in bits 0-2; a
 * PLT entry's threshold in bits 3-6; where the caller's rbp is in bits
 * 7-16 (0: unchanged, PT_UR_BP_LOST: unknown, else saved at CFA - 8 * n);
 * the CFA's offset from its register, in 8-byte units, signed, in bits
 * 17-31. The return address is always at CFA - 8 (x86-64).
 */
#define PT_UROWS (1u << 20) /* rows of every object, at most */
#define PT_UOBJS 4096 /* objects with a table */
#define PT_UR_BP_LOST 1023u

enum pt_ur_kind {
	PT_UR_FP, /* no unwind entry covers it: walk the frame pointer */
	PT_UR_RSP, /* CFA = rsp + off */
	PT_UR_RBP, /* CFA = rbp + off */
	PT_UR_PLT, /* CFA = rsp + off + ((rip & 15) >= thr ? 8 : 0) */
	PT_UR_DEREF, /* CFA = *(rbp + off) (a realigned stack's frame) */
	PT_UR_END, /* the outermost frame (return address undefined) */
	PT_UR_STOP, /* a rule the walker cannot follow: the stack ends */
};

#define PT_UR_KIND(r) ((r)&7u)
#define PT_UR_THR(r) (((r) >> 3) & 15u)
#define PT_UR_BP(r) (((r) >> 7) & 1023u)
#define PT_UR_OFF(r) ((__s32)(r) >> 17 << 3) /* bytes */
#define PT_UR_OFF_MIN (-(1 << 14) * 8)
#define PT_UR_OFF_MAX (((1 << 14) - 1) * 8)
#define PT_UR_MAKE(kind, thr, bp, off)                          \
	((__u32)(kind) | (__u32)(thr) << 3 | (__u32)(bp) << 7 | \
	 (__u32)((off) / 8) << 17)

struct pt_urow {
	__u32 off; /* file offset (the vDSO's: from its start) */
	__u32 rule;
};

struct pt_uobj_key {
	__u64 dev; /* the kernel's: major << 20 | minor */
	__u64 ino;
};

struct pt_uobj {
	__u32 first, count; /* its rows in urows */
};

/*
 * uprocs: the executable mappings of a process user space knows (the -p
 * target), sorted by start, each with its object's rows (count 0: none,
 * walk the frame pointer): found by a binary search, without
 * bpf_find_vma(), which takes the mmap lock and, in a profile sample's
 * interrupt, succeeds once per sample. A frame outside them (another
 * process, a mapping newer than the last rescan) is looked up with
 * bpf_find_vma() and uobjs.
 */
#define PT_UMAPS 128 /* mappings of a process in uprocs */
#define PT_UPROCS 64 /* processes in uprocs */

struct pt_umap {
	__u64 start, end;
	__u64 base; /* the file offset of start (the vDSO's: 0) */
	__u32 first, count; /* its object's rows */
};

struct pt_uproc {
	__u32 n;
	__u32 pad;
	struct pt_umap m[PT_UMAPS];
};

struct pt_site {
	__u32 spec; /* spec id, < PT_MAX_SPECS */
	__u8 action;
	__u8 nkeys;
	__u8 has_val;
	__u8 width; /* enum pt_key_width: the maps its keys go to */
	__u8 key_kind[PT_MAX_KEYS];
	__u8 key_slot[PT_MAX_KEYS]; /* num[] or str[] index */
	__s64 lq_low;
	__s64 lq_step;
	__u32 lq_nsteps; /* buckets between low and high, <= 64 */
	__u32 pid; /* the uprobe is filtered to this tgid; 0: any process */
	__u8 solo; /* no key, one process: solo_counts/solo_hists[spec] */
	__u8 aslot; /* count of one str() key, one process: try aslots */
	__u8 profile; /* a profile:HZ sample: filter by pid here */
	__u8 entry; /* a function's first instruction (fn:, not %return):
		       its caller is at the stack pointer, not yet in a
		       frame (ustack) */
	__u8 allpids; /* its rows over every process: key pid 0 */
	__u32 tag; /* spec | generation << 8: tells a reused spec id apart */
	__u32 lat_adj; /* a pair's end: ns its probes add to each time; a
			  restamp: the ns of its hit */
	struct pt_fetch val;
	struct pt_fetch key[PT_MAX_KEYS];
	struct pt_fetch len[PT_MAX_KEYS]; /* PT_KEY_STRN lengths */
};

struct pt_key {
	__u32 spec;
	__u32 pid; /* tgid; 0: every process (pt_site.allpids) */
	__u64 num[PT_MAX_KEYS];
	char str[PT_MAX_STRS][PT_STR_LEN];
};

/* The key of a spec without string keys: a prefix of struct pt_key, kept
 * in maps of their own so that hashing it costs 40 bytes, not 168. */
struct pt_nkey {
	__u32 spec;
	__u32 pid;
	__u64 num[PT_MAX_KEYS];
};

/* The key of a spec with one string key (in str[0]): 104 bytes, also a
 * prefix of struct pt_key, in maps of its own. */
struct pt_skey {
	__u32 spec;
	__u32 pid;
	__u64 num[PT_MAX_KEYS];
	char str[1][PT_STR_LEN];
};

/* Which key, and so which pair of maps, a spec's rows use. */
enum pt_key_width {
	PT_KEY_NUMS, /* struct pt_nkey: ncounts, nhists */
	PT_KEY_STR1, /* struct pt_skey: scounts, shists */
	PT_KEY_STR2, /* struct pt_key: counts, hists */
};

/* counts: per CPU; sum of the value argument for sum() */
struct pt_count {
	__u64 count;
	__s64 sum;
};

/* hists: per CPU. quantize/latency: log2 buckets as above; lquantize:
 * [0] below low, [1 + j] step j, [1 + nsteps] at or above high. */
/*
 * The string ranges that cannot change while they are valid: the private,
 * read-only mappings of the files a one-process target runs code from,
 * sorted, none overlapping. Valid while epoch equals the programs'
 * ro_epoch, which the kernel side bumps when the target execs or its
 * dynamic linker changes the loaded objects; gen changes when a range
 * went away, so that an address slot taken before is not matched again.
 */
#define PT_RO_WRITING 0xffffffffu /* epoch while user space rewrites it */

struct pt_ro {
	__u32 epoch;
	__u32 gen; /* >= 1 */
	__u32 n;
	__u32 pad;
	__u64 lo[PT_RO_RANGES];
	__u64 hi[PT_RO_RANGES];
};

/*
 * An address slot of a spec counting one str() key: the string at addr
 * (inside a pt_ro range of generation gen) was read once, when the slot
 * was taken; later events with that address only count. Slot
 * spec * PT_ASLOTS + k of the per-CPU array aslots; never given back
 * while the spec lives.
 */
struct pt_aslot {
	__u64 addr; /* 0: free */
	__u32 gen;
	__u32 pad;
	struct pt_count c;
	char str[PT_STR_LEN];
};

struct pt_hist {
	__u64 count;
	__s64 sum;
	__s64 min;
	__s64 max;
	__u64 b[PT_NBUCKETS];
};

struct pt_frame {
	__u64 ts;
	struct pt_key key;
};

struct pt_stack_key {
	__u32 tid;
	__u32 spec;
};

struct pt_stack {
	__u32 depth; /* starts under way; may exceed PT_STACK_DEPTH */
	__u32 epoch; /* the spec's epoch (pt_epoch) its starts were pushed in */
	__u32 floor; /* the starts below it are lost: f keeps the newest
			PT_STACK_DEPTH, in slot depth % PT_STACK_DEPTH */
	struct pt_frame f[PT_STACK_DEPTH];
};

/*
 * tstacks: per thread (task-local storage, found without hashing), the
 * start times of solo latency specs. Stack i belongs to the site tag in
 * tag[i] while its depth is above 0; at depth 0 any solo spec may take
 * it. A spec that finds none keeps its starts in stacks (the hash map),
 * as keyed specs do; the end looks in the thread's stack first, so the
 * newest start is always popped first. A spec removed with starts open
 * leaves its stack taken until the thread ends (its tag never returns).
 * epoch[i]: the spec's epoch its starts were pushed in, as in pt_stack.
 */
struct pt_tstack {
	__u32 tag[PT_TASK_STACKS];
	__u32 depth[PT_TASK_STACKS]; /* may exceed PT_STACK_DEPTH */
	__u32 epoch[PT_TASK_STACKS];
	__u32 floor[PT_TASK_STACKS]; /* as struct pt_stack's */
	__u64 ts[PT_TASK_STACKS][PT_STACK_DEPTH];
};

/*
 * owned: per thread (task-local storage), the specs whose entry
 * (thread, spec) of stacks the thread has: bit spec % 64 of spec[spec /
 * 64], set when the entry is made (a thread's first start of the spec
 * outside tstacks), never on later events. When the thread exits,
 * pt_lat_exit deletes those entries, so the hash map holds the stacks of
 * live threads only, and a start left open by a thread that died is
 * never popped by a later thread given the same tid.
 */
struct pt_owned {
	__u64 spec[PT_MAX_SPECS / 64];
};

/*
 * oncpu: per CPU, the target's CPU time there (pt_oncpu): ns it ran
 * before its last switch out, and since when it runs (a bpf_ktime_get_ns()
 * time; 0: it does not). seq is odd while pt_oncpu changes them.
 * And the waits of its threads that hit a spec's probe (pt_oncpu's
 * hitters) that ended there: a thread that went to sleep (not preempted)
 * and was switched in again within PT_WAIT_MAX_NS:
 * how many, their ns and the sum of their squares in us (the budget's
 * pace, engine/collect/pace.h).
 */
struct pt_oncpu {
	__u64 ns;
	__u64 since;
	__u64 last; /* its last switch from or to the target */
	__u32 seq;
	__u32 pad;
	__u64 waits;
	__u64 wait_ns;
	__u64 wait_us2;
};

/* stats: per CPU array indexed by spec id */
struct pt_stat {
	__u64 drop_full; /* a map was full */
	__u64 drop_str; /* a string could not be read */
	__u64 drop_deep; /* latency starts lost: the oldest of more than
			    PT_STACK_DEPTH under way on a thread (nested,
			    or their ends never came) */
	__u64 unmatched; /* a latency end without its start */
	__u64 drop_py; /* a Python frame (or thread state) unreadable */
	__u64 hits; /* program runs for the spec, while pt_count_hits is
		       set (the governor's rate; engine/collect/budget.c) */
	__u64 parked; /* ... while it was parked (pt_parked): dropped,
			 but they cost the target all the same */
	__u64 cut; /* latency halves whose other half the budget's parking
		      hid: a start dropped unpaired once the spec was
		      parked and attached again, an end without a start
		      of its window (neither an error nor a pair) */
	__u64 shared; /* of hits and parked, runs that shared the trap of
			 another spec's run just before (one breakpoint, two
			 specs): the target paid that trap once */
};

/* lasthit: per CPU, the thread, address and end (bpf_ktime_get_ns()) of
 * the last spec run, while pt_count_hits is set: a run of the same
 * thread at the same address less than PT_SHARED_NS later is of the
 * same trap (pt_stat.shared) */
struct pt_lasthit {
	__u64 tid;
	__u64 ip;
	__u64 end;
};
#define PT_SHARED_NS 300 /* a trap costs more than this; a run's tail less */

/* IO: syscall classes; user space fills io_nr (syscall nr -> class + 1) */
enum pt_io_class {
	PT_IO_READ,
	PT_IO_WRITE,
	PT_IO_PREAD,
	PT_IO_PWRITE,
	PT_IO_READV,
	PT_IO_WRITEV,
	PT_IO_RECV,
	PT_IO_SEND,
	PT_IO_FSYNC,
	PT_IO_FDATASYNC,
	PT_IO_OPEN,
	PT_IO_CLOSE,
	PT_IO_BLOCK_READ, /* block requests issued on the target's behalf */
	PT_IO_BLOCK_WRITE,
	PT_IO_NCLASSES,
};

struct pt_io_key {
	__u32 pid;
	__u32 cls;
};

/* per CPU, 64-bit counters only (agg sums them word by word); bytes are
 * what the syscall returned (or the request size) */
struct pt_io_val {
	__u64 calls;
	__u64 errors;
	__u64 bytes;
	__u64 ns; /* summed latency */
	__u64 b[PT_NBUCKETS]; /* log2 latency in ns */
};

struct pt_io_start {
	__u64 ts;
	__u32 cls;
	__u32 pid;
};

/* kdrops: per CPU array of what the kernel's IO and process counting
 * could not record, by reason */
enum pt_kdrop {
	PT_KDROP_INFLIGHT, /* an IO call or request not timed: io_start full */
	PT_KDROP_IO, /* an IO call or request not counted: io full */
	PT_KDROP_PROC, /* a process event not counted: proc full */
	PT_KDROP_N,
};

/* what the kernel programs count of a watched process (bits); both
 * follow its descendants */
enum pt_watch {
	PT_WATCH_IO = 1, /* its IO syscalls and block requests */
	PT_WATCH_PROC = 2, /* the processes and threads it starts, the
			    * files it execs, how they end */
};

/* watched: a process watched from the kernel (owner: itself), or a
 * descendant of one (owner: that one), whose events count for owner */
struct pt_watched {
	__u32 owner;
	__u8 bits; /* enum pt_watch: the owner's, when it was followed */
	__u8 pad[3];
};

/* Process events, keyed by the watched process they belong to (pid), the
 * event, the exit code (exits) and a name: the comm of the task that
 * forked (fork, thread), the file exec'd (exec), the comm of the task that
 * ended (exit, thread-exit). */
enum pt_proc_event {
	PT_PROC_FORK, /* a new process */
	PT_PROC_THREAD, /* a new thread */
	PT_PROC_EXEC,
	PT_PROC_EXIT, /* a process ended; code: status, or -signal */
	PT_PROC_THREAD_EXIT, /* a thread other than the leader ended */
	PT_PROC_LOST, /* a descendant could not be followed (kids full) */
	PT_PROC_NEVENTS,
};

/*
 * A process as it was when it first made a key (so -b can name one that
 * has exited by the time user space looks): its name, and the start of
 * its arguments as the kernel keeps them (NUL-separated; args_len 0 if
 * they could not be read).
 */
struct pt_pid_name {
	char comm[16];
	__u32 args_len;
	__u32 pad;
	char args[PT_ARGS_LEN];
};

struct pt_proc_key {
	__u32 pid;
	__u32 event;
	__s32 code;
	__u32 pad;
	char name[PT_STR_LEN];
};

/* per CPU, 64-bit counters only (agg sums them word by word); ns and
 * b[]: lifetimes of what ended (exit, thread-exit) */
struct pt_proc_val {
	__u64 count;
	__u64 ns;
	__u64 b[PT_NBUCKETS];
};

#endif
