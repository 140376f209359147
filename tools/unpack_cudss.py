"""Unpack a carried libcudss.so.0.xz where the nvidia-cudss-cu13 wheel puts it.

The GPU test machine has no cuDSS and reaches no package index; the wheel is
too large to carry whole, the xz-compressed library alone fits. Prints the
folder so the caller can add it to LD_LIBRARY_PATH.
"""
import lzma
import os
import shutil
import sys

import nvidia

src = sys.argv[1] if len(sys.argv) > 1 else ".whl/cudss/libcudss.so.0.xz"
d = os.path.join(list(nvidia.__path__)[0], "cu13", "lib")
os.makedirs(d, exist_ok=True)
with lzma.open(src) as f, open(os.path.join(d, "libcudss.so.0"), "wb") as g:
    shutil.copyfileobj(f, g, 1 << 24)
print(d)
