"""Drive `debrief serve` in headless Chromium with Playwright (tests/serve.rs runs this).

The argument is a JSON object: url (the one `debrief serve` printed, with its token),
chromium (the browser to launch: the system's, Playwright downloads none here), session
(a session id holding markup payloads), query (a word that finds a message of it), and
payloads (words of the payloads that must show as text and never run).

Walks the UI as a person would: open the printed URL, list the sessions, open one,
unfold an output, search with the form, follow a hit to its message's anchor, search as
the words are typed, open a detector's findings, follow a finding to its message and to
its episode write-up, and keep a live session open while the test appends to its file
(live: session, file, append, word). All
along: no dialog opens (no planted script ran), no console error (no policy violation),
and no request goes anywhere but the server on 127.0.0.1. Prints "browser checks passed"
at the end, or the failed checks and exits 1.
"""

import json
import sys
from urllib.parse import urlparse

from playwright.sync_api import sync_playwright

spec = json.loads(sys.argv[1])
base = urlparse(spec["url"])
origin = f"{base.scheme}://{base.netloc}"
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def target_id(page):
    return page.evaluate("() => { const t = document.querySelector(':target'); return t ? t.id : null; }")


def in_view(page, selector):
    return page.evaluate(
        """(sel) => { const e = document.querySelector(sel); if (!e) return false;
           const r = e.getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight; }""",
        selector,
    )


