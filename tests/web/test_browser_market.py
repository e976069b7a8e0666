"""A real table's market and draws on the dashboard, in Debian's Chromium at 1280x800: the
empty market is turned up 3 + 3 from the Market tab and the set-up banner (the open picker
follows a card entered meanwhile on another tablet, and says so when its row is full), a mis-tapped draw is taken back
with Undo, and after a purchase the empty place asks for the next card, which is turned up."""

from __future__ import annotations

from test_browser import ARTIFACTS, browser, open_page, pytestmark  # noqa: F401  (fixture and skip reused)
from test_browser_undo import unlock
from test_table_market import buying_table, real_table
from webtools import PIN

from companion.setup import GameConfig
from web.server import serve


def turn_up(page, opener: str, card: str, offered: int) -> None:
    """Open the picker with ``opener``, check it offers ``offered`` cards, tap ``card``, confirm."""
    page.locator(opener).first.click()
    page.wait_for_selector(".cardpick button")
    assert page.locator(".cardpick button").count() == offered
    assert page.locator("#reveal-ok").is_disabled()                          # a tap picks, Confirm enters
    page.locator(f".cardpick button[data-card={card}]").click()
    page.locator("#reveal-ok").click()
    page.wait_for_selector(f"#tab-market .card[data-card={card}]")


def test_a_real_table_turns_up_its_market_corrects_a_draw_and_refills_after_a_purchase(browser):
    session = real_table()
    srv = serve(session, port=0, pin=PIN, announce=False)
    try:
        page, errors = open_page(browser, srv.local_url, 1280, 800)
        unlock(page)
        assert page.locator("#setup-banner li[data-step=market]").is_visible()
        assert page.locator("#tab-market .card.slot").count() == 6
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "market-empty-1280x800.png"))
        deck_a = [c.id for c in session.edition.deck("a")]
        deck_b = [c.id for c in session.edition.deck("b")]
        # another tablet turns up a card while this one has another picked: the open picker
        # follows (one card fewer, a line saying what was entered), keeps the pick, and enters it
        page.locator(".card.slot[data-deck=a] button.turnup").first.click()
        page.locator(f".cardpick button[data-card={deck_a[1]}]").click()
        assert session.submit({"player": "table", "action": "reveal", "deck": "a", "card": deck_a[0]}).legal
        page.wait_for_function(f"document.querySelectorAll('.cardpick button').length === {len(deck_a) - 1}")
        assert "entered meanwhile" in page.locator("#dlg-error").inner_text()
        assert page.locator(f".cardpick button[data-card={deck_a[1]}]").get_attribute("aria-checked") == "true"
        page.locator("#reveal-ok").click()
        page.wait_for_selector(f"#tab-market .card[data-card={deck_a[1]}]")
        turn_up(page, ".card.slot[data-deck=a] button.turnup", deck_a[2], len(deck_a) - 2)   # from an empty place
        assert page.locator(".card.slot[data-deck=a]").count() == 0
        for n, card in enumerate(deck_b[:2]):                               # from the set-up banner
            turn_up(page, "#setup-banner button.turnup[data-deck=b]", card, len(deck_b) - n)

        # the last card of deck B is entered on another tablet while this one has it picked
        page.locator(".card.slot[data-deck=b] button.turnup").click()
        page.locator(f".cardpick button[data-card={deck_b[2]}]").click()
        page.screenshot(path=str(ARTIFACTS / "turnup-1280x800.png"))
        assert session.submit({"player": "table", "action": "reveal", "deck": "b", "card": deck_b[2]}).legal
        page.wait_for_function("document.querySelector('#dlg-body .detail').textContent.startsWith('No card of deck B')")
        assert page.locator("#reveal-ok").is_disabled()
        page.locator("#dlg-buttons .cancel").click()
        assert session.position.market == {"a": deck_a[:3], "b": deck_b[:3]}
        page.wait_for_function("!document.querySelector('#setup-banner li[data-step=market]')")

        # a draw tapped wrong is taken back with Undo and tapped again
        blue = session.position.colors[0]
        hand = f".player[data-color={blue}] .hand .tile-icon"
        page.locator("#btn-draw").click()
        codes = page.locator(".drawpick .code")
        heights = codes.evaluate_all("els => els.map(e => e.getBoundingClientRect().height)")
        assert max(heights) == min(heights), "a tile code wraps inside the draw grid at 1280 px"
        wrong, right = [t["code"] for t in session.state()["draw"]["tiles"] if t["code"] != "ROCK"][:2]
        page.locator(f".drawpick button[data-code='{wrong}']").click()
        page.locator("#draw-ok").click()
        page.wait_for_function(f"document.querySelectorAll('{hand}').length === 1")
        assert page.locator("#act-undo").is_enabled()
        page.locator("#act-undo").click()
        page.wait_for_function(f"document.querySelectorAll('{hand}').length === 0")
        page.locator("#btn-draw").click()
        page.locator(f".drawpick button[data-code='{right}']").click()
        page.locator("#draw-ok").click()
        page.wait_for_function(f"document.querySelectorAll('{hand}').length === 1")
        assert session.position.hands[blue] == [right] and session.position.bag == 47

        # later in the game: a purchase leaves an empty place that asks for the next card
        session.start_from(buying_table().position, GameConfig(), None)
        page.wait_for_selector(".card[data-card=a01] button.buy")
        page.locator(".card[data-card=a01] button.buy").click()
        page.locator("#buy-confirm").click()
        page.wait_for_selector("#setup-banner:not([hidden]) button.turnup[data-deck=a]")
        assert "Turn up the next card of deck A" in page.locator("#toast").inner_text()
        assert "Turn up the next card of deck A" in page.locator("#setup-banner").inner_text()
        assert page.locator(".card.slot[data-deck=a]").count() == 1
        turn_up(page, "#setup-banner button.turnup[data-deck=a]", "a04", 9)  # 12 but a01 bought, a02 and a03 up
        page.wait_for_selector("#setup-banner", state="hidden")
        assert session.position.market["a"] == ["a02", "a03", "a04"] and session.position.cards["blue"] == ["a01"]
        assert errors == []
        page.close()
    finally:
        srv.shutdown()
