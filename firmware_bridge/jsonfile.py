"""Writing a small JSON file so that a power cut leaves either the old file or the new one."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_json_atomically(path: Path, doc: Any, indent: int | None = None) -> None:
    """Write ``doc`` as JSON to ``path``: a temporary file in the same folder, flushed and
    fsynced, then ``os.replace`` over ``path`` (atomic on POSIX).  Creates the folder.

    Raises :class:`OSError` when the folder or file cannot be written; the file on disk is
    then unchanged and no temporary file is left behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=indent)
            if indent is not None:
                f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
