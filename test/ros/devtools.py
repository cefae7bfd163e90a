# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A tiny DevTools-protocol client: headless Chromium for the web page tests.

Chromium runs with ``--remote-debugging-pipe``: JSON commands and events over two pipes,
NUL-framed, no port and no download. :class:`Browser` starts and drives it;
:class:`Page` loads a URL and waits inside the page, with a MutationObserver bounded by
a timeout, for what a test expects. Shared by the web view, graph and fleet view tests.

A test worker starts one Chromium (the ``chromium`` fixture, test/ros/conftest.py; a start
costs about a second of CPU and the suite has some thirty browser tests); each test gets
a :class:`Window` of it: a browser context of its own (pages, storage, cookies, none
shared with another test) with its own viewport size, disposed at the test's end.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
from typing import Any, Optional
import urllib.error
import urllib.request

from helpers import wait_on
import pytest

TIMEOUT = 20.0
# Not 'chromium-browser': on Ubuntu that is a stub asking for the snap.
BROWSERS = ('chromium', 'google-chrome', 'google-chrome-stable')


# Puts the two pipe ends on fds 3 and 4 (what --remote-debugging-pipe uses), then execs
# the browser: subprocess cannot choose fd numbers, and preexec_fn is unsafe with threads.
TRAMPOLINE = ('import fcntl, os, sys\n'
              'r = fcntl.fcntl(int(sys.argv[1]), fcntl.F_DUPFD, 10)\n'
              'w = fcntl.fcntl(int(sys.argv[2]), fcntl.F_DUPFD, 10)\n'
              'os.dup2(r, 3)\n'
              'os.dup2(w, 4)\n'
              'os.close(r)\n'
              'os.close(w)\n'
              'os.execvp(sys.argv[3], sys.argv[3:])\n')

# Resolves with the value of CONDITION once it is truthy: checked now and after every DOM
# change, rejected after MS milliseconds.
WAIT_SCRIPT = """
new Promise((resolve, reject) => {
  const test = () => { try { return (CONDITION); } catch (error) { return false; } };
  let observer = null;
  const timer = setTimeout(() => {
    if (observer) observer.disconnect();
    reject(new Error('timed out after MS ms waiting for: ' + DESCRIPTION));
  }, MS);
  const check = () => {
    const value = test();
    if (!value) return false;
    clearTimeout(timer);
    if (observer) observer.disconnect();
    resolve(value);
    return true;
  };
  if (!check()) {
    observer = new MutationObserver(check);
    observer.observe(document, {subtree: true, childList: true, attributes: true,
                                characterData: true});
  }
})
"""

# What the tests read from the page.
PAGE_STATE = """({
  tree: document.getElementById('tree-name').textContent,
  revision: document.getElementById('revision').textContent,
  ticks: document.getElementById('tick-count').textContent,
  connection: document.body.dataset.connection || '',
  html: document.documentElement.outerHTML,
})"""


# The rendered text (innerText leaves out what is hidden) and the SVG labels on screen.
VISIBLE_TEXT = """(() => [document.title, document.body.innerText,
  ...[...document.querySelectorAll('svg text')].filter((t) => t.getClientRects().length)
    .map((t) => t.textContent)].join('\\n'))()"""


def machine_paths(*extra: os.PathLike) -> list[str]:
    """Return the folders of this machine that must not show in a page or a screenshot."""
    import tempfile
    root = pathlib.Path(__file__).resolve().parents[2]  # the checkout, and where it is
    found = {str(root), str(root.parent), str(pathlib.Path.home()), os.getcwd(),
             tempfile.gettempdir(), *map(str, extra)}
    return sorted(path for path in found if len(path) > 1)


def shown_paths(text: str, *extra: os.PathLike) -> list[str]:
    """Return the folders of this machine written in ``text``.

    Only as paths, not inside a word: ``Main/root/x`` is a node id, not the folder
    ``/root``.
    """
    import re
    return [path for path in machine_paths(*extra)
            if re.search(r'(?<![\w./~-])' + re.escape(path) + r'(?![\w.-])', text)]


def assert_no_machine_paths(page: 'Page', *extra: os.PathLike) -> None:
    """Assert that no folder of this machine is in the page's visible text."""
    shown = shown_paths(page.visible_text(), *extra)
    assert not shown, f'the page shows folders of this machine: {shown}'


