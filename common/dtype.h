/* dtype.h — tinygrad's DType, PtrDType and ImageDType (tinygrad/dtype.py) as
 * interned values: two DTypes are equal exactly when their pointers are. */
#ifndef TSCHED_DTYPE_H
#define TSCHED_DTYPE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "version.h"

typedef enum { DK_VOID, DK_BOOL, DK_INT, DK_UINT, DK_FLOAT } DTypeKind;

typedef struct DType DType;
struct DType {
  const char *name;        /* repr name of the scalar: "float", "uchar", "imagef" ... */
  const char *cname;       /* DType.name: "float", "unsigned char", "imagef" ... */
  DTypeKind kind;
  int priority, itemsize;  /* itemsize of the whole (vector) type, as tinygrad */
  char fmt;                /* struct format char, 0 for None */
  int count;               /* vector width, 1 for scalars */
  const DType *scalar;     /* the scalar type (self for scalars) */
  /* PtrDType (0.10.x) */
  bool is_ptr, local;
  int v;                   /* pointer vector width */
  int64_t ptr_size;        /* 0.10.2: size argument, -1 unlimited */
  const DType *base;       /* pointee (self for non-pointers) */
  /* ImageDType */
  bool is_image;
  int image_ndim;
  int64_t image_shape[4];
};

/* The scalar dtypes, by their repr name. */
extern const DType *dt_void, *dt_bool, *dt_char, *dt_uchar, *dt_short, *dt_ushort, *dt_int, *dt_uint,
    *dt_long, *dt_ulong, *dt_half, *dt_bfloat16, *dt_float, *dt_double;

/* Parse the contract's DT spelling ("float", "float.vec(4)", "float.ptr(16)",
 * "imagef((1, 2, 4))", 0.9.1's "_float4"). NULL when unknown. */
const DType *dtype_parse(const char *s);
/* repr(dtype) without "dtypes.", as version v prints it. Static storage is not
 * used: the result is written into buf (size >= 64 recommended). */
const char *dtype_repr(const DType *d, TgVersion v, char *buf, size_t bufsize);
/* The same text, computed once per (dtype, version) and kept for the life of
 * the process (as the dtypes are); *len gets its length. */
const char *dtype_repr_kept(const DType *d, TgVersion v, size_t *len);

const DType *dtype_vec(const DType *d, int count);                    /* DType.vec */
const DType *dtype_ptr(const DType *d, int64_t size, bool local);      /* DType.ptr */
const DType *dtype_image(bool half, int ndim, const int64_t *shape);   /* dtypes.imageh/imagef */

bool dtype_is_float(const DType *d);     /* dtypes.is_float (images count as float) */
bool dtype_is_int(const DType *d);       /* dtypes.is_int */
bool dtype_is_unsigned(const DType *d);  /* dtypes.is_unsigned */
bool dtype_is_bool(const DType *d);
#endif
