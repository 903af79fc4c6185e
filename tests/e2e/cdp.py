#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Drive headless Chromium over the DevTools Protocol to check an HTML file.

A small standard-library-only driver for the end-to-end tests of the page that
`gpuprof report` writes: a single self-contained HTML file opened from disk,
which must make no network request and print no console error.

Usage:
  cdp.py [--width 1280] [--height 900] [--timeout 60] [--wait-expr JS]
         [--eval JS | --eval-file FILE] [--screenshot PNG] [--full-page]
         [--max-height 12000] [--pdf PDF] HTML_FILE

It starts Chromium (env GP_CHROMIUM, else chromium, chromium-browser,
google-chrome or google-chrome-stable on PATH) with --remote-debugging-pipe:
the browser reads CDP messages on its fd 3 and writes them on its fd 4, each
message one JSON text followed by a NUL byte. It opens a blank tab, navigates
it to the file:// URL, waits for the load event, polls --wait-expr (default:
`document.body && document.body.dataset.gpState`) until it is truthy or the
timeout passes, evaluates --eval (awaiting a promise), and takes a screenshot
and/or a PDF if asked. Console messages, uncaught exceptions, Log entries
(CSP violations, failed loads), network requests and JavaScript dialogs
(answered at once, so the page never blocks) are collected throughout.

It prints one JSON object on stdout:
  {"url", "state", "waited_ok", "value", "console": [{"type", "text"}],
   "errors": [str], "warnings": [str], "requests": [url],
   "dialogs": [{"type", "message"}], "screenshot": path|null,
   "pdf_bytes": int|null}
"requests" lists every URL the page asked for except its own file and data:
URLs. "errors" holds console error/assert messages, uncaught exceptions, an
exception thrown by --eval and Log entries of level error.

Exit status: 0 the harness worked (even if the page had errors: the caller
decides), 1 harness failure (Chromium died, no reply in time, bad protocol
reply; a message on stderr), 2 usage error, 77 no browser found.

