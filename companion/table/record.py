"""Recording and replaying a table session, so any game (and any bug report) can be
reproduced bit-for-bit, and a replay that goes another way is caught at the first step.

A recording is a folder: ``index.jsonl`` with one line per input in order —
``{"t_ms": ..., "kind": "frame", "file": "f000012.png", "frame_ms": ...}``,
``{"t_ms": ..., "kind": "reader", "event": {...}}`` or ``{"t_ms": ..., "kind": "input", "input": "move", ...}``
— interleaved with the events the game logged, ``{"t_ms": ..., "kind": "event", "seq": 12,
"event": "move", "payload": {...}}``, plus the frames as lossless PNG.  ``t_ms`` is one
monotonic clock (ms since the recording started) and never goes backwards; ``frame_ms`` is the
frame's own time stamp, which the stillness gate uses (a simulated camera has a virtual clock).
Identical consecutive frames share one file, so a still board costs one image.
``setup.json`` holds the initial position.

:func:`validate` checks a whole recording before anything is written; :func:`replay` feeds the
inputs to a :class:`~companion.table.live.LiveTable` in the recorded order, through the same
code as a live game, and compares every event the replay logs with the recorded one
(:class:`ReplayDiverged` at the first difference).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from pathlib import Path
from typing import Any

import cv2

from companion.table.sources import Frame
from companion.vision.image_file import decode_whole

INPUTS = ("move", "undo", "answer", "correct", "clear_illegal", "new_game", "choose", "withdraw_choices")


class RecordingError(RuntimeError):
    """A recording folder is missing, unreadable or inconsistent."""


class ReplayDiverged(RecordingError):
    """The replay logged an event the original run did not (or missed one it did)."""


class Recorder:
    """Append-only writer of a recording folder (created if missing).

    Attach it to a game with ``game.log_hooks.append(recorder.logged)`` so the recording
    carries the events the run logged.
    """

    def __init__(self, folder: str | Path, setup: dict[str, Any] | None = None):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._index = open(self.folder / "index.jsonl", "a", encoding="utf-8")
        self._last_hash: str | None = None
        self._last_file: str | None = None
        self._n = len(list(self.folder.glob("f*.png")))
        self._t0 = time.monotonic() * 1000.0
        self._last_t = 0.0
        self._lock = threading.Lock()   # the camera and reader threads both write lines
        if setup is not None:
            (self.folder / "setup.json").write_text(json.dumps(setup), encoding="utf-8")

    @staticmethod
    def setup_doc(game) -> dict[str, Any]:
        """What ``setup.json`` holds: the initial position, the game config and, for a resumed
        game, the events logged before the recording started (``history``)."""
        return {"position": game.initial.to_json(), "config": game.config.to_json() if game.config else None,
                "history": [[k, p] for k, p in game.history]}

    def _write(self, line: dict[str, Any]) -> None:
        with self._lock:
            # One clock for every line, taken under the lock so the index never steps back.
            t = max(self._last_t, round(time.monotonic() * 1000.0 - self._t0, 3))
            self._last_t = t
            self._index.write(json.dumps({"t_ms": t, **line}) + "\n")
            self._index.flush()

    def frame(self, frame: Frame) -> None:
        """Store a frame (PNG, deduplicated against the previous one)."""
        digest = hashlib.blake2b(frame.image.tobytes(), digest_size=16).hexdigest()
        if digest != self._last_hash:
            name = f"f{self._n:06d}.png"
            self._n += 1
            if not cv2.imwrite(str(self.folder / name), frame.image):
                raise RecordingError(f"cannot write {self.folder / name}")
            self._last_hash, self._last_file = digest, name
        self._write({"kind": "frame", "file": self._last_file, "frame_ms": frame.t_ms})

    def reader(self, event: dict[str, Any]) -> None:
        self._write({"kind": "reader", "event": event})

    def input(self, item: dict[str, Any]) -> None:
        """A table input from the dashboard: ``{"input": "move", "move": {...}}``, ``undo``,
        ``answer``, ``correct``, ``clear_illegal``, ``new_game``, ``choose`` (``player``,
        ``choice``: gain, discard or pay, ``colors``) or ``withdraw_choices``."""
        self._write({"kind": "input", **item})

    def logged(self, seq: int, kind: str, payload: dict[str, Any]) -> None:
        """An event the game logged (a :attr:`companion.game.Game.log_hooks` callback)."""
        self._write({"kind": "event", "seq": seq, "event": kind, "payload": payload})

    def close(self) -> None:
        self._index.close()


def _read_setup(folder: str | Path) -> Any:
    """The parsed ``setup.json`` of a recording; RecordingError in a sentence when the folder
    or the file is missing or unreadable."""
    folder = Path(folder)
    p = folder / "setup.json"
    if not folder.exists():
        raise RecordingError(f"no recording at {folder}")
    if not folder.is_dir():
        raise RecordingError(f"{folder} is a file; --replay takes the folder made by 'run --record'")
    if not p.is_file():
        raise RecordingError(f"no recording at {folder} (it holds no setup.json; a recording is made with "
                             "'mycelium-companion run --record FOLDER')")
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise RecordingError(f"{p}: cannot read the recording's setup ({e.strerror or e})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RecordingError(f"{p}: cannot read the recording's setup ({e})") from None


def load_history(folder: str | Path) -> list[tuple[str, dict[str, Any]]] | None:
    """The events logged before a recording started (a resumed game), as ``(kind, payload)``;
    ``None`` for a recording made before recordings kept them.  Raises
    :class:`RecordingError` for a malformed list."""
    p = Path(folder) / "setup.json"
    doc = _read_setup(folder)
    if not isinstance(doc, dict) or "history" not in doc:
        return None
    hist = doc["history"]
    if not isinstance(hist, list) or not all(isinstance(h, list) and len(h) == 2 and isinstance(h[0], str)
                                             and isinstance(h[1], dict) for h in hist):
        raise RecordingError(f"{p}: field history: must list [kind, payload] pairs")
    return [(k, v) for k, v in hist]


def load_setup(folder: str | Path):
    """The initial position and config stored with a recording, as ``(Position, GameConfig |
    None)``; raises :class:`RecordingError` naming the file and field."""
    from companion.position import Position, PositionError
    from companion.setup import GameConfig
    p = Path(folder) / "setup.json"
    doc = _read_setup(folder)
    if isinstance(doc, dict) and "position" in doc:
        pos_doc, cfg_doc = doc["position"], doc.get("config")
    else:
        pos_doc, cfg_doc = doc, None
    try:
        pos = Position.from_json(pos_doc)
    except PositionError as e:
        raise RecordingError(f"{p}: field {e.field}: {e.message}") from None
    try:
        config = GameConfig.from_json(cfg_doc) if isinstance(cfg_doc, dict) else None
    except (TypeError, ValueError, AttributeError) as e:
        raise RecordingError(f"{p}: field config: {e}") from None
    return pos, config


def validate(folder: str | Path) -> list[dict[str, Any]]:
    """Read and check a whole recording before anything is replayed or logged: every line
    JSON with the fields of its kind, every move well-formed, every frame file present, time
    stamps never going backwards.  Returns the lines as dicts with ``line`` (1-based) added.

    Raises :class:`RecordingError` naming the file, the line and the field.
    """
    from companion.moves import parse_move
    from companion.position import PositionError
    folder = Path(folder)
    try:
        lines = (folder / "index.jsonl").read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise RecordingError(f"{folder}: no recording here ({e.strerror})") from None
    except UnicodeDecodeError:
        raise RecordingError(f"{folder}/index.jsonl: not text (damaged?)") from None
    items = []
    last_t = float("-inf")
    frames_ok: set[str] = set()
    for i, line in enumerate(lines):
        where = f"{folder}/index.jsonl line {i + 1}"
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            if not isinstance(item, dict):
                raise RecordingError(f"{where}: not a JSON object")
            t = item["t_ms"]
            if isinstance(t, bool) or not isinstance(t, (int, float)):
                raise RecordingError(f"{where}: field t_ms must be a number of milliseconds")
            if t < last_t:
                raise RecordingError(f"{where}: field t_ms goes back in time ({t} after {last_t})")
            last_t = t
            kind = item.get("kind")
            if kind == "frame":
                name = item["file"]
                if not isinstance(name, str) or "/" in name or "\\" in name:
                    raise RecordingError(f"{where}: field file must be a file name in the recording")
                if name not in frames_ok:
                    p = folder / name
                    if not p.is_file() or not cv2.haveImageReader(str(p)):  # the signature, not the name
                        raise RecordingError(f"{p}: missing or unreadable frame (named on line {i + 1})")
                    frames_ok.add(name)
                float(item.get("frame_ms", t))
            elif kind == "reader":
                event = item["event"]
                if not isinstance(event, dict) or "event" not in event:
                    raise RecordingError(f"{where}: a reader line needs an 'event' object")
                if event["event"] == "tile_drawn" and not isinstance(event["tile"], str):
                    raise RecordingError(f"{where}: field tile must be a tile code")
            elif kind == "input":
                what = item.get("input", "move")
                if what not in INPUTS:
                    raise RecordingError(f"{where}: unknown table input {what!r}")
                if what == "move":
                    parse_move(item["move"])
                elif what == "correct":
                    at = item["at"]
                    if not (isinstance(at, list) and len(at) == 2 and all(isinstance(v, int) for v in at)):
                        raise RecordingError(f"{where}: field at must be [q, r]")
                elif what == "new_game":
                    from companion.position import Position
                    Position.from_json(item["position"])
            elif kind == "event":
                if not isinstance(item["seq"], int) or not isinstance(item["event"], str) \
                        or not isinstance(item["payload"], dict):
                    raise RecordingError(f"{where}: an event line needs seq, event and payload")
            else:
                raise RecordingError(f"{where}: unknown kind {kind!r}")
        except RecordingError:
            raise
        except json.JSONDecodeError:
            raise RecordingError(f"{where}: not JSON") from None
        except KeyError as e:
            raise RecordingError(f"{where}: field {e.args[0]} is missing") from None
        except PositionError as e:
            raise RecordingError(f"{where}: field {e.field}: {e.message}") from None
        except (TypeError, ValueError, AttributeError) as e:
            raise RecordingError(f"{where}: {e}") from None
        item["line"] = i + 1
        items.append(item)
    return items


def _describe_logged(kind: str, payload: dict[str, Any]) -> str:
    if kind == "move":
        notes = payload.get("notes") or []
        return f"move {payload.get('seq')}: {notes[0] if notes else payload.get('move')}"
    if kind == "undo":
        return f"undo of move {payload.get('undoes')}"
    if kind == "fix":
        return f"fix: {payload.get('text') or payload}"
    return kind


def replay(folder: str | Path, table, items: list[dict[str, Any]] | None = None) -> int:
    """Feed a recording to ``table`` (a LiveTable) in order; returns the number of inputs.

    ``items``: the recording as :func:`validate` returned it (validated here when ``None``).
    Every event the replay logs is compared with the next one the recording logged; raises
    :class:`ReplayDiverged` naming the step (line) at the first difference or when the replay
    ends short, and :class:`RecordingError` for a damaged recording.
    """
    from companion.table.session import SessionError
    folder = Path(folder)
    if items is None:
        items = validate(folder)
    expected = [it for it in items if it["kind"] == "event"]
    seen: list[tuple[int, str, dict[str, Any]]] = []
    hook = lambda seq, kind, payload: seen.append((seq, kind, json.loads(json.dumps(payload))))  # noqa: E731
    session = table.session
    session.game.log_hooks.append(hook)
    checked = 0
    cache: dict[str, Any] = {}
    n = 0
    try:
        for item in items:
            kind = item["kind"]
            if kind == "event":
                continue
            if kind == "frame":
                name = item["file"]
                img = cache.get(name)
                if img is None:
                    try:
                        img, why = decode_whole(folder / name)   # a frame cut short is no frame
                    except OSError as exc:
                        img, why = None, exc.strerror
                    if img is None:
                        raise RecordingError(f"{folder / name}: missing or unreadable frame ({why})")
                    cache.clear()
                    cache[name] = img
                table.on_frame(Frame(img, float(item.get("frame_ms", item["t_ms"]))))
            elif kind == "reader":
                table.on_reader_event(dict(item["event"]))
            elif kind == "input":
                try:
                    _replay_input(session, item, table)
                except SessionError:
                    pass  # the input was refused live too; the recording keeps it for fidelity
            n += 1
            if expected:
                checked = _compare(expected, seen, checked, item, items)
        if expected and checked < len(expected):
            want = expected[checked]
            raise ReplayDiverged(f"{folder}: the replay diverges at the end: the recording logged event {want['seq']} "
                                 f"({_describe_logged(want['event'], want['payload'])}, line {want['line']}) "
                                 f"but the replay never did")
    finally:
        if hook in session.game.log_hooks:
            session.game.log_hooks.remove(hook)
    return n


def _source(items: list[dict[str, Any]], item: dict[str, Any], kind: str, payload: dict[str, Any]) -> str:
    """Where a logged draw came from, when the reader line that delivered it is not the
    current step (a draw waits for the placement before it)."""
    mv = payload.get("move") or {}
    if kind != "move" or mv.get("action") != "draw":
        return ""
    for it in reversed([it for it in items if it["line"] <= item["line"]]):
        ev = it.get("event") if it["kind"] == "reader" else None
        if isinstance(ev, dict) and ev.get("event") == "tile_drawn" and ev.get("tile") == mv.get("tile"):
            return f"; that tile came from the reader on line {it['line']}" if it["line"] != item["line"] else ""
    return ""


def _facts(payload: Any) -> Any:
    """A logged event without its notes: the notes put the move in words, and a later version
    may word them better, so a recording made before still replays (the move, its effects
    and the events' order are what must match)."""
    if isinstance(payload, dict) and "notes" in payload:
        return {k: v for k, v in payload.items() if k != "notes"}
    return payload


def _compare(expected: list[dict[str, Any]], seen: list, checked: int, item: dict[str, Any],
             items: list[dict[str, Any]] | None = None) -> int:
    while checked < len(seen):
        seq, kind, payload = seen[checked]
        step = f"step {item['line']} of index.jsonl ({item['kind']}{'' if item['kind'] != 'input' else ' ' + item.get('input', 'move')}"
        step += _source(items or [], item, kind, payload) + ")"
        if checked >= len(expected):
            raise ReplayDiverged(f"the replay diverges at {step}: it logged event {seq} "
                                 f"({_describe_logged(kind, payload)}), which the recording does not have")
        want = expected[checked]
        if (want["seq"], want["event"], _facts(want["payload"])) != (seq, kind, _facts(payload)):
            raise ReplayDiverged(f"the replay diverges at {step}: it logged event {seq} "
                                 f"({_describe_logged(kind, payload)}) where the recording logged event {want['seq']} "
                                 f"({_describe_logged(want['event'], want['payload'])})")
        checked += 1
    return checked


def _replay_input(session, item: dict[str, Any], table) -> None:
    what = item.get("input", "move")
    if what == "move":
        session.submit(item["move"], source="replay")
    elif what == "undo":
        session.undo(item.get("expect"))
    elif what == "answer":
        if session.question is not None:
            session.answer(session.question.id, int(item["choice"]))
    elif what == "choose":
        if session.choices is not None:
            session.choose(session.choices.id, item["player"], list(item["colors"]), item.get("choice", "gain"),
                           bool(item.get("by_other")))
    elif what == "withdraw_choices":
        if session.choices is not None:
            session.withdraw_choices(item.get("why", "withdrawn"))
    elif what == "correct":
        session.correct(tuple(item["at"]), item.get("content"))
    elif what == "clear_illegal":
        session.clear_illegal(item.get("why", "put back"), source="replay")
    elif what == "new_game":
        from companion.position import Position
        from companion.setup import GameConfig
        cfg = item.get("config")
        session.start_from(Position.from_json(item["position"]), GameConfig.from_json(cfg) if cfg else None,
                           session.game.log)
    else:
        raise RecordingError(f"unknown table input {what!r}")