def find_browser() -> Optional[str]:
    """Return the Chromium executable (``$BT_EXECUTIVE_CHROMIUM`` or on PATH), or None."""
    configured = os.environ.get('BT_EXECUTIVE_CHROMIUM')
    if configured:
        found = shutil.which(configured)
        if found is None:
            pytest.skip(f'BT_EXECUTIVE_CHROMIUM={configured} is not an executable')
        return found
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """Headless Chromium driven over ``--remote-debugging-pipe`` (JSON + NUL framing)."""

    def __init__(self, executable: str, directory: pathlib.Path, *,
                 width: int = 1280, height: int = 900) -> None:
        self.profile = tempfile.mkdtemp(prefix='chromium-', dir=directory)
        self.stderr_path = directory / 'chromium.stderr'
        to_browser, self._to_browser = os.pipe()
        self._from_browser, from_browser = os.pipe()
        args = [executable, '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
                '--no-first-run', '--no-default-browser-check', '--disable-background-networking',
                '--disable-component-update', '--disable-sync', '--disable-extensions',
                '--disable-default-apps', '--disable-domain-reliability', '--mute-audio',
                '--disable-dev-shm-usage', '--hide-scrollbars', '--metrics-recording-only',
                '--disable-features=Translate,MediaRouter,OptimizationHints',
                f'--user-data-dir={self.profile}', f'--window-size={width},{height}',
                '--remote-debugging-pipe', 'about:blank']
        with open(self.stderr_path, 'wb') as stderr:
            self.process = subprocess.Popen(
                [sys.executable, '-c', TRAMPOLINE, str(to_browser), str(from_browser), *args],
                pass_fds=(to_browser, from_browser), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=stderr)
        os.close(to_browser)
        os.close(from_browser)
        self.width, self.height = width, height
        self._next_id = 0
        self._lock = threading.Lock()
        self._replies: dict[int, Any] = {}
        self._waiting: dict[int, threading.Event] = {}
        self._events: list[dict[str, Any]] = []
        self._event_changed = threading.Condition(self._lock)
        self._closed = False
        self._reader = threading.Thread(target=self._read, name='chromium-pipe', daemon=True)
        self._reader.start()

    def _read(self) -> None:
        buffer = b''
        while True:
            try:
                data = os.read(self._from_browser, 1 << 16)
            except OSError:
                data = b''
            if not data:
                break
            buffer += data
            while b'\0' in buffer:
                raw, buffer = buffer.split(b'\0', 1)
                message = json.loads(raw)
                with self._lock:
                    if 'id' in message:
                        self._replies[message['id']] = message
                        waiter = self._waiting.pop(message['id'], None)
                        if waiter is not None:
                            waiter.set()
                    else:
                        self._events.append(message)
                        self._event_changed.notify_all()
        with self._lock:
            self._closed = True
            for waiter in self._waiting.values():
                waiter.set()
            self._event_changed.notify_all()

    def stderr_text(self) -> str:
        return self.stderr_path.read_text(encoding='utf-8', errors='replace')[-3000:]

    def send(self, method: str, params: Optional[dict[str, Any]] = None, *,
             session: Optional[str] = None, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Send a command and wait for its reply (bounded); return its result."""
        with self._lock:
            if self._closed:
                raise AssertionError(f'Chromium has exited; stderr:\n{self.stderr_text()}')
            self._next_id += 1
            ident = self._next_id
            done = self._waiting[ident] = threading.Event()
        message = {'id': ident, 'method': method, 'params': params or {}}
        if session is not None:
            message['sessionId'] = session
        os.write(self._to_browser, json.dumps(message).encode('utf-8') + b'\0')
        if not done.wait(timeout):
            raise AssertionError(f'timed out after {timeout}s waiting for Chromium to answer '
                                 f'{method}')
        with self._lock:
            reply = self._replies.pop(ident, None)
        if reply is None:
            raise AssertionError(f'Chromium exited during {method}; stderr:\n'
                                 f'{self.stderr_text()}')
        if 'error' in reply:
            raise AssertionError(f'{method} failed: {reply["error"]}')
        return reply['result']

    def wait_event(self, method: str, session: str, *, timeout: float = TIMEOUT) -> None:
        """Wait for a protocol event of ``session`` (consuming the events up to it)."""
        def find() -> Optional[bool]:
            for index, event in enumerate(self._events):
                if event.get('method') == method and event.get('sessionId') == session:
                    del self._events[:index + 1]
                    return True
            assert not self._closed, f'Chromium closed before {method}'
            return None

        wait_on(self._event_changed, find, timeout,
                lambda: f'no {method} from Chromium within {timeout}s')

    def open_page(self, url: str, *, context: Optional[str] = None,
                  size: Optional[tuple[int, int]] = None) -> 'Page':
        """Open ``url`` in a new tab (of browser ``context``) and wait until it has loaded."""
        target = self.send('Target.createTarget', {
            'url': 'about:blank', **({'browserContextId': context} if context else {})
        })['targetId']
        session = self.send('Target.attachToTarget',
                            {'targetId': target, 'flatten': True})['sessionId']
        page = Page(self, session)
        width, height = size or (self.width, self.height)
        page.send('Emulation.setDeviceMetricsOverride',
                  {'width': width, 'height': height, 'deviceScaleFactor': 1,
                   'mobile': False})
        page.send('Page.enable')
        page.send('Page.navigate', {'url': url})
        self.wait_event('Page.loadEventFired', session)
        return page

    def running(self) -> bool:
        """Return whether the browser still runs and answers on its pipe."""
        with self._lock:
            return not self._closed and self.process.poll() is None

    def forget(self, sessions: set[str]) -> None:
        """Drop the events of ``sessions`` (pages closed) that no test consumed."""
        with self._lock:
            self._events[:] = [event for event in self._events
                               if event.get('sessionId') not in sessions]

    def close(self) -> None:
        """Close the browser (kill it if it does not exit) and release the pipes."""
        try:
            if self.process.poll() is None:
                self.send('Browser.close', timeout=5.0)
        except AssertionError:
            pass
        try:
            self.process.wait(10.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5.0)
        os.close(self._to_browser)
        self._reader.join(5.0)
        os.close(self._from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)


class Window:
    """A test's own browser context in a shared :class:`Browser`, with its viewport size.

    Opens pages as :meth:`Browser.open_page` does; :meth:`close` disposes the context and
    every page in it.
    """

    def __init__(self, browser: Browser, *, width: int = 1280, height: int = 900) -> None:
        self.browser = browser
        self.width, self.height = width, height
        self.context = browser.send('Target.createBrowserContext')['browserContextId']
        self.sessions: set[str] = set()

    def open_page(self, url: str) -> 'Page':
        """Open ``url`` in a new tab of this window and wait until it has loaded."""
        page = self.browser.open_page(url, context=self.context,
                                      size=(self.width, self.height))
        self.sessions.add(page.session)
        return page

    def close(self) -> None:
        """Dispose the context (its pages close) and drop their leftover events."""
        try:
            if self.browser.running():
                self.browser.send('Target.disposeBrowserContext',
                                  {'browserContextId': self.context}, timeout=10.0)
        finally:
            self.browser.forget(self.sessions)


class Page:
    """One tab of a :class:`Browser`."""

    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session

    def send(self, method: str, params: Optional[dict[str, Any]] = None,
             timeout: float = TIMEOUT) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session, timeout=timeout)

    def evaluate(self, expression: str, timeout: float = TIMEOUT) -> Any:
        """Run JavaScript in the page (awaiting a promise); return its value."""
        result = self.send('Runtime.evaluate', {'expression': expression, 'awaitPromise': True,
                                                'returnByValue': True}, timeout=timeout + 5.0)
        if 'exceptionDetails' in result:
            details = result['exceptionDetails']
            text = details.get('exception', {}).get('description') or details.get('text')
            raise AssertionError(f'in the page: {text}')
        return result['result'].get('value')

    def wait_until(self, condition: str, description: str, timeout: float = TIMEOUT) -> Any:
        """Wait until the JavaScript ``condition`` is truthy in the page (DOM-change driven)."""
        script = (WAIT_SCRIPT.replace('CONDITION', condition)
                  .replace('DESCRIPTION', json.dumps(description))
                  .replace('MS', str(int(timeout * 1000))))
        return self.evaluate(script, timeout=timeout)

    def state(self) -> dict[str, Any]:
        """Return the header values and the whole DOM (outerHTML)."""
        return self.evaluate(PAGE_STATE)

    def screenshot(self, path: os.PathLike) -> None:
        """Save a PNG of the viewport."""
        import base64
        data = self.send('Page.captureScreenshot', {'format': 'png'})['data']
        pathlib.Path(path).write_bytes(base64.b64decode(data))

    def resize(self, width: int, height: int) -> None:
        """Give the page a viewport of ``width`` x ``height`` (a window resize for it)."""
        self.send('Emulation.setDeviceMetricsOverride',
                  {'width': width, 'height': height, 'deviceScaleFactor': 1, 'mobile': False})
        self.evaluate(f'new Promise((resolve) => {{ const check = () => '
                      f'(innerWidth === {width} && innerHeight === {height}) ? resolve(true) '
                      f': requestAnimationFrame(check); check(); }})')

    def visible_text(self) -> str:
        """Return the text a reader sees: the page's rendered text and the graph's labels."""
        return self.evaluate(VISIBLE_TEXT)


def get(url: str, timeout: float = 5.0) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()