with sync_playwright() as p:
    browser = p.chromium.launch(
        executable_path=spec["chromium"],
        headless=True,
        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
    )
    context = browser.new_context()
    page = context.new_page()
    requests, dialogs, errors = [], [], []
    context.on("request", lambda r: requests.append(r.url))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    # The printed URL: the token becomes a cookie and leaves the address bar.
    r = page.goto(spec["url"])
    check(r is not None and r.status == 200, "the printed URL opens the sessions page")
    check("token=" not in page.url, f"the token is out of the address bar ({page.url})")
    rows = page.locator("table.sessions tbody tr").count()
    check(rows > 1, f"sessions are listed ({rows})")

    # Filter the list with the form.
    page.fill("input[name=agent]", "claude")
    page.click("form.filters button")
    page.wait_for_load_state()
    agents = page.locator("table.sessions tbody tr td:nth-child(3)").all_inner_texts()
    check(agents and all(a.startswith("claude") for a in agents), f"the agent filter keeps claude sessions ({len(agents)})")

    # Open the planted session from the list.
    page.goto(origin + "/")
    page.click(f"a[href='/session/{spec['session']}']")
    page.wait_for_load_state()
    check(page.locator("article.msg").count() >= 5, "the session's messages are shown")
    # All of the text, the folded outputs' too.
    text = page.text_content("main")
    for word in spec["payloads"]:
        check(word in text, f"payload {word} shows as text")
    planted = page.evaluate("() => document.querySelectorAll('main script, main img, main svg, main iframe').length")
    check(planted == 0, f"no element came out of the transcript ({planted})")
    out = page.locator("details.output").first
    check(not out.evaluate("e => e.open") or out.evaluate("e => e.parentElement.classList.contains('failed')"),
          "a successful call's output starts folded")
    out.locator("summary").click()
    check(out.evaluate("e => e.open") and out.locator("pre").is_visible(), "clicking unfolds the output")

    # Search with the form, and follow a hit to its message.
    page.click("header nav >> text=Search")
    page.fill("input[name=q]", spec["query"])
    page.press("input[name=q]", "Enter")
    page.wait_for_load_state()
    hits = page.locator(".hit a.msg-link")
    check(hits.count() > 0, f"searching {spec['query']!r} finds messages ({hits.count()})")
    marks = page.locator(".hit mark").count()
    check(marks > 0, "the matched words are marked")
    if hits.count() > 0:
        anchor = hits.first.get_attribute("href").split("#", 1)[1]
        hits.first.click()
        page.wait_for_load_state()
        check(target_id(page) == anchor, f"the hit lands on its message ({target_id(page)} == {anchor})")
        check(in_view(page, "#" + anchor), "the message is scrolled into view")

    # Search as you type: results come in without the page being left, and the address
    # follows the words (so a reload or a shared link shows the same results).
    page.goto(origin + "/search")
    page.evaluate("() => { window.__sameDocument = true; }")
    page.locator("input[name=q]").press_sequentially(spec["query"], delay=40)
    try:
        page.wait_for_selector("#results .hit", timeout=10000)
    except Exception:
        pass
    typed = page.locator("#results .hit").count()
    check(typed > 0, f"results appear as {spec['query']!r} is typed ({typed})")
    check(page.evaluate("() => window.__sameDocument === true"), "typing did not load another page")
    check(f"q={spec['query']}" in page.url, f"the address follows the words ({page.url})")
    page.locator("input[name=q]").press_sequentially("zzqqnothing", delay=20)
    try:
        page.wait_for_function("() => document.getElementById('results').innerText.includes('No message matches')",
                               timeout=10000)
        narrowed = True
    except Exception:
        narrowed = False
    check(narrowed, "more words narrow the results as they are typed")

    # Findings: a detector that fired, its first finding, the next one, its write-up.
    page.click("header nav >> text=Findings")
    page.wait_for_load_state()
    fired = None
    for row in page.locator("table.detectors tbody tr").all():
        if row.locator("td").nth(2).inner_text().strip() not in ("0", ""):
            fired = row.locator("td a").first
            break
    check(fired is not None, "some detector fired in the corpus")
    if fired is not None:
        name = fired.inner_text()
        fired.click()
        page.wait_for_load_state()
        item = page.locator("ul.findings li").first
        check(item.count() == 1 and name in item.inner_text(), f"the findings of {name} are listed")
        link = item.locator("a", has_text="[msg").first
        anchor = link.get_attribute("href").split("#", 1)[1]
        link.click()
        page.wait_for_load_state()
        check(target_id(page) == anchor, f"the finding lands on its key message ({anchor})")
        aside = page.locator(f"#{anchor} aside.finding").first
        check(aside.count() == 1 and name in aside.inner_text(), "the finding is marked at its message")
        nxt = page.locator("aside.finding a.next-finding").first
        if nxt.count() == 1:
            want = nxt.get_attribute("href").split("#", 1)[1]
            nxt.click()
            page.wait_for_load_state()
            check(target_id(page) == want, f"next finding jumps to {want}")
        page.locator(f"#{anchor} aside.finding a", has_text="episode write-up").first.click()
        page.wait_for_load_state()
        check(page.locator("meta[name=generator][content=debrief]").count() == 1, "the write-up is the report's HTML")
        check(page.locator("h1").count() >= 1 and len(page.inner_text("main")) > 100, "the write-up has a story")
        font = page.evaluate("() => getComputedStyle(document.body).fontFamily")
        check("Georgia" in font, f"the report's own stylesheet applies under the policy ({font})")
        page.click("text=← session")
        page.wait_for_load_state()
        check("/session/" in page.url, "the write-up links back to its session")

    # A live session: the open page shows the messages the agent writes after it opened.
    live = spec["live"]
    page.goto(origin + f"/session/{live['session']}")
    before = page.locator("article.msg").count()
    status = page.inner_text("#live-status")
    check("Live" in status, f"the open session says it is live ({status!r})")
    with open(live["file"], "a", encoding="utf-8") as f:
        f.write(live["append"])
    try:
        page.wait_for_selector(f"article.msg >> text={live['word']}", timeout=15000)
    except Exception:
        pass
    after = page.locator("article.msg").count()
    check(after > before and page.locator(f"article.msg:has-text('{live['word']}')").count() >= 1,
          f"new messages appear on the open page ({before} -> {after})")
    ids = page.evaluate("() => [...document.querySelectorAll('article.msg')].map(a => a.id)")
    check(len(ids) == len(set(ids)), f"no message is added twice ({ids})")
    page.wait_for_timeout(2500)
    check(page.locator("article.msg").count() == after, "a quiet session adds nothing more")

    page.click("header nav >> text=Sources")
    page.wait_for_load_state()
    check("Format drift" in page.inner_text("main"), "the sources page shows")

    # Without the token (a browser that never opened the URL): 401.
    other = browser.new_context()
    stranger = other.new_page()
    r = stranger.goto(origin + "/")
    check(r is not None and r.status == 401, f"without the token: {r.status if r else None}")
    r = stranger.goto(origin + f"/session/{spec['session']}")
    check(r is not None and r.status == 401, "a session without the token: 401")
    other.close()

    check(not dialogs, f"no dialog opened ({dialogs})")
    check(not errors, f"no console error or policy violation ({errors[:3]})")
    away = [u for u in requests if urlparse(u).hostname != "127.0.0.1" and not u.startswith("data:")]
    check(not away, f"no request left 127.0.0.1 ({len(requests)} requests; away: {away[:3]})")
    browser.close()

if failures:
    print(f"{len(failures)} browser check(s) failed", file=sys.stderr)
    sys.exit(1)
print("browser checks passed")
