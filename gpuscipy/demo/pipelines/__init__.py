"""Demo pipelines; every submodule here is imported by ``gpuscipy-demo``.

A module registers its factory with ``@gpuscipy.demo.register(name, ...)``
and imports its heavy dependencies (``gpuscipy.signal``, data sets) inside
the factory or the setup functions, so that listing and registration need
no GPU and a broken dependency fails only its own pipeline.
"""
