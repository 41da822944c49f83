/*
 * net/devpath.h - walking a UEFI device path: the nodes that name how the
 * image was loaded (the NIC's MAC, an HTTP boot's URI, a disk's file path).
 *
 * A device path is a run of nodes, each a 4-byte header (Type, SubType,
 * Length as two little-endian bytes, the header included) and its data,
 * ending at a node of type END (UEFI 2.10 §10.2, §10.3.1).  The one walk
 * for every reader in boot/; pure bytes, so the unit tests and a damaged
 * path (a node shorter than its header, no end node) are handled here.
 */
#ifndef PMUBOOT_NET_DEVPATH_H
#define PMUBOOT_NET_DEVPATH_H

#include "lib/libc.h"

/* UEFI 2.10 §10.3: node types and the subtypes read here. */
#define DEVPATH_MEDIA 0x04
#define DEVPATH_MEDIA_FILE_PATH 0x04	/* §10.3.5.4: a UCS-2 path */
#define DEVPATH_MESSAGING 0x03
#define DEVPATH_MSG_MAC 0x0b		/* §10.3.4.11 */
#define DEVPATH_MSG_IPV4 0x0c
#define DEVPATH_MSG_URI 0x18		/* §10.3.4.23: the URI as bytes, not NUL-terminated */
#define DEVPATH_END 0x7f
#define DEVPATH_HEADER 4		/* Type, SubType, Length[2] */
#define DEVPATH_NODES_MAX 64		/* a longer path is not one we can use */

struct devpath_node {
	uint8_t type, subtype;
	const uint8_t *data;		/* after the header */
	size_t len;			/* data bytes */
};

struct devpath_walk {
	const uint8_t *p;
	size_t left;			/* bytes known to be readable (SIZE_MAX: the firmware's path, unbounded) */
	unsigned nodes;
};

/* Start at path (NULL: an empty path); cap: its size in bytes when known, else SIZE_MAX. */
void devpath_begin(struct devpath_walk *w, const void *path, size_t cap);
/*
 * The next node; false at the end node, at a node whose length is below
 * its header or past cap, and after DEVPATH_NODES_MAX nodes.
 */
bool devpath_next(struct devpath_walk *w, struct devpath_node *n);

#endif
