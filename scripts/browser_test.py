#!/usr/bin/env python3
"""The inspector (/inspect) and the browser client (/client.js) in a real browser.

    python3 scripts/browser_test.py BIN [--screenshot docs/inspector.png]

BIN is a built `storehouse`. Drives headless Chromium through chromedriver (selenium) against
servers this script starts on free loopback ports: in memory for most checks, with a data
directory in a temporary folder for the restart. Every wait is a WebDriverWait on what the page
shows, never a sleep. `scripts/browser-test.sh` installs Chromium, its driver and selenium and
runs this; API.md "Inspector and browser client" is what it checks.

Exit: 0 = every check passed, 1 = a check failed, 2 = usage or setup error.
"""
import functools
import http.server
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from benchlib import free_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Server:
    """A storehouse process on a loopback port; `restart` keeps the port and the data directory."""

    def __init__(self, binary, data_dir=None):
        self.binary, self.data_dir, self.port, self.process = binary, data_dir, free_port(), None
        self.base = f"http://127.0.0.1:{self.port}"

    def start(self):
        store = ["--data-dir", self.data_dir] if self.data_dir else ["--in-memory"]
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--access-log", "false", "--effect-latency-ms", "200", *store],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"storehouse exited with {self.process.returncode} at start")
            try:
                with urllib.request.urlopen(f"{self.base}/readyz", timeout=1) as answer:
                    if answer.status == 200:
                        return self
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.05)  # polling a process that is starting: there is no event to wait on
        raise RuntimeError("storehouse did not become ready in 20 s")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=20)
        self.process = None

    def restart(self):
        self.stop()
        return self.start()


