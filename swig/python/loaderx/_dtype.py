"""numpy dtypes to and from a store's dtype identity.

The identity is what loaderx 1.7.7 persists: `dtype.str` for a simple dtype,
`dtype.descr` for a structured one (padding included as ('', '|V<n>')
fields). The engine validates it and computes item sizes (`loaderx/dtype.h`);
this module only converts, and rebuilds the exact dtype: names, titles,
offsets and itemsize, which `np.dtype(descr)` alone would not (it turns
padding into fields named 'f1', ...).
"""

import numpy as np


def to_identity(dtype):
    """The identity of `dtype` (an `np.dtype`), which the engine validates
    (object dtypes are refused there). ValueError for a subarray dtype such
    as ('<i4', (2,)), which an identity cannot say and numpy arrays never
    carry (their shape joins the array's)."""
    if dtype.subdtype is not None:
        raise ValueError(
            f"{dtype} is a subarray dtype, which numpy arrays never carry: "
            f"give its base dtype {dtype.subdtype[0]} and put its shape "
            f"{dtype.subdtype[1]} into the records' shape")
    return dtype.descr if dtype.fields is not None else dtype.str


def from_identity(identity):
    """The `np.dtype` an identity describes, exactly."""
    if isinstance(identity, str):
        return np.dtype(identity)
    names, formats, offsets, titles = [], [], [], []
    offset = 0
    for field in identity:
        name, kind = field[0], field[1]
        element = from_identity(kind)
        if len(field) == 3:
            element = np.dtype((element, tuple(field[2])))
        if name == "":  # Padding: it moves the next field's offset.
            offset += element.itemsize
            continue
        title = None
        if isinstance(name, tuple):
            title, name = name
        names.append(name)
        formats.append(element)
        offsets.append(offset)
        titles.append(title)
        offset += element.itemsize
    return np.dtype({"names": names, "formats": formats, "offsets": offsets,
                     "titles": titles, "itemsize": offset})
