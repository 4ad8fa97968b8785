// debrief serve: the UI's one script, served by the server itself (the page policy allows
// no other, and no inline script or event attribute). Every page works without it; it
// adds two things:
// - an open session page (its last messages) asks every 2 s for the messages written
//   since, and adds them (`/api/session/{id}?after=N`; the server reads the transcript
//   again when its file changed);
// - the search page shows results as the words are typed (`/api/search`, the same fields
//   as the form), and keeps the address in step so that reloading or sharing it works.
// What is added is HTML the server rendered and escaped, as the pages are.
"use strict";

(function live() {
  const box = document.getElementById("messages");
  if (!box || !box.dataset.live) return;
  const status = document.getElementById("live-status");
  const say = (text) => { if (status) status.textContent = text; };
  let busy = false;
  say("Live: new messages appear here as the agent writes them.");
  setInterval(async () => {
    if (busy || document.hidden) return;
    busy = true;
    try {
      const r = await fetch(`${box.dataset.live}?after=${encodeURIComponent(box.dataset.after)}`, {
        credentials: "same-origin",
        headers: { Accept: "text/html" },
      });
      if (!r.ok) throw new Error(`the server answered ${r.status}`);
      const html = await r.text();
      const last = r.headers.get("x-debrief-last");
      if (html.trim() !== "") {
        box.insertAdjacentHTML("beforeend", html);
        say(`Live: ${new Date().toLocaleTimeString()}, new messages up to [msg ${last}].`);
      }
      if (last) box.dataset.after = last;
    } catch (e) {
      say(`Live updates paused: ${e.message}. Reload the page to resume.`);
    } finally {
      busy = false;
    }
  }, 2000);
})();

(function typing() {
  const form = document.querySelector("form[data-live]");
  const results = document.getElementById("results");
  if (!form || !results) return;
  let timer = null;
  let asked = 0;
  const run = async () => {
    const fields = new URLSearchParams();
    for (const [k, v] of new FormData(form)) {
      if (typeof v === "string" && v.trim() !== "") fields.append(k, v);
    }
    const query = fields.toString();
    const mine = ++asked;
    try {
      const r = await fetch(`${form.dataset.live}?${query}`, { credentials: "same-origin" });
      const html = await r.text();
      if (mine !== asked) return; // a later keystroke's answer wins
      if (html.startsWith("<!doctype")) {
        // A whole error page (a field the server refused): its one line of why.
        const why = new DOMParser().parseFromString(html, "text/html").querySelector(".error");
        results.textContent = why ? why.textContent : `The search failed: the server answered ${r.status}.`;
      } else if (r.ok || r.status === 400) {
        results.innerHTML = html;
        history.replaceState(null, "", form.getAttribute("action") + (query ? `?${query}` : ""));
      } else {
        results.textContent = `The search failed: the server answered ${r.status}.`;
      }
    } catch (e) {
      if (mine === asked) results.textContent = `The search failed: ${e.message}.`;
    }
  };
  form.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(run, 250);
  });
})();
