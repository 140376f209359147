"""einsum for gpuscipy_core: NumPy's subscripts, contracted pairwise on cuBLAS.

Split from ``_linalg`` (which re-exports ``einsum``); the shared helpers are
reached through the ``_linalg`` module so that they stay one implementation.
"""

import numpy
import operator

from gpuscipy_core._ndarray import normalize_dtype

from . import _linalg as _L

def _sublist_to_str(sub):
    chars = []
    for s in sub:
        if s is Ellipsis:
            chars.append("...")
        else:
            try:
                s = operator.index(s)
            except TypeError:
                raise TypeError("subscript is not within the valid range [0, 52)") from None
            if not 0 <= s < 52:
                raise ValueError("subscript is not within the valid range [0, 52)")
            chars.append(_L._LETTERS[s])
    return "".join(chars)


def _einsum_args(subscripts, operands):
    if isinstance(subscripts, str):
        return subscripts, list(operands)
    args = [subscripts] + list(operands)
    out = None
    if len(args) % 2:
        out = args.pop()
    ops, terms = args[0::2], args[1::2]
    s = ",".join(_sublist_to_str(t) for t in terms)
    if out is not None:
        s += "->" + _sublist_to_str(out)
    return s, ops


def _split_term(term, what):
    """(labels, has_ellipsis) of one term; checks characters."""
    has = False
    if "." in term:
        if term.count(".") != 3 or "..." not in term:
            raise ValueError(f"einstein sum subscripts string contains a '.' that is not "
                             f"part of an ellipsis ('...') in the {what}")
        has = True
        term = term.replace("...", "\0")
    for ch in term:
        if ch != "\0" and ch not in _L._LETTERS:
            raise ValueError(f"invalid subscript '{ch}' in einstein sum subscripts string, "
                             "subscripts must be letters")
    return term, has


def _parse_einsum(subscripts, shapes):
    """Input label lists (ellipsis expanded) and the output label list."""
    s = subscripts.replace(" ", "")
    if "->" in s:
        lhs, rhs = s.split("->", 1)
    else:
        if "-" in s:
            raise ValueError("einstein sum subscript string does not contain proper '->' "
                             "output specified")
        lhs, rhs = s, None
    terms = lhs.split(",")
    # (NumPy's wording: "fewer" when there are more operands than terms)
    if len(terms) < len(shapes):
        raise ValueError("fewer operands provided to einstein sum function than "
                         "specified in the subscripts string")
    if len(terms) > len(shapes):
        raise ValueError("more operands provided to einstein sum function than "
                         "specified in the subscripts string")
    inputs = []
    nell = 0
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        t, has = _split_term(term, "input")
        nlab = len(t) - has
        if nlab > len(shape):
            raise ValueError("einstein sum subscripts string contains too many "
                             f"subscripts for operand {i}")
        if not has and nlab != len(shape):
            raise ValueError("operand has more dimensions than subscripts given in "
                             "einstein sum, but no '...' ellipsis provided to broadcast "
                             "the extra dimensions.")
        ne = len(shape) - nlab
        nell = max(nell, ne)
        labels = []
        for ch in t:
            if ch == "\0":
                labels += [("E", ne - j) for j in range(ne)]   # counted from the right
            else:
                labels.append(ch)
        inputs.append(labels)
    ell = [("E", nell - j) for j in range(nell)]
    if rhs is None:
        counts = {}
        for labels in inputs:
            for lab in labels:
                if isinstance(lab, str):
                    counts[lab] = counts.get(lab, 0) + 1
        output = ell + sorted(lab for lab, c in counts.items() if c == 1)
    else:
        t, has = _split_term(rhs, "output")
        seen = set()
        present = {lab for labels in inputs for lab in labels}
        output = []
        for ch in t:
            if ch == "\0":
                output += ell
                continue
            if ch in seen:
                raise ValueError("einstein sum subscripts string includes output "
                                 f"subscript '{ch}' multiple times")
            seen.add(ch)
            if ch not in present:
                raise ValueError("einstein sum subscripts string included output "
                                 f"subscript '{ch}' which never appeared in an input")
            output.append(ch)
        if not has and nell:
            raise ValueError("output has more dimensions than subscripts given in "
                             "einstein sum, but no '...' ellipsis provided to broadcast "
                             "the extra dimensions.")
    return inputs, output


def _label_name(lab):
    return lab if isinstance(lab, str) else "..."


def _diagonal_and_broadcast(x, labels, sizes, i):
    """Collapse repeated labels of ``x`` (a diagonal view) and broadcast its
    length-1 dimensions to ``sizes``: returns (view, unique labels)."""
    uniq, shape, strides = [], [], []
    for d, lab in enumerate(labels):
        if lab in uniq:
            j = uniq.index(lab)
            if x.shape[d] != shape[j]:
                raise ValueError(f"dimensions in single operand for collapsing index "
                                 f"'{_label_name(lab)}' don't match ({shape[j]} != "
                                 f"{x.shape[d]})")
            strides[j] += x.strides[d]
            continue
        uniq.append(lab)
        shape.append(x.shape[d])
        strides.append(x.strides[d])
    for j, lab in enumerate(uniq):
        if shape[j] != sizes[lab]:
            shape[j] = sizes[lab]
            strides[j] = 0
    if tuple(shape) != x.shape or tuple(strides) != x.strides:
        x = _L._with_shape(x, shape, strides)
    return x, uniq


def _sum_labels(x, labels, drop, dt):
    if not drop:
        return x, labels
    axes = tuple(labels.index(lab) for lab in drop)
    from . import _reduction
    if dt.kind == "b":
        r = _reduction.any(x, axis=axes)
    else:
        r = _reduction.sum(x, axis=axes, dtype=dt)
    return r, [lab for lab in labels if lab not in drop]