def api(base, method, path, body=None, token=None, headers=None):
    """One request; returns (status, parsed JSON or text, headers)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers or {})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            status, raw, answer_headers = answer.status, answer.read(), answer.headers
    except urllib.error.HTTPError as error:
        status, raw, answer_headers = error.code, error.read(), error.headers
    text = raw.decode()
    try:
        return status, json.loads(text), answer_headers
    except ValueError:
        return status, text, answer_headers


def create(base, kind):
    status, body, _ = api(base, "POST", "/sessions", {"kind": kind})
    assert status == 201, (status, body)
    return body["id"], body["token"]


def post(base, sid, token, action):
    status, body, _ = api(base, "POST", f"/sessions/{sid}/actions", action, token)
    assert status == 200, (status, body)
    return body["version"]


def state_of(base, sid, token, version=None):
    query = "" if version is None else f"?version={version}"
    status, body, _ = api(base, "GET", f"/sessions/{sid}/state{query}", token=token)
    assert status == 200, (status, body)
    return body


class Page:
    """The inspector in the browser, read the way API.md names its elements."""

    def __init__(self, driver):
        self.d = driver

    def wait(self, condition, timeout=5, message=""):
        return WebDriverWait(self.d, timeout, poll_frequency=0.02).until(lambda d: condition(), message)

    def text(self, selector):
        elements = self.d.find_elements(By.CSS_SELECTOR, selector)
        return elements[0].get_attribute("textContent") if elements else ""

    def open(self, base, sid, token):
        self.d.get(f"{base}/inspect#id={sid}&token={token}")
        self.wait(lambda: self.status() == "live", 10, "the page never went live")

    def status(self):
        return self.text("#status")

    def version(self):
        text = self.text("#version")
        assert text == "" or text.isdigit(), f"#version is not digits only: {text!r}"
        return int(text) if text else -1

    def state(self):
        text = self.text("#state")
        return json.loads(text) if text else None

    def log_versions(self):
        return [int(v) for v in self.d.execute_script(
            "return [...document.querySelectorAll('#log > li')].map(li => li.dataset.version)")]

    def log_items(self):
        return self.d.find_elements(By.CSS_SELECTOR, "#log > li")

    def wait_version(self, version, timeout=5):
        self.wait(lambda: self.version() == version, timeout, f"#version never reached {version} (at {self.version()})")

    def dispatch(self, action_type, payload=""):
        form = self.d.find_element(By.CSS_SELECTOR, "#dispatch")
        Select(form.find_element(By.CSS_SELECTOR, "select[name=type]")).select_by_value(action_type)
        area = form.find_element(By.CSS_SELECTOR, "textarea[name=payload]")
        area.clear()
        if payload:
            area.send_keys(payload)
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()


CHECKS = []


def check(function):
    CHECKS.append(function)
    return function


@check
def home_page_for_browsers_and_json_for_programs(ctx):
    base, page = ctx["base"], ctx["page"]
    status, body, headers = api(base, "GET", "/")
    assert status == 200 and body["name"] == "storehouse" and body["links"]["inspector"] == "/inspect", body
    assert "Accept" in headers.get("Vary", ""), headers
    page.d.get(base + "/")
    cards = page.d.find_elements(By.CSS_SELECTOR, ".kind h3")
    assert [c.text for c in cards] == ["counter", "shop", "tasks", "login"], [c.text for c in cards]
    link = page.d.find_element(By.CSS_SELECTOR, "a[href='/inspect']")
    link.click()
    page.wait(lambda: page.d.find_element(By.CSS_SELECTOR, "#connect").is_displayed(), 5, "no connect form without a session")
    _, _, headers = api(base, "GET", "/inspect")
    policy = headers.get("Content-Security-Policy", "")
    assert "script-src 'self'" in policy and "default-src 'none'" in policy and "unsafe" not in policy, policy
    # A new session from the page's own form: the token lands in the fragment, never the query.
    Select(page.d.find_element(By.CSS_SELECTOR, "#new-form select[name=kind]")).select_by_value("shop")
    page.d.find_element(By.CSS_SELECTOR, "#new-form button").click()
    page.wait(lambda: page.status() == "live", 5, "a session created from the page never went live")
    url = page.d.current_url
    assert "#id=" in url and "token=" in url.split("#", 1)[1] and "?" not in url, url
    assert page.text("#kind") == "shop"
    # A token that is not the session's: the page says why, with the problem's detail.
    sid, _ = create(base, "counter")
    status, problem, _ = api(base, "GET", f"/sessions/{sid}", token="not-its-token")
    assert status == 401, (status, problem)
    page.d.get(f"{base}/inspect#id={sid}&token=not-its-token")
    page.wait(lambda: problem["detail"] in page.text("#connect-error"), 5, "a wrong token's refusal is not shown")
    assert page.status() != "live"
    logs = [entry for entry in page.d.get_log("browser") if "401" not in entry["message"]]
    errors = [entry for entry in logs if entry["level"] == "SEVERE"]
    assert not errors, errors


@check
def counter_live_dispatch_refusal_and_versions(ctx):
    base, page = ctx["base"], ctx["page"]
    sid, token = create(base, "counter")
    page.open(base, sid, token)
    page.wait_version(0)
    assert page.state() == state_of(base, sid, token)["state"]
    assert page.log_versions() == []

    # An action POSTed from elsewhere shows within a second, its touched path marked.
    post(base, sid, token, {"type": "counter/incrTapped"})
    page.wait_version(1, timeout=1)
    page.wait(lambda: page.state()["count"] == 1, 1)
    page.wait(lambda: page.log_versions() == [1], 1)
    assert page.d.find_elements(By.CSS_SELECTOR, "#tree [data-path='/count'].touched"), "the changed path is not marked"
    item = page.log_items()[0].get_attribute("textContent")
    assert "counter/incrTapped" in item and "client" in item and "replace" in item and "/count" in item, item

    # Dispatch from the form: the log grows.
    page.dispatch("counter/incrTapped")
    page.wait_version(2)
    page.wait(lambda: page.log_versions() == [1, 2])
    page.dispatch("primeModal/saveFavoritePrimeTapped")
    page.wait_version(3)
    assert page.state()["favoritePrimes"] == [2]

    # A refusal shows the problem's detail, and changes nothing.
    status, problem, _ = api(base, "POST", f"/sessions/{sid}/actions", {"type": "primeModal/saveFavoritePrimeTapped"}, token)
    assert status == 409, (status, problem)
    page.dispatch("primeModal/saveFavoritePrimeTapped")
    page.wait(lambda: problem["detail"] in page.text("#dispatch-error"), 5, "the refusal's detail is not shown")
    assert page.d.find_element(By.CSS_SELECTOR, "#dispatch-error").is_displayed()
    status, problem, _ = api(base, "POST", f"/sessions/{sid}/actions", {"type": "favoritePrimes/deleteFavoritePrimes", "payload": {"indexes": [7]}}, token)
    assert status == 422, (status, problem)
    page.dispatch("favoritePrimes/deleteFavoritePrimes", '{"indexes": [7]}')
    page.wait(lambda: problem["detail"] in page.text("#dispatch-error"), 5, "the 422's detail is not shown")
    page.dispatch("counter/incrTapped", "{not json")
    page.wait(lambda: "not JSON" in page.text("#dispatch-error"), 5, "a payload that is not JSON is not refused")
    assert page.version() == 3 and page.log_versions() == [1, 2, 3]

    # An older version, read-only: the view stays there while the session moves on.
    travel = page.d.find_element(By.CSS_SELECTOR, "#travel input[name=version]")
    travel.clear()
    travel.send_keys("1")
    page.d.find_element(By.CSS_SELECTOR, "#travel button[type=submit]").click()
    page.wait(lambda: page.state() == state_of(base, sid, token, 1)["state"], 5, "#state is not version 1's")
    assert "read-only" in page.text("#viewing")
    post(base, sid, token, {"type": "counter/decrTapped"})
    page.wait_version(4, timeout=1)
    assert page.state()["count"] == 1, "a past version's view followed the live state"
    page.d.find_element(By.CSS_SELECTOR, "#back-live").click()
    page.wait(lambda: page.state() == state_of(base, sid, token)["state"], 5, "back to live did not show the live state")

    # The diff between two versions.
    form = page.d.find_element(By.CSS_SELECTOR, "#diff")
    for name, value in (("from", "0"), ("to", "3")):
        field = form.find_element(By.CSS_SELECTOR, f"input[name={name}]")
        field.clear()
        field.send_keys(value)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    page.wait(lambda: "/favoritePrimes/0" in page.text("#diff-result"), 5, "the diff does not show the added prime")
    assert "/count" in page.text("#diff-result")

    # A page opened later reads the earlier actions back: oldest first, no gap.
    page.open(base, sid, token)
    page.wait(lambda: page.log_versions() == [1, 2, 3, 4], 5, f"log read back as {page.log_versions()}")
    ctx["counter"] = (sid, token)


@check
def every_kind_loads_and_dispatches(ctx):
    base, page = ctx["base"], ctx["page"]
    samples = {
        "counter": ("counter/incrTapped", ""),
        "shop": ("shop/add", '"apple"'),
        "tasks": ("tasks/add", '{"title": "Write the test"}'),
        "login": ("login/emailChanged", '"ada@example.com"'),
    }
    for kind, (action_type, payload) in samples.items():
        sid, token = create(base, kind)
        page.open(base, sid, token)
        options = [o.get_attribute("value") for o in page.d.find_elements(By.CSS_SELECTOR, "#dispatch select[name=type] option")]
        assert action_type in options, (kind, options)
        page.dispatch(action_type, payload)
        page.wait(lambda: len(page.log_versions()) >= 1, 5, f"{kind}: the log did not grow")
        page.wait(lambda: page.state() == state_of(base, sid, token)["state"], 5, f"{kind}: #state differs from the server's")
    # login's effects feed actions back (source effect) and its outputs appear as they arrive.
    page.wait(lambda: "effect" in page.text("#log"), 5, "no effect action in login's log")
    page.dispatch("login/passwordChanged", '"correct horse battery"')
    page.wait(lambda: page.state()["canLogin"] is True, 5, "login never became possible")
    page.dispatch("login/loginTapped")
    page.wait(lambda: "login/confirmationRequested" in page.text("#outputs"), 5, "the output is not shown")


@check
def a_large_state_is_shown_in_part_and_followed(ctx):
    """2,000 tasks: a large container starts closed; opened, it shows 500 members and says how many more."""
    base, page = ctx["base"], ctx["page"]
    sid, token = create(base, "tasks")
    post(base, sid, token, [{"type": "tasks/add", "payload": {"title": f"task {i}"}} for i in range(2000)])
    page.open(base, sid, token)
    page.wait_version(2000)
    by_id = page.d.find_element(By.CSS_SELECTOR, "#tree details[data-path='/tasks/byId']")
    assert by_id.get_attribute("open") is None, "a 2,000-member object starts open"
    by_id.find_element(By.CSS_SELECTOR, "summary").click()
    page.wait(lambda: page.d.find_elements(By.CSS_SELECTOR, "#tree [data-path='/tasks/byId'] > .children > .more"), 5)
    more = page.d.find_element(By.CSS_SELECTOR, "#tree [data-path='/tasks/byId'] > .children > .more")
    assert "1500 more" in more.text, more.text
    post(base, sid, token, {"type": "tasks/toggleDone", "payload": {"id": 7}})
    page.wait_version(2001, timeout=1)
    page.wait(lambda: page.state()["tasks"]["byId"]["7"]["done"] is True, 1)
    assert page.d.find_elements(By.CSS_SELECTOR, "#tree [data-path='/tasks/byId/7/done'].touched")


@check
def client_module_from_another_origin_as_the_readme_shows(ctx):
    base, page = ctx["base"], ctx["page"]
    readme = open(os.path.join(ROOT, "README.md")).read()
    block = re.search(r"<!-- client-example:begin -->\s*```html\n(.*?)```\s*<!-- client-example:end -->", readme, re.S)
    assert block, "README has no client-example block"
    html = block.group(1).replace("http://127.0.0.1:8080", base)
    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "index.html"), "w") as f:
        f.write(html)
    handler = functools.partial(QuietHandler, directory=folder)
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        page.d.get(f"http://127.0.0.1:{site.server_address[1]}/")
        page.wait(lambda: page.text("#count") == "0", 10, "the README page never showed the count")
        for n in (1, 2, 3):
            page.d.find_element(By.CSS_SELECTOR, "#incr").click()
            page.wait(lambda: page.text("#count") == str(n), 5, f"the README page did not show {n}")
    finally:
        site.shutdown()
        shutil.rmtree(folder, ignore_errors=True)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@check
def client_module_applies_patches_and_refuses_clearly(ctx):
    """connect() keeps a local copy equal to the server's through adds, removes and replaces."""
    base, page = ctx["base"], ctx["page"]
    sid, token = create(base, "tasks")
    page.d.get(f"{base}/inspect")
    result = page.d.execute_async_script("""
        const [base, id, token, done] = arguments;
        (async () => {
          const { connect, applyPatch, diff, StorehouseError } = await import("/client.js");
          const seen = [];
          const store = await connect(base, id, token, (state, event) => { if (event.type === "change") seen.push(event.version); });
          const batch = [];
          for (let i = 1; i <= 6; i++) batch.push({ type: "tasks/add", payload: { title: `task ${i}` } });
          await store.send(batch);
          await store.send([{ type: "tasks/favorite", payload: { id: 2 } }, { type: "tasks/favorite", payload: { id: 5 } },
                            { type: "tasks/rename", payload: { id: 3, title: "renamed" } }, { type: "tasks/toggleDone", payload: { id: 4 } },
                            { type: "tasks/remove", payload: { id: 2 } }, { type: "tasks/remove", payload: { id: 1 } }]);
          let refusal = null;
          try { await store.send({ type: "tasks/remove", payload: { id: 99 } }); } catch (e) { refusal = { name: e.name, status: e.status, detail: e.problem.detail }; }
          while (store.version < 12) await new Promise((r) => setTimeout(r, 10));
          const server = await (await fetch(`${base}/sessions/${id}/state`, { headers: { Authorization: `Bearer ${token}` } })).json();
          store.close();
          let wrongToken = null;
          try { await connect(base, id, "not-the-token"); } catch (e) { wrongToken = { name: e.name, status: e.status }; }
          // RFC 6902 §A.1, §A.4, §A.6, §A.8 and a diff round trip.
          const rfc = [
            applyPatch({ foo: "bar" }, [{ op: "add", path: "/baz", value: "qux" }]),
            applyPatch({ baz: "qux", foo: "bar" }, [{ op: "remove", path: "/baz" }]),
            applyPatch({ foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } }, [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }]),
            applyPatch({ baz: "qux", foo: ["a", 2, "c"] }, [{ op: "test", path: "/baz", value: "qux" }, { op: "test", path: "/foo/1", value: 2 }]),
          ];
          const a = { list: [1, 2, 3], keep: { x: 1 }, gone: true }, b = { list: [1, 5], keep: { x: 1, y: [] }, added: null };
          const roundTrip = applyPatch(JSON.parse(JSON.stringify(a)), diff(a, b));
          return { local: store.state, server: server.state, version: store.version, seen, refusal, wrongToken, rfc, roundTrip, b };
        })().then(done, (e) => done({ error: String(e && e.stack || e) }));
    """, base, sid, token)
    assert "error" not in result, result
    assert result["local"] == result["server"], result
    assert result["version"] == 12 and result["seen"] == list(range(1, 13)), result
    assert result["refusal"] == {"name": "StorehouseError", "status": 422, "detail": result["refusal"]["detail"]} and result["refusal"]["detail"], result
    assert result["wrongToken"] == {"name": "StorehouseError", "status": 401}, result
    assert result["rfc"] == [{"foo": "bar", "baz": "qux"}, {"foo": "bar"},
                             {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}},
                             {"baz": "qux", "foo": ["a", 2, "c"]}], result["rfc"]
    assert result["roundTrip"] == result["b"], result


