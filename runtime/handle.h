/*
 * handle.h - the registry of live handles (handle.c), at the bottom of
 * runtime/ with the context.
 */
#ifndef RTOPO_HANDLE_H
#define RTOPO_HANDLE_H

/* every live object is registered (stale ones are refused) */
enum { RTOPO__H_CTX = 1, RTOPO__H_TOPO, RTOPO__H_REQ, RTOPO__H_MEM };
int rtopo__handle_add(const void *p, int type);
void rtopo__handle_del(const void *p);
int rtopo__handle_ok(const void *p, int type);

#endif