def _contract_pair(x, lx, y, ly, keep, sizes):
    """Contract two operands over the labels they share that ``keep`` does
    not hold: one (batched) _L.matmul after transposes, or a broadcast multiply
    when nothing is summed."""
    batch = [lab for lab in lx if lab in ly and lab in keep]
    summed = [lab for lab in lx if lab in ly and lab not in keep]
    fa = [lab for lab in lx if lab not in ly]
    fb = [lab for lab in ly if lab not in lx]
    xt = x.transpose([lx.index(lab) for lab in batch + fa + summed])
    yt = y.transpose([ly.index(lab) for lab in batch + summed + fb])
    nbt = tuple(sizes[lab] for lab in batch)
    m = _L._prod(sizes[lab] for lab in fa)
    n = _L._prod(sizes[lab] for lab in fb)
    k = _L._prod(sizes[lab] for lab in summed)
    if not summed:
        # outer/elementwise: (batch, fa, 1...) * (batch, 1..., fb)
        xs = xt.reshape(nbt + tuple(sizes[lab] for lab in fa) + (1,) * len(fb))
        ys = yt.reshape(nbt + (1,) * len(fa) + tuple(sizes[lab] for lab in fb))
        return _L._multiply(xs, ys), batch + fa + fb
    r = _L.matmul(xt.reshape(nbt + (m, k)), yt.reshape(nbt + (k, n)))
    return r.reshape(nbt + tuple(sizes[lab] for lab in fa + fb)), batch + fa + fb


def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe",
           optimize=False):
    """Einstein summation (``numpy.einsum``).

    Parameters
    ----------
    subscripts : str
        ``"ij,jk->ik"``-style labels: implicit output (labels seen once, in
        alphabetical order, after the ellipsis dimensions) or explicit after
        ``->``; ``...`` broadcasts; a label repeated in one operand takes the
        diagonal. The sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``
        is accepted too.
    *operands : array_like
    out : ndarray, optional
        Destination of the result's shape (cast with ``casting``).
    dtype : data-type, optional
        Type the operands are cast to (default: their result type).
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}
    order, optimize
        Accepted for NumPy compatibility. Operands are contracted left to
        right.

    Returns
    -------
    ndarray
        A view of the operand for a single operand that is only transposed
        or diagonalised (as NumPy), a new array otherwise.

    Raises
    ------
    ValueError
        Malformed subscripts, wrong operand counts, dimensions that do not
        match or broadcast (NumPy's messages).
    TypeError
        A cast that ``casting`` forbids.

    Notes
    -----
    Labels used by one operand only and not in the output are summed first.
    Each pairwise contraction is one _L.matmul (cuBLAS for inexact types, the
    exact integer kernel otherwise) after transposes, or a broadcast
    multiply when no label is summed.
    """
    subscripts, ops = _einsum_args(subscripts, operands)
    ops = [_L._asarray(x) for x in ops]
    inputs, output = _parse_einsum(subscripts, [x.shape for x in ops])
    if dtype is None:
        dt = normalize_dtype(numpy.result_type(*[x.dtype for x in ops]))
    else:
        dt = normalize_dtype(dtype)
    for i, x in enumerate(ops):
        if not numpy.can_cast(x.dtype, dt, casting):
            raise TypeError(f"Iterator operand {i} dtype could not be cast from "
                            f"{x.dtype!r} to {dt!r} according to the rule {casting!r}")
    sizes = {}
    for x, labels in zip(ops, inputs):
        for d, lab in enumerate(labels):
            s = x.shape[d]
            if sizes.get(lab, 1) == 1:
                sizes[lab] = s
            elif s not in (1, sizes[lab]):
                raise ValueError("operands could not be broadcast together with remapped "
                                 "shapes [original->remapped]: "
                                 + " ".join(_L._fmt(o.shape) for o in ops))
    pairs = [_diagonal_and_broadcast(_L._cast(x, dt), labels, sizes, i)
             for i, (x, labels) in enumerate(zip(ops, inputs))]
    # labels of one operand only, not in the output: summed first
    for i, (x, labels) in enumerate(pairs):
        elsewhere = set(output)
        for j, (_, lj) in enumerate(pairs):
            if j != i:
                elsewhere.update(lj)
        pairs[i] = _sum_labels(x, labels, [lab for lab in labels if lab not in elsewhere],
                               dt)
    while len(pairs) > 1:
        (x, lx), (y, ly) = pairs[0], pairs[1]
        keep = set(output)
        for _, lz in pairs[2:]:
            keep.update(lz)
        pairs = [_contract_pair(x, lx, y, ly, keep, sizes)] + pairs[2:]
    x, labels = pairs[0]
    x, labels = _sum_labels(x, labels, [lab for lab in labels if lab not in output], dt)
    r = x.transpose([labels.index(lab) for lab in output]) if output else x
    if out is not None:
        if not isinstance(out, _L.ndarray):
            raise TypeError("einsum: out must be a gpuscipy_core.ndarray")
        if out.shape != r.shape:
            raise ValueError(f"non-broadcastable output operand with shape "
                             f"{_L._fmt(out.shape)} doesn't match the broadcast shape "
                             f"{_L._fmt(r.shape)}")
        if not numpy.can_cast(dt, out.dtype, casting):
            raise TypeError(f"Iterator requested dtype could not be cast from {dt!r} to "
                            f"{out.dtype!r}, the operand 0 dtype, according to the rule "
                            f"{casting!r}")
        out[...] = r
        return out
    return r