@check
def resumes_after_a_restart_without_a_gap(ctx):
    page = ctx["page"]
    data = tempfile.mkdtemp(prefix="storehouse-browser-")
    server = Server(ctx["binary"], data_dir=data).start()
    try:
        base = server.base
        sid, token = create(base, "counter")
        for _ in range(2):
            post(base, sid, token, {"type": "counter/incrTapped"})
        page.open(base, sid, token)
        page.wait(lambda: page.log_versions() == [1, 2], 5)
        # A client.js store in the same page follows too: it must resume from its own version.
        page.d.execute_script("""
            import("/client.js").then(async ({ connect }) => {
              window.follower = { versions: [] };
              window.follower.store = await connect(arguments[0], arguments[1], arguments[2], (state, event) => {
                if (event.type === "change") window.follower.versions.push(event.version);
              });
            });""", base, sid, token)
        page.wait(lambda: page.d.execute_script("return !!(window.follower && window.follower.store)"), 5)
        server.stop()
        page.wait(lambda: page.status() != "live", 5, "the page still says live with the server gone")
        server.start()
        # Actions applied before the page is back: it must get them from the replay, not a snapshot.
        for _ in range(3):
            post(base, sid, token, {"type": "counter/incrTapped"})
        page.wait(lambda: page.status() == "live", 15, "the page did not reconnect")
        page.wait_version(5, timeout=5)
        page.wait(lambda: page.log_versions() == [1, 2, 3, 4, 5], 5, f"gap or repeat in the log: {page.log_versions()}")
        assert page.state() == state_of(base, sid, token)["state"]
        page.wait(lambda: page.d.execute_script("return window.follower.versions") == [3, 4, 5], 15,
                  "client.js did not resume with exactly the missed versions")
        post(base, sid, token, {"type": "counter/incrTapped"})
        page.wait_version(6, timeout=1)
        assert page.log_versions() == [1, 2, 3, 4, 5, 6]
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


