"""The report in a real headless Chromium (Debian's chromium + chromedriver through Selenium): overview ->
filtered table -> trajectory page, hostile text rendered inert, nothing fetched but the report's files.

A screenshot of each page kind is saved in $ECOT_REPORT_SCREENSHOTS when set, else in pytest's temporary
folder (report-screenshots0 under the run's basetemp, e.g. /tmp/pytest-of-$USER/pytest-current/).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ecot.report import ReportOptions, build_report
from ecot.report.browser import full_page_screenshot, headless_chromium, requested_urls, unavailable
from report_fixtures import HOSTILE_TASK, XSS, build_store, write_bench, write_fidelity

pytestmark = [pytest.mark.browser, pytest.mark.skipif(unavailable() is not None, reason=f"no headless Chromium: {unavailable()}")]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    folder = tmp_path_factory.mktemp("browser")
    ids = build_store(folder / "ecot.db")
    write_fidelity(folder / "icwm" / "report")
    write_bench(folder / "bench" / "smol")
    build_report(ReportOptions(store=folder / "ecot.db", out=folder / "report"))
    return folder / "report", ids


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("ECOT_REPORT_SCREENSHOTS")
    folder = Path(given) if given else tmp_path_factory.mktemp("report-screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with headless_chromium() as driver:
        yield driver


def wait_for(driver: Any, condition: Any) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, 10).until(lambda d: condition(d))


def shown_rows(driver: Any) -> list[list[str]]:
    from selenium.webdriver.common.by import By

    return [[td.text for td in tr.find_elements(By.TAG_NAME, "td")] for tr in driver.find_elements(By.CSS_SELECTOR, "#rows tr")]


def only_local_requests(driver: Any) -> None:
    """The report's pages asked for files of the report and nothing else."""
    ours = [url for url, document in requested_urls(driver) if document.startswith("file://")]
    assert ours and not [url for url in ours if not url.startswith("file://")], ours
    assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_overview_to_filtered_table_to_trajectory(browser: Any, report: tuple[Path, dict[str, int]], shots: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    out, ids = report
    browser.get((out / "index.html").as_uri())
    assert browser.title == "Overview · ecot report"
    assert browser.find_element(By.ID, "count-trajectories").text == "8"
    assert [r.text.split()[:4] for r in browser.find_elements(By.CSS_SELECTOR, "#domain-table tbody tr")][1] == ["rtl", "3", "1", "33.3%"]
    full_page_screenshot(browser, str(shots / "overview.png"))
    browser.find_element(By.LINK_TEXT, "rtl").click()

    wait_for(browser, lambda d: d.find_element(By.ID, "match-count").text == "4")
    assert browser.current_url.endswith("trajectories.html#domain=rtl")
    assert Select(browser.find_element(By.ID, "f-domain")).first_selected_option.text == "rtl"
    assert {row[2] for row in shown_rows(browser)} == {"rtl"}
    Select(browser.find_element(By.ID, "f-label")).select_by_visible_text("Syntax_Error")
    wait_for(browser, lambda d: d.find_element(By.ID, "match-count").text == "2")  # rtl/counter and the pending one
    search = browser.find_element(By.ID, "f-text")
    search.send_keys("counter")
    wait_for(browser, lambda d: d.find_element(By.ID, "match-count").text == "1")
    assert [row[1] for row in shown_rows(browser)] == ["rtl/counter"]
    assert "domain=rtl" in browser.current_url and "q=counter" in browser.current_url
    assert float(browser.find_element(By.ID, "trajectory-table").get_attribute("data-filter-ms")) < 200
    full_page_screenshot(browser, str(shots / "table.png"))
    browser.find_element(By.LINK_TEXT, "rtl/counter").click()

    wait_for(browser, lambda d: d.current_url.endswith(f"t/{ids['failed']}.html"))
    assert browser.find_element(By.ID, "title").text.startswith("rtl/counter")
    verdicts = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".verdict h3")]
    assert verdicts == ["Verdict: Syntax_Error"] * 3
    assert browser.find_element(By.CSS_SELECTOR, "#turn-1 pre.diff").text.splitlines()[:2] == ["--- attempt 1", "+++ attempt 2"]
    assert "the final turn did not pass (Syntax_Error)" in browser.find_element(By.ID, "no-sample").text
    full_page_screenshot(browser, str(shots / "trajectory.png"))
    only_local_requests(browser)


def test_hostile_text_renders_inert(browser: Any, report: tuple[Path, dict[str, int]], shots: Path) -> None:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    out, ids = report
    browser.get((out / "t" / f"{ids['hostile']}.html").as_uri())
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert  # noqa: B018 - raises when no alert() ran
    assert browser.title == f"{HOSTILE_TASK} #0 · ecot report"  # not 'pwned'
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert browser.execute_script("return document.images.length") == 0  # the <img onerror> stayed text
    code = browser.find_element(By.CSS_SELECTOR, "#turn-0 pre.code").get_attribute("textContent")
    assert XSS in code and "onerror=" in code
    assert "<img src=x" in browser.find_element(By.CSS_SELECTOR, "#turn-0 .diagnostic").text
    assert XSS in browser.find_element(By.ID, "title").text
    full_page_screenshot(browser, str(shots / "hostile-trajectory.png"))

    browser.get((out / "trajectories.html").as_uri() + "#q=alert")
    wait_for(browser, lambda d: d.find_element(By.ID, "match-count").text == "1")
    assert shown_rows(browser)[0][1] == HOSTILE_TASK
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert  # noqa: B018
    only_local_requests(browser)


def test_fidelity_and_benchmark_pages(browser: Any, report: tuple[Path, dict[str, int]], shots: Path) -> None:
    from selenium.webdriver.common.by import By

    out, _ = report
    browser.get((out / "index.html").as_uri())
    browser.find_element(By.LINK_TEXT, "World model 1").click()
    wait_for(browser, lambda d: d.current_url.endswith("fidelity-1.html"))
    cells = browser.find_element(By.CSS_SELECTOR, "#fidelity-domains tbody tr").text.split()
    assert cells[:3] == ["rtl", "4", "75.0%"]
    full_page_screenshot(browser, str(shots / "fidelity.png"))
    browser.find_element(By.LINK_TEXT, "Benchmark 1").click()
    wait_for(browser, lambda d: d.current_url.endswith("bench-1.html"))
    assert "pass@5" in browser.find_element(By.TAG_NAME, "main").text
    full_page_screenshot(browser, str(shots / "benchmark.png"))
    only_local_requests(browser)
