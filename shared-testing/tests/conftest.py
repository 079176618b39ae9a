import contextlib

# pytester's in-process runs drop the modules first imported inside them, and torch refuses a second
# import in one process; importing it here (where it is installed) keeps it out of those snapshots.
with contextlib.suppress(ImportError):
    import torch  # noqa: F401