Importable: run(html_path, ...) returns the same dict (raises HarnessError);
find_chromium() returns the browser's path or None.
"""
import argparse
import base64
import errno
import fcntl
import json
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

DEFAULT_WAIT_EXPR = "document.body && document.body.dataset.gpState"
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
LAUNCH_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--remote-debugging-pipe",
    "--hide-scrollbars",
)
POLL_INTERVAL = 0.05  # seconds between two evaluations of the wait expression
CLOSE_GRACE = 5.0     # seconds Chromium gets to exit after Browser.close


class HarnessError(Exception):
    """The harness itself failed (not the page): exit status 1."""


class CDPError(HarnessError):
    """A command got an error reply from the browser."""

    def __init__(self, method, error):
        self.method = method
        self.error = error
        super().__init__(f"{method} failed: {error.get('message', error)}"
                         + (f" ({error['data']})" if error.get("data") else ""))


def find_chromium():
    """Return the path of the Chromium binary to use, or None."""
    env = os.environ.get("GP_CHROMIUM")
    if env:
        return shutil.which(env)
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _high_fd(fd):
    """Move fd to a number >= 10 (close-on-exec) and close the original.

    The trampoline that starts Chromium dup2()s these onto 3 and 4; at 10 or
    above they can never be 3 or 4 themselves, so the two dup2() calls cannot
    clobber each other.
    """
    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return new


# Run as `python -c TRAMPOLINE R W BINARY ARGS...`: put fd R on 3 and W on 4,
# close R and W, exec the browser.
TRAMPOLINE = """import os, sys
r, w = int(sys.argv[1]), int(sys.argv[2])
os.dup2(r, 3)
os.dup2(w, 4)
os.close(r)
os.close(w)
os.execv(sys.argv[3], sys.argv[3:])
"""


class Browser:
    """A Chromium process and its CDP pipe pair."""

    def __init__(self, binary, timeout):
        self.timeout = timeout
        self.tmpdir = tempfile.mkdtemp(prefix="gp-cdp-")
        self.proc = None
        self.rfd = self.wfd = None
        self.buf = bytearray()
        self.scan = 0          # bytes of buf already known to hold no NUL
        self.eof = False
        self.next_id = 0
        self.replies = {}
        self.handlers = []     # callables(msg) for events
        self.stderr_path = os.path.join(self.tmpdir, "chromium.log")
        try:
            self._start(binary)
        except BaseException:
            self.close()
            raise

    # --- process -----------------------------------------------------------
    def _start(self, binary):
        """Spawn Chromium with our pipes on its fd 3 (commands) and fd 4 (replies).

        subprocess can only pass fds under their own numbers (pass_fds);
        dup2-ing onto 3/4 in the parent would disturb whatever the parent has
        there (and is not thread-safe), preexec_fn is unsafe with threads, and
        `sh -c 'exec ... 3<&N 4>&M'` breaks with dash as soon as N or M has two
        digits ("Bad fd number"). So the child ends are moved to fds >= 10,
        passed as they are to a tiny `python3 -I -S -c TRAMPOLINE` that
        dup2()s them onto 3 and 4, closes the originals and execs the browser
        (Debian's /usr/bin/chromium is itself a shell wrapper that execs the
        real binary; fds 3 and 4 survive both execs).
        """
        to_r, to_w = os.pipe()      # we write commands -> browser reads (fd 3)
        from_r, from_w = os.pipe()  # browser writes replies (fd 4) -> we read
        child_r, child_w = _high_fd(to_r), _high_fd(from_w)
        self.wfd, self.rfd = to_w, from_r
        os.set_blocking(self.wfd, False)
        profile = os.path.join(self.tmpdir, "profile")
        args = [binary, *LAUNCH_FLAGS, f"--user-data-dir={profile}"]
        cmd = [sys.executable or "python3", "-I", "-S", "-c", TRAMPOLINE,
               str(child_r), str(child_w), *args]
        try:
            with open(self.stderr_path, "wb") as log:
                self.proc = subprocess.Popen(
                    cmd,
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                    pass_fds=(child_r, child_w), start_new_session=True)
        finally:
            # Our copies of the child's ends must go, or we never see EOF.
            os.close(child_r)
            os.close(child_w)

    def stderr_tail(self, n=2000):
        """The last n bytes of Chromium's stdout/stderr, as text."""
        try:
            with open(self.stderr_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - n))
                return f.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def _died(self, what):
        """Build the HarnessError for a browser that went away."""
        rc = None
        if self.proc:
            try:
                rc = self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        tail = self.stderr_tail()
        return HarnessError(f"chromium {what} (exit status {rc})"
                            + (f"; its output ends with:\n{tail}" if tail else ""))

    def close(self):
        """Ask the browser to close, wait a little, kill it if needed, clean up."""
        try:
            if self.proc and self.proc.poll() is None:
                if not self.eof:
                    try:
                        self._send({"id": self._new_id(), "method": "Browser.close"}, 2.0)
                    except HarnessError:
                        pass
                end = time.monotonic() + CLOSE_GRACE
                while self.proc.poll() is None and time.monotonic() < end:
                    if self.eof:
                        time.sleep(0.05)
                        continue
                    r, _, _ = select.select([self.rfd], [], [], 0.1)
                    if r:
                        self._read_raw()  # drain, so the browser never blocks on us
                if self.proc.poll() is None:
                    self._killpg(signal.SIGKILL)
                    self.proc.wait(timeout=5)
            if self.proc:
                # Renderer/zygote/crashpad children share the process group.
                self._killpg(signal.SIGKILL)
        finally:
            for fd in (self.rfd, self.wfd):
                if fd is not None:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            self.rfd = self.wfd = None
            shutil.rmtree(self.tmpdir, ignore_errors=True)

    def _killpg(self, sig):
        """Send sig to the browser's process group, if any is left."""
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    # --- wire --------------------------------------------------------------
    def _new_id(self):
        """A fresh command id."""
        self.next_id += 1
        return self.next_id

    def _read_raw(self):
        """Read what the pipe holds into the buffer; note EOF."""
        try:
            data = os.read(self.rfd, 1 << 20)
        except BlockingIOError:
            return
        except OSError as e:
            if e.errno in (errno.EINTR, errno.EAGAIN):
                return
            raise self._died(f"pipe read failed: {e}")
        if not data:
            self.eof = True
        else:
            self.buf += data

    def _send(self, msg, timeout=None):
        """Write one NUL-terminated JSON message, reading meanwhile (no dispatch)."""
        data = json.dumps(msg, separators=(",", ":")).encode() + b"\0"
        end = time.monotonic() + (self.timeout if timeout is None else timeout)
        off = 0
        while off < len(data):
            left = end - time.monotonic()
            if left <= 0:
                raise HarnessError(f"timed out writing {msg.get('method')} to chromium")
            rl = [] if self.eof else [self.rfd]
            r, w, _ = select.select(rl, [self.wfd], [], left)
            if r:
                self._read_raw()
            if w:
                try:
                    off += os.write(self.wfd, data[off:off + 65536])
                except BlockingIOError:
                    pass
                except BrokenPipeError:
                    raise self._died(f"went away (writing {msg.get('method')})")

    def _messages(self):
        """Pop every complete message from the buffer, decoded."""
        out = []
        while True:
            i = self.buf.find(b"\0", self.scan)
            if i < 0:
                self.scan = len(self.buf)
                return out
            raw = bytes(self.buf[:i])
            del self.buf[:i + 1]
            self.scan = 0
            try:
                out.append(json.loads(raw))
            except ValueError as e:
                raise HarnessError(f"bad protocol message from chromium ({e}): {raw[:200]!r}")

    def pump(self, end):
        """Wait (until monotonic time end) for input; dispatch whole messages.

        Returns False if nothing arrived before end.
        """
        msgs = self._messages()
        if not msgs:
            if self.eof:
                raise self._died("closed the protocol pipe")
            left = end - time.monotonic()
            if left <= 0:
                return False
            r, _, _ = select.select([self.rfd], [], [], left)
            if not r:
                return False
            self._read_raw()
            msgs = self._messages()
        for m in msgs:
            if not isinstance(m, dict):
                raise HarnessError(f"bad protocol message from chromium: {m!r:.200}")
            if "id" in m:
                self.replies[m["id"]] = m
            elif "method" in m:
                for h in self.handlers:
                    h(m)
        return True

    def send(self, method, params=None, session=None):
        """Send a command without waiting for the reply; return its id."""
        msg = {"id": self._new_id(), "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._send(msg)
        return msg["id"]

    def call(self, method, params=None, session=None, timeout=None):
        """Send a command and wait for its reply; return its result.

        Raises CDPError on an error reply, HarnessError on timeout.
        """
        tmo = self.timeout if timeout is None else timeout
        cid = self.send(method, params, session)
        end = time.monotonic() + tmo
        while cid not in self.replies:
            if not self.pump(end):
                if time.monotonic() >= end:
                    raise HarnessError(f"no reply to {method} within {tmo:g} s")
        reply = self.replies.pop(cid)
        if "error" in reply:
            raise CDPError(method, reply["error"])
        if not isinstance(reply.get("result"), dict):
            raise HarnessError(f"bad reply to {method}: {json.dumps(reply)[:200]}")
        return reply["result"]


def _remote_text(obj):
    """Text for a Runtime.RemoteObject (console argument or exception)."""
    if "value" in obj:
        v = obj["value"]
        return v if isinstance(v, str) else json.dumps(v)
    if "unserializableValue" in obj:
        return obj["unserializableValue"]
    if "description" in obj:
        return obj["description"]
    return obj.get("type", "")


def _exception_text(d):
    """One line for Runtime.ExceptionDetails: text, description and url:line."""
    text = d.get("text", "")
    exc = d.get("exception") or {}
    desc = exc.get("description") or (_remote_text(exc) if exc else "")
    s = f"{text} {desc}".strip() if desc and desc not in text else text
    if d.get("url"):
        s += f" ({d['url']}:{d.get('lineNumber', -1) + 1})"
    return s


def _same_url(a, b):
    """Whether two URLs name the same document (ignoring fragment and quoting)."""
    def norm(u):
        """URL without fragment, percent-decoded."""
        return urllib.parse.unquote(urllib.parse.urldefrag(u)[0])
    return norm(a) == norm(b)


def run(html_path, *, width=1280, height=900, timeout=60, wait_expr=DEFAULT_WAIT_EXPR,
        eval_expr=None, screenshot=None, full_page=False, max_height=12000, pdf=None,
        chromium=None, media=None):
    """Load html_path in headless Chromium and return the result dict (see module doc).

    media "print" lays the page out as it prints (CSS @media print) from the start.

    Raises FileNotFoundError if there is no such file or no browser (chromium=None
    means find_chromium()), HarnessError if the harness fails.
    """
    path = Path(html_path).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {html_path}")
    binary = chromium or find_chromium()
    if not binary:
        raise FileNotFoundError("no chromium")
    url = path.as_uri()
    res = {"url": url, "state": None, "waited_ok": False, "value": None,
           "console": [], "errors": [], "warnings": [], "requests": [],
           "dialogs": [], "screenshot": None, "pdf_bytes": None}
    # committed: our document replaced about:blank in the main frame; only a
    # load event after that counts (never a late one of about:blank).
    state = {"session": None, "committed": False, "loaded": False}

    browser = Browser(binary, timeout)

    def on_event(m):
        """Collect one event of our session (and answer dialogs)."""
        if m.get("sessionId") != state["session"] or state["session"] is None:
            return
        meth, p = m["method"], m.get("params") or {}
        if meth == "Runtime.consoleAPICalled":
            typ = p.get("type", "log")
            text = " ".join(_remote_text(a) for a in p.get("args", []))
            res["console"].append({"type": typ, "text": text})
            if typ in ("error", "assert"):
                res["errors"].append(f"console.{typ}: {text}")
            elif typ == "warning":
                res["warnings"].append(f"console.warn: {text}")
        elif meth == "Runtime.exceptionThrown":
            res["errors"].append("exception: " + _exception_text(p.get("exceptionDetails", {})))
        elif meth == "Log.entryAdded":
            e = p.get("entry", {})
            s = f"log {e.get('level')} [{e.get('source')}]: {e.get('text', '')}"
            if e.get("url"):
                s += f" ({e['url']})"
            if e.get("level") == "error":
                res["errors"].append(s)
            elif e.get("level") == "warning":
                res["warnings"].append(s)
        elif meth == "Network.requestWillBeSent":
            u = (p.get("request") or {}).get("url", "")
            if not u.startswith("data:") and not _same_url(u, url):
                res["requests"].append(u)
        elif meth == "Page.javascriptDialogOpening":
            res["dialogs"].append({"type": p.get("type"), "message": p.get("message")})
            # Answer at once (no waiting for the reply): the page is blocked
            # until we do, and so is any Runtime.evaluate we may be waiting on.
            browser.send("Page.handleJavaScriptDialog", {"accept": True}, state["session"])
        elif meth == "Page.frameNavigated":
            frame = p.get("frame") or {}
            if not frame.get("parentId") and _same_url(frame.get("url", ""), url):
                state["committed"] = True
        elif meth == "Page.loadEventFired":
            state["loaded"] = state["committed"]
        elif meth == "Inspector.targetCrashed":
            raise HarnessError("the page's renderer crashed")

    browser.handlers.append(on_event)
    try:
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        sid = browser.call("Target.attachToTarget",
                           {"targetId": target, "flatten": True})["sessionId"]
        state["session"] = sid
        for m in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable",
                  "Inspector.enable"):
            browser.call(m, session=sid)
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        browser.call("Emulation.setDeviceMetricsOverride", metrics, session=sid)
        if media:
            browser.call("Emulation.setEmulatedMedia", {"media": media}, session=sid)

        nav = browser.call("Page.navigate", {"url": url}, session=sid)
        if nav.get("errorText"):
            raise HarnessError(f"navigation to {url} failed: {nav['errorText']}")
        # One deadline for "page ready": the load event, then the wait expression.
        ready_end = time.monotonic() + timeout
        while not state["loaded"] and time.monotonic() < ready_end:
            browser.pump(ready_end)
        if not state["loaded"]:
            res["warnings"].append(f"harness: no load event within {timeout:g} s")

        while True:
            try:
                r = browser.call("Runtime.evaluate",
                                 {"expression": wait_expr, "returnByValue": True},
                                 session=sid)
                if "exceptionDetails" not in r:
                    res["state"] = r.get("result", {}).get("value")
            except CDPError:
                pass  # e.g. context being replaced: try again
            if res["state"]:
                res["waited_ok"] = True
                break
            if time.monotonic() >= ready_end:
                break
            # Sleep by pumping, so events (dialogs!) are handled meanwhile.
            nap = min(time.monotonic() + POLL_INTERVAL, ready_end)
            while time.monotonic() < nap:
                browser.pump(nap)

        if eval_expr is not None:
            r = browser.call("Runtime.evaluate",
                             {"expression": eval_expr, "returnByValue": True,
                              "awaitPromise": True}, session=sid)
            if "exceptionDetails" in r:
                res["errors"].append("eval: " + _exception_text(r["exceptionDetails"]))
            else:
                res["value"] = r.get("result", {}).get("value")

        if screenshot:
            if full_page:
                lm = browser.call("Page.getLayoutMetrics", session=sid)
                size = lm.get("cssContentSize") or lm.get("contentSize") or {}
                h = min(max(1, math.ceil(size.get("height", height))), max_height)
                browser.call("Emulation.setDeviceMetricsOverride",
                             dict(metrics, height=h), session=sid)
            shot = browser.call("Page.captureScreenshot", {"format": "png"}, session=sid)
            Path(screenshot).write_bytes(base64.b64decode(shot["data"]))
            res["screenshot"] = str(screenshot)

        if pdf:
            out = browser.call("Page.printToPDF", {"printBackground": True}, session=sid)
            data = base64.b64decode(out["data"])
            Path(pdf).write_bytes(data)
            res["pdf_bytes"] = len(data)

        # Let events already on their way (late console messages) arrive.
        browser.pump(time.monotonic() + 0.05)
    except KeyError as e:
        raise HarnessError(f"bad protocol reply: missing {e}")
    finally:
        browser.close()
    return res


