""""What can I do?" in Debian's Chromium: the button shows only when the table rule is on, a
tap opens the suggestion and the plan per card, and the box fits a phone (390x844) and a
tablet (1280x800); screenshots under ``test-artifacts/``."""

from __future__ import annotations

import pytest

from test_browser import ARTIFACTS, browser, open_page, pytestmark  # noqa: F401  (fixture and skip reused)
from webtools import PIN


@pytest.fixture
def table(shared_table):
    return shared_table("competitive", 3, 11, turns=12, options={"hints": True})   # hints only read


def inside(box, w, h):
    return box is not None and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= w + 0.5 \
        and box["y"] + box["height"] <= h + 0.5


@pytest.mark.parametrize("size", [(390, 844), (1280, 800)])
def test_what_can_i_do_opens_the_plan_inside_the_screen(browser, table, size):
    s, srv = table
    w, h = size
    page = browser.new_page(viewport={"width": w, "height": h}, bypass_csp=True)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(srv.local_url)
        page.wait_for_selector("body[data-rendered='1']")
        active = s.position.active
        btn = page.locator(f".player.active[data-color={active}] #btn-hint")
        assert btn.count() == 1 and inside(btn.bounding_box(), w, h)
        b = btn.bounding_box()
        assert b["height"] >= 44 and b["width"] >= 44       # a finger, not a mouse
        btn.click()                                          # a read: no PIN asked
        page.wait_for_selector("#hint-move")
        want = srv.app.test_client().get("/api/hint").get_json()
        assert want["text"][1:] in page.locator("#hint-move").inner_text()
        assert want["reason"][len(want["text"]) + 2:] in page.locator("#hint-reason").inner_text()
        cards = page.locator("#hint-cards > li")
        assert cards.count() == len(want["cards"])
        first = want["cards"][0]
        assert first["name"] in cards.first.inner_text()
        assert all(step in cards.first.inner_text() for step in first["steps"])
        assert inside(page.locator("#dlg").bounding_box(), w, h)
        close = page.locator("#dlg-buttons .cancel")
        assert inside(close.bounding_box(), w, h)             # the way out needs no scrolling
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"hint-{w}x{h}.png"))
        close.click()
        assert errors == []
    finally:
        page.close()


def test_no_hint_button_while_the_table_rule_is_off(browser, fresh_table):
    s, srv = fresh_table("competitive", 2, 5, turns=3)     # a new game is started: this test's own
    page = browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    try:
        page.goto(srv.local_url)
        page.wait_for_selector("body[data-rendered='1']")
        assert page.locator("#btn-hint").count() == 0
        # the table turns it on for its next game (New game → the table rule), with the PIN
        page.click("#btn-lock")
        page.fill("#pin-input", PIN)
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#btn-lock').textContent === 'Lock'")
        page.click("#act-new")
        page.click("#dlg [data-name=hints] button[data-value=on]")
        page.click("#new-ok")
        page.click("#new-confirm")
        page.wait_for_selector("#btn-hint")
        assert s.position.options.get("hints") is True
        page.click("#btn-hint")
        page.wait_for_selector("#hint-move")
        assert "spore" in page.locator("#hint-move").inner_text()    # set-up: where to put the spore
    finally:
        page.close()


def test_in_cooperative_play_the_box_says_what_the_team_still_needs(browser, shared_table):
    s, srv = shared_table("cooperative", 3, 11, turns=6, options={"hints": True})
    page, errors = open_page(browser, srv.local_url, 390, 844)
    try:
        page.locator(f".player.active[data-color={s.position.active}] #btn-hint").click()
        page.wait_for_selector("#hint-goals")
        want = srv.app.test_client().get("/api/hint").get_json()["goals"]
        shown = page.locator("#hint-goals > li").all_inner_texts()
        assert shown == want and any(g.startswith("Forest Communication") for g in shown)
        assert errors == []
    finally:
        page.close()


def test_an_affordable_card_says_when_it_can_be_bought_and_why_the_suggestion_waits(browser, shared_table):
    # Cooperative seed 11 after 47 turns: the active player can afford a11 before placing a
    # tile (Turn Sequence Summary 2): the card reads "can be bought after you place or discard
    # a tile", with the reason the suggested turn does not buy it on its own line.
    s, srv = shared_table("cooperative", 3, 11, turns=47, options={"hints": True})
    want = srv.app.test_client().get("/api/hint").get_json()
    timed = [c for c in want["cards"] if c["when"]]
    assert timed, want["cards"]
    page, errors = open_page(browser, srv.local_url, 390, 844)
    try:
        page.locator(f".player.active[data-color={s.position.active}] #btn-hint").click()
        page.wait_for_selector("#hint-cards")
        for c in timed:
            li = page.locator(f"#hint-cards > li[data-card={c['card']}]")
            assert c["status"] in li.locator(".when, .yes").inner_text()
            if c["wait"]:
                assert li.locator(".wait").inner_text() == "Why it waits: " + c["wait"]
                assert li.locator(".wait").is_visible()
        assert any(c["status"].startswith("can be bought after you place or discard a tile") for c in timed)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "hint-card-waits-390x844.png"))
        assert errors == []
    finally:
        page.close()


def test_a_card_the_suggestion_does_not_buy_reads_affordable_now_not_can_be_bought_now(browser):
    # tests/data/hints/d1.json: the suggestion buys a03; a09 is affordable too and waits (one
    # mushroom card a turn): only a03 reads "can be bought now" (docs/rules.md "Hints")
    import json
    from pathlib import Path

    from companion.game import Game
    from companion.position import Position
    from companion.table.session import TableSession
    from web.server import serve

    doc = json.loads((Path(__file__).resolve().parent.parent / "data" / "hints" / "d1.json").read_text())
    pos = Position.from_json(doc)
    pos.options["hints"] = True
    srv = serve(TableSession(Game(pos)), host="127.0.0.1", port=0, pin=PIN, announce=False)
    page, errors = open_page(browser, srv.local_url, 390, 844)
    try:
        page.locator(f".player.active[data-color={pos.active}] #btn-hint").click()
        page.wait_for_selector("#hint-cards")
        bought = page.locator("#hint-cards > li[data-card=a03]")
        assert "can be bought now" in bought.locator(".yes").inner_text()
        waits = page.locator("#hint-cards > li[data-card=a09]")
        assert waits.locator(".when").inner_text() == "affordable now, but the suggestion waits"
        assert waits.locator(".wait").inner_text().startswith("Why it waits: the suggestion buys Cantharellus cibarius")
        assert "can be bought now" not in waits.inner_text()
        assert errors == []
    finally:
        page.close()
        srv.shutdown()
