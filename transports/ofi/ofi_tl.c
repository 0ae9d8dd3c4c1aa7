/* placeholder until the libfabric backend lands */
#include "config.h"
#include "tl.h"
static int ofi_match(const char *t) { (void)t; return 0; }
const struct rtopo__tl_ops rtopo__tl_ofi = { .size = sizeof(struct rtopo__tl_ops), .name = "ofi", .match = ofi_match, .available = ofi_match };