def screenshot(ctx, path, width=1440, height=1100, dark=False):
    """The page at a laptop's width with a few actions in its log, for docs/ and the README."""
    base, page = ctx["base"], ctx["page"]
    page.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})
    sid, token = create(base, "counter")
    for action in [{"type": "counter/incrTapped"}] * 3 + [{"type": "primeModal/saveFavoritePrimeTapped"}] + \
                  [{"type": "counter/incrTapped"}] * 2 + [{"type": "primeModal/saveFavoritePrimeTapped"},
                                                          {"type": "counter/nthPrimeButtonTapped"}]:
        post(base, sid, token, action)
    page.d.set_window_size(width, height)
    page.open(base, sid, token)
    page.wait(lambda: page.state()["nthPrime"] == 11, 5)
    page.dispatch("counter/incrTapped")
    page.wait_version(10)
    page.dispatch("primeModal/saveFavoritePrimeTapped")
    page.wait(lambda: page.text("#dispatch-error") != "", 5)
    page.d.execute_script("document.activeElement.blur(); document.querySelector('details.raw').open = false;")
    # The touched path's highlight fades in 1.2 s: the picture shows where it settles.
    page.wait(lambda: page.d.execute_script(
        "return document.getAnimations().filter(a => a.effect.getTiming().iterations !== Infinity && a.playState === 'running').length") == 0, 5)
    page.d.save_screenshot(path)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = sys.argv[1]
    shot = sys.argv[sys.argv.index("--screenshot") + 1] if "--screenshot" in sys.argv else None
    only = os.environ.get("ONLY")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,1000", "--force-device-scale-factor=1"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    server = Server(binary).start()
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    ctx = {"base": server.base, "page": Page(driver), "binary": binary}
    failures = 0
    try:
        for function in CHECKS:
            if only and only not in function.__name__:
                continue
            started = time.monotonic()
            try:
                function(ctx)
                print(f"ok   {function.__name__} ({time.monotonic() - started:.1f} s)")
            except (AssertionError, TimeoutException, Exception):
                failures += 1
                print(f"FAIL {function.__name__}")
                traceback.print_exc()
                for entry in driver.get_log("browser"):
                    print("  browser:", entry["level"], entry["message"])
        if shot and not failures:
            screenshot(ctx, shot)
            print(f"screenshot: {shot}")
    finally:
        driver.quit()
        server.stop()
    print(f"browser test: {len(CHECKS) - failures} passed, {failures} failed" if not only else f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
