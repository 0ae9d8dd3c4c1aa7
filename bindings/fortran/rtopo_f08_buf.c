/*
 * rtopo_f08_buf.c - the C helpers of the Fortran binding: the address and
 * size of an assumed-type, assumed-rank buffer, read from its C
 * descriptor (ISO_Fortran_binding.h); and the detail of the last error
 * the binding raised itself, kept per thread like rtopo_last_error's.
 */
#include <stddef.h>
#include <string.h>
#include <ISO_Fortran_binding.h>
#include <rtopo.h>

int rtopo_f08_buf(const CFI_cdesc_t *buf, void **addr, size_t *bytes, size_t *elem);
void rtopo_f08_set_error(const char *msg, size_t len);
void rtopo_f08_clear_error(void);
const char *rtopo_f08_error(void);

static __thread char f08_detail[256];
static __thread int f08_own;   /* the binding raised the last error */

void rtopo_f08_set_error(const char *msg, size_t len)
{
    if (len > sizeof(f08_detail) - 1)
        len = sizeof(f08_detail) - 1;
    memcpy(f08_detail, msg, len);
    f08_detail[len] = '\0';
    f08_own = 1;
}

void rtopo_f08_clear_error(void)
{
    f08_own = 0;
}

/* the binding's detail if it raised the last error, else NULL */
const char *rtopo_f08_error(void)
{
    return f08_own ? f08_detail : NULL;
}

/* RTOPO_ERR_INVAL for a buffer that is not contiguous or of assumed size
 * (whose last extent is unknown); a scalar is one
 * element, an array of zero elements 0 bytes. */
int rtopo_f08_buf(const CFI_cdesc_t *buf, void **addr, size_t *bytes, size_t *elem)
{
    size_t n = 1;
    int r;

    *addr = buf->base_addr;
    *elem = buf->elem_len;
    *bytes = 0;
    for (r = 0; r < buf->rank; r++) {
        if (buf->dim[r].extent < 0)
            return RTOPO_ERR_INVAL;   /* assumed size: the size is unknown */
        if (buf->dim[r].extent == 0)
            return RTOPO_OK;
        n *= (size_t)buf->dim[r].extent;
    }
    if (buf->rank > 0 && !CFI_is_contiguous(buf))
        return RTOPO_ERR_INVAL;
    *bytes = n * buf->elem_len;
    return RTOPO_OK;
}
