/*
 * rtopo_f08_buf.c - the one C helper of the Fortran binding: the address
 * and size of an assumed-type, assumed-rank buffer, read from its C
 * descriptor (ISO_Fortran_binding.h).
 */
#include <stddef.h>
#include <ISO_Fortran_binding.h>
#include <rtopo.h>

int rtopo_f08_buf(const CFI_cdesc_t *buf, void **addr, size_t *bytes, size_t *elem);

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
