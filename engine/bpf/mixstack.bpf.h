// SPDX-License-Identifier: MIT
/*
 * mixstack.bpf.h — the native user stack and the Python stack of the
 * thread at a probe, as one key (mixstack keys, issue 34).
 *
 * Both stacks are taken in the same event by the walkers that ustack and
 * pystack keys use: the native one by stack_key() (the unwind tables, or
 * frame pointers), kept in nstacks; the Python one by py_stack_key() in
 * its mixstack form, which also records where the eval loop's C-level
 * calls part the Python frames (struct pt_pystack's ends), kept in
 * pystacks. The key is the id of the pair, a hash of the two ids, kept in
 * mixstacks the first time it is seen; user space merges the two stacks
 * once per pair (engine/name/mixstack.c), putting each eval call's
 * Python frames where the native stack has that call.
 *
 * A thread that runs no Python (or none this process set up) still has
 * its native stack: the pair's Python id is then 0.
 *
 * Part of probetop.bpf.c, included after pyframe.bpf.h and stack.bpf.h,
 * before fetch.bpf.h (fill_key()).
 */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PT_MIXSTACKS);
	__type(key, __u64);
	__type(value, struct pt_mixstack);
} mixstacks SEC(".maps");

/*
 * The id of the pair of the native stack of id native (nstacks) and the
 * current thread's Python stack, taken here (py_stack_key()); sample: at
 * a profile sample (its own scratch). Never 0; 1 when pystacks or
 * mixstacks is full. A global function: verified once.
 */
__noinline __u64 mix_key(__u64 native, __u32 sample)
{
	struct pt_mixstack m = { .native = native };
	__u64 id;

	m.py = py_stack_key(sample, 1);
	if (m.py == 1)
		return 1;
	id = ((0xcbf29ce484222325ULL ^ native) * 0x100000001b3ULL ^ m.py) *
	     0x100000001b3ULL;
	id = id > 1 ? id : id + 2;
	if (bpf_map_lookup_elem(&mixstacks, &id))
		return id;
	if (bpf_map_update_elem(&mixstacks, &id, &m, BPF_NOEXIST))
		return bpf_map_lookup_elem(&mixstacks, &id) ? id : 1;
	return id;
}
