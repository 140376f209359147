"""Public objects report their public home (``obj.__module__``)."""

__all__ = ["set_home"]


def set_home(namespace, module_name, names=None):
    """Set ``__module__`` to ``module_name`` on the objects ``names``
    (default: ``namespace["__all__"]``) of ``namespace`` (a module's
    globals) that were defined in a private module of gpuscipy_core;
    objects that refuse (extension types) keep theirs."""
    for n in (namespace["__all__"] if names is None else names):
        o = namespace.get(n)
        if o is None or not callable(o):
            continue
        m = getattr(o, "__module__", None) or ""
        if m.startswith("gpuscipy_core") and "._" in m:
            try:
                o.__module__ = module_name
            except (AttributeError, TypeError):
                pass
