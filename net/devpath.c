/* net/devpath.c - see devpath.h. */
#include "net/devpath.h"

void devpath_begin(struct devpath_walk *w, const void *path, size_t cap)
{
	w->p = path;
	w->left = path ? cap : 0;
	w->nodes = 0;
}

bool devpath_next(struct devpath_walk *w, struct devpath_node *n)
{
	if (w->left < DEVPATH_HEADER || w->nodes >= DEVPATH_NODES_MAX || w->p[0] == DEVPATH_END)
		return false;
	size_t len = (size_t)w->p[2] | ((size_t)w->p[3] << 8);
	if (len < DEVPATH_HEADER || len > w->left)
		return false;
	*n = (struct devpath_node){ w->p[0], w->p[1], w->p + DEVPATH_HEADER, len - DEVPATH_HEADER };
	w->p += len;
	w->left -= len;
	w->nodes++;
	return true;
}
