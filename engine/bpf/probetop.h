/* SPDX-License-Identifier: MIT */
/*
 * probetop.h — what the BPF programs and user space share: map sizes and
 * the fixed-width records in the maps. No includes, no pointers: the same
 * text compiles for -target bpf and for the host.
 */
#ifndef PROBETOP_BPF_SHARED_H
#define PROBETOP_BPF_SHARED_H

/* Attachments a single probetop can hold (array map entries). */
#define PROBETOP_MAX_ATTACH 4096

#endif
