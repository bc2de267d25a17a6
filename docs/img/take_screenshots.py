"""Screenshots of a written report, as a reader sees it, for the README (docs/img/).

    python docs/img/take_screenshots.py REPORT_DIR [OUT_DIR]
    python docs/img/take_screenshots.py --measure REPORT_DIR

Drives a headless Chromium (``chromium`` on PATH; ``apt-get install chromium``) over the
DevTools protocol (``pip install websocket-client``) at 1,400 x 900 px: the first screen of
``index.html``, its findings, one reproduction (E-CEL23-1) and one catalogue entry
(CEL23-L32), each scrolled to its anchor. ``--measure`` prints, for each page, its size,
its height in screens of 900 px, and every table or formula wider than the column it sits
in (cut off at the right edge, or scrolled); none should be. A development tool: nothing
in gfverify needs it.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import websocket

WIDTH, HEIGHT = 1400, 900
SHOTS = (("report-first-screen.png", "index.html", None),
         ("report-findings.png", "index.html", "findings"),
         ("report-reproduction.png", "index.html", "E-CEL23-1"),
         ("report-catalogue-entry.png", "catalogue.html", "CEL23-L32"))


class Browser:
    def __init__(self, port: int = 9223) -> None:
        self.profile = tempfile.mkdtemp(prefix="gfverify-shots-")
        self.proc = subprocess.Popen(
            [shutil.which("chromium") or "chromium", "--headless", "--no-sandbox",
             "--disable-gpu", "--hide-scrollbars", f"--remote-debugging-port={port}",
             "--remote-allow-origins=*",
             f"--user-data-dir={self.profile}", f"--window-size={WIDTH},{HEIGHT}",
             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json"))
                page = next(t for t in targets if t["type"] == "page")
                break
            except (OSError, StopIteration):
                time.sleep(0.2)
        else:
            raise RuntimeError("chromium did not start")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=120,
                                              suppress_origin=True)
        self.next_id = 0

    def call(self, method: str, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                return msg.get("result", {})

    def load(self, url: str) -> None:
        self.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT,
                  deviceScaleFactor=1, mobile=False)
        self.call("Page.navigate", url=url)
        for _ in range(600):  # until the page (several MB of data URIs) has loaded
            state = self.call("Runtime.evaluate", expression="document.readyState")
            if state.get("result", {}).get("value") == "complete":
                break
            time.sleep(0.1)

    def evaluate(self, expression: str):
        return self.call("Runtime.evaluate", expression=expression,
                         returnByValue=True).get("result", {}).get("value")

    def shot(self, url: str, anchor: str | None, path: Path) -> None:
        self.load(url)
        target = (f"document.getElementById({json.dumps(anchor)}).scrollIntoView()"
                  if anchor else "window.scrollTo(0, 0)")
        self.call("Runtime.evaluate", expression=target)
        time.sleep(0.5)
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        self.ws.close()
        self.proc.terminate()
        self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


# Every element wider than the column (or scrolled box) that holds it: a table whose
# scroller scrolls, or a formula or table cell wider than its cell.
_OVERFLOW = """(() => {
  const out = [];
  const name = el => {
    let h = el; while (h && !/^H[1-4]$/.test(h.tagName)) h = h.previousElementSibling
      || h.parentElement;
    return h ? h.textContent.slice(0, 60) : "";
  };
  for (const box of document.querySelectorAll("div.scroll, pre")) {
    if (box.scrollWidth > box.clientWidth + 1)
      out.push(`${box.tagName.toLowerCase()} under "${name(box)}": `
               + `${box.scrollWidth} px in ${box.clientWidth}`);
  }
  for (const m of document.querySelectorAll("td math, p math, li math")) {
    const cell = m.closest("td, p, li");
    if (m.getBoundingClientRect().right > cell.getBoundingClientRect().right + 1)
      out.push(`formula in ${cell.tagName.toLowerCase()} under `
               + `"${name(cell.closest("table") || cell)}": ${m.textContent.slice(0, 50)}`);
  }
  return out;
})()"""


def measure(report: Path) -> None:
    """Size, height in screens and overflowing elements of index.html and catalogue.html."""
    browser = Browser()
    try:
        for page in ("index.html", "catalogue.html"):
            path = report / page
            browser.load(path.resolve().as_uri())
            height = browser.evaluate("document.documentElement.scrollHeight")
            wide = browser.evaluate(_OVERFLOW) or []
            print(f"{page}: {path.stat().st_size / 1e6:.1f} MB, {height} px high at "
                  f"{WIDTH} px wide: {height / HEIGHT:.0f} screens of {HEIGHT} px; "
                  f"{len(wide)} element(s) wider than their column")
            for line in wide:
                print(f"  {line}")
    finally:
        browser.close()


def main(report: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    browser = Browser()
    try:
        for name, page, anchor in SHOTS:
            browser.shot((report / page).resolve().as_uri(), anchor, out / name)
            print(out / name)
    finally:
        browser.close()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--measure":
        measure(Path(sys.argv[2]))
    elif len(sys.argv) in (2, 3):
        main(Path(sys.argv[1]),
             Path(sys.argv[2]) if len(sys.argv) == 3 else Path(__file__).parent)
    else:
        sys.exit(__doc__)