def main(argv=None):
    """The command line: print the result as JSON; exit 0, 1, 2 or 77."""
    ap = argparse.ArgumentParser(description="Load an HTML file in headless Chromium over CDP.")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=900)
    ap.add_argument("--timeout", type=float, default=60, help="seconds, for every wait")
    ap.add_argument("--wait-expr", default=DEFAULT_WAIT_EXPR,
                    help="poll this JS expression until truthy (default: %(default)s)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--eval", dest="eval_expr", help="JS expression whose value to return")
    g.add_argument("--eval-file", help="file holding the JS to evaluate")
    ap.add_argument("--screenshot", help="write a PNG here")
    ap.add_argument("--full-page", action="store_true", help="screenshot the whole page")
    ap.add_argument("--max-height", type=int, default=12000, help="cap for --full-page")
    ap.add_argument("--pdf", help="write a PDF here")
    ap.add_argument("html", metavar="HTML_FILE")
    a = ap.parse_args(argv)

    binary = find_chromium()
    if not binary:
        print("skip: no chromium", file=sys.stderr)
        return 77
    if not os.path.isfile(a.html):
        print(f"cdp.py: no such file: {a.html}", file=sys.stderr)
        return 2
    expr = a.eval_expr
    if a.eval_file:
        try:
            expr = Path(a.eval_file).read_text()
        except OSError as e:
            print(f"cdp.py: {e}", file=sys.stderr)
            return 2
    try:
        res = run(a.html, width=a.width, height=a.height, timeout=a.timeout,
                  wait_expr=a.wait_expr, eval_expr=expr, screenshot=a.screenshot,
                  full_page=a.full_page, max_height=a.max_height, pdf=a.pdf,
                  chromium=binary)
    except (HarnessError, OSError) as e:
        print(f"cdp.py: harness failure: {e}", file=sys.stderr)
        return 1
    json.dump(res, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
