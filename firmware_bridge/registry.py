"""Tag registry: which tile each RFID tag is stuck to, kept in a JSON file.

File format (version 1)::

    {"version": 1, "tags": {"04A1B2C3": "P03.G1", "13005D1DA5": "ROCK", ...}}

UIDs are upper-case hex without separators; tile codes are tile *types* in their
rotation-independent form (:func:`companion.tiles.canonical`).  Every save writes a temporary
file beside the target and renames it over (``os.replace``), so a crash mid-save leaves the
old file whole.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections import Counter
from pathlib import Path

from companion.tiles import TileCodeError, canonical, validate
from firmware_bridge.errors import RegistryError
from firmware_bridge.jsonfile import write_json_atomically

_UID_RE = re.compile(r"^[0-9A-F]{8,20}$")


def normalise_uid(uid: str) -> str:
    """Upper-case hex without separators (``"04:a1:b2:c3"`` -> ``"04A1B2C3"``).

    Raises :class:`RegistryError` unless the result is 8 to 20 hex digits.
    """
    clean = re.sub(r"[\s:.\-]", "", str(uid)).upper()
    if not _UID_RE.match(clean) or len(clean) % 2:
        raise RegistryError(f"{uid!r} is not a tag UID (8 to 20 hex digits, whole bytes)")
    return clean


def tile_type(code: str) -> str:
    """Validated, rotation-independent tile type code; raises :class:`RegistryError`."""
    try:
        return canonical(validate(code))
    except TileCodeError as e:
        raise RegistryError(str(e)) from None


class TagRegistry:
    """UID -> tile type, loaded from and saved to ``path``.  A missing file is an empty
    registry; a malformed one raises :class:`RegistryError` naming the file and the fault."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._tags: dict[str, str] = {}
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise RegistryError(f"cannot read tag registry {self.path}: {e}") from None
        if not isinstance(doc, dict) or doc.get("version") != 1 or not isinstance(doc.get("tags"), dict):
            raise RegistryError(f"{self.path} is not a version 1 tag registry ({{'version': 1, 'tags': {{...}}}})")
        for uid, code in doc["tags"].items():
            try:
                self._tags[normalise_uid(uid)] = tile_type(code)
            except RegistryError as e:
                raise RegistryError(f"{self.path}: entry {uid!r}: {e}") from None

    def __len__(self) -> int:
        return len(self._tags)

    def __contains__(self, uid: str) -> bool:
        return self.lookup(uid) is not None

    def lookup(self, uid: str) -> str | None:
        """Tile type of ``uid``, or None for an unknown (or malformed) UID."""
        try:
            return self._tags.get(normalise_uid(uid))
        except RegistryError:
            return None

    def items(self) -> list[tuple[str, str]]:
        """(UID, tile type) pairs, sorted by UID."""
        return sorted(self._tags.items())

    def counts(self) -> Counter[str]:
        """How many tags each tile type has."""
        return Counter(self._tags.values())

    def add(self, uid: str, code: str) -> str:
        """Register ``uid`` as a tile of type ``code``; return the stored tile type.

        Raises :class:`RegistryError` when the UID is already registered (to any tile) or
        either argument is malformed.  Does not save: call :meth:`save`.
        """
        key = normalise_uid(uid)
        if key in self._tags:
            raise RegistryError(f"tag {key} is already enrolled as {self._tags[key]}")
        self._tags[key] = tile_type(code)
        return self._tags[key]

    def remove(self, uid: str) -> None:
        """Forget ``uid``; raises :class:`RegistryError` when it is not registered."""
        key = normalise_uid(uid)
        if self._tags.pop(key, None) is None:
            raise RegistryError(f"tag {key} is not enrolled")

    def check_writable(self) -> None:
        """Make sure :meth:`save` can write here: creates the folder if needed and a
        temporary file in it (removed at once).  Raises :class:`RegistryError` naming the
        path and the reason (missing or read-only folder, no permission, a folder in the
        file's place)."""
        if self.path.is_dir():
            raise RegistryError(f"cannot write tag registry {self.path}: it is a folder")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
            os.close(fd)
            os.unlink(tmp)
        except OSError as e:
            raise RegistryError(f"cannot write tag registry {self.path}: {e.strerror or e}") from None

    def save(self) -> None:
        """Write the registry atomically (temp file in the same folder + ``os.replace``).

        Raises :class:`RegistryError` naming the file and the reason when it cannot be
        written; the file on disk is then unchanged.
        """
        try:
            self._save()
        except OSError as e:
            raise RegistryError(f"cannot save tag registry {self.path}: {e.strerror or e}") from None

    def _save(self) -> None:
        write_json_atomically(self.path, {"version": 1, "tags": dict(sorted(self._tags.items()))}, indent=1)
