"""The terminal log of a table session: one readable line per change, the board after a turn."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from companion.table.bus import Message


def no_dashboard(logged: bool = True, no_web: bool = True) -> str:
    """How a real table with no dashboard gets its questions answered, said after each one:
    it cannot, so the way to a dashboard.  ``logged``: the game is in a game log, so
    ``run --resume`` continues it (with ``--db :memory:`` nothing can: a new game is the
    way); ``no_web``: started with ``--no-web`` (else the dashboard did not start)."""
    why, again = ("--no-web", " without --no-web") if no_web else ("the dashboard did not start", "")
    if logged:
        return (f"no dashboard runs ({why}): stop with Ctrl-C and continue with 'run --resume'{again} to answer on "
                "the dashboard")
    return (f"no dashboard runs ({why}) and the game is not logged (--db :memory:), so it cannot be continued: "
            f"stop with Ctrl-C and start a new game{again} to answer on the dashboard")


ON_THE_DASHBOARD = "answer on the dashboard"
SIMULATED_PLAYERS = "the simulated players answer"
NO_DASHBOARD = no_dashboard()
"""How the table's questions get answered, said after each question: a real table with its
dashboard, the demo's simulated players (with or without a dashboard), a real table started
with ``--no-web`` and a game log (:func:`no_dashboard` for the others)."""


class ConsoleLog:
    """Subscribe with ``bus.subscribe(ConsoleLog(session))``; prints to ``out`` (stdout).

    ``answers``: how the table's questions (which of two readings happened, the players'
    nutrient choices) are answered here, printed after each one (:data:`ON_THE_DASHBOARD`,
    :data:`SIMULATED_PLAYERS`, :func:`no_dashboard`); each answer is printed when given.
    ``illegal_hint``: what follows an illegal move, printed after it.

    When ``out`` is closed (``run ... | head -2``) the log stops printing, saying nothing more,
    and never raises: the table plays on and the game log is written as before.
    """

    def __init__(self, session, out: TextIO | None = None, board: bool = True, color: bool | None = None,
                 answers: str = ON_THE_DASHBOARD, illegal_hint: str = "put it back, or fix it on the dashboard"):
        self.session = session
        self.out = out or sys.stdout
        self.board = board
        self.color = self.out.isatty() if color is None else color
        self.legend_shown = False
        self.answers = answers
        self.illegal_hint = illegal_hint
        self._question: dict | None = None
        self._choosers: list[str] = []
        self._reveal_said: dict[str, int] = {}   # free market places per deck, when last looked
        self.closed = False
        self._progress = self._mission_progress()

    def _mission_progress(self) -> dict[str, tuple[int, str]]:
        """Each cooperative mission's count and sentence now, as the Goals tab shows them
        (:func:`companion.economy.missions`); empty outside cooperative play."""
        from companion import economy
        pos = getattr(self.session, "position", None)
        if pos is None:
            return {}
        return {m.mission: (m.value, m.detail) for m in economy.missions(pos, self.session.edition)}

    def _say_progress(self) -> None:
        """A ``[goal]`` line per mission whose count changed with the last move and that is
        not accomplished (that move's notes say so): "[goal] Forest Communication: trees
        joined by one green network 3 of 4 (trees A, B and C)"."""
        from companion.wording import mission_title
        now = self._mission_progress()
        done = self.session.position.missions
        for mission, (value, detail) in now.items():
            before = self._progress.get(mission)
            if before is not None and before[0] != value and mission not in done:
                self._print(f"[goal] {mission_title(mission)}: {detail}")
        self._progress = now

    def __call__(self, msg: Message) -> None:
        d = msg.data
        k = msg.kind
        if k == "move":
            ev = d["event"]
            self._print(f"[{ev['seq']:4}] {ev['notes'][0] if ev['notes'] else ev['move']}")
            for note in ev["notes"][1:]:
                self._print(f"       - {note}")
            self._say_progress()
            if self.board and ev["move"]["action"] in ("end_turn", "spore") or d.get("result"):
                from companion.textboard import legend, render, summary
                pos = self.session.position
                self._print(render(pos, self.session.edition, color=self.color))
                if not self.legend_shown:   # once: the board looks the same all game
                    self._print(legend(pos))
                    self.legend_shown = True
                self._print(summary(pos, self.session.edition))
            if d.get("result"):
                self._print(result_line(d["result"]))
            self._say_reveal()
        elif k == "undo":
            self._print(f"[undo] {d['event']['notes'][0] if d.get('event') else ''}")
            self._progress = self._mission_progress()
        elif k == "illegal":
            self._print(f"[ILLEGAL {d['reason']}] {d['message']} ({self.illegal_hint})")
        elif k == "cleared":
            self._print(f"[ok] {d.get('why', 'cleared')}")
        elif k == "question":
            self._question = d
            opts = "; ".join(f"{i + 1}) {c['label']}" for i, c in enumerate(d["choices"]))
            self._print(f"[?] {d['prompt']} {opts} ({self.answers})")
        elif k == "answered":
            q, i = self._question, d.get("choice")
            if i is None:
                self._print(f"[answered] {d.get('why') or 'the question was withdrawn'}")
            elif q is not None and q.get("id") == d.get("id") and 0 <= i < len(q["choices"]):
                self._print(f"[answered] {i + 1}) {q['choices'][i]['label']}")
            else:
                self._print(f"[answered] choice {i + 1}")
            self._question = None
        elif k == "choices":
            who = d.get("waiting_for") or []
            self._choosers = [g["player"] for g in d.get("asked") or []] or who
            self._print(f"[?] {d.get('reasons') or 'a choice'}: waiting for {_names(who)} to choose ({self.answers})")
        elif k == "choices_done":
            who = list(dict.fromkeys(self._choosers))
            said = f"{_names(who)} {'has' if len(who) == 1 else 'have'} chosen" if who else "the choices are made"
            self._print(f"[chosen] {said}; the move is played")
        elif k == "choices_withdrawn":
            self._print(f"[withdrawn] the move waiting for choices: {d.get('why', '')}")
        elif k in ("uncertain", "mismatch", "unknown_tag"):
            self._print(f"[{k}] {d.get('message', '')}")
        elif k == "status":
            detail = d.get("detail") or ""
            self._print(f"[{d['device']}] {d['status']}" + (f": {detail}" if detail else ""))
        elif k == "correction":
            self._print(f"[fix] {d.get('text') or d['label']}")

    def _say_reveal(self) -> None:
        """On a real table, the market places a purchase (or the set-up) left free are filled by
        the players turning cards up and tapping them in (2.d, 6): say so once per change, with
        how to answer, since nothing else on the console would (with ``--no-web`` there is no
        dashboard to show its banner)."""
        if not getattr(self.session, "real_table", False):
            return
        from companion.table.session import reveal_offer
        offer = reveal_offer(self.session.position, self.session.edition)
        free = {deck: o["missing"] for deck, o in (offer or {}).items()}
        # said when places open (set-up, a purchase), not again as each card is entered
        if any(n > self._reveal_said.get(deck, 0) for deck, n in free.items()):
            places = " and ".join(f"{n} of deck {deck.upper()}" for deck, n in sorted(free.items()))
            how = "" if self.answers == ON_THE_DASHBOARD else f"; {self.answers}"
            self._print(f"[market] turn up cards into the market's free places ({places}) and enter them on "
                        f"the dashboard{how}")
        self._reveal_said = free

    def _print(self, text: str) -> None:
        # Whoever read the output may have gone away; the bus must not see an error from us,
        # or the move being announced would not reach the other subscribers.
        if not self.closed and not print_or_drop(text, self.out):
            self.closed = True


def print_or_drop(text: str, out: TextIO) -> bool:
    """Print ``text`` to ``out`` and flush.  Returns ``False``, raising nothing, when ``out``
    is closed (the reader of a pipe went away: ``run ... | head -2``; or the stream was
    closed in this process): its output is then dropped (:func:`drop_output`), so later
    writes to it vanish instead of failing."""
    try:
        print(text, file=out, flush=True)
        return True
    except (BrokenPipeError, ValueError):   # ValueError: the stream was closed in this process
        drop_output(out)
        return False


def drop_output(stream: TextIO) -> None:
    """Point the file descriptor under ``stream`` at ``os.devnull``, so the buffered text
    and every later write to it (other prints, the flush at exit) vanish instead of raising
    ``BrokenPipeError`` again; a stream without a descriptor is left alone."""
    try:
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError):
        return
    os.dup2(null, fd)
    os.close(null)


def result_line(result: dict) -> str:
    """``RESULT: blue reached 10 victory points; scores: blue 10 VP, orange 6 VP``: a finished
    game's ``result`` (its ``reason`` and per-player ``scores``, docs/position.md) in one line,
    the players in turn order."""
    scores = result.get("scores") or {}
    said = "; scores: " + ", ".join(f"{c} {vp} VP" for c, vp in scores.items()) if scores else ""
    return f"RESULT: {result['reason']}{said}"


def _names(who: list[str]) -> str:
    """``["blue", "orange", "red"]`` -> ``"blue, orange and red"``."""
    return ", ".join(who[:-1]) + " and " + who[-1] if len(who) > 1 else "".join(who)
